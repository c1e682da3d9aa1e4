"""Run a scenario under one of the three runtimes and gather its results.

    inline   one process, no Ray, as fast as possible (tests, sweeps, reproductions)
    stepped  one Ray actor per workstation, conservative windows: identical to inline
    paced    one Ray actor per workstation (or the participants spread over `actors` Ray actors), virtual time =
             wall time x speed, each actor on its own
"""
from __future__ import annotations

import gc
import time
from contextlib import contextmanager

import emu
from emu.engine import cluster, results
from emu.engine.inline import run_inline
from emu.engine.stall import StallWatch
from emu.inputs.scenario import ScenarioError


def run(scenario: dict, runtime: str | None = None, speed: float | None = None, address: str | None = None,
        progress=None, log=None, actors: int | None = None) -> dict:
    """Run `scenario`; `progress(vnow, finished, snapshots)` is called a few times a second, `log(line)` with
    news worth a line (Ray startup); `actors`: how many Ray actors host the participants (paced)."""
    runtime = runtime or scenario["runtime"]
    if actors is not None and runtime == "inline":
        raise ScenarioError("actors: the inline runtime runs every participant in this process; --actors is for "
                            "the paced runtime")
    speed = speed or scenario["speed"]
    with collector_paused(runtime == "inline"):
        return _run(scenario, runtime, speed, address, progress, log, actors)


@contextmanager
def collector_paused(pause: bool):
    """Python's cyclic garbage collector off for an inline run: the model makes no cyclic garbage as it runs, so
    the collections it would start while the workload and the results are built and the events run are pure cost
    (commit b5ed3a3 measures both). Nor does the live view (tests/test_view.py: drawing frames leaves nothing
    for the collector), so a watched run pauses it too; with it on, collections were most of what watching cost
    (the commit that paused it measures both)."""
    was = gc.isenabled()
    if pause:
        gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _run(scenario: dict, runtime: str, speed: float, address, progress, log, actors) -> dict:
    bps = cluster.blueprints(scenario)
    total = sum(len(bp.get("arrivals", ())) for bp in bps)
    wall = time.perf_counter()
    extra = {"runtime": runtime, "version": emu.__version__}
    if runtime == "inline":
        parts, heap, _ = cluster.in_process(bps)
        watch = StallWatch(scenario["stop"])
        end = run_inline(parts, heap, total, scenario["stop"], cluster.lookahead(scenario), progress, watch)
        if watch.at is not None:
            extra["stalled"] = watch.report()
        finals = [p.final() for p in parts.values()]
        for p in parts.values():    # recorded in finals; held by the participants' cycles, they would wait for
            p.finished.clear()      # a collection that walks every one (a tenth of an M/M/1 run's time)
    else:
        from emu.engine import ray_runtime
        finals, end, info = ray_runtime.run(runtime, scenario, bps, total, speed, address, progress, log, actors)
        extra.update(info)
    extra["wall_time"] = time.perf_counter() - wall
    result = results.assemble(finals, scenario, end, extra, results.lost_jobs(bps, finals, end))
    if runtime == "paced":
        result["summary"]["warnings"] = ray_runtime.paced_warnings(result["summary"])
    return result

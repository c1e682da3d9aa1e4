"""`nowemu bench`, section 6: a long paced run's memory.

The 64-workstation paced configuration of section 2 (two Ray actors, 20x) runs for `wall` seconds of wall time
while a thread of the driver reads the resident memory (RSS, /proc) of the driver, the `Board` and each `Host`
every SAMPLE_EVERY seconds. A run's participants keep what its results are made of (each node's load samples,
finished jobs, events, every event's lateness), so their memory must grow, but by that and no more. What the
results hold is measured apart: the same scenario over the same virtual time under the inline runtime, one
process, no Ray, its allocations traced (tracemalloc) from the moment the participants exist to the run's
end. The hosts' growth per virtual second over the inline growth per virtual second is the figure: at most
GROWTH_AIM means flat apart from the results. The driver and the Board hold no results until the end.
"""
from __future__ import annotations

import gc
import os
import threading
import time
import tracemalloc

from emu.tools.bench_paced import AIMS, paced_scenario

MEMORY_RUN = max(AIMS)           # workstations, Ray actors, speed: issue 21's 64-workstation aim
SAMPLE_EVERY = 10.0              # wall seconds between readings
GROWTH_AIM = 1.25                # hosts' RSS growth over the results' own (allocator and page slack)
STILL_MB = 10.0                  # the driver's and the Board's change while the run runs, at most


def _rss_mb(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status") as fh:
            return next(int(line.split()[1]) / 1024 for line in fh if line.startswith("VmRSS"))
    except (OSError, StopIteration):
        return None


def _ray_processes() -> dict[str, list[int]]:
    """The running paced hosts and the board, by their process titles (Ray names a worker by its task)."""
    found: dict[str, list[int]] = {"host": [], "board": []}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline") as fh:
                title = fh.read().split("\0")[0]
        except OSError:
            continue
        if title.startswith("ray::Host.run_paced"):
            found["host"].append(int(pid))
        elif title.startswith("ray::Board"):
            found["board"].append(int(pid))
    return found


def _inline_growth(s: dict) -> tuple[float, float]:
    """The bytes the model's participants gain over the run (traced), and the virtual time it spans."""
    from emu.engine import cluster
    from emu.engine.inline import run_inline
    bps = cluster.blueprints(s)
    tracemalloc.start()
    try:
        parts, heap, total = cluster.in_process(bps)
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        end = run_inline(parts, heap, total, s["stop"], cluster.lookahead(s), None)
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before, end
    finally:
        tracemalloc.stop()


def bench_memory(wall: float, log) -> dict:
    from emu.engine.run import run
    nodes, actors, speed = MEMORY_RUN
    s, params = paced_scenario(nodes, speed, wall, ("load_index.stagger=false",))
    if not os.path.isdir("/proc/self"):
        return {"wall": wall, "error": "needs /proc (Linux) to read processes' memory"}
    readings, stop = [], threading.Event()

    t0 = time.perf_counter()

    def sample():
        while not stop.wait(SAMPLE_EVERY):
            found = _ray_processes()
            hosts = [_rss_mb(p) for p in found["host"]]
            readings.append({"t": time.perf_counter() - t0, "driver": _rss_mb(os.getpid()),
                             "board": sum(filter(None, (_rss_mb(p) for p in found["board"]))),
                             "hosts": sum(filter(None, hosts)), "n_hosts": len(hosts)})

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        su = run(s, runtime="paced", speed=speed, actors=actors)["summary"]
    finally:
        stop.set()
        thread.join()
    log(f"memory: paced run of {wall:g} s wall done; tracing the same run inline")
    traced, span = _inline_growth(s)
    full = [r for r in readings if r["n_hosts"] == actors]
    first, last = full[0], full[-1]
    virtual = speed * (last["t"] - first["t"])              # the paced clock: virtual = speed x wall
    paced = (last["hosts"] - first["hosts"]) * 2**20 / virtual
    results = traced / span
    out = {"wall": wall, "nodes": nodes, "actors": actors, "speed": speed, "readings": full,
           "virtual": su["paced"]["virtual_time"], "jobs_done": su["metrics"]["jobs_done"], **params,
           "paced_per_s": paced, "results_per_s": results, "ratio": paced / results,
           "driver_growth": last["driver"] - first["driver"], "board_growth": last["board"] - first["board"],
           "error": None}
    log(f"memory: hosts grow {paced / 1024:.1f} KB per virtual s, the results {results / 1024:.1f} KB "
        f"(ratio {out['ratio']:.2f})")
    return out


def render(m: dict) -> list[str]:
    L = ["## 6. Memory over a long paced run", ""]
    if m.get("error"):
        return L + [f"Not measured: {m['error']}.", ""]
    L += [f"{m['nodes']} workstations on {m['actors']} Ray actors at {m['speed']:g}x for {m['wall']:g} s of "
          f"wall time ({m['virtual']:,.0f} virtual s, {m['jobs_done']:,} jobs done; the quick start's load per "
          f"workstation). Resident memory (RSS) every {SAMPLE_EVERY:g} s once every host runs:", "",
          "| wall (s) | driver (MB) | Board (MB) | hosts together (MB) |", "|--:|--:|--:|--:|"]
    every = max(1, round(60 / SAMPLE_EVERY))
    shown = m["readings"][::every] + ([m["readings"][-1]] if (len(m["readings"]) - 1) % every else [])
    L += [f"| {r['t']:.0f} | {r['driver']:.1f} | {r['board']:.1f} | {r['hosts']:.1f} |" for r in shown]
    met = "met" if m["ratio"] <= GROWTH_AIM and max(abs(m["driver_growth"]), abs(m["board_growth"])) <= STILL_MB \
        else "**not met**"
    L += ["", f"The hosts grow {m['paced_per_s'] / 1024:.1f} KB per virtual second; the same run's results, traced "
          f"under the inline runtime (one process, no Ray), {m['results_per_s'] / 1024:.1f} KB: a ratio of "
          f"{m['ratio']:.2f}. The driver changed by {m['driver_growth']:+.1f} MB and the Board by "
          f"{m['board_growth']:+.1f} MB while it ran.", "",
          f"Aim (issue 24): memory flat apart from what the results hold: the hosts' growth at most {GROWTH_AIM:g}x "
          f"the results', the driver and the Board within {STILL_MB:g} MB: {met}.", ""]
    return L

"""The runs of a sweep (and of `nowemu reproduce`): each one a Ray task (`num_cpus=1`) that runs its scenario
and writes its own results folder (`run_one`), at most `parallel` at once (`execute`). A run that raises, or
whose accounting does not balance, comes back as a failed run with a one-line error, and the others still
complete. With `--resume`, a run that an earlier sweep into the same folder finished is read back instead of run
again (`finished`: the same scenario, as far as it decides the run, and the same runtime).
"""
from __future__ import annotations

import itertools
import json
from pathlib import Path

from emu.engine import results, stall
from emu.engine.ray_runtime import paced_warnings
from emu.engine.run import run
from emu.inputs import schema
from emu.inputs.checks import check_policy
from emu.inputs.errors import ScenarioError


def one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


def check_error(summary: dict) -> str | None:
    """Why a finished run does not count (its accounting did not balance, or it stalled), or None."""
    if "stalled" in summary:
        return stall.line(summary["stalled"])
    return None if summary["checks"]["jobs_accounted"] else "check jobs_accounted failed"



def run_one(config: dict, runtime: str, out: str, samples: bool = True) -> dict:
    """One run of a sweep (the body of its Ray task): run, write the results folder (nodes.csv only with
    `samples`), and return its metrics (all of summary.json's: `nowemu reproduce` reads more than the sweep
    table) and wall time. Errors come back as a one-line `error`, so that one failed run does not end the sweep."""
    try:
        result = run(config, runtime)
        results.write(result, Path(out), compress_samples=True, samples=samples)   # hundreds of runs: they add up
    except Exception as exc:
        return {"error": one_line(exc), "metrics": None}
    return outcome(result["summary"])


def outcome(summary: dict) -> dict:
    """What a sweep keeps of a finished run: its error (if its accounting failed), metrics and wall time, and a
    paced run's warnings that it was not faithful (`emu.engine.ray_runtime.paced_warnings`)."""
    metrics = summary["metrics"]
    if "coscheduling" in summary:               # paper 001's own metrics (emu.engine.coscheduling)
        metrics = {**metrics, "coscheduling": summary["coscheduling"]}
    return {"error": check_error(summary), "metrics": metrics, "wall": summary.get("wall_time"),
            "unfaithful": paced_warnings(summary) if "paced" in summary else []}


def finished(r: dict, out: Path) -> dict | None:
    """The outcome of a run that an earlier sweep into `out` already finished, or None: its folder holds a
    summary.json of the same scenario (every field but the file's path and those the run does not read, see
    `_decisive`; a field added to the schema since, at its default, does not count) and runtime. What is
    compared is the scenario, not the code: after a change to the emulator that alters results, start a new
    folder."""
    try:
        summary = json.loads((out / r["dir"] / "summary.json").read_text())
    except (OSError, ValueError):
        return None
    now = _decisive(json.loads(json.dumps(results.json_safe({**r["config"], "file": None}))))
    default = json.loads(json.dumps(results.json_safe(_policy_defaults(schema.defaults(), r["config"]))))
    stored = _decisive({**summary.get("config", {}), "file": None})
    if summary.get("runtime") != r["runtime"] or not _same(stored, now, default):
        return None
    return outcome(summary)


def _policy_defaults(default: dict, config: dict) -> dict:
    """The schema's defaults with those of the run's policies' parameters (their PARAMS), which the schema, naming
    no policy, does not hold: a parameter added to a policy since a run, at its default, is a field added since."""
    default = {**default, "policy": check_policy("", {"name": config["policy"]["name"]})}
    insertion = config["cpu"].get("insertion")
    if isinstance(insertion, dict) and "name" in insertion:
        default["cpu"] = {**default["cpu"], "insertion": check_policy("", {"name": insertion["name"]}, "cpu.insertion",
                                                                      "INSERTION")}
    return default


def _decisive(config: dict) -> dict:
    """The scenario as far as it decides the run. With no owners (`owner.activity = "none"`) no other owner
    field is read, so none of them counts: a default changed for paper 004's owners does not make paper 002's
    finished runs other scenarios."""
    owner = config.get("owner")
    if isinstance(owner, dict) and owner.get("activity") == "none":
        return {**config, "owner": {"activity": "none"}}
    return config


def _same(stored, now, default) -> bool:
    """Whether a finished run's scenario is this one: equal, but for fields added to the schema since it ran,
    which must hold their defaults here (a new field's default is the behaviour from before it)."""
    if isinstance(stored, dict) and isinstance(now, dict):
        default = default if isinstance(default, dict) else {}
        return stored.keys() <= now.keys() and all(
            _same(stored[k], v, default.get(k)) if k in stored else k in default and _default(v, default[k])
            for k, v in now.items())
    if isinstance(stored, list) and isinstance(now, list):     # a list of tables: `default` is one item's
        return len(stored) == len(now) and all(_same(a, b, default) for a, b in zip(stored, now))
    return stored == now


def _default(value, default) -> bool:
    """Whether a field's value is its default; a list of tables (whose `default` is one item's) is empty."""
    return value == [] if isinstance(default, dict) and isinstance(value, list) else value == default


def run_log(console, total: int):
    """A `done` companion for a console with no terminal to draw the progress bar on (a log file): it prints
    one line per finished run, its wall time or that it was read back. On a terminal it prints nothing."""
    count = itertools.count(1)

    def log(r: dict) -> None:
        if console.is_terminal:
            return
        how = ("read back" if r.get("resumed") else f"the run of {r['twin_of']}" if "twin_of" in r
               else "failed" if r.get("wall") is None else f"{r['wall']:.1f} s")
        line = f"[{next(count)}/{total}] {r['dir']}: {how}" + (f" ({r['error']})" if r["error"] else "")
        console.print(line, markup=False, highlight=False)
    return log


def check_resume(args) -> None:
    if args.resume and not args.out:
        raise ScenarioError("--resume: expected --out FOLDER, the folder of the runs to pick up")


def execute(runs: list[dict], out: Path, address: str | None = None, parallel: int | None = None,
            done=None, resume: bool = False) -> None:
    """Run every run as a Ray task, at most `parallel` at once (default: all submitted, Ray queues them by
    CPU); fill in each record's `error` and `metrics`, and call `done(record)` as each one completes. With
    `resume`, a run that an earlier call into the same `out` finished (`finished`) is read, not run again,
    and marked `resumed`: a long reproduction can be stopped and picked up."""
    waiting = []
    for r in runs:
        earlier = finished(r, out) if resume else None
        if earlier is None:
            waiting.append(r)
            continue
        r.update(earlier, resumed=True)
        if done is not None:
            done(r)
    if not waiting:
        return
    from emu.engine.ray_runtime import start_ray
    ray = start_ray(address)
    task = ray.remote(num_cpus=1)(run_one)
    flying = {}
    while waiting or flying:
        while waiting and len(flying) < (parallel or len(runs)):
            r = waiting.pop(0)
            flying[task.remote(r["config"], r["runtime"], str((out / r["dir"]).resolve()), r.get("samples", True))] = r
        [ref], _ = ray.wait(list(flying), num_returns=1)
        r = flying.pop(ref)
        try:
            r.update(ray.get(ref))
        except ray.exceptions.RayError as exc:      # the worker itself died; a run's own errors are returned
            r.update(error=one_line(exc), metrics=None)
        if done is not None:
            done(r)

"""`nowemu sweep`: one scenario over the cross product of parameter axes and seeds, one Ray task per run.

    nowemu sweep SCENARIO [--seeds N] [--set key=v1,v2,...] [--runtime inline|stepped|paced] [--address A]
                          [--out DIR] [--parallel K]

Every combination's scenario is loaded and checked before anything runs, so a typo in the last value of an
axis stops the sweep at once, in one line. Each run is a Ray task (`num_cpus=1`, so the runs spread over the
cluster's CPUs) that calls `emu.engine.run.run` and writes its own results folder. The sweep folder then holds:

    <values>-s<seed>/   one results folder per run (`s<seed>` alone when there is no axis), its samples
                        gzip-compressed (nodes.csv.gz)
    sweep.json          the plan: scenario file, runtime, axes, seeds, and every run with its error, if any
    sweep.csv, .md      one row per axis combination: the main metrics' means over the seeds and the
                        half-widths of their 95 % Student-t intervals

Here are the plan (`plan`: every run's scenario, from the axes and seeds) and the command; the runs are in
`emu.tools.sweep_runs`, the table in `emu.tools.sweep_table`.

Decisions the issue left open:

- Axes. `--set key=a,b,c` is an axis when its value has a comma outside brackets, braces and quotes, so a
  value that is itself a TOML array or inline table stays one value (`--set seeds=[1,2]`), and a string
  that holds a comma is quoted (`--set 'description="a, b"'`). Each value is then read as `--set` reads
  any value (`emu.inputs.scenario.apply_override`). Overrides apply in command-line order, with each axis's value
  in its place, so `policy=a,b policy.threshold=3` still sets the parameter after the policy.
- Seeds. `--seeds N` gives the scenario's seed (after `--set seed=S`), seed+1, ..., seed+N-1. Without it,
  the scenario's own `seeds` list is used (docs/scenarios.md: "the seeds a reproduction or sweep uses").
  `seed` cannot be an axis: the seeds would override it.
- Runtime. `inline` unless `--runtime` says otherwise (not the scenario's `runtime`, which is for live
  `nowemu run`s). `paced` runs share the CPUs with each other; each records its own fidelity.
- Folders. Axis values are joined by "-" with everything but letters, digits, "." and "+" turned into "_";
  two combinations that would share a folder are an error before anything runs. Tasks are given absolute
  paths: on a cluster of several machines, OUT must be on a file system every node can write.
- Failures. A run that raises, or whose `jobs_accounted` check is false, is a failed run: it is left out of
  the means and shown in its row with its one-line error; the other runs still complete, and the command
  exits with status 1. A failed check still leaves its results folder, to look into.
- Intervals. With fewer than two seeds that did not fail, a group's interval is not defined (blank).
"""
from __future__ import annotations

import itertools
import json
import re
import tempfile
import time
from pathlib import Path

from emu.inputs import scenario
from emu.inputs.scenario import QUICKSTART, ScenarioError
from emu.tools.sweep_runs import check_resume, execute, run_log, run_one
from emu.tools.sweep_table import show, summarize, wide_console, write_tables


# -- the plan ----------------------------------------------------------------------------------------------------
def split_values(text: str) -> list[str]:
    """Split a `--set` value at the commas outside brackets, braces and quotes."""
    values, depth, quote, escaped, start = [], 0, None, False, 0
    for i, c in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif c == "\\" and quote == '"':       # only basic strings have escapes: "\"" does not close
                escaped = True
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "," and depth == 0:
            values.append(text[start:i].strip())
            start = i + 1
    values.append(text[start:].strip())
    return values


def _axes(sets: list[str]) -> list[list[str]]:
    """For each `--set`, the list of its items `key=value`: one item, or one per value of an axis."""
    options = []
    for item in sets:
        key, sep, text = item.partition("=")
        values = split_values(text) if sep else [text]
        if len(values) > 1:
            if "" in values:
                raise ScenarioError(f"--set {item!r}: an empty value in the list of '{key}'")
            if key == "seed":
                raise ScenarioError(f"--set {item!r}: seed cannot be an axis; give --seeds N (seed, seed+1, ...) "
                                    f"or --set seeds=[...]")
            options.append([f"{key}={v}" for v in values])
        else:
            options.append([item])
    return options


def slug(value: str) -> str:
    return re.sub(r"[^A-Za-z0-9.+]+", "_", value).strip("_") or "_"


def plan(path, sets: list[str], seeds: int | None, runtime: str) -> tuple[dict, list[dict]]:
    """Load and check the scenario of every run: (axes {key: [values]}, runs). A run is a record: group
    label, combo {key: value}, seed, dir, scenario name, policy, runtime, and its scenario as `config`."""
    options = _axes(sets)
    axes = {o[0].partition("=")[0]: [i.partition("=")[2] for i in o] for o in options if len(o) > 1}
    runs = []
    for choice in itertools.product(*options):
        combo = {key: value for key, _, value in (i.partition("=") for i, o in zip(choice, options) if len(o) > 1)}
        base = scenario.load(path, list(choice))
        for seed in range(base["seed"], base["seed"] + seeds) if seeds else base["seeds"]:
            config = scenario.load(path, [*choice, f"seed={seed}"])
            runs.append({"group": " ".join(f"{k}={v}" for k, v in combo.items()) or config["name"],
                         "combo": combo, "seed": seed,
                         "dir": "-".join([*map(slug, combo.values()), f"s{seed}"]),
                         "scenario": config["name"], "policy": config["policy"]["name"], "runtime": runtime,
                         "config": config})
    seen = {}
    for r in runs:
        if r["dir"] in seen:
            raise ScenarioError(f"--set: the runs {seen[r['dir']]!r} and {r['group']!r} (seed {r['seed']}) would "
                                f"share the folder {r['dir']!r} (a repeated or look-alike axis value)")
        seen[r["dir"]] = r["group"]
    return axes, runs


# -- the command -------------------------------------------------------------------------------------------------
def main(args) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    for name in ("seeds", "parallel"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise ScenarioError(f"--{name}: expected at least 1, got {getattr(args, name)}")
    check_resume(args)
    axes, runs = plan(args.scenario, args.set, args.seeds, args.runtime)
    name = runs[0]["scenario"]
    out = Path(args.out) if args.out else Path("results") / f"sweep-{name}-{time.strftime('%Y%m%d-%H%M%S')}"
    out.mkdir(parents=True, exist_ok=True)
    console = wide_console()
    seeds = sorted({r["seed"] for r in runs})
    console.print(f"[bold]{name}[/]: {len(runs)} runs = "
                  + "".join(f"{len(v)} {k} x " for k, v in axes.items())
                  + f"{len(seeds)} seeds ({' '.join(map(str, seeds))}), runtime {args.runtime}")
    with Progress(TextColumn("runs"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  TextColumn("{task.fields[failed]}"), console=console) as progress:
        bar = progress.add_task("runs", total=len(runs), failed="")
        failures = []

        log = run_log(console, len(runs))

        def done(r):
            if r["error"]:
                failures.append(r)
            progress.update(bar, advance=1, failed=f"[red]{len(failures)} failed[/]" if failures else "")
            log(r)
        execute(runs, out, args.address, args.parallel, done, resume=args.resume)
    manifest = {"scenario": str(args.scenario), "runtime": args.runtime, "axes": axes, "seeds": seeds,
                "runs": [{k: v for k, v in r.items() if k not in ("config", "metrics")} for r in runs]}
    (out / "sweep.json").write_text(json.dumps(manifest, indent=2) + "\n")
    rows = summarize(runs)
    title = "means over seeds ± 95 % intervals"
    show(console, rows, title)
    write_tables(rows, out / "sweep", title)
    if failures:
        console.print(f"[red]{len(failures)} of {len(runs)} runs failed (see the failed column)[/]")
    console.print(f"results: {out}/  (one folder per run, sweep.json, sweep.csv, sweep.md)")
    return 1 if failures else 0


def bench_sweep(log=print, runs: int = 20, jobs: int = 2000) -> dict:
    """Wall time of `runs` inline runs of scenarios/quickstart.toml with `jobs` jobs each (seeds 7, 8, ...; about
    a second each, so that per-task fixed costs do not decide the result) one after another in
    this process, against the same runs as a sweep of Ray tasks, in the same call. Both write their results
    folders (a sweep's runs do). Ray is started (or joined) before either clock starts: its startup is a
    fixed cost paid once per session, not per sweep; the workers' first imports are part of the sweep."""
    from emu.engine.ray_runtime import start_ray
    ray = start_ray()
    _, plan_runs = plan(QUICKSTART, ["runtime=inline", f"workload.jobs={jobs}"], runs, "inline")
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        for r in plan_runs:
            run_one(r["config"], "inline", str(Path(tmp) / "serial" / r["dir"]))
        serial = time.perf_counter() - t0
        log(f"sweep bench: {runs} quickstart runs one after another: {serial:.2f} s")
        t0 = time.perf_counter()
        execute(plan_runs, Path(tmp) / "sweep")
        swept = time.perf_counter() - t0
    failed = sum(1 for r in plan_runs if r["error"])
    cpus = ray.cluster_resources().get("CPU", 0)
    log(f"sweep bench: the same as Ray tasks on {cpus:g} CPUs: {swept:.2f} s ({swept / serial:.2f} of the time"
        f"{f', {failed} failed' if failed else ''})")
    return {"runs": runs, "jobs": jobs, "cpus": cpus, "serial_wall": serial, "sweep_wall": swept, "ratio": swept / serial,
            "failed": failed}

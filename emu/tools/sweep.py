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
import math
import re
import tempfile
import time
from pathlib import Path

import numpy as np

from emu.engine import results

from emu.engine.run import run
from emu.inputs import scenario, schema
from emu.inputs.scenario import QUICKSTART, ScenarioError

# The main metrics (keys of summary.json's "metrics"), each with how the tables show it: its heading and the
# unit its values are divided by (the CSV keeps SI).
SHOWN = {"mean_response": ("response (s)", 1), "mean_slowdown": ("slowdown", 1), "mean_queue_time": ("queue (s)", 1),
         "throughput": ("jobs/s", 1), "cpu_utilization": ("CPU util.", 1), "mean_idle_memory": ("idle (GiB)", 2**30),
         "migrations": ("migrations", 1), "page_faults": ("page faults", 1)}
METRICS = tuple(SHOWN)


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


# -- running -----------------------------------------------------------------------------------------------------
def one_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0]}" if text else type(exc).__name__


def check_error(summary: dict) -> str | None:
    """Why a finished run does not count (its accounting did not balance), or None."""
    return None if summary["checks"]["jobs_accounted"] else "check jobs_accounted failed"


def run_one(config: dict, runtime: str, out: str) -> dict:
    """One run of a sweep (the body of its Ray task): run, write the results folder, and return its metrics
    (all of summary.json's: `nowemu reproduce` reads more than the sweep table) and wall time. Errors come
    back as a one-line `error`, so that one failed run does not end the sweep."""
    try:
        result = run(config, runtime)
        results.write(result, Path(out), compress_samples=True)     # hundreds of runs: their samples add up
    except Exception as exc:
        return {"error": one_line(exc), "metrics": None}
    return outcome(result["summary"])


def outcome(summary: dict) -> dict:
    """What a sweep keeps of a finished run: its error (if its accounting failed), metrics and wall time."""
    return {"error": check_error(summary), "metrics": summary["metrics"], "wall": summary.get("wall_time")}


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
    default = json.loads(json.dumps(results.json_safe(schema.defaults())))
    stored = _decisive({**summary.get("config", {}), "file": None})
    if summary.get("runtime") != r["runtime"] or not _same(stored, now, default):
        return None
    return outcome(summary)


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
            _same(stored[k], v, default.get(k)) if k in stored else k in default and v == default[k]
            for k, v in now.items())
    if isinstance(stored, list) and isinstance(now, list):     # a list of tables: `default` is one item's
        return len(stored) == len(now) and all(_same(a, b, default) for a, b in zip(stored, now))
    return stored == now


def run_log(console, total: int):
    """A `done` companion for a console with no terminal to draw the progress bar on (a log file): it prints
    one line per finished run, its wall time or that it was read back. On a terminal it prints nothing."""
    count = itertools.count(1)

    def log(r: dict) -> None:
        if console.is_terminal:
            return
        how = "read back" if r.get("resumed") else "failed" if r.get("wall") is None else f"{r['wall']:.1f} s"
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
            flying[task.remote(r["config"], r["runtime"], str((out / r["dir"]).resolve()))] = r
        [ref], _ = ray.wait(list(flying), num_returns=1)
        r = flying.pop(ref)
        try:
            r.update(ray.get(ref))
        except ray.exceptions.RayError as exc:      # the worker itself died; a run's own errors are returned
            r.update(error=one_line(exc), metrics=None)
        if done is not None:
            done(r)


# -- the table ---------------------------------------------------------------------------------------------------
def _within(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with whole `df`: a finite series (Abramowitz & Stegun 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    s, c2 = math.sin(theta), math.cos(theta) ** 2
    total = 0.0
    if df % 2:
        term = math.cos(theta)
        for k in range(1, (df - 1) // 2 + 1):
            total += term
            term *= c2 * 2 * k / (2 * k + 1)
        return 2 / math.pi * (theta + s * total)
    term = 1.0
    for k in range(1, df // 2 + 1):
        total += term
        term *= c2 * (2 * k - 1) / (2 * k)
    return s * total


def t_quantile(level: float, df: int) -> float:
    """The t such that P(|T| <= t) = level (0.95 for a 95 % interval), by bisection: numpy has no t
    distribution and scipy is not a dependency."""
    lo, hi = 0.0, 1.0
    while _within(hi, df) < level:
        hi *= 2
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _within(mid, df) < level else (lo, mid)
    return (lo + hi) / 2


def _nan(value) -> float:
    return float("nan") if value is None else float(value)      # summary.json writes NaN as null


def summarize(records: list[dict], metrics=METRICS) -> list[dict]:
    """One row per group (in order of first appearance): its combo as columns, scenario, policy, runtime,
    seeds, n (runs that did not fail), each of `metrics`' mean and 95 % interval half-width over those runs, and
    the failed runs with their errors."""
    groups: dict[str, list] = {}
    for r in records:
        groups.setdefault(r["group"], []).append(r)
    rows = []
    for label, rs in groups.items():
        ok = [r for r in rs if not r["error"]]
        row = {"group": label, **rs[0]["combo"], "scenario": rs[0]["scenario"], "policy": rs[0]["policy"],
               "runtime": rs[0]["runtime"], "seeds": " ".join(str(r["seed"]) for r in rs), "n": len(ok)}
        t = t_quantile(0.95, len(ok) - 1) if len(ok) > 1 else float("nan")
        for m in metrics:
            values = np.array([_nan(r["metrics"][m]) for r in ok])
            row[m] = float(values.mean()) if len(ok) else float("nan")
            row[f"{m}_ci95"] = t * float(values.std(ddof=1)) / math.sqrt(len(ok)) if len(ok) > 1 else float("nan")
        row["failed"] = "; ".join(f"s{r['seed']}: {r['error']}" for r in rs if r["error"])
        rows.append(row)
    return rows


def _layout(rows: list[dict], sep: str, metrics=METRICS) -> tuple[str, list[str], list[list[str]]]:
    """(what every row shares, headings, cells): a column whose value is the same on every row moves to the
    title, and `failed` shows only when a run failed, so that the table fits a terminal."""
    shared = [c for c in ("scenario", "policy", "runtime", "seeds") if len({r[c] for r in rows}) == 1]
    columns = ["group", *(c for c in ("scenario", "policy", "runtime", "seeds") if c not in shared), "n"]
    failed = ["failed"] if any(r["failed"] for r in rows) else []

    def cell(row, m):
        mean, half, unit = row[m], row[f"{m}_ci95"], SHOWN.get(m, (m, 1))[1]
        if math.isnan(mean):
            return ""
        return f"{mean / unit:.3g}" + ("" if math.isnan(half) else f"{sep}± {half / unit:.2g}")
    title = ", ".join(f"{c} {rows[0][c]}" for c in shared)
    headings = [*columns, *(SHOWN.get(m, (m, 1))[0] for m in metrics), *failed]
    cells = [[str(r[c]) for c in columns] + [cell(r, m) for m in metrics] + [r[c] for c in failed] for r in rows]
    return title, headings, cells


def table_console():
    """A rich console for the tables: a file or a pipe has no width, so it gets a wide one rather than
    rich's 80 columns, into which the table's eleven or so columns do not fit."""
    from rich.console import Console
    terminal = Console()
    return terminal if terminal.is_terminal else Console(width=200)


def show(console, rows: list[dict], title: str, metrics=METRICS) -> None:
    """Print the rows as a rich table: means, and under them the 95 % half-widths."""
    from rich import box
    from rich.table import Table
    from rich.text import Text
    shared, headings, cells = _layout(rows, "\n", metrics)
    table = Table(title=f"{title}\n{shared}", box=box.SIMPLE_HEAD)
    for h in headings:
        text = h in ("group", "failed")      # folded, not cut: a row's name and its errors must stay whole
        table.add_column(h, style="red" if h == "failed" else None, justify="left" if text else "right",
                         overflow="fold" if text else "ellipsis")
    for row in cells:
        table.add_row(*map(Text, row))        # plain text: "[1,2]" in a value or an error is not markup
    console.print(table)


def write_tables(rows: list[dict], stem: Path, title: str, metrics=METRICS) -> None:
    """STEM.csv (every column, plain SI numbers, one column per half-width) and STEM.md (as printed)."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    results._csv(stem.with_suffix(".csv"), rows)
    shared, headings, cells = _layout(rows, " ", metrics)
    lines = [f"{title}: {shared}", "", "| " + " | ".join(headings) + " |", "|" + "---|" * len(headings)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells]
    stem.with_suffix(".md").write_text("\n".join(lines) + "\n")


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
    console = table_console()
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

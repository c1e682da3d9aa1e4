"""`nowemu reproduce PAPER`: run a paper's experiments over several seeds and set the emulator's figures
beside the paper's, with whether each of the paper's claims holds.

    nowemu reproduce p004 [--seeds N] [--quick] [--runtime inline|stepped|paced] [--address A] [--out DIR]
                          [--report FILE]

A paper is a module `emu.tools.reproductions.<paper>` (a file, or a package when it is large: p004) with
    TITLE                        the paper, as cited
    experiments(quick, seeds)    its `Experiment`s: a shipped scenario, `--set` overrides (axes allowed, as
                                 in `nowemu sweep`) and seeds; `quick` is the scaled-down variant CI runs
    analyse(records, plots)      from the runs' records (by experiment), the `Claim`s and the report's
                                 sections (markdown lines); draws its PNG plots into `plots` when given
Every run is a Ray task (`emu.tools.sweep_runs.execute`) writing its own results folder under OUT, so any number
in the report can be traced to a run. Each invocation adds its wall time to OUT/invocations.jsonl: a report
resumed from runs made by earlier invocations gives the wall time of all of them (what the runs took to make).
One stopped before its end (a session cut short) is entered by the next `--resume`, from the record it kept as
each run ended: its wall time up to its last finished run (a run cut short is made again, and counted then).
The report (default docs/reproductions/<paper>.md, or <paper>-quick.md) is written whole by this command and
never edited by hand; plots go beside it, in a folder named after it (matplotlib, optional). A full run's report
gives the machine's pace as its invocation started and ended (`emu.tools.pace`), as the same runs take two or
three times as long on a busy day; a resumed one, that of the invocation that made the most of its runs.
"""
from __future__ import annotations

import importlib
import json
import math
import pkgutil
import platform
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from emu.engine import results
from emu.inputs import SCENARIOS
from emu.inputs.errors import ScenarioError
from emu.inputs.workload import offered_load
from emu.tools import pace, sweep, sweep_runs, sweep_table

DOCS = Path(__file__).resolve().parents[2] / "docs" / "reproductions"


@dataclass
class Experiment:
    name: str
    scenario: str                      # relative to scenarios/
    sets: list = field(default_factory=list)
    seeds: int = 1
    runtime: str | None = None         # None: the command's --runtime; paced runs run one at a time, after the rest
    samples: bool = True               # False: the runs write no nodes.csv (for a report that reads none)
    slower: tuple = ()                 # paced: the speeds to try next, in turn, while a run is unfaithful (`_paced`)


@dataclass
class Claim:
    figure: str
    claim: str                         # what the paper says, in its words where possible
    paper: str
    emulator: str
    holds: bool | None                 # None: not measured (why says what is missing)
    why: str = ""


def mean_ci(values) -> tuple[float, float]:
    """Mean and the half-width of its 95 % Student-t interval (nan with fewer than two values)."""
    v = np.asarray([x for x in values if x is not None and not math.isnan(x)], dtype=float)
    if len(v) == 0:
        return float("nan"), float("nan")
    if len(v) < 2:
        return float(v.mean()), float("nan")
    return float(v.mean()), sweep_table.t_quantile(0.95, len(v) - 1) * float(v.std(ddof=1)) / math.sqrt(len(v))


def fmt(mean: float, half: float, digits: int = 2, scale: float = 1.0, unit: str = "") -> str:
    if math.isnan(mean):
        return "n/a"
    text = f"{mean * scale:.{digits}f}{unit}"
    return text if math.isnan(half) else f"{text} ± {half * scale:.{digits}f}{unit}"


def select(records: list[dict], **combo) -> list[dict]:
    """The records whose axes have these values (`--set` text, as in the plan), successful ones only."""
    return [r for r in records if not r["error"] and all(r["combo"].get(k) == v for k, v in combo.items())]


def tagged(records: list[dict], **combo) -> list[dict]:
    """Another experiment's runs marked with axis values (`--set` text) they were run with, so that `select`
    finds them beside a sweep's: a single `--set` is not an axis of its experiment, and its runs do not carry
    it."""
    return [{**r, "combo": {**r["combo"], **combo}} for r in records]


def metric(records: list[dict], name: str) -> list[float]:
    return [float("nan") if r["metrics"][name] is None else r["metrics"][name] for r in records]


def by_seed(records: list[dict], name: str) -> dict[int, float]:
    return {r["seed"]: r["metrics"][name] for r in records}


def paired(x: dict[int, float], y: dict[int, float], relative: bool = False) -> tuple[float, float]:
    """Mean and 95 % interval of x - y (`relative`: (x - y) / x) over the seeds both have, paired by seed: the
    same seed gives both runs the same jobs, so what the seed moves in both cancels out."""
    common = sorted(x.keys() & y.keys())
    return mean_ci([(x[s] - y[s]) / x[s] if relative else x[s] - y[s] for s in common if x[s] or not relative])


SPREAD = ("within the seeds' spread, paired by seed (the same seed gives every policy the same jobs; mean ± 95 % "
          "interval of the difference): {diffs}{spread}; more seeds or jobs would be needed to order them")
AGAINST = "the other way, beyond the seeds' spread (paired by seed): {diffs}"
ALONE = "one seed, whose spread is not known: {diffs}"


def order_why(diffs: list[tuple[str, tuple[float, float]]], digits: int = 2, spread: str = "") -> str:
    """Why an order did not come out, from its wrong-way differences paired by seed, (label, (mean, half)): where
    the interval reaches zero the seeds cannot tell (`spread`: what makes them vary), elsewhere the model orders
    them the other way."""
    tied, other, alone = [], [], []
    for label, (mean, half) in diffs:
        (alone if math.isnan(half) else tied if abs(mean) <= half else other).append(f"{label} {fmt(mean, half, digits)}")
    return "; ".join([SPREAD.format(diffs="; ".join(tied), spread=spread)] * bool(tied)
                     + [AGAINST.format(diffs="; ".join(other))] * bool(other)
                     + [ALONE.format(diffs="; ".join(alone))] * bool(alone))


def ratio(a: list[dict], b: list[dict], name: str) -> tuple[float, float]:
    """Mean and 95 % interval of a/b for metric `name`, paired by seed (the same seed gives both runs the
    same owners and workload, so the pairing removes most of the noise)."""
    x, y = by_seed(a, name), by_seed(b, name)
    return mean_ci([x[s] / y[s] for s in sorted(x) if s in y and y[s]])


def offered(records: list[dict]) -> tuple[float, float]:
    """Mean and 95 % interval over seeds of the runs' offered load (`emu.inputs.workload.offered_load`)."""
    return mean_ci([offered_load(r["config"]) for r in {r["seed"]: r for r in records}.values()])


def figure(plots, name: str, panels: int, draw, columns: int = 0) -> None:
    """Draw `panels` plots side by side (in rows of `columns`, if given), `draw(*axes)`, into
    `plots/<name>.png` (nothing when `plots` is None: matplotlib is an optional extra)."""
    if plots is None:
        return
    import matplotlib.pyplot as plt
    wide = min(panels, columns or panels)
    rows = -(-panels // wide)
    fig, axes = plt.subplots(rows, wide, figsize=(5 * wide if panels > 1 else 6, 4 * rows), squeeze=False)
    axes = axes.flatten()
    for ax in axes[panels:]:
        ax.set_visible(False)
    draw(*axes[:panels])
    fig.tight_layout()
    fig.savefig(plots / f"{name}.png", dpi=100)
    plt.close(fig)


def main(args) -> int:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.table import Table
    try:
        paper = importlib.import_module(f"emu.tools.reproductions.{args.paper}")
    except ModuleNotFoundError:
        known = sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent / "reproductions")]))
        raise ScenarioError(f"reproduce: unknown paper {args.paper!r}; known: {', '.join(known)}") from None
    if args.seeds is not None and args.seeds < 1:
        raise ScenarioError("reproduce: --seeds: expected at least 1")
    sweep_runs.check_resume(args)
    console = sweep_table.wide_console()
    stem = f"{args.paper}{'-quick' if args.quick else ''}"
    out = Path(args.out or f"results/reproduce-{stem}-{time.strftime('%Y%m%d-%H%M%S')}")
    report = Path(args.report) if args.report else DOCS / f"{stem}.md"
    runs, experiments = [], paper.experiments(args.quick, args.seeds)
    for e in experiments:                         # every scenario of every experiment checked before any runs
        _, planned = sweep.plan(SCENARIOS / e.scenario, e.sets, e.seeds, e.runtime or args.runtime)
        for r in planned:
            r["experiment"], r["dir"], r["samples"] = e.name, f"{e.name}/{r['dir']}", e.samples
            r["folder"] = out / r["dir"]            # an analysis may read a run's own files (its events)
        runs += planned
    twins = _twins(runs)
    if args.resume:
        _enter_stopped(out)
    paces = [] if args.quick else [pace.pace()]         # (a quick run's time is no aim's: CI's is saved)
    start, made = time.perf_counter(), 0
    with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                  console=console, transient=not console.is_terminal) as bar:
        task = bar.add_task(f"reproduce {args.paper}: {len(runs)} runs", total=len(runs))
        log = sweep_runs.run_log(console, len(runs))

        def done(r):
            nonlocal made
            bar.advance(task)
            log(r)
            if not r.get("resumed") and "twin_of" not in r:
                made += 1
                _keep_running(out, {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                    "wall": time.perf_counter() - start, "made": made,
                                    **({"pace": paces} if paces else {})})     # the start's: a stop keeps it
        own = [r for r in runs if "twin_of" not in r]
        paced = [r for r in own if r["runtime"] == "paced"]      # a paced run keeps time: nothing beside it
        slower = {e.name: e.slower for e in experiments}
        sweep_runs.execute([r for r in own if r["runtime"] != "paced"], out, args.address, done=done, resume=args.resume)
        _paced(paced, slower, out, args.address, args.resume, done)
        by_dir = {r["dir"]: r for r in own}
        for r in twins:
            first = by_dir[r["twin_of"]]
            r.update(error=first["error"], metrics=first["metrics"], wall=0.0, unfaithful=first.get("unfaithful", []))
            if first["error"] is None:
                shutil.copytree(out / first["dir"], out / r["dir"], dirs_exist_ok=True)
            done(r)
    wall = time.perf_counter() - start
    paces += [] if args.quick else [pace.pace()]
    earlier = _earlier(out, report, sum(1 for r in runs if r.get("resumed"))) if args.resume else []
    kept = (out / INVOCATIONS).exists()       # if not, the earlier ones (from a report's head) enter it first
    with open(out / INVOCATIONS, "a") as fh:
        for e in ([] if kept else earlier) + [{"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                                               "wall": wall, "made": made, **({"pace": paces} if paces else {})}]:
            fh.write(json.dumps(e) + "\n")
    (out / RUNNING).unlink(missing_ok=True)
    paced_by = pace.words(*paces) if paces else ""
    if paces and args.resume:
        paced_by = _busiest(out, made) or paced_by
    failed = [r for r in runs if r["error"]]
    records = {e.name: [r for r in runs if r["experiment"] == e.name] for e in experiments}
    plots = report.parent / report.stem              # beside the report, named after it
    try:
        import matplotlib
        matplotlib.use("Agg")
        plots.mkdir(parents=True, exist_ok=True)
    except ImportError:
        plots = None
    claims, sections = paper.analyse(records, plots)
    table = Table(title=f"{args.paper}: the paper's claims")
    for col in ("figure", "claim", "paper", "emulator", "holds"):
        table.add_column(col)
    for c in claims:
        table.add_row(c.figure, c.claim, c.paper, c.emulator,
                      {True: "[green]yes[/]", False: "[red]no[/]", None: "not measured"}[c.holds])
    console.print(table)
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(_markdown(paper, args, claims, sections, runs, failed, wall, out, plots, report, earlier,
                                paced_by))
    console.print(f"report: {report}   runs: {out}/   wall {wall:.0f} s"
                  f"{f'   [red]{len(failed)} run(s) failed[/]' if failed else ''}")
    return 1 if failed else 0


def _twins(runs: list[dict]) -> list[dict]:
    """The runs whose scenario, seed and runtime an earlier run of another experiment has: each is marked
    `twin_of` that run's folder, and gets its outcome and a copy of its folder instead of running again (paper
    002's network study on the comparison's cluster at 1 Gbps is the comparison's own App-Trace-1 run). Inline
    and stepped runs of one scenario and seed are byte-identical; paced runs are not, and each runs."""
    first, twins = {}, []
    for r in runs:
        if r["runtime"] == "paced":
            continue
        key = (json.dumps(results.json_safe(r["config"]), sort_keys=True), r["runtime"], r["samples"])
        if key in first:
            r["twin_of"] = first[key]
            twins.append(r)
        else:
            first[key] = r["dir"]
    return twins


def _paced(runs: list[dict], slower: dict, out: Path, address: str | None, resume: bool, done) -> None:
    """The paced runs, one at a time: each at its speed and, while the runtime reports it unfaithful, again at
    each slower speed of its experiment (`slower[name]`, its `Experiment.slower`), in the same folder, keeping
    the first speed at which it was faithful, or the last. A speed at which one run of an experiment was
    unfaithful is not tried for its later runs: what is faithful is the machine's, not the seed's, and a try
    bound to fail costs its wall time. `r["tried"]` lists a run's unfaithful tries as (speed, the runtime's
    warnings). With `resume`, a run that an earlier invocation kept at one of the speeds starts there (that
    invocation's tries before it are not listed)."""
    ladders = {}
    for r in runs:
        speeds, r["tried"] = ladders.get(r["experiment"]) or (r["config"]["speed"], *slower[r["experiment"]]), []
        if resume:
            try:
                kept = json.loads((out / r["dir"] / "summary.json").read_text())["config"]["speed"]
                speeds = speeds[speeds.index(kept):]
            except (OSError, ValueError, KeyError):
                pass
        for speed in speeds:
            r["config"]["speed"] = speed
            sweep_runs.execute([r], out, address, resume=resume)
            if not r.get("unfaithful") or speed == speeds[-1]:
                break
            r["tried"].append((speed, r["unfaithful"]))
            r.pop("resumed", None)
        ladders[r["experiment"]] = speeds[speeds.index(r["config"]["speed"]):]
        done(r)


def _holds(holds: bool | None) -> str:
    return {True: "yes", False: "**no**", None: "not measured"}[holds]


INVOCATIONS = "invocations.jsonl"       # in OUT: a line per invocation (date, wall, runs it made)
RUNNING = "invocation-running.json"     # in OUT: this invocation so far, rewritten as each of its runs ends


def _keep_running(out: Path, so_far: dict) -> None:
    """The running invocation's record, replaced whole (a stop mid-write leaves the last one)."""
    tmp = out / (RUNNING + ".tmp")
    tmp.write_text(json.dumps(so_far))
    tmp.replace(out / RUNNING)


def _enter_stopped(out: Path) -> None:
    """An invocation that stopped before its end left its running record: it enters invocations.jsonl, marked
    stopped, before this one runs."""
    path = out / RUNNING
    if path.exists():
        with open(out / INVOCATIONS, "a") as fh:
            fh.write(json.dumps({**json.loads(path.read_text()), "stopped": True}) + "\n")
        path.unlink()


def _invocations(out: Path) -> list[dict]:
    """OUT/invocations.jsonl's records, oldest first (none if it is not kept)."""
    path = out / INVOCATIONS
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def _earlier(out: Path, report: Path, resumed: int) -> list[dict]:
    """The earlier invocations that made the `resumed` runs read back from `out`, from its invocations.jsonl; for
    runs made before that file was kept, the head of the report they wrote (at `report`, if it names `out`). Empty
    unless they account for every run read back; if the last of them stopped, the runs it finished after its last
    record (in flight when it stopped) are its too."""
    if (out / INVOCATIONS).exists():
        earlier = _invocations(out)
    else:
        text = report.read_text() if report.exists() else ""
        head = read_head(text)
        full = (head is not None and f"written under `{out}`" in text
                and (not head["read_back"] or head["invocations"] > 1))
        earlier = [{"date": head["date"], "wall": head["wall"], "made": head["runs"] - head["read_back"],
                    "invocations": head["invocations"]}] if full else []
    stopped = bool(earlier) and earlier[-1].get("stopped", False)
    return earlier if stopped or sum(e["made"] for e in earlier) >= resumed else []


def _busiest(out: Path, made: int) -> str:
    """The pace of the earlier invocation that made the most of the runs, if it made more than this one (`made`):
    a resume that only re-analyses, or the last piece of several, would otherwise give its own machine's pace
    for runs made on another's. '' if none did (or kept no start and end)."""
    best = max((e for e in _invocations(out) if len(e.get("pace", ())) == 2), key=lambda e: e["made"], default=None)
    return pace.words(*best["pace"], made=best["made"]) if best is not None and best["made"] > made else ""


def _head(date: str, runs: int, runtime: str, run_time: float, wall: float, resumed: int, earlier=()) -> str:
    """What a report's first line says of its runs; `read_head` reads it back (docs/benchmarks.md's table). With
    the earlier invocations that made the runs read back, the wall time is theirs and this one's."""
    text = f"on {date}: {runs} runs ({runtime}, {run_time:.0f} s of run time summed over them) in "
    if earlier:
        count = 1 + sum(e.get("invocations", 1) for e in earlier)
        stopped = sum(1 for e in earlier if e.get("stopped"))
        return text + (f"{wall + sum(e['wall'] for e in earlier):.0f} s of wall time over {count} invocations "
                       f"(this one {wall:.0f} s, which read {resumed} of the runs from the earlier ones" +
                       (f"; {stopped} of them stopped before its end, counted up to its last finished run" if stopped
                        else "") + ")")
    return text + f"{wall:.0f} s of wall time" + (
        f" (this invocation, which read {resumed} of the runs from an earlier one)" if resumed else "")


_HEAD = re.compile(r"on (.+? UTC): (\d+) runs \(\w+, (\d+) s of run time summed over them\) in (\d+) s of "
                   r"wall time(?: over (\d+) invocations \(this one \d+ s, which read (\d+) of the runs)?"
                   r"(?: \(this invocation, which read (\d+) of the runs)?")


_PACE = re.compile(r"The machine's pace \(.+?\): ([\d.]+) s alone and ([\d.]+) s two at once as (?:this invocation|"
                   r"the invocation that made \d+ of the runs) started, ([\d.]+) s and ([\d.]+) s as it ended\.")


def read_head(text: str) -> dict | None:
    """A report's head as `_head` wrote it: date, runs, run_time and wall (s), read_back (runs read from an
    earlier invocation) and invocations (how many made the runs, the wall time theirs), and the machine's pace
    (`pace.words`: alone and two at once, at the start and the end, s; None in a report without it); None if
    the text has no head."""
    head = _HEAD.search(text)
    if head is None:
        return None
    pace_said = _PACE.search(text)
    return {"date": head[1], "runs": int(head[2]), "run_time": float(head[3]), "wall": float(head[4]),
            "read_back": int(head[6] or head[7] or 0), "invocations": int(head[5] or 1),
            "pace": tuple(map(float, pace_said.groups())) if pace_said else None}


def _markdown(paper, args, claims, sections, runs, failed, wall, out, plots, report, earlier, paced_by) -> str:
    command = f"nowemu reproduce {args.paper}" + (" --quick" if args.quick else "") + \
        (f" --seeds {args.seeds}" if args.seeds else "") + (f" --runtime {args.runtime}" if args.runtime != "inline" else "")
    resumed = sum(1 for r in runs if r.get("resumed"))
    run_time = sum(r.get("wall") or 0.0 for r in runs)
    twins = sum(1 for r in runs if "twin_of" in r)
    if args.resume:
        command += f" --out {out} --resume"
    L = [f"# Reproduction: {paper.TITLE}", "",
         f"Written by `{command}` "
         f"{_head(time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), len(runs) - twins, args.runtime, run_time, wall, resumed, earlier)}"
         f" on {platform.node() or 'this machine'} "
         f"({platform.platform()}). Every number below comes from those runs (their results folders were "
         f"written under `{out}`" + (f"; {twins} more folders there copy a run of another experiment with the "
                                      f"same scenario, seed and runtime, run once" if twins else "") +
         "); re-run the command to re-measure. Do not edit this file by hand." +
         (f" {paced_by}" if paced_by else ""), ""]
    if args.quick:
        L += ["**Scaled-down variant** (`--quick`, what CI runs): fewer nodes, jobs, levels and seeds than the "
              "paper; the full run is the same command without `--quick`.", ""]
    if failed:
        L += [f"**{len(failed)} run(s) failed**: " + "; ".join(f"`{r['dir']}`: {r['error']}" for r in failed), ""]
    L += ["## The paper's claims", "", "| figure | claim | paper | emulator (mean ± 95 % interval) | holds | why |",
          "|---|---|---|---|---|---|"]
    L += [f"| {c.figure} | {c.claim} | {c.paper} | {c.emulator} | {_holds(c.holds)} | {c.why} |" for c in claims]
    L += [""]
    for line in sections:
        L.append(line.replace("PLOTS/", f"{plots.relative_to(report.parent)}/" if plots else "PLOTS/"))
    if plots is None:
        L += ["", "(Plots need matplotlib: `pip install -e \".[plot]\"`.)"]
    return "\n".join(L) + "\n"

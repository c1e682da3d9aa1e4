"""`nowemu report`: compare runs in tables, and in PNG plots when matplotlib is installed.

    nowemu report RESULTS... [--out DIR]

RESULTS are results folders (`nowemu run`) and sweep folders (`nowemu sweep`, expanded to their runs through
their sweep.json). The table has one row per results folder (named by the folder) and one per axis
combination of a sweep (named by its values, after the sweep folder's name when several RESULTS are given),
with the same columns and the same means and 95 % intervals as `nowemu sweep` prints
(`emu.tools.sweep_table.summarize`). Runs given as separate folders are separate rows, even when they differ
only by seed: only a sweep says which runs are seeds of one experiment. The table is also written to
OUT/report.csv and OUT/report.md (without the sweep's axis columns: the row's name says the combination).
OUT defaults to FIRST_RESULTS/report.

Plots, written to OUT with matplotlib (an optional dependency: `pip install -e ".[plot]"`):

- metrics.png: a panel per main metric, a bar per row, with the 95 % interval as an error bar on rows with
  two or more seeds that did not fail.
- ROW-cluster.png: from nodes.csv (nodes.csv.gz in a sweep's runs), summed over the workstations at each report
  period: memory demand and idle memory (with the cluster's total memory for scale), and the run-queue length
  (jobs ready for a CPU).
- ROW-gantt.png: where each job ran; see `gantt`.

The two per-run plots are drawn for the first run of each row that did not fail (its lowest seed, for a
sweep), so that a sweep of many seeds gives a handful of pictures, not hundreds.
"""
from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np

from emu.engine import results
from emu.inputs.scenario import ScenarioError
from emu.tools.sweep import slug
from emu.tools.sweep_runs import check_error
from emu.tools.sweep_table import METRICS, SHOWN, show, summarize, wide_console, write_tables

INSTALL = 'pip install -e ".[plot]"'


class ReportError(ScenarioError):
    """RESULTS that cannot be read: one line naming the folder or file. A ScenarioError, so that the command
    line prints it as one line with exit status 2, as it does a bad scenario."""


def _read(path: Path, parse, what: str):
    """`parse(file)` of a results file (gzip-compressed if its name ends in .gz); one line naming the file if it
    cannot be read or parsed."""
    try:
        with results.open_text(path) as fh:
            return parse(fh)
    except OSError as exc:                          # gzip's BadGzipFile is one
        raise ReportError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    except (ValueError, EOFError, csv.Error) as exc:    # bad JSON or bytes; a truncated gzip stream; a broken row
        raise ReportError(f"{path}: not valid {what} ({exc})") from None


def _read_json(path: Path) -> dict:
    return _read(path, json.load, "JSON")


def _read_jsonl(path: Path) -> list[dict]:
    return _read(path, lambda fh: [json.loads(line) for line in fh], "JSON lines")


def _read_csv(path: Path) -> list[dict]:
    return _read(path, lambda fh: list(csv.DictReader(fh)), "CSV")


def _run(folder: Path, group: str) -> dict:
    """A results folder as a record of `emu.tools.sweep_table.summarize`, with its folder (`path`) for the
    plots."""
    s = _read_json(folder / "summary.json")
    return {"group": group, "combo": {}, "seed": s["seed"], "scenario": s["scenario"],
            "policy": s["config"]["policy"]["name"], "runtime": s["runtime"], "error": check_error(s),
            "metrics": s["metrics"], "path": folder, "end": s["end"]}


def collect(paths: list[Path]) -> list[dict]:
    """Every run of RESULTS as a record; a sweep's failed runs come from its sweep.json, with their errors."""
    records = []
    for p in paths:
        if (p / "sweep.json").is_file():
            prefix = f"{p.name} " if len(paths) > 1 else ""
            for r in _read_json(p / "sweep.json")["runs"]:
                if r["error"]:
                    records.append({**r, "group": prefix + r["group"], "combo": {}, "metrics": None, "path": None})
                else:
                    records.append(_run(p / r["dir"], prefix + r["group"]))
        elif (p / "summary.json").is_file():
            records.append(_run(p, p.name))
        else:
            raise ReportError(f"{p}: neither a results folder (no summary.json) nor a sweep folder (no sweep.json)")
    return records


# -- plots -------------------------------------------------------------------------------------------------------
def plot_metrics(rows: list[dict], out: Path) -> Path:
    from matplotlib.figure import Figure
    fig = Figure(figsize=(16, 7), layout="constrained")
    x = np.arange(len(rows))
    for ax, m in zip(fig.subplots(2, 4).flat, METRICS):
        heading, unit = SHOWN[m]
        means = np.array([r[m] for r in rows]) / unit
        half = np.array([r[f"{m}_ci95"] for r in rows]) / unit
        ax.bar(x, means, color="tab:blue")
        shown = ~np.isnan(half)
        ax.errorbar(x[shown], means[shown], yerr=half[shown], fmt="none", ecolor="black", capsize=4)
        ax.set_title(heading)
        ax.set_xticks(x, [r["group"] for r in rows], rotation=30, ha="right", fontsize=8)
    fig.suptitle("means over seeds, with 95 % intervals")
    fig.savefig(out / "metrics.png", dpi=100)
    return out / "metrics.png"


def plot_cluster(folder: Path, name: str, out: Path) -> Path | None:
    """Memory demand, idle memory and run-queue length of the whole cluster over time (None: no samples)."""
    from matplotlib.figure import Figure
    if not results.samples_file(folder).exists():     # a run that kept none (`nowemu reproduce p002`'s)
        return None
    samples = _read_csv(results.samples_file(folder))
    if not samples:
        return None
    times = sorted({float(s["time"]) for s in samples})
    at = {t: i for i, t in enumerate(times)}
    total = {k: np.zeros(len(times)) for k in ("demand", "idle", "memory", "ready")}
    for s in samples:
        for k, values in total.items():
            values[at[float(s["time"])]] += float(s[k])
    fig = Figure(figsize=(10, 6), layout="constrained")
    mem, queue = fig.subplots(2, 1, sharex=True)
    gb = 2**30
    mem.plot(times, total["demand"] / gb, label="memory demand")
    mem.plot(times, total["idle"] / gb, label="idle memory")
    mem.plot(times, total["memory"] / gb, "--", color="grey", label="total memory")
    mem.set_ylabel("GiB")
    mem.legend(loc="best")
    queue.step(times, total["ready"], where="post", color="tab:red")
    queue.set_ylabel("run-queue length")
    queue.set_xlabel("virtual time (s)")
    fig.suptitle(f"{name}: the cluster over time (sum over workstations)")
    path = out / f"{slug(name)}-cluster.png"
    fig.savefig(path, dpi=100)
    return path


def gantt(folder: Path, end: float) -> tuple[dict, int]:
    """Where each job ran: ({node: [(start, length, job)]}, jobs left out).

    jobs.csv gives the nodes a job was admitted to, in order (`nodes`), when it was first admitted (`start`)
    and when it finished; events.jsonl gives each migration's departure (`migrate`) and its admission at the
    destination (`migrated_in`). A stay runs from the job's admission to a node (its start, or a migration's
    arrival) to its next migration's departure, or its finish (the run's end for a job still running). Not drawn: waiting in the home node's pending pool before placement, and the
    time on the wire. Jobs on a node at the same time share its CPU: they are stacked in lanes of its row. A
    job whose migrations do not match its nodes (a migration refused at its destination
    and sent back, a job still in transit at the end) or that was refused after it started is left out and
    counted: the records do not say when it was admitted again."""
    events: dict[int, list] = {}
    for e in _read_jsonl(folder / "events.jsonl"):
        if "job" in e:
            events.setdefault(e["job"], []).append(e)
    stays: dict[int, list] = {}
    left_out = 0
    for j in _read_csv(folder / "jobs.csv"):
        job, nodes, start = int(j["job"]), [int(n) for n in j["nodes"].split()], float(j["start"])
        if not nodes:
            continue                                     # never ran
        mine = events.get(job, [])
        moves = [e for e in mine if e["event"] == "migrate"]
        arrivals = [e["time"] for e in mine if e["event"] == "migrated_in"]
        if [(m["src"], m["dest"]) for m in moves] != list(zip(nodes, nodes[1:])) or len(arrivals) != len(moves) \
                or any(e["event"] == "refused" and e["time"] >= start for e in mine):
            left_out += 1
            continue
        finish = float(j["finish"]) if j["state"] == "done" else end
        begins = [start] + arrivals
        ends = [m["time"] for m in moves] + [finish]
        for node, b, e in zip(nodes, begins, ends):
            stays.setdefault(node, []).append((b, e - b, job))
    return stays, left_out


def plot_gantt(folder: Path, name: str, end: float, out: Path) -> Path:
    from matplotlib import colormaps
    from matplotlib.figure import Figure
    stays, left_out = gantt(folder, end)
    nodes = sorted(stays)
    fig = Figure(figsize=(12, 1.5 + 0.4 * max(len(nodes), 1)), layout="constrained")
    ax = fig.subplots()
    colours = colormaps["tab20"]
    for node in nodes:
        lanes, placed = [], []           # each lane's end; a stay takes the first lane free at its start
        for b, w, job in sorted(stays[node]):
            lane = next((i for i, free in enumerate(lanes) if free <= b), len(lanes))
            lanes[lane:lane + 1] = [b + w]
            placed.append((lane, b, w, job))
        h = 0.8 / len(lanes)
        for lane, b, w, job in placed:
            ax.broken_barh([(b, w)], (node - 0.4 + lane * h, h), facecolors=colours(job % 20), edgecolor="white",
                           linewidth=0.3)
    ax.set_yticks(nodes)
    ax.set_ylabel("workstation")
    ax.set_xlabel("virtual time (s)")
    ax.set_title(f"{name}: where each job ran (colour = job; jobs sharing a node are stacked)"
                 + (f"; {left_out} job(s) with refused or unfinished moves not drawn" if left_out else ""))
    path = out / f"{slug(name)}-gantt.png"
    fig.savefig(path, dpi=100)
    return path


# -- the command -------------------------------------------------------------------------------------------------
def main(args) -> int:
    console = wide_console()
    paths = [Path(p) for p in args.results]
    records = collect(paths)
    columns = tuple(args.metrics.split(",")) if args.metrics else METRICS
    known = next((r["metrics"] for r in records if r["metrics"]), {})
    for m in columns:
        if not isinstance(known.get(m), (int, float)):
            numeric = [k for k, v in known.items() if isinstance(v, (int, float))]
            raise ReportError(f"--metrics: no numeric metric '{m}' in summary.json; expected some of "
                              f"{', '.join(numeric)}")
    rows = summarize(records, tuple(dict.fromkeys(METRICS + columns)))    # the plots need the main ones
    title = "runs compared: means over seeds ± 95 % intervals"
    show(console, rows, title, columns)
    out = Path(args.out) if args.out else paths[0] / "report"
    write_tables(rows, out / "report", title, columns)
    try:
        import matplotlib  # noqa: F401  (only asking whether it is installed)
    except ImportError:
        console.print(f"plots skipped (metrics.png, and per run: cluster over time, Gantt): matplotlib is not "
                      f"installed; {INSTALL}", markup=False)       # "[plot]" is not a style
        console.print(f"tables: {out}/report.csv, report.md")
        return 0
    written = [plot_metrics(rows, out)]
    firsts = {}
    for r in records:
        if r["path"] is not None and not r["error"]:
            firsts.setdefault(r["group"], r)
    for group, r in firsts.items():
        written += [plot_cluster(r["path"], group, out), plot_gantt(r["path"], group, r["end"], out)]
    written = [p for p in written if p is not None]
    console.print(f"tables and {len(written)} plots: {out}/  (report.csv, report.md, metrics.png, and per row "
                  f"NAME-cluster.png, NAME-gantt.png)")
    return 0

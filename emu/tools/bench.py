"""`nowemu bench`: measure how fast the emulator runs on this machine and write docs/benchmarks.md.

Every figure in the file is produced by the run that writes it:

1. The model's speed (emu/tools/bench_model.py): inline M/M/1 against SimPy, as whole processes and as event loops;
   the quantum CPU at 10 ms slices in dispatches per second; the 64-workstation quick start alone; each side
   by side with the commit before issue 21's fast core, run from a git worktree; and paper 001's page-level
   model in dispatches per second (no baseline: it did not exist).
2. Paced runtime (emu/tools/bench_paced.py). scenarios/quickstart.toml on N workstations (per-node load held
   constant) under `paced`, one Ray actor per participant or K, at every speed of a ladder: where the run
   stays faithful (p99 of every event's lateness under 5 ms of wall time, no job-carrying message late).
3-5. The live view's cost, sweeps against serial runs, paper-scale runs and the full reproductions' times.
6. A long paced run's memory (emu/tools/bench_memory.py): 64 workstations for ten minutes, the hosts' growth
   against what the run's results hold.

    nowemu bench              full run (half an hour or so on 2 cores)
    nowemu bench --quick      smaller runs, to check that it works
    nowemu bench --reproductions   only re-read the full reproductions' reports into the file's table
"""
from __future__ import annotations

import os
import platform
import shlex
import sys
import time
from pathlib import Path

from emu.inputs import SCENARIOS
from emu.tools import pace
from emu.tools.bench_memory import bench_memory
from emu.tools.bench_memory import render as render_memory
from emu.tools.bench_model import REPEATS, bench_model
from emu.tools.bench_model import render as render_model
from emu.tools.bench_paced import bench_paced, paced_scenario
from emu.tools.bench_paced import render as render_paced
from emu.tools.sweep import bench_sweep
from emu.tools.view import bench_view

DEFAULT_OUT = Path("docs/benchmarks.md")


def plan(quick: bool) -> dict:
    if quick:
        return {"jobs": 5000, "slice_work": 300, "nodes": [8, 16], "speeds": [10, 25, 50], "trial_wall": 5.0,
                "model_span": 100.0,
                "sweep_runs": 8, "sweep_jobs": 500, "view_jobs": 2000, "paced": [(8, None), (16, 2)],
                "quickstart": ["workload.jobs=60"], "paper": ["cluster.nodes=16", "workload.jobs=32"],
                "paper_p003": ["workload.0.jobs=25", "workload.1.jobs=10", 'workload.0.arrival.span="150 s"',
                               'workload.1.arrival.span="150 s"'],
                "memory_wall": 30.0}
    # The view's and the sweep's runs last seconds each: on a 1-s run this VM's run-to-run noise (about 10 %)
    # and fixed costs (a Ray worker's first imports) would swamp what is measured.
    # Paced: (workstations, Ray actors; None for one per participant), issue 21's aims among them.
    return {"jobs": 20000, "slice_work": 1000, "nodes": [8, 16, 32, 64], "speeds": [1, 2, 5, 10, 20, 25, 50, 100],
            "trial_wall": 10.0, "model_span": 200.0, "sweep_runs": 20, "sweep_jobs": 2000, "view_jobs": 8000,
            "paced": [(8, None), (16, None), (16, 2), (64, 2)], "quickstart": [], "paper": [], "paper_p003": [],
            "memory_wall": 600.0}


# -- 2. paced runtime: emu/tools/bench_paced.py; the model alone, for comparison ---------------------------------
def bench_model_cost(p: dict, log) -> dict:
    """The same scenarios under the inline runtime, one process, no Ray: virtual seconds per wall second.
    A paced run must do this same model work on top of its messaging, so this bounds its speed."""
    from emu.engine.run import run
    span = p["model_span"]
    cost = {}
    for nodes in p["nodes"]:
        s, params = paced_scenario(nodes, span, 1.0)      # stop at `span` virtual seconds
        t0 = time.perf_counter()
        result = run(s, runtime="inline")
        wall = time.perf_counter() - t0
        cost[nodes] = {"virtual": params["stop"], "wall": wall, "rate": params["stop"] / wall,
                       "done": result["summary"]["metrics"]["jobs_done"]}
        log(f"model alone, {nodes} workstations inline: {params['stop']:g} virtual s in {wall:.2f} s "
            f"({params['stop'] / wall:,.0f} virtual s per wall s)")
    return cost


# -- the report --------------------------------------------------------------------------------------------------
def machine() -> dict:
    import numpy
    import ray
    import simpy

    import emu
    cpus = os.cpu_count()
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = cpus
    return {"platform": platform.platform(), "cpus": cpus, "usable": usable, "processor": platform.processor(),
            "python": platform.python_version(), "ray": ray.__version__, "simpy": simpy.__version__,
            "numpy": numpy.__version__, "nowemu": emu.__version__,
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "load_start": _loadavg(), "busy_start": _cpu_busy(),
            "pace_start": pace.pace()}


def _cpu_busy(seconds: float = 2.0) -> float | None:
    """The share of all CPUs busy over the next `seconds` (Linux /proc/stat), before the bench starts anything:
    the load average still remembers minutes past, this says whether something else is running now."""
    def read():
        with open("/proc/stat") as fh:
            values = [int(v) for v in fh.readline().split()[1:9]]
        return sum(values), values[3] + values[4]          # total, idle + iowait
    try:
        total0, idle0 = read()
        time.sleep(seconds)
        total1, idle1 = read()
    except (OSError, ValueError, IndexError):
        return None
    return 1.0 - (idle1 - idle0) / max(total1 - total0, 1)


def _loadavg() -> tuple | None:
    try:
        return os.getloadavg()
    except OSError:
        return None


def command(quick: bool, out: Path) -> str:
    if sys.argv[1:2] == ["bench"]:
        return "nowemu " + shlex.join(sys.argv[1:])
    return "nowemu bench" + (" --quick" if quick else "") + (f" --out {out}" if Path(out) != DEFAULT_OUT else "")


def render(mach: dict, cmd: str, p: dict, model: dict, paced: dict, view: dict, sweep: dict, papers: list,
           memory: dict, total_wall: float) -> str:
    L = []
    cpus = f"{mach['cpus']}" + (f" ({mach['usable']} usable)" if mach["usable"] != mach["cpus"] else "")
    L += ["# nowemu benchmarks", "",
          f"Written by `{cmd}` on {mach['date']} in {total_wall / 60:.1f} minutes. Every figure below was measured "
          f"by that run; re-run it to re-measure (see the notes at the end).", "",
          "| Machine | |", "|---|---|",
          f"| platform | `{mach['platform']}` |",
          f"| CPUs | {cpus} |",
          f"| Python | {mach['python']} |",
          f"| Ray | {mach['ray']} |",
          f"| SimPy | {mach['simpy']} |",
          f"| NumPy | {mach['numpy']} |",
          f"| nowemu | {mach['nowemu']} |",
          f"| date | {mach['date']} |",
          f"| CPU busy just before the run (2 s sample) | "
          f"{'n/a' if mach['busy_start'] is None else format(mach['busy_start'], '.0%')} |",
          f"| load average (1, 5, 15 min) at start | {_fmt_load(mach['load_start'])} |",
          f"| load average (1, 5, 15 min) at end | {_fmt_load(mach.get('load_end'))} |",
          f"| the machine's pace at start and end (`emu.tools.pace`: a fixed loop alone / two at once, s; lower is "
          f"faster) | {_pace_pair(mach['pace_start'])} → {_pace_pair(mach.get('pace_end'))} |", ""]
    if mach["busy_start"] is not None and mach["busy_start"] > 0.2:
        L += [f"Warning: {mach['busy_start']:.0%} of the CPU was busy just before the run started: something else "
              "was running, and the figures below (the paced ones above all) are worse for it.", ""]

    # 1
    L += ["## 1. The model's speed", ""] + render_model(model) + [
          "Note: SimPy has no processor-sharing server built in, so its side is the standard SimPy M/M/1 "
          "example: a FCFS `simpy.Resource` of capacity 1, exponential gaps and services drawn with "
          "`random.expovariate`, one process per job. It has the same mean response time as M/M/1-PS, but it "
          "models far less: nowemu's time includes drawing the workload, the workstation model (CPU, memory, "
          "disk and network accounting, a load sample every second, the policy) and assembling the results; "
          "SimPy's only its event loop and a running sum.", ""]

    # 2
    L += render_paced(p, paced)
    L += [f"The model alone: the same scenario (same N, same per-node load) for {p['model_span']:g} virtual "
          "seconds under the inline runtime, in one process without Ray, measured before Ray started. A paced "
          "run does this same model work spread over its actors, plus the messaging, so the machine's CPU count "
          "times this rate bounds any paced speed.", "",
          f"| N | virtual s | wall (s) | jobs done | virtual s per wall s, one core | bound on {mach['usable']} "
          f"cores |",
          "|--:|--:|--:|--:|--:|--:|"]
    for nodes, c in paced["model"].items():
        L.append(f"| {nodes} | {c['virtual']:g} | {c['wall']:.2f} | {c['done']:,} | {c['rate']:,.0f} | "
                 f"{mach['usable'] * c['rate']:,.0f}x |")
    L.append("")

    # 3, 4
    failed = f" ({sweep['failed']} runs failed)" if sweep["failed"] else ""
    L += ["## 3. Live view cost", "",
          f"scenarios/quickstart.toml inline with {view['jobs']:,} jobs on {view['workstations']} workstations, "
          f"run without the live view and with it drawing into an in-memory terminal (120 x 50), alternately, "
          f"best of each (`emu.tools.view.bench_view`); {view['frames']} frames were drawn, and the last.", "",
          "| without view (s) | with view (s) | ratio | aim |", "|--:|--:|--:|---|",
          f"| {view['without']:.3f} | {view['with']:.3f} | {view['ratio']:.3f} | at most 1.05: "
          f"{'met' if view['ratio'] <= 1.05 else '**not met**'} |", "",
          "## 4. Sweep: Ray tasks against one after another", "",
          f"{sweep['runs']} inline runs of scenarios/quickstart.toml with {sweep['jobs']:,} jobs each (seeds 7, "
          f"8, ...), each writing its results "
          f"folder, one after another in one process, then the same as a sweep of Ray tasks on "
          f"{sweep['cpus']:g} CPUs (`emu.tools.sweep.bench_sweep`; Ray already running).", "",
          "| runs | one after another (s) | sweep (s) | ratio | aim |", "|--:|--:|--:|--:|---|",
          f"| {sweep['runs']} | {sweep['serial_wall']:.2f} | {sweep['sweep_wall']:.2f} | {sweep['ratio']:.2f} | "
          f"about 0.5 on 2 CPUs (counted as met at 0.6 or less): "
          f"{'met' if sweep['ratio'] <= 0.6 else '**not met**'}{failed} |", ""]
    L += ["## 5. Paper-scale runs", "",
          "The papers' largest runs at their own scale, inline, seed 1, one after another "
          "(`emu.tools.bench.bench_papers`). Issue 4's aim for paper 004's Table 1: under 2 minutes per policy on 2 "
          "cores; paper 003's Ch. 4 trace has none.", "",
          "| scenario | policy | workstations | jobs | virtual s | wall (s) | aim |", "|---|---|--:|--:|--:|--:|---|"]
    L += [f"| {r['scenario']} | {r['policy']} | {r['nodes']} | {r['jobs']} | {r['virtual']:,.0f} | {r['wall']:.1f} | "
          f"{'' if r['aim'] is None else 'met' if r['wall'] < r['aim'] else '**not met**'} |" for r in papers]
    L += ["", "### Full reproductions", "",
          "Each full `nowemu reproduce` measures its own wall time and writes it at the head of its report; this "
          "table is read from those reports (`emu.tools.bench.reproductions`) when the bench is written, or again by "
          "`nowemu bench --reproductions` alone, so the date "
          "and the machine's load are those of the reproduction, not of this bench. Aims on 2 cores: paper 000 "
          "under 10 minutes (issue 3), paper 002 under 90 and paper 004 under 15 (issue 21), papers 001 and 003 "
          "(each of its two reproductions) under 60 (issues 22, 25, 26). *pace*: the machine's, as the report "
          "gives it (`emu.tools.pace`: seconds for a fixed loop alone and two at once, as the invocation that "
          "made the most of its runs started and as it ended; lower is faster), where it does.", "",
          REPRODUCTIONS_HEAD, REPRODUCTIONS_RULE, *reproduction_rows()]
    L += [""] + render_memory(memory)
    L += ["## 7. What the numbers mean", "",
          "- *jobs / s*: jobs completed over wall time (best of "
          f"{REPEATS}), of the whole process (a fresh interpreter: start, imports, run, exit) or of the event "
          "loop (for nowemu one `emu.engine.run.run(scenario, runtime=\"inline\")` call: drawing the workload, "
          "building the workstation, the inline runtime's event loop and assembling jobs, samples and checks). "
          "*x SimPy* is that rate over SimPy's, measured the same way. *mean response* beside E[T] is a check that the "
          "fast runs are also right.",
          "- *baseline*: the same measurement by the code of the commit before the fast core, from a git "
          "worktree, in its own process, interleaved with this checkout's; a speed-up is the baseline's time "
          "over this checkout's, and each side's figures (jobs done, faults, migrations) show what it computed.",
          "- *lateness*: for every local event a paced actor processes, the wall time at which it was processed "
          "minus the wall time at which it was due (epoch + virtual time / speed), in milliseconds, pooled over "
          "all actors (`summary.paced.event_lateness_ms_*`): whatever delayed it counts (a slow wake-up, an actor "
          "still busy with earlier events, with messages or the driver's calls, or waiting for its sends to drain). In "
          "virtual time the lag is that times the speed. *events over 5 ms*: how many were later than the bar.",
          "- *stragglers*: messages carrying a job (remote execution, migration, return) that reached their "
          "destination after their virtual delivery time; each one changes what happens, so a faithful run has "
          "none (`summary.fidelity.stragglers`).",
          "- *late load messages*: load reports and load-index broadcasts that arrived after their delivery time "
          "(`fidelity.late_messages - fidelity.stragglers`). They only make a view that is already up to a "
          "period stale a little staler, so they do not fail a trial. With 0.1 ms of modelled network latency, a batch between hosts (a few "
          "tenths of a millisecond of wall time at best) is late at most speeds, so this count is expected to be large.",
          "- *actor startup*: wall time from asking Ray for the actors until all are constructed "
          "(`summary.startup_time`; the actors are new processes each trial). *load*: the machine's 1-minute "
          "load average at the trial's end (the run's own actors included). *trial wall*: the whole "
          "`emu.engine.run.run` call (startup, warm-up, the paced run, gathering and assembling results, killing "
          "the actors).",
          "",
          "Regenerate with `nowemu bench` (writes docs/benchmarks.md; "
          f"{_plan_text(plan(False))}) or `nowemu bench --quick` ({_plan_text(plan(True))}); "
          "`--out FILE` writes elsewhere. Close other programs first: the paced figures depend on how much CPU "
          "the actors get.", ""]
    return "\n".join(L)


def _fmt_load(load) -> str:
    return ", ".join(f"{x:.2f}" for x in load) if load else "n/a"


def _plan_text(p: dict) -> str:
    paced = ", ".join(f"{n}" + ("" if k is None else f" on {k} actors") for n, k in p["paced"])
    return (f"{p['jobs']:,} M/M/1 jobs; paced N = {paced}, speeds {', '.join(f'{s:g}' for s in p['speeds'])}, "
            f"~{p['trial_wall']:g} s trials; a {p['memory_wall'] / 60:g}-minute paced run for memory")


P004_POLICIES = ("immediate_eviction", "pause_and_migrate", "linger_longer", "linger_forever")
# seconds: issue 3's aim for the full `nowemu reproduce p000`; issue 21's for p002 and p004; issue 22's for p001;
# issue 25's for p003
REPRODUCTION_AIMS = {"p000": 600.0, "p001": 3600.0, "p002": 5400.0, "p003": 3600.0, "p003b": 3600.0, "p004": 900.0}


def reproductions() -> list[dict]:
    """What the full reproductions' reports say they took: report, date, runs, runs read back from an earlier
    invocation, summed run time and wall time (s), and the aim (s, or None). A report whose runs were read
    back measures the reproduction's wall time only with the invocations that made them (its head says over how
    many); otherwise its aim is not judged."""
    from emu.tools.reproduce import DOCS, read_head
    rows = []
    for path in sorted(DOCS.glob("p*.md")):
        if path.stem.endswith("-quick"):
            continue
        head = read_head(path.read_text())
        if head:
            rows.append({"report": f"docs/reproductions/{path.name}", **head, "aim": REPRODUCTION_AIMS.get(path.stem)})
    return rows


REPRODUCTIONS_HEAD = "| report | written | runs | read back | run time summed (min) | wall (min) | aim | pace (s) |"
REPRODUCTIONS_RULE = "|---|---|--:|--:|--:|--:|---|---|"


def reproduction_rows() -> list[str]:
    return [f"| {r['report']} | {r['date']} | {r['runs']} | {r['read_back']} | {r['run_time'] / 60:.1f} | "
            f"{r['wall'] / 60:.1f} | {_reproduction_aim(r)} | {_pace(r['pace'])} |" for r in reproductions()]


def _pace(said: tuple | None) -> str:
    return "" if said is None else "{:.3f} / {:.3f} → {:.3f} / {:.3f}".format(*said)


def _pace_pair(p: dict | None) -> str:
    return "n/a" if p is None else f"{p['alone']:.3f} / {p['pair']:.3f}"


def refresh_reproductions(out: Path) -> int:
    """`nowemu bench --reproductions`: re-read the full reproductions' reports into the table of an existing
    bench file, measuring nothing (a reproduction rerun after the bench would otherwise leave it stale)."""
    lines = out.read_text().split("\n") if out.exists() else []
    heads = [i for i, line in enumerate(lines) if line.startswith(REPRODUCTIONS_HEAD[:40])]   # columns may be new
    if not heads:
        print(f"{out}: no full reproductions table to refresh (write the file with nowemu bench first)",
              file=sys.stderr)
        return 2
    first = heads[0] + 2
    lines[heads[0]:first] = [REPRODUCTIONS_HEAD, REPRODUCTIONS_RULE]
    last = first
    while last < len(lines) and lines[last].startswith("|"):
        last += 1
    lines[first:last] = reproduction_rows()
    out.write_text("\n".join(lines))
    print(f"refreshed the full reproductions' table in {out}")
    return 0


def _reproduction_aim(r: dict) -> str:
    if r["aim"] is None:
        return ""
    if r["read_back"] and r["invocations"] == 1:
        return "not judged: runs read back"     # made by an invocation whose wall time the report does not know
    return "met" if r["wall"] <= r["aim"] else "**not met**"


def bench_papers(p: dict, log) -> list[dict]:
    """Wall time of the papers' largest runs at their own scale, inline, one seed: paper 004's Table 1
    workload 1 (64 workstations with owners, 128 foreign jobs of 600 s) under each policy (issue 4's aim: under 2
    minutes per policy on 2 cores), and paper 003's Ch. 4 trace (32 nodes, 280 jobs, 30 % of them parallel)
    under IOCM-RE (issue 25 asks for it here; no aim of its own)."""
    from emu.engine.run import run
    from emu.inputs import scenario

    def timed(path: str, sets: list, policy: str, aim: float | None) -> dict:
        s = scenario.load(SCENARIOS / path, [f"policy={policy}", *sets])
        t = time.perf_counter()
        result = run(s, "inline")
        r = {"scenario": f"scenarios/{path}", "policy": policy, "nodes": s["cluster"]["nodes"],
             "jobs": result["summary"]["metrics"]["jobs_submitted"], "virtual": result["summary"]["end"],
             "wall": time.perf_counter() - t, "aim": aim}
        log(f"{path}, {policy}: {r['nodes']} nodes, {r['jobs']} jobs, {r['virtual']:,.0f} virtual s in "
            f"{r['wall']:.1f} s")
        return r
    return [timed("p004/ll_c1.toml", p["paper"], policy, 120.0) for policy in P004_POLICIES] + [
        timed("p003/parallel.toml", p["paper_p003"], "iocm_re", None)]


def main(quick: bool, out: Path) -> int:
    from emu.tools.sweep_table import wide_console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    out = Path(out)
    p = plan(quick)
    console = wide_console(stderr=True)
    mach = machine()
    cmd = command(quick, out)
    start = time.perf_counter()
    steps = REPEATS + len(p["paced"]) * len(p["speeds"]) + 2
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), console=console, transient=False) as progress:
        task = progress.add_task("nowemu bench", total=steps)

        def log(msg: str) -> None:
            progress.console.log(msg)

        def advance(n: int = 1) -> None:
            progress.advance(task, n)

        progress.update(task, description="the model's speed (inline, against SimPy and the baseline)")
        model_speed = bench_model(p, log, advance)
        progress.update(task, description="model cost (inline)")
        model = bench_model_cost(p, log)           # before Ray starts: its idle processes take CPU too
        progress.update(task, description="paper-scale runs (inline)")
        papers = bench_papers(p, log)
        progress.update(task, description="live view cost")
        view = bench_view(log, jobs=p["view_jobs"], repeats=3)
        progress.update(task, description="paced runtime")
        paced = bench_paced(p, log, advance)
        paced["model"] = model
        progress.update(task, description=f"memory of a {p['memory_wall'] / 60:g}-minute paced run")
        memory = bench_memory(p["memory_wall"], log)
        advance()
        progress.update(task, description="sweep")
        sweep = bench_sweep(log, runs=p["sweep_runs"], jobs=p["sweep_jobs"])
    mach["load_end"], mach["pace_end"] = _loadavg(), pace.pace()
    text = render(mach, cmd, p, model_speed, paced, view, sweep, papers, memory, time.perf_counter() - start)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    console.print(f"wrote {out} ({(time.perf_counter() - start) / 60:.1f} min)")
    return 0

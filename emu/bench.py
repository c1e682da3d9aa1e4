"""`nowemu bench`: measure how fast the emulator runs on this machine and write docs/benchmarks.md.

Two measurements, every figure in the file produced by the run that writes it:

1. Inline vs SimPy. The one-workstation M/M/1 scenario (scenarios/mm1.toml) under the inline runtime, in fluid
   processor sharing and in quantum round robin, against the textbook SimPy M/M/1 (a FCFS `simpy.Resource`
   of capacity 1: SimPy has no processor-sharing server). Same rates, same number of jobs, interleaved, best of
   three; jobs per second of wall time, and each one's mean response time against E[S] / (1 - rho).
2. Paced runtime (emu/bench_paced.py). scenarios/quickstart.toml on N workstations (per-node load held
   constant) under `paced`, one Ray actor per participant or K, at every speed of a ladder: where the run
   stays faithful (p99 of every event's lateness under 5 ms of wall time, no job-carrying message late).

    nowemu bench              full run (a quarter of an hour or so on 2 cores)
    nowemu bench --quick      smaller runs, to check that it works
"""
from __future__ import annotations

import os
import platform
import random
import shlex
import sys
import time
from pathlib import Path

from emu.bench_paced import bench_paced, paced_scenario
from emu.bench_paced import render as render_paced
from emu.scenario import SCENARIOS
from emu.sweep import bench_sweep
from emu.view import bench_view

MM1 = Path(__file__).resolve().parent.parent / "scenarios" / "mm1.toml"
DEFAULT_OUT = Path("docs/benchmarks.md")

REPEATS = 3


def plan(quick: bool) -> dict:
    if quick:
        return {"jobs": 5000, "nodes": [8, 16], "speeds": [10, 25, 50], "trial_wall": 5.0, "model_span": 100.0,
                "sweep_runs": 8, "sweep_jobs": 500, "view_jobs": 2000, "paced": [(8, None), (16, 2)],
                "quickstart": ["workload.jobs=60"], "paper": ["cluster.nodes=16", "workload.jobs=32"]}
    # The view's and the sweep's runs last seconds each: on a 1-s run this VM's run-to-run noise (about 10 %)
    # and fixed costs (a Ray worker's first imports) would swamp what is measured.
    # Paced: (workstations, Ray actors; None for one per participant), issue 21's aims among them.
    return {"jobs": 20000, "nodes": [8, 16, 32, 64], "speeds": [1, 2, 5, 10, 20, 25, 50, 100],
            "trial_wall": 10.0, "model_span": 200.0, "sweep_runs": 20, "sweep_jobs": 2000, "view_jobs": 8000,
            "paced": [(8, None), (16, None), (16, 2), (64, 2)], "quickstart": [], "paper": []}


# -- 1. inline vs SimPy ------------------------------------------------------------------------------------------
def mm1_scenario(jobs: int, mode: str) -> dict:
    from emu import scenario
    overrides = [f"workload.jobs={jobs}"]
    if mode == "quantum":
        overrides += ["cpu.mode=quantum", 'cpu.time_slice="100 ms"']
    return scenario.load(MM1, overrides)


def mm1_theory(s: dict) -> tuple[float, float, float]:
    """(mean interarrival, E[S], E[T] = E[S] / (1 - rho)) from the scenario's own parameters."""
    w = s["workload"][0]
    mean_ia = w["arrival"]["mean_interarrival"]
    mean_s = w["lifetime"]["mean"] / s["cluster"]["speed"]
    rho = mean_s / mean_ia
    return mean_ia, mean_s, mean_s / (1 - rho)


def run_nowemu_mm1(s: dict) -> tuple[float, float, int]:
    """(wall seconds, mean response, jobs done): the whole `emu.run.run` call, workload drawing included."""
    from emu.run import run
    t0 = time.perf_counter()
    result = run(s, runtime="inline")
    wall = time.perf_counter() - t0
    m = result["summary"]["metrics"]
    return wall, m["mean_response"], m["jobs_done"]


def run_simpy_mm1(jobs: int, mean_ia: float, mean_s: float, seed: int) -> tuple[float, float, int]:
    """The standard SimPy M/M/1 (FCFS, one server): (wall seconds, mean response, jobs done)."""
    import simpy
    t0 = time.perf_counter()
    rng = random.Random(seed)
    env = simpy.Environment()
    server = simpy.Resource(env, capacity=1)
    total = [0.0, 0]

    def job(env):
        arrival = env.now
        with server.request() as req:
            yield req
            yield env.timeout(rng.expovariate(1.0 / mean_s))
        total[0] += env.now - arrival
        total[1] += 1

    def source(env):
        for _ in range(jobs):
            yield env.timeout(rng.expovariate(1.0 / mean_ia))
            env.process(job(env))

    env.process(source(env))
    env.run()
    return time.perf_counter() - t0, total[0] / max(total[1], 1), total[1]


def bench_inline(jobs: int, log, advance) -> dict:
    fluid, quantum = mm1_scenario(jobs, "fluid"), mm1_scenario(jobs, "quantum")
    mean_ia, mean_s, theory = mm1_theory(fluid)
    contenders = {
        "nowemu inline, fluid PS": lambda: run_nowemu_mm1(fluid),
        "nowemu inline, quantum RR (100 ms slice)": lambda: run_nowemu_mm1(quantum),
        "SimPy 4 M/M/1 FCFS (simpy.Resource)": lambda: run_simpy_mm1(jobs, mean_ia, mean_s, fluid["seed"]),
    }
    best: dict[str, tuple] = {}
    for rep in range(REPEATS):                     # interleaved: a slow patch of the machine hits all alike
        for name, fn in contenders.items():
            wall, mean_t, done = fn()
            log(f"inline vs SimPy, round {rep + 1}/{REPEATS}: {name}: {wall:.2f} s, {done / wall:,.0f} jobs/s, "
                f"mean response {mean_t:.3f} s")
            if name not in best or wall < best[name][0]:
                best[name] = (wall, mean_t, done)
            advance()
    simpy_rate = best["SimPy 4 M/M/1 FCFS (simpy.Resource)"][2] / best["SimPy 4 M/M/1 FCFS (simpy.Resource)"][0]
    rows = []
    for name, (wall, mean_t, done) in best.items():
        rate = done / wall
        rows.append({"name": name, "wall": wall, "rate": rate, "ratio": rate / simpy_rate, "done": done,
                     "mean_response": mean_t, "error": (mean_t - theory) / theory})
    return {"jobs": jobs, "rows": rows, "theory": theory, "mean_s": mean_s, "mean_ia": mean_ia,
            "rho": mean_s / mean_ia, "seed": fluid["seed"]}


# -- 2. paced runtime: emu/bench_paced.py; the model alone, for comparison ---------------------------------
def bench_model_cost(p: dict, log) -> dict:
    """The same scenarios under the inline runtime, one process, no Ray: virtual seconds per wall second.
    A paced run must do this same model work on top of its messaging, so this bounds its speed."""
    from emu.run import run
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
            "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "load_start": _loadavg(), "busy_start": _cpu_busy()}


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


def render(mach: dict, cmd: str, p: dict, inline: dict, paced: dict, view: dict, sweep: dict, papers: list,
           total_wall: float) -> str:
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
          f"| load average (1, 5, 15 min) at end | {_fmt_load(mach.get('load_end'))} |", ""]
    if mach["busy_start"] is not None and mach["busy_start"] > 0.2:
        L += [f"Warning: {mach['busy_start']:.0%} of the CPU was busy just before the run started: something else "
              "was running, and the figures below (the paced ones above all) are worse for it.", ""]

    # 1
    L += ["## 1. Inline runtime vs SimPy (M/M/1, one workstation)", "",
          f"{inline['jobs']:,} jobs, Poisson arrivals every {inline['mean_ia']:g} s on average, exponential work of "
          f"mean {inline['mean_s']:g} s (rho = {inline['rho']:g}), seed {inline['seed']}; best of {REPEATS} "
          f"interleaved runs each. Theory: E[T] = E[S] / (1 - rho) = {inline['theory']:.3f} s for both "
          f"processor sharing and FCFS.", "",
          "| Simulator | best wall (s) | jobs / s of wall time | vs SimPy | jobs done | mean response (s) | "
          "theory (s) | error |",
          "|---|--:|--:|--:|--:|--:|--:|--:|"]
    for r in inline["rows"]:
        L.append(f"| {r['name']} | {r['wall']:.2f} | {r['rate']:,.0f} | {r['ratio']:.2f}x | {r['done']:,} | "
                 f"{r['mean_response']:.3f} | {inline['theory']:.3f} | {r['error']:+.1%} |")
    L += ["", "Note: SimPy has no processor-sharing server built in, so its side is the standard SimPy M/M/1 "
          "example: a FCFS `simpy.Resource` of capacity 1, exponential gaps and services drawn with "
          "`random.expovariate`, one process per job. It has the same mean response time as M/M/1-PS, but it "
          "models far less: nowemu's wall time includes drawing the workload, the workstation model (CPU, "
          "memory, disk and network accounting, load reports to the collector, the policy) and assembling "
          "the results; SimPy's includes only its event loop and a running sum.", ""]

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
          f"best of each (`emu.view.bench_view`); {view['frames']} frames were drawn, and the last.", "",
          "| without view (s) | with view (s) | ratio | aim |", "|--:|--:|--:|---|",
          f"| {view['without']:.3f} | {view['with']:.3f} | {view['ratio']:.3f} | at most 1.05: "
          f"{'met' if view['ratio'] <= 1.05 else '**not met**'} |", "",
          "## 4. Sweep: Ray tasks against one after another", "",
          f"{sweep['runs']} inline runs of scenarios/quickstart.toml with {sweep['jobs']:,} jobs each (seeds 7, "
          f"8, ...), each writing its results "
          f"folder, one after another in one process, then the same as a sweep of Ray tasks on "
          f"{sweep['cpus']:g} CPUs (`emu.sweep.bench_sweep`; Ray already running).", "",
          "| runs | one after another (s) | sweep (s) | ratio | aim |", "|--:|--:|--:|--:|---|",
          f"| {sweep['runs']} | {sweep['serial_wall']:.2f} | {sweep['sweep_wall']:.2f} | {sweep['ratio']:.2f} | "
          f"about 0.5 on 2 CPUs (counted as met at 0.6 or less): "
          f"{'met' if sweep['ratio'] <= 0.6 else '**not met**'}{failed} |", ""]
    L += ["## 5. Paper-scale runs", "",
          "The papers' largest runs at their own scale, inline, seed 1, one after another (`emu.bench.bench_papers`)."
          " Issue 4's aim for paper 004's Table 1: under 2 minutes per policy on 2 cores.", "",
          "| scenario | policy | workstations | jobs | virtual s | wall (s) | aim |", "|---|---|--:|--:|--:|--:|---|"]
    L += [f"| {r['scenario']} | {r['policy']} | {r['nodes']} | {r['jobs']} | {r['virtual']:,.0f} | {r['wall']:.1f} | "
          f"{'met' if r['wall'] < 120 else '**not met**'} |" for r in papers]
    L += ["", "### Full reproductions", "",
          "Each full `nowemu reproduce` measures its own wall time and writes it at the head of its report; this "
          "table is read from those reports (`emu.bench.reproductions`) when the bench is written, so the date "
          "and the machine's load are those of the reproduction, not of this bench. Issue 3's aim for paper "
          "000: under 10 minutes on 2 cores.", "",
          "| report | written | runs | read back | run time summed (min) | wall (min) | aim |",
          "|---|---|--:|--:|--:|--:|---|"]
    L += [f"| {r['report']} | {r['date']} | {r['runs']} | {r['read_back']} | {r['run_time'] / 60:.1f} | "
          f"{r['wall'] / 60:.1f} | {_reproduction_aim(r)} |" for r in reproductions()]
    L += ["", "## 6. What the numbers mean", "",
          "- *jobs / s of wall time*: jobs completed divided by the wall time of the whole run (best of "
          f"{REPEATS}). For nowemu it is one `emu.run.run(scenario, runtime=\"inline\")` call: drawing the "
          "workload, building the workstation and the collector, the inline runtime's event loop (every message "
          "still goes through the msgpack codec), and assembling jobs, samples and checks. *vs SimPy* is that rate over "
          "SimPy's.",
          "- *mean response* is measured over all jobs of the run; *error* is its relative distance from "
          "E[S] / (1 - rho), a sanity check that the fast runs are also right (a few percent is sampling noise "
          "at this many jobs with rho = 0.5).",
          "- *lateness*: for every local event a paced actor processes, the wall time at which it was processed "
          "minus the wall time at which it was due (epoch + virtual time / speed), in milliseconds, pooled over "
          "all actors (`summary.paced.event_lateness_ms_*`): whatever delayed it counts (a slow wake-up, an actor "
          "still busy with earlier events, with messages or Ray calls, or waiting for its sends to land). In "
          "virtual time the lag is that times the speed. *events over 5 ms*: how many were later than the bar.",
          "- *stragglers*: messages carrying a job (remote execution, migration, return) that reached their "
          "destination after their virtual delivery time; each one changes what happens, so a faithful run has "
          "none (`summary.fidelity.stragglers`).",
          "- *late load messages*: load reports and load-index broadcasts that arrived after their delivery time "
          "(`fidelity.late_messages - fidelity.stragglers`). They only make a view that is already up to a "
          "period stale a little staler, so they do not fail a trial. With 0.1 ms of modelled network latency, any Ray call (~1 ms of wall "
          "time) is late by design, so this count is expected to be large.",
          "- *actor startup*: wall time from asking Ray for the actors until all are constructed "
          "(`summary.startup_time`; the actors are new processes each trial). *load*: the machine's 1-minute "
          "load average at the trial's end (the run's own actors included). *trial wall*: the whole `emu.run.run` call (startup, warm-up, the paced run, "
          "gathering and assembling results, killing the actors).",
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
            f"~{p['trial_wall']:g} s trials")


P004_POLICIES = ("immediate_eviction", "pause_and_migrate", "linger_longer", "linger_forever")
REPRODUCTION_AIMS = {"p000": 600.0}     # seconds: issue 3's aim for the full `nowemu reproduce p000`


def reproductions() -> list[dict]:
    """What the full reproductions' reports say they took: report, date, runs, runs read back from an earlier
    invocation, summed run time and wall time (s), and the aim (s, or None). A report whose runs were read
    back does not measure the reproduction's wall time; its aim is then not judged."""
    from emu.reproduce import DOCS, read_head
    rows = []
    for path in sorted(DOCS.glob("p*.md")):
        if path.stem.endswith("-quick"):
            continue
        head = read_head(path.read_text())
        if head:
            rows.append({"report": f"docs/reproductions/{path.name}", **head, "aim": REPRODUCTION_AIMS.get(path.stem)})
    return rows


def _reproduction_aim(r: dict) -> str:
    if r["aim"] is None:
        return ""
    if r["read_back"]:
        return "not judged: runs read back"
    return "met" if r["wall"] <= r["aim"] else "**not met**"


def bench_papers(p: dict, log) -> list[dict]:
    """Wall time of the papers' largest runs at their own scale, inline, one seed: paper 004's Table 1
    workload 1 (64 workstations with owners, 128 foreign jobs of 600 s) under each policy. Issue 4's aim:
    under 2 minutes per policy on 2 cores."""
    from emu import scenario
    from emu.run import run
    rows = []
    for policy in P004_POLICIES:
        s = scenario.load(SCENARIOS / "p004" / "ll_c1.toml", [f"policy={policy}", *p["paper"]])
        t = time.perf_counter()
        result = run(s, "inline")
        wall = time.perf_counter() - t
        m = result["summary"]["metrics"]
        rows.append({"scenario": "scenarios/p004/ll_c1.toml", "policy": policy, "nodes": s["cluster"]["nodes"],
                     "jobs": m["jobs_submitted"], "virtual": result["summary"]["end"], "wall": wall})
        log(f"paper 004 Table 1, {policy}: {s['cluster']['nodes']} nodes, {m['jobs_submitted']} jobs, "
            f"{result['summary']['end']:,.0f} virtual s in {wall:.1f} s")
    return rows


def main(quick: bool, out: Path) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    out = Path(out)
    p = plan(quick)
    console = Console(stderr=True)
    mach = machine()
    cmd = command(quick, out)
    start = time.perf_counter()
    steps = REPEATS * 3 + len(p["paced"]) * len(p["speeds"]) + 1
    with Progress(TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), console=console, transient=False) as progress:
        task = progress.add_task("nowemu bench", total=steps)

        def log(msg: str) -> None:
            progress.console.log(msg)

        def advance(n: int = 1) -> None:
            progress.advance(task, n)

        progress.update(task, description="inline vs SimPy")
        inline = bench_inline(p["jobs"], log, advance)
        progress.update(task, description="model cost (inline)")
        model = bench_model_cost(p, log)           # before Ray starts: its idle processes take CPU too
        progress.update(task, description="paper-scale runs (inline)")
        papers = bench_papers(p, log)
        progress.update(task, description="live view cost")
        view = bench_view(log, jobs=p["view_jobs"], repeats=3)
        progress.update(task, description="paced runtime")
        paced = bench_paced(p, log, advance)
        paced["model"] = model
        progress.update(task, description="sweep")
        sweep = bench_sweep(log, runs=p["sweep_runs"], jobs=p["sweep_jobs"])
    mach["load_end"] = _loadavg()
    text = render(mach, cmd, p, inline, paced, view, sweep, papers, time.perf_counter() - start)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text)
    console.print(f"wrote {out} ({(time.perf_counter() - start) / 60:.1f} min)")
    return 0

"""`nowemu bench`: measure how fast the emulator runs on this machine and write docs/benchmarks.md.

Two measurements, every figure in the file produced by the run that writes it:

1. Inline vs SimPy. The one-workstation M/M/1 scenario (scenarios/mm1.toml) under the inline runtime, in fluid
   processor sharing and in quantum round robin, against the textbook SimPy M/M/1 (a FCFS `simpy.Resource`
   of capacity 1: SimPy has no processor-sharing server). Same rates, same number of jobs, interleaved, best of
   three; jobs per second of wall time, and each one's mean response time against E[S] / (1 - rho).
2. Paced runtime. scenarios/quickstart.toml on N workstations (per-node load held constant) under `paced`, up a
   ladder of speeds: the highest speed at which the run stays faithful (p99 wake lateness under 5 ms of wall
   time and no job-carrying message late). Ray starts once and serves every trial.

    nowemu bench              full run (a quarter of an hour or so on 2 cores)
    nowemu bench --quick      smaller runs, to check that it works
"""
from __future__ import annotations

import math
import os
import platform
import random
import shlex
import sys
import time
from pathlib import Path

from emu.ray_runtime import FAITHFUL_LATENESS_MS
from emu.scenario import QUICKSTART, SCENARIOS
from emu.sweep import bench_sweep
from emu.view import bench_view

MM1 = Path(__file__).resolve().parent.parent / "scenarios" / "mm1.toml"
DEFAULT_OUT = Path("docs/benchmarks.md")

AIM_NODES, AIM_SPEED = 64, 100.0
REPEATS = 3


def plan(quick: bool) -> dict:
    if quick:
        return {"jobs": 5000, "nodes": [8, 16], "speeds": [2, 10, 50, 100], "trial_wall": 6.0, "model_span": 100.0,
                "sweep_runs": 8, "sweep_jobs": 500, "view_jobs": 2000,
                "paper": ["cluster.nodes=16", "workload.jobs=32"]}
    # The view's and the sweep's runs last seconds each: on a 1-s run this VM's run-to-run noise (about 10 %)
    # and fixed costs (a Ray worker's first imports) would swamp what is measured.
    return {"jobs": 20000, "nodes": [8, 16, 32, 64], "speeds": [1, 2, 5, 10, 20, 50, 100, 200],
            "trial_wall": 10.0, "model_span": 200.0, "sweep_runs": 20, "sweep_jobs": 2000, "view_jobs": 8000,
            "paper": []}


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


# -- 2. paced runtime --------------------------------------------------------------------------------------------
def paced_scenario(nodes: int, speed: float, trial_wall: float) -> tuple[dict, dict]:
    from emu import scenario
    base = scenario.load(QUICKSTART)
    base_ia = base["workload"][0]["arrival"]["mean_interarrival"]
    base_nodes = base["cluster"]["nodes"]
    ia = base_ia * base_nodes / nodes               # the same arrival rate per workstation
    stop = speed * trial_wall                       # virtual seconds: trial_wall seconds of wall time
    jobs = math.ceil(1.25 * stop / ia) + 10          # enough arrivals to keep arriving until the stop
    s = scenario.load(QUICKSTART, [f"cluster.nodes={nodes}", f"workload.jobs={jobs}",
                                   f"workload.arrival.mean_interarrival={ia!r}", 'stop.when="time"',
                                   f"stop.time={stop!r}"])
    return s, {"interarrival": ia, "stop": stop, "jobs": jobs}


def paced_trial(nodes: int, speed: float, trial_wall: float) -> dict:
    from emu.run import run
    s, params = paced_scenario(nodes, speed, trial_wall)
    row = {"nodes": nodes, "speed": speed, **params}
    t0 = time.perf_counter()
    try:
        result = run(s, runtime="paced", speed=speed)
    except Exception as exc:                        # a trial that breaks is a failed trial, not a failed bench
        row.update(ok=False, error=f"{type(exc).__name__}: {exc}".splitlines()[0][:160],
                   wall=time.perf_counter() - t0)
        return row
    su = result["summary"]
    p, f, m = su["paced"], su["fidelity"], su["metrics"]
    row.update(
        wall=time.perf_counter() - t0, startup=su["startup_time"], paced_wall=p["paced_wall"],
        virtual=p["virtual_time"], p50=p["event_lateness_ms_p50"], p99=p["event_lateness_ms_p99"],
        wake_max=p["event_lateness_ms_max"], events=p["events"], over=p["events_over_bar"], stragglers=f["stragglers"],
        late_load=f["late_messages"] - f["stragglers"], late_by_kind=f["late_by_kind"],
        msg_late_p50=f["lateness_p50"], submitted=m["jobs_submitted"], done=m["jobs_done"],
        error=None)
    row["ok"] = row["p99"] < FAITHFUL_LATENESS_MS and row["stragglers"] == 0
    return row


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


def bench_paced(p: dict, log, advance) -> dict:
    from emu import ray_runtime
    ray = ray_runtime.start_ray()
    trials, best = [], {}
    for nodes in p["nodes"]:
        best[nodes] = None
        failed = 0       # in a row: lateness is noisy, and at low speeds idle actors wake slowly, so one
        for i, speed in enumerate(p["speeds"]):          # failure does not end the ladder; two do
            row = paced_trial(nodes, speed, p["trial_wall"])
            trials.append(row)
            if row["error"]:
                log(f"paced {nodes} workstations, speed {speed:g}: error: {row['error']}")
            else:
                log(f"paced {nodes} workstations, speed {speed:g}: wake lateness p50 {row['p50']:.2f} ms, "
                    f"p99 {row['p99']:.2f} ms; stragglers {row['stragglers']}; late load messages "
                    f"{row['late_load']}; startup {row['startup']:.1f} s; wall {row['wall']:.1f} s -> "
                    f"{'faithful' if row['ok'] else 'NOT faithful'}")
            _settle()
            failed = 0 if row["ok"] else failed + 1
            if row["ok"]:
                best[nodes] = speed
            if failed == 2:
                advance(len(p["speeds"]) - i)
                break
            advance()
    return {"trials": trials, "best": best, "resources": ray.cluster_resources()}


def _settle(seconds: float = 2.0) -> None:
    """Give the killed actors' processes time to exit before the next trial starts its own."""
    time.sleep(seconds)


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
    w = p["trial_wall"]
    L += ["## 2. Paced runtime: highest faithful speed", "",
          f"scenarios/quickstart.toml (CPU-threshold load sharing with migration, heavy-tailed jobs, 96-320 MB "
          f"memory demands, 1 s load-report period through the collector) on N workstations, one Ray actor each "
          f"plus the collector, with the mean interarrival time scaled to 0.8 s x 8 / N so that each workstation "
          f"sees the same load. Each trial runs until virtual time speed x {w:g} s (`stop.when = \"time\"`), "
          f"about {w:g} s of wall time. Speeds tried: {', '.join(f'{s:g}' for s in p['speeds'])}, climbing until "
          f"two in a row are unfaithful. Faithful means p99 wake lateness < {FAITHFUL_LATENESS_MS:g} ms of wall time "
          f"AND no straggler (job-carrying message that arrived after its deliver_at). Ray was started once "
          f"(embedded, {_resources(paced['resources'])}) and served every trial.", "",
          "| N | speed | virtual s | jobs done / arrived | wake lateness p50 (ms) | p99 (ms) | max (ms) | "
          "stragglers | late load messages | their lateness p50 (virtual s) | actor startup (s) | paced wall (s) | "
          "trial wall (s) | faithful |",
          "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|"]
    for t in paced["trials"]:
        if t["error"]:
            L.append(f"| {t['nodes']} | {t['speed']:g} | | | | | | | | | | | {t['wall']:.1f} | "
                     f"error: {t['error'].replace('|', '/')} |")
            continue
        reasons = []
        if t["p99"] >= FAITHFUL_LATENESS_MS:
            reasons.append(f"p99 >= {FAITHFUL_LATENESS_MS:g} ms")
        if t["stragglers"]:
            reasons.append("stragglers")
        L.append(f"| {t['nodes']} | {t['speed']:g} | {t['virtual']:.0f} | {t['done']:,} / {t['submitted']:,} | "
                 f"{t['p50']:.2f} | {t['p99']:.2f} | {t['wake_max']:.1f} | {t['stragglers']} | {t['late_load']:,} | "
                 f"{t['msg_late_p50']:.3g} | {t['startup']:.1f} | {t['paced_wall']:.1f} | {t['wall']:.1f} | "
                 f"{'yes' if t['ok'] else 'no: ' + ', '.join(reasons)} |")
    L += ["", f"The model alone: the same scenario (same N, same per-node load) for {p['model_span']:g} virtual "
          "seconds under the inline runtime, in one process without Ray, measured before Ray started. A paced "
          "run does this same model work spread over its actors, plus the messaging, so the machine's CPU count "
          "times this rate bounds any paced speed.", "",
          f"| N | virtual s | wall (s) | jobs done | virtual s per wall s, one core | bound on {mach['usable']} "
          f"cores |",
          "|--:|--:|--:|--:|--:|--:|"]
    for nodes, c in paced["model"].items():
        L.append(f"| {nodes} | {c['virtual']:g} | {c['wall']:.2f} | {c['done']:,} | {c['rate']:,.0f} | "
                 f"{mach['usable'] * c['rate']:,.0f}x |")
    L += ["", "Highest faithful speed:", ""]
    for nodes, speed in paced["best"].items():
        tried = [t for t in paced["trials"] if t["nodes"] == nodes]
        if speed is None:
            L.append(f"- **{nodes} workstations: none** of the speeds tried "
                     f"({', '.join(format(t['speed'], 'g') for t in tried)}x).")
        else:
            top = " (the top of the ladder: it may go higher)" if speed == p["speeds"][-1] else ""
            L.append(f"- **{nodes} workstations: {speed:g}x** real time{top}.")
    L += ["", f"**Aim: {AIM_NODES} workstations at {AIM_SPEED:g}x real time on 2 cores.** {_aim(p, paced, mach)}",
          ""]

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
          "- *wake lateness*: every time an actor sleeps until its next event, how much later than the target it "
          "actually woke, in wall milliseconds, pooled over all actors (`summary.paced`). In virtual time the "
          "lag is that times the speed. Its tail grows with N on 2 cores because the load-index broadcast wakes "
          "every actor at the same virtual instant: N actors then queue for 2 CPUs, and the last to run is late "
          "by the others' work. At low speeds the median is higher than at moderate ones because an actor that "
          "slept long wakes slowly (this machine is a VM whose idle CPUs halt).",
          "- *stragglers*: messages carrying a job (remote execution, migration, return) that reached their "
          "destination after their virtual delivery time; each one changes what happens, so a faithful run has "
          "none (`summary.fidelity.stragglers`).",
          "- *late load messages*: load reports and load-index broadcasts that arrived after their delivery time "
          "(`fidelity.late_messages - fidelity.stragglers`). They only make a view that is already up to a "
          "period stale a little staler, so they do not fail a trial; *their lateness p50* is the median virtual "
          "lateness of all late messages. With 0.1 ms of modelled network latency, any Ray call (~1 ms of wall "
          "time) is late by design, so this count is expected to be large.",
          "- *actor startup*: wall time from asking Ray for the N + 1 actors until all are constructed "
          "(`summary.startup_time`; the actors are new processes each trial). *paced wall*: from the epoch to the "
          "last actor's stop. *trial wall*: the whole `emu.run.run` call (startup, warm-up, the paced run, "
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
    return (f"{p['jobs']:,} M/M/1 jobs; paced N = {', '.join(map(str, p['nodes']))}, speeds "
            f"{', '.join(f'{s:g}' for s in p['speeds'])}, ~{p['trial_wall']:g} s trials")


def _resources(res: dict) -> str:
    return f"{res.get('CPU', 0):g} CPUs"


def _aim(p: dict, paced: dict, mach: dict) -> str:
    cores = mach["usable"]
    if AIM_NODES not in paced["best"]:
        return (f"Not measured: this run did not try {AIM_NODES} workstations (`--quick` stops at "
                f"{max(p['nodes'])}). Run `nowemu bench` to check it.")
    best = paced["best"][AIM_NODES]
    tried_aim = any(t["nodes"] == AIM_NODES and t["speed"] >= AIM_SPEED for t in paced["trials"])
    on = f"on this machine ({cores} usable CPUs)"
    if best is not None and best >= AIM_SPEED:
        return f"**Met** {on}: {AIM_NODES} workstations stayed faithful up to {best:g}x."
    if best is None:
        got = f"{AIM_NODES} workstations were not faithful at any speed tried (lowest {p['speeds'][0]:g}x)"
    else:
        got = f"{AIM_NODES} workstations stayed faithful only up to {best:g}x"
    text = f"**Not met** {on}: {got}" + ("" if tried_aim else f", so {AIM_SPEED:g}x was never reached") + "."
    model = paced.get("model", {}).get(AIM_NODES)
    if model:
        text += (f" The model alone (inline, no Ray) runs {AIM_NODES} workstations at {model['rate']:,.0f} virtual "
                 f"seconds per wall second on one core, so {AIM_SPEED:g}x would need "
                 f"{AIM_SPEED / model['rate']:.1f} cores for the model work before any messaging.")
    return text


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
    steps = REPEATS * 3 + len(p["nodes"]) * len(p["speeds"])
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

"""`nowemu bench`, the model's own speed: the inline runtime beside SimPy, and beside this project as it was
before issue 21's fast core (`BASELINE`), each measured side by side in one run, interleaved, best of three.

- Inline M/M/1 (scenarios/mm1.toml) against the textbook SimPy M/M/1 (a FCFS `simpy.Resource`: SimPy has no
  processor-sharing server), same rates and number of jobs: as whole processes (interpreter start, imports,
  workload, run and results, timed from outside; both sides from byte-compiled code, `compile_packages`)
  and as event loops (the `emu.engine.run.run` call, and SimPy's setup and `env.run()`, timed inside).
- The quantum CPU at 10 ms slices: four CPU-bound jobs round robin on one workstation (0.1 ms context
  switches), dispatches (slices begun) per wall second.
- Paper 001's page-level model (scenarios/p001/medium.toml under CSM, a quarter of its jobs): dispatches per
  wall second, now only (the baseline has no page-level model), the rate `nowemu reproduce p001`'s hour rests on.
- The 64-workstation quick-start model alone (`emu.tools.bench_paced.paced_scenario`: the quick start's load per
  workstation, stopped at a virtual time), virtual seconds per wall second.

The baseline is the same measurement run by a subprocess in a git worktree of `BASELINE` (its code, its
scenarios). Each measurement prints its model's figures, so the table shows when the two computed the same
thing (the M/M/1 and slice runs must agree to the last digit; the quick start differs by issue 21's named model
fix, the least-loaded tie-break, and its table says by how much). Without git history the baseline columns
read "not measured" and so do the aims that need them.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BASELINE = "7b93f2b"         # the last commit before issue 21's fast core
REPEATS = 3

# Measured in a fresh interpreter, from the checkout it runs in (this one or the baseline's worktree, whose
# modules were all in emu/ itself): a scenario run inline; prints the run's own wall time (perf_counter around
# `run`) and what the model computed.
PROBE = """
import json, sys, time
from pathlib import Path
import emu
if (Path.cwd() / "emu" / "engine").is_dir():    # by the layout, not by trying: an editable install's finder
    from emu.engine.run import run               # would find emu.engine in the other checkout
    from emu.inputs import scenario
else:
    from emu import scenario
    from emu.run import run
path, overrides = sys.argv[1], json.loads(sys.argv[2])
assert Path(emu.__file__).resolve().parent.parent == Path.cwd().resolve(), emu.__file__
s = scenario.load(Path(path), overrides)
t0 = time.perf_counter()
result = run(s, runtime="inline")
wall = time.perf_counter() - t0
m = result["summary"]["metrics"]
keys = ("jobs_done", "mean_response", "page_faults", "migrations")
print(json.dumps({"wall": wall, "end": result["summary"]["end"], **{k: m[k] for k in keys}}))
"""

# The textbook SimPy M/M/1, run the same two ways; `mm1` returns (seconds of its own setup and run, mean
# response, jobs done).
SIMPY_MM1 = """
import random, time
import simpy

def mm1(jobs, mean_ia, mean_s, seed):
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
"""


def cases(p: dict) -> dict:
    """What is measured: {name: (scenario file relative to the checkout, overrides)}."""
    from emu.tools.bench_paced import paced_scenario
    _, quick = paced_scenario(64, p["model_span"], 1.0)
    return {
        "mm1": ("scenarios/mm1.toml", [f"workload.jobs={p['jobs']}"]),
        "mm1-quantum": ("scenarios/mm1.toml", [f"workload.jobs={p['jobs']}", "cpu.mode=quantum",
                                               'cpu.time_slice="100 ms"']),
        "slices": ("scenarios/mm1.toml", ["workload.jobs=4", 'workload.arrival.mean_interarrival="1 ms"',
                                          'workload.lifetime.distribution="fixed"',
                                          f'workload.lifetime.mean="{p["slice_work"]} s"', "cpu.mode=quantum",
                                          'cpu.time_slice="10 ms"', 'cpu.context_switch="0.1 ms"']),
        "p001": ("scenarios/p001/medium.toml", ["cpu.insertion.name=csm", "workload.0.jobs=160", "workload.1.jobs=5",
                                                "workload.2.jobs=5"]),
        "quickstart-64": ("scenarios/quickstart.toml", [
            "cluster.nodes=64", f"workload.jobs={quick['jobs']}",
            f"workload.arrival.mean_interarrival={quick['interarrival']!r}", 'stop.when="time"',
            f"stop.time={quick['stop']!r}"]),
    }


def mm1_theory(s: dict) -> tuple[float, float, float]:
    """(mean interarrival, E[S], E[T] = E[S] / (1 - rho)) from the scenario's own parameters."""
    w = s["workload"][0]
    mean_ia = w["arrival"]["mean_interarrival"]
    mean_s = w["lifetime"]["mean"] / s["cluster"]["speed"]
    return mean_ia, mean_s, mean_s / (1 - mean_s / mean_ia)


@contextmanager
def baseline_checkout(rev: str = BASELINE):
    """A git worktree of `rev` (None if this checkout has no git history holding it), removed afterwards."""
    where = Path(tempfile.mkdtemp(prefix="nowemu-baseline-")) / "checkout"
    made = subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(where), rev],
                          capture_output=True, text=True).returncode == 0
    try:
        yield where if made else None
    finally:
        if made:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(where)],
                           capture_output=True)
        shutil.rmtree(where.parent, ignore_errors=True)     # the temporary folder it was made in


def probe(checkout: Path, case: tuple) -> dict:
    """One run of `case` in a fresh interpreter from `checkout`: its own figures, plus the whole process's
    wall time measured from here."""
    path, overrides = case
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", PROBE, path, json.dumps(overrides)], cwd=checkout, env=env,
                         capture_output=True, text=True)
    process = time.perf_counter() - t0
    if out.returncode != 0:
        raise RuntimeError(f"probe of {path} in {checkout} failed: {out.stderr.strip().splitlines()[-1:]}")
    return {**json.loads(out.stdout), "process": process}


def compile_packages(checkout: Path) -> None:
    """Byte-compile the checkout's packages, so that its processes start as an installed package does: pip
    compiles SimPy when it installs it, while an editable checkout is compiled on first import, or on every
    import where PYTHONDONTWRITEBYTECODE is set (as on some CI machines), which would charge each of our
    processes tens of milliseconds that SimPy's do not pay."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", "emu", "actors", "policies"], cwd=checkout,
                   capture_output=True, check=True)


def simpy_process(jobs: int, mean_ia: float, mean_s: float, seed: int) -> dict:
    """SimPy's M/M/1 in a fresh interpreter: the whole process's wall time, and its own."""
    code = SIMPY_MM1 + f"\nprint(list(mm1({jobs}, {mean_ia!r}, {mean_s!r}, {seed})))"
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    process = time.perf_counter() - t0
    wall, mean_response, done = json.loads(out.stdout)
    return {"process": process, "wall": wall, "mean_response": mean_response, "jobs_done": done}


def dispatches(case: tuple) -> int:
    """The slices a case begins, counted by QuantumCPU in a run here (the baseline's code cannot count them, and
    runs the same slices in the 10-ms case: its figures must agree)."""
    from emu.engine import cluster
    from emu.engine.inline import run_inline
    from emu.inputs import scenario
    s = scenario.load(ROOT / case[0], case[1])
    parts, heap, total = cluster.in_process(cluster.blueprints(s))
    run_inline(parts, heap, total, s["stop"], cluster.lookahead(s))
    return sum(p.cpu.dispatches for p in parts.values() if hasattr(p, "cpu"))


def bench_model(p: dict, log, advance) -> dict:
    """Every case here and in the baseline, plus SimPy, interleaved; the best of REPEATS of each."""
    from emu.inputs import scenario
    todo = cases(p)
    mean_ia, mean_s, theory = mm1_theory(scenario.load(ROOT / todo["mm1"][0], todo["mm1"][1]))
    simpy_ns: dict = {}
    exec(SIMPY_MM1, simpy_ns)
    best: dict = {}

    def keep(key, row):
        if key not in best or row["process"] < best[key]["process"]:
            best[key] = row

    with baseline_checkout() as base:
        log(f"model speed: baseline {BASELINE} {'in ' + str(base) if base else 'not available (no git history)'}")
        for checkout in (ROOT, base):
            if checkout is not None:
                compile_packages(checkout)
        for rep in range(REPEATS):
            for name, case in todo.items():
                for side, checkout in (("now", ROOT), ("baseline", base)):
                    if checkout is not None and (side == "now" or name not in NOW_ONLY):
                        row = probe(checkout, case)
                        keep((name, side), row)
                        log(f"model speed, round {rep + 1}/{REPEATS}: {name} ({side}): run {row['wall']:.2f} s, "
                            f"process {row['process']:.2f} s")
            keep(("mm1", "simpy"), simpy_process(p["jobs"], mean_ia, mean_s, 1))
            wall, mean_response, done = simpy_ns["mm1"](p["jobs"], mean_ia, mean_s, 1)
            best[("mm1", "simpy-loop")] = min(best.get(("mm1", "simpy-loop"), wall), wall)
            advance()
    return {"best": best, "theory": theory, "mean_s": mean_s, "mean_ia": mean_ia, "jobs": p["jobs"],
            "slices": dispatches(todo["slices"]), "p001": dispatches(todo["p001"]), "cases": todo, "baseline": BASELINE if base else None,
            "span": p["model_span"]}


# -- the report --------------------------------------------------------------------------------------------------
AIMS = {"mm1": 0.3, "slices": 5.0, "quickstart-64": 3.0}     # issue 21's "What must hold"
NOW_ONLY = {"p001"}                                          # models the baseline does not have


def _ratio(now: float, then: float | None) -> str:
    return "not measured" if then is None else f"{then / now:.2f}x"


def _figures(row: dict | None) -> str:
    """What a run computed: jobs done, page faults, migrations."""
    return "-" if row is None else f"{row['jobs_done']}, {row['page_faults']}, {row['migrations']}"


def verdicts(res: dict) -> dict:
    """Each aim: (measured ratio or None, met)."""
    best = res["best"]
    simpy = best[("mm1", "simpy")]
    mm1 = (res["jobs"] / best[("mm1", "now")]["process"]) / (simpy["jobs_done"] / simpy["process"])
    out = {"mm1": (mm1, mm1 >= AIMS["mm1"])}
    for name in ("slices", "quickstart-64"):
        then = best.get((name, "baseline"))
        ratio = None if then is None else then["wall"] / best[(name, "now")]["wall"]
        out[name] = (ratio, ratio is not None and ratio >= AIMS[name])
    return out


def render(res: dict) -> list[str]:
    best, v = res["best"], verdicts(res)

    def met(key: str) -> str:
        return "met" if v[key][1] else "**not met**"

    simpy, loop = best[("mm1", "simpy")], best[("mm1", "simpy-loop")]
    lines = ["### Inline against SimPy", "",
             f"M/M/1, {res['jobs']:,} jobs, mean interarrival {res['mean_ia']:g} s, mean service {res['mean_s']:g} s "
             f"(E[T] = {res['theory']:.3f} s). Jobs per second of wall time, as whole processes (started, "
             f"imports, run, exit; both from byte-compiled code, as pip installs SimPy) and as event loops (the run call "
             f"alone); best of {REPEATS}, interleaved.", "",
             "| contender | whole process (s) | jobs/s | x SimPy | event loop (s) | jobs/s | x SimPy | mean response (s) |",
             "|---|---|---|---|---|---|---|---|"]
    sp_rate, sl_rate = simpy["jobs_done"] / simpy["process"], simpy["jobs_done"] / loop
    rows = [("nowemu inline, fluid PS", best[("mm1", "now")]),
            ("nowemu inline, quantum RR (100 ms)", best[("mm1-quantum", "now")]),
            (f"nowemu inline, fluid PS, at {res['baseline']}", best.get(("mm1", "baseline")))]
    for name, row in rows:
        if row is None:
            continue
        pr, lr = row["jobs_done"] / row["process"], row["jobs_done"] / row["wall"]
        lines.append(f"| {name} | {row['process']:.2f} | {pr:,.0f} | {pr / sp_rate:.3f} | {row['wall']:.2f} | "
                     f"{lr:,.0f} | {lr / sl_rate:.3f} | {row['mean_response']:.4f} |")
    lines.append(f"| SimPy 4 M/M/1 FCFS (simpy.Resource) | {simpy['process']:.2f} | {sp_rate:,.0f} | 1 | {loop:.2f} | "
                 f"{sl_rate:,.0f} | 1 | {simpy['mean_response']:.4f} |")
    lines += ["", f"Aim (issue 21): inline M/M/1 at 0.3x SimPy's jobs per second or better as whole processes: "
                  f"{v['mm1'][0]:.3f}x, {met('mm1')}.", ""]
    lines += ["### The model against the baseline", "",
              f"Side by side with the code of {res['baseline'] or BASELINE} (the commit before the fast core), "
              f"each in its own process, the run call timed; best of {REPEATS}.", "",
              "| case | now (s) | baseline (s) | speed-up | now: jobs done, faults, migrations | baseline: same |",
              "|---|---|---|---|---|---|"]
    for name, what in (("slices", f"quantum CPU, 10 ms slices: 4 CPU-bound jobs, {res['slices']:,} dispatches"),
                       ("quickstart-64", f"64-workstation quick start, model alone, {res['span']:g} virtual s"),
                       ("mm1", "M/M/1 fluid PS (the table above)")):
        now, then = best[(name, "now")], best.get((name, "baseline"))
        then_wall = "-" if then is None else f"{then['wall']:.3f}"
        lines.append(f"| {what} | {now['wall']:.3f} | {then_wall} | {_ratio(now['wall'], then and then['wall'])} | "
                     f"{_figures(now)} | {_figures(then)} |")
    slices = best[("slices", "now")]
    lines += ["", f"Dispatches per wall second: {res['slices'] / slices['wall']:,.0f} now"
              + ("" if ("slices", "baseline") not in best else
                 f", {res['slices'] / best[('slices', 'baseline')]['wall']:,.0f} at the baseline") + ".",
              f"Aim: 5x the baseline's dispatches per second: {met('slices')}"
              + ("" if v["slices"][0] is None else f" ({v['slices'][0]:.2f}x)") + ".",
              f"Aim: the 64-workstation model alone at 3x the baseline's virtual seconds per wall second: "
              f"{met('quickstart-64')}" + ("" if v["quickstart-64"][0] is None else f" ({v['quickstart-64'][0]:.2f}x)")
              + ". The two differ by the least-loaded tie-break (a named model fix): fewer faults and migrations "
                "are part of the speed-up.", ""]
    p001 = best[("p001", "now")]
    lines += ["### Paper 001's page-level model", "",
              f"scenarios/p001/medium.toml under CSM with a quarter of its jobs ({_figures(p001)} jobs done, faults, "
              f"migrations): {res['p001']:,} dispatches in {p001['wall']:.2f} s, {res['p001'] / p001['wall']:,.0f} "
              f"dispatches per wall second (best of {REPEATS}; no baseline: it has no page-level model).", ""]
    return lines

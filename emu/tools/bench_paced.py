"""`nowemu bench`, section 2: the paced runtime, how fast it stays faithful.

scenarios/quickstart.toml on N workstations (the interarrival time scaled so that each sees the quick start's
load) under `paced`, hosted by one Ray actor per participant or by K (`actors`), at every speed of a ladder:
faithful means that the p99 of every local event's lateness is under FAITHFUL_LATENESS_MS of wall time and
that no job-carrying message arrived after its deliver_at. Every speed is tried: lateness is not monotone in
the speed (at low speeds an idle VM wakes its actors slowly). Then the quick start itself, as shipped, at its
own speed. Ray starts once and serves every trial.
"""
from __future__ import annotations

import math
import time

from emu.engine.ray_runtime import FAITHFUL_LATENESS_MS
from emu.inputs.scenario import QUICKSTART

# (workstations, Ray actors or None for one per participant, speed): issue 21's aims, each judged by the one
# trial at that speed
AIMS = [(8, None, 25.0), (16, 2, 50.0), (64, 2, 20.0)]


def paced_scenario(nodes: int, speed: float, trial_wall: float, extra: tuple = ()) -> tuple[dict, dict]:
    from emu.inputs import scenario
    base = scenario.load(QUICKSTART)
    base_ia = base["workload"][0]["arrival"]["mean_interarrival"]
    base_nodes = base["cluster"]["nodes"]
    ia = base_ia * base_nodes / nodes               # the same arrival rate per workstation
    stop = speed * trial_wall                       # virtual seconds: trial_wall seconds of wall time
    jobs = math.ceil(1.25 * stop / ia) + 10          # enough arrivals to keep arriving until the stop
    s = scenario.load(QUICKSTART, [f"cluster.nodes={nodes}", f"workload.jobs={jobs}",
                                   f"workload.arrival.mean_interarrival={ia!r}", 'stop.when="time"',
                                   f"stop.time={stop!r}", *extra])
    return s, {"interarrival": ia, "stop": stop, "jobs": jobs}


def paced_trial(nodes: int, speed: float, trial_wall: float, actors: int | None = None, s: dict | None = None) -> dict:
    """One paced run (of `s`, or of `paced_scenario`) and its fidelity figures; a run that breaks is a failed
    trial, not a failed bench."""
    from emu.engine.run import run
    params = {}
    if s is None:
        # on K actors a host's reports due at one instant go out in one call; staggered, each would be a call
        s, params = paced_scenario(nodes, speed, trial_wall, () if actors is None else ("load_index.stagger=false",))
    row = {"nodes": nodes, "actors": actors, "speed": speed, **params}
    t0 = time.perf_counter()
    try:
        result = run(s, runtime="paced", speed=speed, actors=actors)
    except Exception as exc:
        row.update(ok=False, error=f"{type(exc).__name__}: {exc}".splitlines()[0][:160],
                   wall=time.perf_counter() - t0)
        return row
    su = result["summary"]
    p, f, m = su["paced"], su["fidelity"], su["metrics"]
    row.update(
        wall=time.perf_counter() - t0, startup=su["startup_time"], paced_wall=p["paced_wall"],
        virtual=p["virtual_time"], events=p["events"], p50=p["event_lateness_ms_p50"],
        p99=p["event_lateness_ms_p99"], max=p["event_lateness_ms_max"], over=p["events_over_bar"],
        stragglers=f["stragglers"], late_load=f["late_messages"] - f["stragglers"], submitted=m["jobs_submitted"],
        transit=p["transit_ms_p99"], window=p["job_window_ms"],
        done=m["jobs_done"], load=_load1(), error=None)
    row["ok"] = row["p99"] < FAITHFUL_LATENESS_MS and row["stragglers"] == 0
    return row


def bench_paced(p: dict, log, advance) -> dict:
    from emu.engine import ray_runtime
    from emu.inputs import scenario
    ray = ray_runtime.start_ray()
    trials = []
    for nodes, actors in p["paced"]:
        for speed in p["speeds"]:
            row = paced_trial(nodes, speed, p["trial_wall"], actors)
            trials.append(row)
            log(f"paced {_who(nodes, actors)}, speed {speed:g}: {_line(row)}")
            _settle()
            advance()
    s = scenario.load(QUICKSTART, p["quickstart"])
    quick = paced_trial(s["cluster"]["nodes"], s["speed"], 0.0, s=s)
    quick["jobs"] = sum(w["jobs"] for w in s["workload"])
    log(f"paced quick start as shipped, speed {s['speed']:g}: {_line(quick)}")
    advance()
    return {"trials": trials, "quickstart": quick, "resources": ray.cluster_resources()}


def _settle(seconds: float = 2.0) -> None:
    """Give the killed actors' processes time to exit before the next trial starts its own."""
    time.sleep(seconds)


def _load1() -> float | None:
    try:
        with open("/proc/loadavg") as fh:
            return float(fh.read().split()[0])
    except (OSError, ValueError):
        return None


def _who(nodes: int, actors: int | None) -> str:
    return f"{nodes} workstations, " + ("one actor each" if actors is None else f"{actors} actors")


def _line(row: dict) -> str:
    if row["error"]:
        return f"error: {row['error']}"
    return (f"event lateness p50 {row['p50']:.2f} ms, p99 {row['p99']:.2f} ms, max {row['max']:.1f} ms over "
            f"{row['events']:,} events; stragglers {row['stragglers']}; wall {row['wall']:.1f} s -> "
            f"{'faithful' if row['ok'] else 'NOT faithful'}")


HEADER = ["| N | actors | speed | virtual s | jobs done / arrived | events | lateness p50 (ms) | p99 (ms) | max (ms) | "
          f"events over {FAITHFUL_LATENESS_MS:g} ms | stragglers | late load messages | transit p99 (ms) | "
          "job window (ms) | actor startup (s) | load (1 min) | trial wall (s) | faithful |",
          "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|"]


def _verdict(t: dict) -> str:
    if t["error"]:
        return f"error: {t['error'].replace('|', '/')}"
    reasons = ([f"p99 >= {FAITHFUL_LATENESS_MS:g} ms"] if t["p99"] >= FAITHFUL_LATENESS_MS else []) + (
        ["stragglers"] if t["stragglers"] else [])
    return "yes" if t["ok"] else "no: " + ", ".join(reasons)


def _row(t: dict, actors: str) -> str:
    if t["error"]:
        return f"| {t['nodes']} | {actors} | {t['speed']:g} |" + " |" * 13 + f" {t['wall']:.1f} | {_verdict(t)} |"
    load = "" if t["load"] is None else f"{t['load']:.2f}"
    return (f"| {t['nodes']} | {actors} | {t['speed']:g} | {t['virtual']:.0f} | {t['done']:,} / {t['submitted']:,} | "
            f"{t['events']:,} | {t['p50']:.2f} | {t['p99']:.2f} | {t['max']:.1f} | {t['over']:,} | {t['stragglers']} | "
            f"{t['late_load']:,} | {t['transit']:.2f} | {t['window']:.1f} | {t['startup']:.1f} | {load} | "
            f"{t['wall']:.1f} | {_verdict(t)} |")


def render(p: dict, paced: dict) -> list[str]:
    w = p["trial_wall"]
    L = ["## 2. Paced runtime: highest faithful speed", "",
         "scenarios/quickstart.toml (CPU-threshold load sharing with migration, heavy-tailed jobs, 96-320 MB memory "
         "demands, 1 s load-report period through the collector) on N workstations plus the collector, hosted by "
         "one Ray actor each, with the reports staggered within the period (`load_index.stagger`, as the quick "
         "start has it), or by K actors (`nowemu run --actors K`), with every host's reports of one instant in "
         "one call (not staggered), "
         "with the mean interarrival time scaled to 0.8 s x 8 / N so that each workstation sees the same load. Each "
         f"trial runs until virtual time speed x {w:g} s (`stop.when = \"time\"`), about {w:g} s of wall time, at "
         f"every speed of {', '.join(f'{s:g}' for s in p['speeds'])}. Faithful means: the p99 of every local "
         f"event's lateness (the wall time it was processed minus the wall time it was due, whatever delayed it) "
         f"under {FAITHFUL_LATENESS_MS:g} ms, AND no straggler (a job-carrying message that arrived after its "
         f"deliver_at). *transit p99*: the 99th percentile of the wall time a batch of messages between two hosts "
         "took on their stream, from one's send to the other's receive; *job window*: the shortest wall time a job "
         "message has to arrive in at that speed (remote execution's r plus a link latency, over the speed): where "
         "batches take longer, job "
         f"messages can straggle whatever the model does. Ray was started once (embedded, "
         f"{paced['resources'].get('CPU', 0):g} CPUs) and served every trial.", "",
         *HEADER]
    L += [_row(t, "1 each" if t["actors"] is None else str(t["actors"])) for t in paced["trials"]]
    L += ["", "At the lowest speeds a trial has few events (the *events* column), so its p99 is one of its few "
          "worst: a single stall of the machine fails it, where at higher speeds it would be one among thousands.",
          "", "Highest faithful speed:", ""]
    for nodes, actors in p["paced"]:
        tried = [t for t in paced["trials"] if (t["nodes"], t["actors"]) == (nodes, actors)]
        faithful = [t["speed"] for t in tried if t["ok"]]
        best = f"**{max(faithful):g}x**" if faithful else "**none**"
        L.append(f"- {_who(nodes, actors)}: {best} of the speeds tried"
                 + (f" (faithful at {', '.join(format(s, 'g') for s in faithful)}x)" if faithful else "") + ".")
    q = paced["quickstart"]
    shipped = ", ".join(["scenarios/quickstart.toml", *p["quickstart"]])
    L += ["", f"The quick start as shipped ({shipped}: "
          f"{q['nodes']} workstations, {q['jobs']} jobs until all are done, one actor each) at its own speed:", "",
          *HEADER, _row(q, "1 each"), ""]
    L += ["Aims (issue 21, on a quiet machine; each judged by its one trial, so a noisy machine can fail one):", ""]
    for nodes, actors, speed in AIMS:
        trial = next((t for t in paced["trials"] if (t["nodes"], t["actors"], t["speed"]) == (nodes, actors, speed)),
                     None)
        met = "not measured by this run" if trial is None else "met" if trial["ok"] else "**not met**"
        L.append(f"- {_who(nodes, actors)}, faithful at {speed:g}x: {met}.")
    L.append(f"- the quick start faithful at its default speed ({q['speed']:g}x): "
             f"{'met' if q['ok'] else '**not met**'}.")
    return L + [""]

"""Paper 004's experiments: the runs `nowemu reproduce p004` makes (spec 004 §7), and the names the analysis
reads them by (the policies, the context switches, PM's pauses, Fig. 13's widths)."""
from __future__ import annotations

import math

from emu.tools.reproduce import Experiment

POLICIES = ("linger_longer", "linger_forever", "immediate_eviction", "pause_and_migrate")
SHORT = {"linger_longer": "LL", "linger_forever": "LF", "immediate_eviction": "IE", "pause_and_migrate": "PM"}
SWITCHES = ("100 us", "300 us", "500 us")
SCV1 = "bursts-scv1.csv"        # the burst table with exponential bursts (Fig. 12's sensitivity to their variance)
PAUSES = (30, 60, 300, 600)     # spec A1's sensitivity sweep of Pause-and-Migrate's pause, seconds
PM_PAUSES = "policy=pause_and_migrate", "policy.pause=" + ",".join(f'"{t} s"' for t in PAUSES if t != 60)
FIG13_WIDTHS = (8, 16, 32)


def _idle_counts(quick: bool) -> list[int]:
    return [8, 16, 24] if quick else list(range(4, 33, 4))


def fig13_placement(width: int, idle: int, total: int = 32) -> list[int]:
    """LL-k's nodes when the last `idle` of `total` workstations are idle: the idle ones first, then nonidle."""
    idle_nodes, nonidle = list(range(total - idle, total)), list(range(total - idle))
    return (idle_nodes + nonidle)[:width]


def _levels(quick: bool) -> list[float]:
    return [0.05, 0.2, 0.5, 0.8] if quick else [round(0.05 + 0.1 * k, 2) for k in range(10)]


def _episodes(quick: bool) -> list[int]:
    return [10, 20, 30, 40, 60] if quick else list(range(5, 125, 5))


def experiments(quick: bool, seeds: int | None) -> list[Experiment]:
    n = seeds or (2 if quick else 5)
    small = ["cluster.nodes=16"] if quick else []
    policies = "policy=" + ",".join(POLICIES)
    wl2 = [f"workload.jobs={4 if quick else 16}", 'workload.lifetime={distribution="fixed", mean="1800 s"}']
    # throughput (spec §6): the same jobs held in the system, a finished one replaced at once, for an hour
    closed = ["workload.closed=true", 'stop.when="time"', f'stop.time="{900 if quick else 3600} s"']
    # Table 1's runs at full scale get twice the seeds: the owners' nonidle episodes last hours (ll_c1.toml), so
    # a run's 64 owners are a small sample of their time, and IE's and PM's job times follow how busy they were
    table = n if quick else 2 * n
    return [
        Experiment("fig7", "p004/ll_n1.toml", [
            "owner.utilization=" + ",".join(map(str, _levels(quick))),
            "cpu.context_switch=" + ",".join(f'"{c}"' for c in SWITCHES),
            f'stop.time="{200 if quick else 600} s"'], n),
        # deterministic (fluid CPU, one job): one seed says it all
        Experiment("fig8", "p004/ll_n2.toml", [
            "policy=immediate_eviction,linger_longer",
            "owner.duration=" + ",".join(f'"{d} s"' for d in _episodes(quick))], 1),
        Experiment("wl1", "p004/ll_c1.toml", [policies, *small, *(["workload.jobs=32"] if quick else [])], table),
        Experiment("wl2", "p004/ll_c1.toml", [policies, *small, *wl2], table),
        # an hour of the owners is a small sample of their time (64 owners whose episodes last hours: one hour is
        # nonidle 37-59 % from seed to seed), and IE's and PM's throughput follows it: four times the seeds
        Experiment("thr1", "p004/ll_c1.toml", [policies, *small, *(["workload.jobs=32"] if quick else []), *closed],
                   4 * n),
        Experiment("thr2", "p004/ll_c1.toml", [policies, *small, *wl2, *closed], table),
        # spec A1: PM's pause is not in the paper; 60 s (the default) is wl1's and wl2's own PM runs
        Experiment("pause1", "p004/ll_c1.toml", [*PM_PAUSES, *small, *(["workload.jobs=32"] if quick else [])], table),
        Experiment("pause2", "p004/ll_c1.toml", [*PM_PAUSES, *small, *wl2], table),
        *_parallel(quick, n),
    ]


def _parallel(quick: bool, n: int) -> list[Experiment]:
    """Figs. 11 and 13. Fig. 13's points each need their own task placement, so each is one experiment."""
    iterations = [f"workload.parallel.iterations={30 if quick else 100}"]
    out = [Experiment("fig11-idle", "p004/ll_p1.toml", ["owner.nodes=0", *iterations], n),
           Experiment("fig11a", "p004/ll_p1.toml", [
               "owner.nodes=1", "owner.utilization=" + ("0.2,0.4,0.6" if quick else
                                                        ",".join(f"{u / 10:g}" for u in range(1, 10))), *iterations], n),
           Experiment("fig11b", "p004/ll_p1.toml", [
               "owner.nodes=" + ("1,4,8" if quick else "1,2,3,4,5,6,7,8"),
               "owner.utilization=" + ("0.2,0.4" if quick else "0.1,0.2,0.3,0.4"), *iterations], n)]
    grains = [10, 100, 500] if quick else [10, 50, 100, 250, 500, 1000]
    grain_axis = "workload.parallel.granularity=" + ",".join(f'"{g} ms"' for g in grains)
    fig12_iterations = [f"workload.parallel.iterations={20 if quick else 50}"]
    out += [Experiment("fig12-idle", "p004/ll_p1.toml", ["owner.nodes=0", grain_axis, *fig12_iterations], n),
            Experiment("fig12", "p004/ll_p1.toml", [
                "owner.nodes=" + ("1,4" if quick else "1,2,4,8"), "owner.utilization=0.2,0.4", grain_axis,
                *fig12_iterations], n),
            # Fig. 12a's 4-node point with exponential bursts: how much of it is the burst table's variance
            Experiment("fig12-scv1", "p004/ll_p1.toml", [
                "owner.nodes=4", "owner.utilization=0.2", f'owner.bursts="../data/{SCV1}"', grain_axis,
                *fig12_iterations], n)]
    base = 10 if quick else 25                       # iterations at width 32: fixed total work (A16)
    for idle in _idle_counts(quick):
        widths = [(f"ll{w}", w, fig13_placement(w, idle)) for w in FIG13_WIDTHS]
        p = 1 << int(math.log2(idle))
        widths.append(("reconf", p, list(range(32 - idle, 32 - idle + p))))
        for name, width, nodes in widths:
            out.append(Experiment(f"fig13-{name}-i{idle}", "p004/ll_p4.toml", [
                f"owner.nodes={32 - idle}", "owner.utilization=0.2,0.4", f"workload.parallel.tasks={width}",
                f"workload.parallel.iterations={base * 32 // width}",
                "workload.parallel.nodes=[" + ",".join(map(str, nodes)) + "]"], n))
    return out


def unquoted(value: str) -> str:
    """An axis value as a record holds it (`--set` text) without its TOML quotes: '"100 us"' -> '100 us'."""
    return value.strip('"')

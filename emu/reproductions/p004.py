"""Paper 004 (Ryu and Hollingsworth, Linger-Longer): the experiments `nowemu reproduce p004` runs and how
their results are set beside the paper's (spec 004 §7, §9). See docs/p004.md for the model and its defaults.

Reproduced: Fig. 7 (node level), Fig. 8 (one owner episode), Table 1 for both workloads: average job time,
variation, family time, the local delay, and the throughput of the paper's separate constant-population
runs (`workload.closed`, one simulated hour). Not yet: Fig. 10 (time per state) and the parallel jobs
(Figs. 11-18).
"""
from __future__ import annotations

import math

from emu import units
from emu.reproduce import Claim, Experiment, fmt, mean_ci, metric, ratio, select
from policies.linger_cost import linger_time

TITLE = ('Ryu and Hollingsworth, "Exploiting Fine-Grained Idle Periods in Networks of Workstations", '
         "IEEE TPDS (paper 004)")
POLICIES = ("linger_longer", "linger_forever", "immediate_eviction", "pause_and_migrate")
SHORT = {"linger_longer": "LL", "linger_forever": "LF", "immediate_eviction": "IE", "pause_and_migrate": "PM"}
SWITCHES = ("100 us", "300 us", "500 us")
# Table 1 as the spec reconstructs it: (avg job time s, variation %, family time s, throughput CPU-s/s)
TABLE1 = {"wl1": {"linger_longer": (1044, 13.7, 1847, 52.2), "linger_forever": (1026, 20.5, 1844, 55.5),
                  "immediate_eviction": (1531, 27.7, 2616, 34.6), "pause_and_migrate": (1531, 22.5, 2521, 34.6)},
          "wl2": {"linger_longer": (1859, 0.9, 1896, 15.0), "linger_forever": (1861, 1.3, 1925, 14.7),
                  "immediate_eviction": (1860, 1.3, 1925, 14.5), "pause_and_migrate": (1862, 1.6, 1956, 14.5)}}
# Fig. 8's setting (scenarios/p004/ll_n2.toml): a 50-s job, owner at h = 0.2, T_migr = 8 MB at 10 Mbps
WORK, H = 50.0, 0.2
T_MIGR = units.parse("8 MB", "size") / units.parse("10 Mbps", "bandwidth")


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
    return [
        Experiment("fig7", "p004/ll_n1.toml", [
            "owner.utilization=" + ",".join(map(str, _levels(quick))),
            "cpu.context_switch=" + ",".join(f'"{c}"' for c in SWITCHES),
            f'stop.time="{200 if quick else 600} s"'], n),
        # deterministic (fluid CPU, one job): one seed says it all
        Experiment("fig8", "p004/ll_n2.toml", [
            "policy=immediate_eviction,linger_longer",
            "owner.duration=" + ",".join(f'"{d} s"' for d in _episodes(quick))], 1),
        Experiment("wl1", "p004/ll_c1.toml", [policies, *small, *(["workload.jobs=32"] if quick else [])], n),
        Experiment("wl2", "p004/ll_c1.toml", [policies, *small, *wl2], n),
        Experiment("thr1", "p004/ll_c1.toml", [policies, *small, *(["workload.jobs=32"] if quick else []), *closed], n),
        Experiment("thr2", "p004/ll_c1.toml", [policies, *small, *wl2, *closed], n),
    ]


def analyse(records: dict, plots) -> tuple[list[Claim], list[str]]:
    claims, sections = [], []
    for part in (_fig7, _fig8, _table1):
        c, s = part(records, plots)
        claims += c
        sections += s
    sections += ["## Not yet reproduced", "",
                 "- **Fig. 10** (time per job state): nowemu logs suspensions and owner episodes as events, but "
                 "does not yet add up lingering, paused and suspended time per job.",
                 "- **Parallel jobs** (Figs. 11-18): bulk-synchronous jobs across workstations are not built yet.",
                 ""]
    return claims, sections


def _unit(value: str) -> str:
    return value.strip('"')


def _fig7(records, plots):
    runs = records["fig7"]
    levels = sorted({float(r["combo"]["owner.utilization"]) for r in runs})
    switches = [f'"{c}"' for c in SWITCHES]
    ldr, fcsr = {}, {}
    for c in switches:
        for u in levels:
            chosen = select(runs, **{"owner.utilization": str(u), "cpu.context_switch": c})
            ldr[c, u] = mean_ci(metric(chosen, "owner_ldr"))
            fcsr[c, u] = mean_ci(metric(chosen, "fcsr"))
    peak = {c: max(((ldr[c, u][0], u) for u in levels)) for c in switches}
    why = "the burst table was calibrated to these numbers (Fig. 4 is lost): a check of the mechanism"
    worst_fcsr = min((fcsr[c, u][0], u, c) for c in switches for u in levels)
    claims = [
        Claim("Fig. 7a", "local delay ratio about 1 % at c = 100 µs", "≈ 1 % (±1 pp)",
              f"peak {peak[switches[0]][0]:.2%} (u = {peak[switches[0]][1]:g})",
              abs(peak[switches[0]][0] - 0.01) <= 0.01, why),
        Claim("Fig. 7a", "under 5 % at 300 µs", "< 5 %", f"peak {peak[switches[1]][0]:.2%}",
              peak[switches[1]][0] < 0.05, why),
        Claim("Fig. 7a", "8 % at 500 µs", "8 % (±1 pp)", f"peak {peak[switches[2]][0]:.2%}",
              abs(peak[switches[2]][0] - 0.08) <= 0.01, why),
        Claim("Fig. 7a", "LDR grows linearly with c", "500 µs / 100 µs = 5",
              f"{peak[switches[2]][0] / peak[switches[0]][0]:.2f}",
              abs(peak[switches[2]][0] / peak[switches[0]][0] - 5) <= 0.5, "LDR ≈ c / mean run burst"),
        Claim("Fig. 7b", "the foreign job uses over 90 % of the idle cycles", "> 90 % in all cases",
              f"lowest {worst_fcsr[0]:.1%} (u = {worst_fcsr[1]:g}, c = {_unit(worst_fcsr[2])})", worst_fcsr[0] > 0.9,
              "idle bursts of 10 ms or more against a switch of at most 0.5 ms"),
    ]
    L = ["## Fig. 7: local delay ratio (LDR) and fine-grained cycle stealing (FCSR), one node", "",
         "`scenarios/p004/ll_n1.toml`, fine mode (every owner burst an event), one always-runnable foreign job; "
         "mean ± 95 % interval over the seeds.", "",
         "| owner utilization | " + " | ".join(f"LDR {_unit(c)}" for c in switches) + " | " +
         " | ".join(f"FCSR {_unit(c)}" for c in switches) + " |", "|--:|" + "--:|" * 6]
    for u in levels:
        L.append(f"| {u:.0%} | " + " | ".join(fmt(*ldr[c, u], 2, 100, " %") for c in switches) + " | " +
                 " | ".join(fmt(*fcsr[c, u], 1, 100, " %") for c in switches) + " |")
    L += ["", "![Fig. 7](PLOTS/fig7.png)", ""]
    if plots is not None:
        import matplotlib.pyplot as plt
        fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
        for c in switches:
            a.plot([u * 100 for u in levels], [ldr[c, u][0] * 100 for u in levels], marker="o", label=_unit(c))
            b.plot([u * 100 for u in levels], [fcsr[c, u][0] * 100 for u in levels], marker="o", label=_unit(c))
        a.set(xlabel="local utilization (%)", ylabel="local delay ratio (%)", title="(a) LDR")
        b.set(xlabel="local utilization (%)", ylabel="idle cycles used (%)", title="(b) FCSR")
        a.legend(title="context switch")
        fig.tight_layout()
        fig.savefig(plots / "fig7.png", dpi=100)
        plt.close(fig)
    return claims, L


def _fig8(records, plots):
    runs = records["fig8"]
    episodes = sorted({float(_unit(r["combo"]["owner.duration"]).split()[0]) for r in runs})
    done = {}
    for p in ("immediate_eviction", "linger_longer"):
        for d in episodes:
            chosen = select(runs, policy=p, **{"owner.duration": f'"{d:g} s"'})
            done[p, d] = chosen[0]["metrics"]["makespan"] if chosen else math.nan
    t_lingr = linger_time(H, 0.0, T_MIGR)
    wins = [d for d in episodes if done["linger_longer", d] <= done["immediate_eviction", d]]
    loses = [d for d in episodes if done["linger_longer", d] > done["immediate_eviction", d]]
    last_win, first_loss = max(wins, default=math.nan), min(loses, default=math.nan)
    clean = bool(wins) and bool(loses) and last_win < first_loss
    claims = [Claim("Fig. 8", "lingering finishes first for owner episodes shorter than the linger time, "
                    "eviction after", f"crossover at T_lingr (Eq. 4: {t_lingr:.1f} s here; 30 s in the paper)",
                    f"LL wins up to {last_win:g} s, loses from {first_loss:g} s",
                    clean and last_win < t_lingr <= first_loss,
                    "T_migr = 8 MB at 10 Mbps = 6.7 s: the paper's 30 s implies ~6 s, not its 3 Mbps (spec A3)")]
    L = ["## Fig. 8: Linger-Longer against Immediate-Eviction for one owner episode", "",
         f"`scenarios/p004/ll_n2.toml`: a {WORK:g}-s foreign job; its owner returns 2 s after it starts, at "
         f"{H:.0%} for D seconds; T_migr = {T_MIGR:.2f} s. Oracle (spec §9): eviction W + T_migr; lingering "
         "W + h D while it stays.", "",
         "| D (s) | Immediate-Eviction (s) | Linger-Longer (s) | oracle IE | oracle LL, staying |",
         "|--:|--:|--:|--:|--:|"]
    for d in episodes:
        L.append(f"| {d:g} | {done['immediate_eviction', d]:.2f} | {done['linger_longer', d]:.2f} | "
                 f"{WORK + T_MIGR:.2f} | {min(WORK + H * d, WORK / (1 - H)):.2f} |")
    L += ["", "![Fig. 8](PLOTS/fig8.png)", ""]
    if plots is not None:
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(6, 4))
        ax.plot(episodes, [done["linger_longer", d] for d in episodes], marker="D", label="Linger-Longer")
        ax.plot(episodes, [done["immediate_eviction", d] for d in episodes], marker="s", label="Immediate-Eviction")
        ax.axvline(t_lingr, color="grey", linestyle=":", label="T_lingr (Eq. 4)")
        ax.set(xlabel="owner episode length D (s)", ylabel="completion time (s)")
        ax.legend()
        fig.tight_layout()
        fig.savefig(plots / "fig8.png", dpi=100)
        plt.close(fig)
    return claims, L


def _table1(records, plots):
    def size(wl):
        config = records[wl][0]["config"]
        return f"{config['cluster']['nodes']} workstations, {config['workload'][0]['jobs']} jobs"
    claims, L = [], ["## Table 1: sequential foreign jobs", "",
                     "`scenarios/p004/ll_c1.toml`, synthetic owners. The paper: 64 workstations; workload 1, 128 "
                     "jobs of 600 s; workload 2, 16 jobs of 1,800 s. Here: workload 1 on " + size("wl1") +
                     ", workload 2 on " + size("wl2") + ". Each cell: paper | emulator (mean ± 95 % interval "
                     "over the seeds).", ""]
    stats = {}
    for wl in ("wl1", "wl2"):
        runs = records[wl]
        L += [f"**Workload {wl[-1]}**", "", "| metric | " + " | ".join(SHORT[p] for p in POLICIES) + " |",
              "|---|" + "---|" * len(POLICIES)]
        rows = {"Avg. job time (s)": ("mean_response", 1, 0, 0), "Variation (%)": ("execution_time_cv", 100, 1, 1),
                "Family time (s)": ("makespan", 1, 0, 2)}
        for label, (name, scale, digits, col) in rows.items():
            cells = []
            for p in POLICIES:
                stats[wl, p, name] = mean_ci(metric(select(runs, policy=p), name))
                cells.append(f"{TABLE1[wl][p][col]:g} \\| {fmt(*stats[wl, p, name], digits, scale)}")
            L.append(f"| {label} | " + " | ".join(cells) + " |")
        thr = records["thr" + wl[-1]]
        for p in POLICIES:
            stats[wl, p, "owner_ldr"] = mean_ci(metric(select(runs, policy=p), "owner_ldr"))
            stats[wl, p, "throughput"] = mean_ci(metric(select(thr, policy=p), "foreign_cpu_rate"))
        L.append("| Throughput (CPU-s/s) | " + " | ".join(
            f"{TABLE1[wl][p][3]:g} \\| {fmt(*stats[wl, p, 'throughput'], 1)}" for p in POLICIES) + " |")
        L.append("| local CPU delay (%) | " + " | ".join(
            f"< 0.5 \\| {fmt(*stats[wl, p, 'owner_ldr'], 2, 100)}" for p in POLICIES) + " |")
        L += [""]
    wl1 = {p: select(records["wl1"], policy=p) for p in POLICIES}
    for name, label, num, den, paper in (
            ("mean_response", "average job time: LL 47 % faster than IE", "immediate_eviction", "linger_longer", 1531 / 1044),
            ("mean_response", "average job time: LF 49 % faster than IE", "immediate_eviction", "linger_forever", 1531 / 1026),
            ("mean_response", "average job time: PM the same as IE", "pause_and_migrate", "immediate_eviction", 1.0),
            ("makespan", "family time: LL 36 % better than PM", "pause_and_migrate", "linger_longer", 2521 / 1847),
            ("makespan", "family time: LL 42 % better than IE", "immediate_eviction", "linger_longer", 2616 / 1847)):
        m, half = ratio(wl1[num], wl1[den], name)
        claims.append(Claim("Table 1, wl 1", label, f"{SHORT[num]}/{SHORT[den]} = {paper:.2f} (±0.15)",
                            fmt(m, half), abs(m - paper) <= 0.15, "ratio paired by seed"))
    worst = max(stats["wl1", p, "owner_ldr"][0] for p in ("linger_longer", "linger_forever"))
    claims.append(Claim("Table 1", "local CPU requests delayed under 0.5 % on average", "< 0.5 %",
                        f"LL/LF up to {worst:.2%}", worst < 0.005,
                        "nowemu's figure is the ratio of the owners' total delay to their CPU time"))
    wl2 = [stats["wl2", p, "mean_response"][0] for p in POLICIES]
    spread = max(wl2) / min(wl2) - 1
    claims.append(Claim("Table 1, wl 2", "few jobs: all four policies about the same average job time",
                        "within 0.2 % (1859-1862 s)", f"within {spread:.1%}", spread <= 0.05,
                        "counted as holding within 5 %"))
    thr1 = {p: select(records["thr1"], policy=p) for p in POLICIES}
    for label, num, den, paper in (("throughput: LF 60 % over PM", "linger_forever", "pause_and_migrate", 55.5 / 34.6),
                                   ("throughput: LL 50 % over PM", "linger_longer", "pause_and_migrate", 52.2 / 34.6),
                                   ("throughput: IE the same as PM", "immediate_eviction", "pause_and_migrate", 1.0)):
        m, half = ratio(thr1[num], thr1[den], "foreign_cpu_rate")
        claims.append(Claim("Table 1, wl 1", label, f"{SHORT[num]}/{SHORT[den]} = {paper:.2f} (±0.15)", fmt(m, half),
                            abs(m - paper) <= 0.15, "constant population of 128 for an hour; paired by seed"))
    bound = [r["metrics"]["foreign_cpu_rate"] / (r["config"]["cluster"]["nodes"] * (1 - r["metrics"]["nonidle_fraction"]))
             for r in thr1["immediate_eviction"]]
    m, half = mean_ci(bound)
    claims.append(Claim("Table 1, wl 1", "IE's throughput is the nodes times the idle fraction",
                        "34.6 = 64 x 54 % (within 5 %)", fmt(m, half), abs(m - 1) <= 0.05,
                        "throughput / (nodes x measured idle fraction); idle owners use up to 2 % of the CPU"))
    thr2 = [stats["wl2", p, "throughput"][0] for p in POLICIES]
    spread = max(thr2) / min(thr2) - 1
    claims.append(Claim("Table 1, wl 2", "few jobs: throughput similar for all policies", "14.5-15.0 (within 3.5 %)",
                        f"within {spread:.1%}", spread <= 0.05, "counted as holding within 5 %"))
    if plots is not None:
        import matplotlib.pyplot as plt
        import numpy as np
        fig, axes = plt.subplots(1, 2, figsize=(10, 4))
        x = np.arange(len(POLICIES))
        for ax, (name, col, title) in zip(axes, (("mean_response", 0, "average job time"),
                                                  ("makespan", 2, "family time"))):
            ax.bar(x - 0.2, [TABLE1["wl1"][p][col] for p in POLICIES], 0.4, label="paper")
            ax.bar(x + 0.2, [stats["wl1", p, name][0] for p in POLICIES], 0.4,
                   yerr=[0 if math.isnan(stats["wl1", p, name][1]) else stats["wl1", p, name][1] for p in POLICIES],
                   label="nowemu")
            ax.set_xticks(x, [SHORT[p] for p in POLICIES])
            ax.set(ylabel="seconds", title=f"Table 1, workload 1: {title}")
            ax.legend()
        fig.tight_layout()
        fig.savefig(plots / "table1.png", dpi=100)
        plt.close(fig)
        L += ["![Table 1](PLOTS/table1.png)", ""]
    return claims, L

"""Paper 004 at the node level, set beside the paper: Fig. 3 (the burst generator against its model, from Fig. 7's
runs), Fig. 7 (the local delay ratio and the idle cycles a foreign job uses) and Fig. 8 (one owner episode)."""
from __future__ import annotations

import math

from actors.owner import BurstTable
from emu.inputs import units
from emu.inputs.owner_data import read_bursts
from emu.tools.reproduce import Claim, figure, fmt, mean_ci, metric, select
from emu.tools.reproductions.p004.plan import SWITCHES, unquoted
from policies.linger_cost import linger_time

# Fig. 8's setting (scenarios/p004/ll_n2.toml): a 50-s job, owner at h = 0.2, T_migr = 8 MB at 10 Mbps
WORK, H = 50.0, 0.2
T_MIGR = units.parse("8 MB", "size") / units.parse("10 Mbps", "bandwidth")


def fig3(records, plots):
    """LL-W1 (spec 004 §10.4): does the fine-mode owner produce the utilization and the run bursts per second
    (context switches) that its burst table implies, 1 / (c + r + i) with the closed local loop? Read from
    Fig. 7's runs at the paper's c = 100 µs."""
    c = f'"{SWITCHES[0]}"'
    runs = select(records["fig7"], **{"cpu.context_switch": c})
    levels = sorted({float(r["combo"]["owner.utilization"]) for r in runs})
    table = BurstTable(read_bursts(runs[0]["config"]["owner"]["bursts"]))
    switch = units.parse(SWITCHES[0], "time")

    def model(u):
        rm, _, im, _ = table.moments(u)
        return 1 / (switch + rm + im)
    rate = {u: mean_ci(metric(select(runs, **{"owner.utilization": str(u)}), "owner_burst_rate")) for u in levels}
    util = {u: mean_ci(metric(select(runs, **{"owner.utilization": str(u)}), "owner_utilization")) for u in levels}
    worst = max((abs(rate[u][0] / model(u) - 1), u) for u in levels)
    off = max((abs(util[u][0] - u), u) for u in levels)
    why = ("the model is the burst table, which is synthetic (Fig. 4 is lost): this checks the generator and "
           "the closed local loop, not the paper's trace; the dips at 15 % and 60 % are not modelled")
    claims = [
        Claim("Fig. 3", "run bursts per second track the model at every utilization", "they track",
              f"worst {worst[0]:.1%} off (u = {worst[1]:g})", worst[0] <= 0.05, why),
        Claim("LL-W1", "the owner's realized utilization equals the target", "equal",
              f"worst {100 * off[0]:.2f} pp off (u = {off[1]:g})", off[0] <= 0.01,
              "c delays each burst a little, so the realized share is r / (c + r + i)"),
    ]
    L = ["## Fig. 3: run bursts per second against utilization (LL-W1)", "",
         f"Fig. 7's runs at c = {SWITCHES[0]} (one node, fine mode, one foreign job always ready); the model is "
         "the burst table's means, 1 / (c + r + i), the closed local loop adding c to every cycle.", "",
         "| owner utilization | realized | run bursts / s | model | emulator / model |", "|--:|--:|--:|--:|--:|"]
    for u in levels:
        L.append(f"| {u:.0%} | {fmt(*util[u], 2, 100, ' %')} | {fmt(*rate[u], 2)} | {model(u):.2f} | "
                 f"{rate[u][0] / model(u):.3f} |")
    L += ["", "![Fig. 3](PLOTS/fig3.png)", ""]

    def draw(ax):
        grid = [k / 100 for k in range(2, 99)]
        ax.plot([u * 100 for u in grid], [model(u) for u in grid], "--", label="model (burst table)")
        ax.plot([u * 100 for u in levels], [rate[u][0] for u in levels], "o", label="emulator (fine mode)")
        ax.set(xlabel="local utilization (%)", ylabel="run bursts per second", title="Fig. 3")
        ax.legend()
    figure(plots, "fig3", 1, draw)
    return claims, L


def fig7(records, plots):
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
              f"lowest {worst_fcsr[0]:.1%} (u = {worst_fcsr[1]:g}, c = {unquoted(worst_fcsr[2])})", worst_fcsr[0] > 0.9,
              "idle bursts of 10 ms or more against a switch of at most 0.5 ms"),
    ]
    L = ["## Fig. 7: local delay ratio (LDR) and fine-grained cycle stealing (FCSR), one node", "",
         "`scenarios/p004/ll_n1.toml`, fine mode (every owner burst an event), one always-runnable foreign job; "
         "mean ± 95 % interval over the seeds.", "",
         "| owner utilization | " + " | ".join(f"LDR {unquoted(c)}" for c in switches) + " | " +
         " | ".join(f"FCSR {unquoted(c)}" for c in switches) + " |", "|--:|" + "--:|" * 6]
    for u in levels:
        L.append(f"| {u:.0%} | " + " | ".join(fmt(*ldr[c, u], 2, 100, " %") for c in switches) + " | " +
                 " | ".join(fmt(*fcsr[c, u], 1, 100, " %") for c in switches) + " |")
    L += ["", "![Fig. 7](PLOTS/fig7.png)", ""]

    def draw(a, b):
        for c in switches:
            a.plot([u * 100 for u in levels], [ldr[c, u][0] * 100 for u in levels], marker="o", label=unquoted(c))
            b.plot([u * 100 for u in levels], [fcsr[c, u][0] * 100 for u in levels], marker="o", label=unquoted(c))
        a.set(xlabel="local utilization (%)", ylabel="local delay ratio (%)", title="(a) LDR")
        b.set(xlabel="local utilization (%)", ylabel="idle cycles used (%)", title="(b) FCSR")
        a.legend(title="context switch")
    figure(plots, "fig7", 2, draw)
    return claims, L


def fig8(records, plots):
    runs = records["fig8"]
    episodes = sorted({float(unquoted(r["combo"]["owner.duration"]).split()[0]) for r in runs})
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

    def draw(ax):
        ax.plot(episodes, [done["linger_longer", d] for d in episodes], marker="D", label="Linger-Longer")
        ax.plot(episodes, [done["immediate_eviction", d] for d in episodes], marker="s", label="Immediate-Eviction")
        ax.axvline(t_lingr, color="grey", linestyle=":", label="T_lingr (Eq. 4)")
        ax.set(xlabel="owner episode length D (s)", ylabel="completion time (s)")
        ax.legend()
    figure(plots, "fig8", 1, draw)
    return claims, L

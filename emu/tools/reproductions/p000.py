"""Paper 000 (Chen, Xiao, Zhang, V-Reconfiguration): the experiments `nowemu reproduce p000` runs and how their
results are set beside the paper's (spec 000 §7). Both workload groups on their clusters, Trace-1..5, G-Loadsharing
(LS_RE) against V-Reconfiguration (memory reservation), paired by seed. See docs/p000.md for the model.

A reduction is (G - V) / G, as the paper reports them; a claim holds when the emulator's mean lies within 10
percentage points of the paper's figure (the issue's band).
"""
from __future__ import annotations

import csv
import math
from collections import defaultdict

from emu.engine.results import open_text, samples_file
from emu.tools.reproduce import Claim, Experiment, figure, fmt, mean_ci, metric, offered, ratio, select, tagged

TITLE = ('Chen, Xiao and Zhang, "Adaptive and Virtual Reconfigurations for Effective Dynamic Job Scheduling in '
         'Cluster Systems", ICDCS 2002 (paper 000)')
# Spec 000 §3.4: (jobs, submission span in s) of Trace-1..5, the same for both groups
TRACES = {1: (359, 3586), 2: (448, 3589), 3: (578, 3581), 4: (684, 3585), 5: (777, 3582)}
GROUPS = {"spec": "p000/spec.toml", "app": "p000/app.toml"}
# Spec 000 §7.1, §7.2: reductions (%) by V-Reconfiguration against G-Loadsharing; None where the paper says
# only "modest" or gives no number
PAPER = {
    "spec": {"total_execution_time": (29.3, 32.4, 32.4, 30.3, 27.4),
             "total_queue_time": (24.8, 35.8, 36.7, 34.0, 38.2),
             "mean_slowdown": (23.4, 27.7, 22.6, 24.6, 28.46),
             "mean_idle_memory": (12.9, 24.2, 29.7, 40.9, 50.8)},
    "app": {"total_execution_time": (None, 13.4, 14.0, None, None),
            "total_queue_time": (None, 16.3, 16.8, None, None),
            "mean_slowdown": (None, 16.3, 16.8, 6.8, None),
            "mean_balance_skew": (None, 10.3, 16.5, 6.3, None)},
}
NAMES = {"total_execution_time": "total execution time", "total_queue_time": "queuing time",
         "mean_slowdown": "average slowdown", "mean_idle_memory": "average idle memory",
         "mean_balance_skew": "average job balance skew"}
FIGS = {("spec", "total_execution_time"): "Fig. 1", ("spec", "total_queue_time"): "Fig. 1",
        ("spec", "mean_slowdown"): "Fig. 2", ("spec", "mean_idle_memory"): "Fig. 2",
        ("app", "total_execution_time"): "Fig. 3", ("app", "total_queue_time"): "Fig. 3",
        ("app", "mean_slowdown"): "Fig. 4", ("app", "mean_balance_skew"): "Fig. 4"}
BAND = 10.0
BOUND, UNLIMITED = "-bound", 'cluster.memory="64 GB"'       # the bound's experiments: unlimited memory
MIGRATING = "-migrating"     # G-Loadsharing as paper 000 reads it: migrating running jobs too (policy.migrate)
RESERVATION = "-reservation"  # V-Reconfiguration: the scenario's own policy table, with the settings it names


def _traces(quick: bool) -> list[int]:
    return [1, 3, 5] if quick else [1, 2, 3, 4, 5]


def experiments(quick: bool, seeds: int | None) -> list[Experiment]:
    """Every trace of both groups: G-Loadsharing (`policy=ls_re`) and V-Reconfiguration (the scenario's own
    [policy] table: memory reservation with the settings it names and their sources). `quick`: 8 nodes and an
    eighth of each trace's jobs over half its span (the same load per node, half the time), traces 1, 3 and 5.
    G-Loadsharing is run both ways (remote executions only, and migrating running jobs too). And, for the SPEC
    traces, the bound: G-Loadsharing with unlimited memory (no paging, no blocking), the most that any scheme
    managing memory better could gain (docs/calibration/p000-headroom.md)."""
    n = seeds or (1 if quick else 3)
    out = []
    for group, scenario in GROUPS.items():
        for t in _traces(quick):
            jobs, span = TRACES[t]
            trace = [f'workload.arrival.span="{span} s"', f"workload.jobs={jobs}",
                     *(["cluster.nodes=8", f"workload.jobs={jobs // 8}", f'workload.arrival.span="{span / 2:g} s"']
                       if quick else [])]
            out.append(Experiment(f"{group}-t{t}", scenario, ["policy=ls_re", *trace], n))
            out.append(Experiment(f"{group}-t{t}{RESERVATION}", scenario, trace, n))
            out.append(Experiment(f"{group}-t{t}{MIGRATING}", scenario, ["policy=ls_re", "policy.migrate=true", *trace],
                                  n))
            if group == "spec":
                out.append(Experiment(f"{group}-t{t}{BOUND}", scenario, ["policy=ls_re", UNLIMITED, *trace], n))
    return out


def reduction(v: list[dict], g: list[dict], name: str) -> tuple[float, float]:
    """(G - V) / G in %, of V-Reconfiguration's runs `v` against G-Loadsharing's `g`, paired by seed, with its
    95 % interval."""
    mean, half = ratio(v, g, name)
    return 100 * (1 - mean), 100 * half


def _bound(records: dict, group: str, t: int) -> tuple[float, float] | None:
    """How much less total execution time G-Loadsharing takes with unlimited memory, in %, paired by seed."""
    bound = records.get(f"{group}-t{t}{BOUND}")
    if not bound:
        return None
    mean, half = ratio(bound, select(records[f"{group}-t{t}"], policy="ls_re"), "total_execution_time")
    return 100 * (1 - mean), 100 * half


def paging_needed(g: list[dict], execution: float, queuing: float) -> tuple[float, float]:
    """Paper 000's own arithmetic. Its §5 splits the execution time as T_exe = T_cpu + T_page + T_que + T_mig,
    with T_cpu the same under both policies and T_mig about the same ("T_mig ≈ T̂_mig"). V-Reconfiguration's
    paging is at least zero, so reductions e of the execution time and q of the queuing time are possible only
    if G-Loadsharing pages at least T_page ≥ (e (T_cpu + T_mig) + (e - q) T_que) / (1 - e) (with e and q of
    Trace-1, 29.3 % and 24.8 %: 0.41 T_cpu + 0.06 T_que and more). Per G-Loadsharing run (`g`), its paging over
    what the paper's figures (`execution`, `queuing`, in %) need of it: mean and 95 % interval over seeds; below
    1, no scheme could reach the paper's figures on the calibrated model however well it placed jobs; infinite
    where the need is nil (a queuing reduction larger than the execution one, on a run that queues enough, covers
    the execution reduction without any paging)."""
    e, q = execution / 100, queuing / 100
    ratios = []
    for m in (r["metrics"] for r in g):
        need = (e * (m["total_cpu_time"] + m["total_net_time"]) + (e - q) * m["total_queue_time"]) / (1 - e)
        ratios.append(m["total_page_time"] / need if need > 0 else math.inf)
    return (math.inf, math.nan) if math.inf in ratios else mean_ci(ratios)


def _migrating_section(records: dict, traces: list[int]) -> list[str]:
    """The two readings of G-Loadsharing (paper 000 §1 and §2.1 migrate running jobs off a node that pages;
    paper 002 §2.3, LS_RE, uses remote executions only; both print the same figures): V-Reconfiguration's
    reductions against the migrating one, beside the paper's, paired by seed."""
    lines = ["## Against G-Loadsharing migrating running jobs (paper 000's reading)", "",
             "The tables above set V-Reconfiguration against G-Loadsharing by remote execution only (paper 002's "
             "LS_RE, the scenarios' default: `policy.migrate = false`); paper 000 §1 and §2.1 also migrate running "
             "jobs off a node that pages (`policy.migrate = true`). Reductions by V-Reconfiguration against that "
             "one, paired by seed (paper's figure in brackets), and how much the migrations change G-Loadsharing's "
             "own total execution time.", "",
             "| group | trace | total execution time | queuing time | average slowdown | G migrating over G (total "
             "execution time) |", "|---|---|---|---|---|---|"]
    for group in GROUPS:
        for t in traces:
            migrating = records.get(f"{group}-t{t}{MIGRATING}")
            if not migrating:
                continue
            pair = records[f"{group}-t{t}"]
            v, g = select(pair, policy="m_reservation"), select(pair, policy="ls_re")
            cells = []
            for m in ("total_execution_time", "total_queue_time", "mean_slowdown"):
                mean, half = ratio(v, migrating, m)
                paper = PAPER[group][m][t - 1]
                cells.append(f"{fmt(100 * (1 - mean), 100 * half, 1, unit=' %')} [{'—' if paper is None else paper}]")
            cells.append(fmt(*ratio(migrating, g, "total_execution_time"), 3))
            lines.append(f"| {group.upper() if group == 'spec' else 'App'} | Trace-{t} | " + " | ".join(cells) + " |")
    return lines + [""]


def _paging_section(records: dict, traces: list[int]) -> tuple[list[str], list[Claim]]:
    """`paging_needed` for every trace whose execution and queuing reductions the paper prints."""
    lines = ["## The paging the paper's figures need (its §5 with Figs. 1 and 3)", "",
             "G-Loadsharing's paging (T_page, the runs' `total_page_time`) over the least that the paper's execution "
             "and queuing reductions need of it by §5's decomposition, with T_cpu and T_mig (`total_net_time`) "
             "equal under both policies: T_page ≥ (e (T_cpu + T_mig) + (e − q) T_que) / (1 − e) "
             "(`emu.tools.reproductions.p000.paging_needed`). Below 1, the paper's figures are out of reach of "
             "the calibrated fault model whatever the policy does.", "",
             "| group | trace | T_cpu (s) | T_que (s) | T_page (s) | T_page over the need |",
             "|---|---|---|---|---|---|"]
    short = []
    for group in GROUPS:
        for t in traces:
            e, q = (PAPER[group][m][t - 1] for m in ("total_execution_time", "total_queue_time"))
            if e is None or q is None:
                continue
            g = select(records[f"{group}-t{t}"], policy="ls_re")
            share = paging_needed(g, e, q)
            short += [share[0]]
            lines.append(f"| {group.upper() if group == 'spec' else 'App'} | Trace-{t} | " + " | ".join(
                fmt(*mean_ci(metric(g, k)), 0) for k in ("total_cpu_time", "total_queue_time", "total_page_time"))
                + f" | {fmt(*share, 2)} |")
    claim = Claim("§5", "G-Loadsharing pages at least as much as the paper's reductions need (every trace)",
                  "≥ 1", f"{min(short):.2f}-{max(short):.2f}", min(short) >= 1,
                  "" if min(short) >= 1 else "the fault model pages too little for the paper's figures to be "
                  "reachable: see the table above and docs/p000.md")
    return lines + [""], [claim]


def _paired(records: dict) -> dict:
    """Each trace's G-Loadsharing runs and V-Reconfiguration's under one name, told apart by `policy` as in a
    sweep's records (a single `--set` is not an axis, so runs do not carry it)."""
    out = {k: v for k, v in records.items() if k.endswith((BOUND, MIGRATING))}
    for k, runs in records.items():
        if not k.endswith((BOUND, MIGRATING, RESERVATION)):
            out[k] = tagged(runs, policy="ls_re") + tagged(records.get(k + RESERVATION, []), policy="m_reservation")
    return out


WHY_APP = ("the paging model that brings SPEC to the paper's figures (1 fault per MI) makes App gain too much; "
           "App is met best at 0.5 /MI (docs/calibration/p000-lineage.md), and no per-program rate is printed")


def _occupancy(run: dict) -> tuple[float, ...]:
    """From a run's nodes.csv, time-averaged over its sample periods: the cluster's idle memory (MB), the part of
    it on nodes reserving or reserved, the jobs resident, the jobs pending; and the idle memory (MB) averaged
    over the periods when some node is blocked only."""
    totals = defaultdict(lambda: [0.0, 0.0, 0, 0, False])
    with open_text(samples_file(run["folder"])) as fh:
        rows = csv.reader(fh)
        head = next(rows)
        at, idle, jobs, pending, blocked = (head.index(k) for k in ("time", "idle", "jobs", "pending", "blocked"))
        state = head.index("reservation") if "reservation" in head else None
        for row in rows:
            x = totals[row[at]]
            x[0] += float(row[idle])
            if state is not None and row[state] not in ("normal", ""):
                x[1] += float(row[idle])
            x[2] += int(row[jobs])
            x[3] += int(row[pending])
            x[4] = x[4] or row[blocked] == "True"
    n, mb = len(totals), 2 ** 20
    while_blocked = [x[0] for x in totals.values() if x[4]]
    return (*(sum(x[k] for x in totals.values()) / n / (mb if k < 2 else 1) for k in range(4)),
            sum(while_blocked) / len(while_blocked) / mb if while_blocked else math.nan)


def _idle_why(v: list[dict], g: list[dict]) -> str:
    """Where V-Reconfiguration's extra idle memory sits, measured in the runs' samples (means over the seeds)."""
    ov, og = [_occupancy(r) for r in v], [_occupancy(r) for r in g]
    mean = lambda xs, k: sum(x[k] for x in xs) / len(xs)     # noqa: E731
    more = mean(ov, 0) - mean(og, 0)
    return (f"idle memory rises under reservation instead of falling: of the {more:.0f} MB more idle memory "
            f"(time-averaged over the cluster), {mean(ov, 1):.0f} MB sits on the nodes reserving or reserved "
            f"(taking no jobs while they drain), and the rest on the others, which hold fewer jobs: {mean(ov, 2):.1f} "
            f"resident against G-Loadsharing's {mean(og, 2):.1f}, with {mean(ov, 3):.1f} waiting against "
            f"{mean(og, 3):.1f}. Over the periods when some node is blocked it rises too: {mean(ov, 4):.0f} MB "
            f"against {mean(og, 4):.0f}. No setting tried makes it fall (docs/p000.md, tenth part)")


def _why(records: dict, group: str, m: str, t: int, bound) -> str:
    """Why a figure lies outside the band, from the runs where they can say it."""
    if group == "app":
        return f"outside ±10 points: {WHY_APP}"
    g = select(records[f"{group}-t{t}"], policy="ls_re")
    if m == "mean_idle_memory":
        return _idle_why(select(records[f"{group}-t{t}"], policy="m_reservation"), g)
    paging = mean_ci([r["metrics"]["total_page_time"] / r["metrics"]["total_cpu_time"] for r in g])[0]
    if m == "total_queue_time":
        return (f"outside ±10 points: here much of reservation's gain is in paging (G-Loadsharing pages "
                f"{paging:.1f} times its CPU time), where the paper's queuing reductions exceed its execution-time "
                f"ones on Traces 2-5 (docs/p000.md)")
    return ("outside ±10 points: see docs/p000.md" if bound is None else
            f"outside ±10 points: the most any scheme managing memory better could cut the total execution time here "
            f"is {fmt(*bound, 1, unit=' %')} (G-Loadsharing with unlimited memory; docs/p000.md)")


def analyse(records: dict, plots) -> tuple[list[Claim], list[str]]:
    records = _paired(records)
    pairs = [k for k in records if not k.endswith((BOUND, MIGRATING))]   # G-Loadsharing beside V-Reconfiguration
    traces = sorted({int(k.split("-t")[1]) for k in pairs})
    claims, lines = [], ["## Reductions by V-Reconfiguration against G-Loadsharing, per trace", "",
                         "Paired by seed; mean ± 95 % interval in percent (paper's figure in brackets). *Offered "
                         "load*: the trace's CPU work over the cluster's capacity during its submission span "
                         "(`emu.inputs.workload.offered_load`); above 1, jobs queue however they are placed.", ""]
    red = {}
    for group in GROUPS:
        metrics = list(PAPER[group])
        bounds = {t: _bound(records, group, t) for t in traces}
        bounded = bounds[traces[0]] is not None
        lines += [f"### {'SPEC' if group == 'spec' else 'App'} traces", "",
                  "| trace | offered load | " + " | ".join(NAMES[m] for m in metrics) + " | blocked time (G) | "
                  "idle memory while blocked (G, MB) | reservations (V) | migrations (V) |" +
                  (" total execution time reduced by unlimited memory (G), the bound |" if bounded else ""),
                  "|---" * (len(metrics) + 6 + bounded) + "|"]
        for t in traces:
            rec = records[f"{group}-t{t}"]
            cells = [fmt(*offered(rec), 2)]
            for m in metrics:
                red[group, m, t] = reduction(select(rec, policy="m_reservation"), select(rec, policy="ls_re"), m)
                paper = PAPER[group][m][t - 1]
                cells.append(f"{fmt(*red[group, m, t], 1)} [{'—' if paper is None else paper}]")
            g, v = select(rec, policy="ls_re"), select(rec, policy="m_reservation")
            cells += [fmt(*mean_ci(metric(g, "blocked_time_fraction")), 0, 100, " %"),
                      fmt(*mean_ci(metric(g, "blocked_idle_memory")), 0, 2 ** -20),
                      fmt(*mean_ci(metric(v, "reservations")), 1), fmt(*mean_ci(metric(v, "migrations")), 1)]
            if bounded:
                cells.append(fmt(*bounds[t], 1, unit=" %"))
            lines.append(f"| Trace-{t} | " + " | ".join(cells) + " |")
        lines.append("")
        for m in metrics:
            for t in traces:
                paper = PAPER[group][m][t - 1]
                if paper is None:
                    continue
                mean, half = red[group, m, t]
                claims.append(Claim(f"{FIGS[group, m]} {group.upper() if group == 'spec' else 'App'}-Trace-{t}",
                                    f"{NAMES[m]} reduced by", f"{paper} %", fmt(mean, half, 1, unit=" %"),
                                    abs(mean - paper) <= BAND,
                                    "" if abs(mean - paper) <= BAND else _why(records, group, m, t, bounds[t])))
    idle = [red["spec", "mean_idle_memory", t][0] for t in traces]
    claims.append(Claim("Fig. 2", "SPEC: the idle-memory reduction grows with the arrival rate",
                        "12.9 → 50.8 %", " → ".join(f"{x:.1f}" for x in idle) + " %",
                        all(a < b for a, b in zip(idle, idle[1:]))))
    spec_gain = [red["spec", "total_execution_time", t][0] for t in traces]
    app_gain = [red["app", "total_execution_time", t][0] for t in traces]
    claims.append(Claim("§4.2", "App gains are smaller than SPEC gains (execution time, every trace)",
                        "up to 14 % against 27-32 %",
                        ", ".join(f"T{t}: {a:.1f} vs {s:.1f}" for t, a, s in zip(traces, app_gain, spec_gain)),
                        all(a < s for a, s in zip(app_gain, spec_gain)),
                        "" if all(a < s for a, s in zip(app_gain, spec_gain)) else WHY_APP))
    cpu = [abs(r[0] - 1) for k in pairs for r in [ratio(select(records[k], policy="m_reservation"),
                                                          select(records[k], policy="ls_re"), "total_cpu_time")]]
    claims.append(Claim("§5", "CPU service is the same under both policies (T_cpu = T̂_cpu)", "equal",
                        f"largest difference {max(cpu):.1e}", max(cpu) < 1e-6))
    blocked = [mean_ci(metric(select(records[f"{g}-t{t}"], policy="ls_re"), "blocked_idle_memory"))[0] / 2 ** 20
               for g in GROUPS for t in traces]
    claims.append(Claim("§1", "during blocking the cluster's idle memory, in total, exceeds a node's memory",
                        "large but fragmented", f"{min(blocked):.0f}-{max(blocked):.0f} MB while blocked "
                        "(SPEC node 384 MB, App node 128 MB)", None,
                        "per group in the tables; a test holds it on SPEC-Trace-3 at this scale"))
    lines += _migrating_section(records, traces)
    paging_lines, paging_claims = _paging_section(records, traces)
    lines += paging_lines
    claims += paging_claims
    for group, fig_a, fig_b in (("spec", "fig1", "fig2"), ("app", "fig3", "fig4")):
        _plot(plots, records, group, fig_a, list(PAPER[group])[:2], traces)
        _plot(plots, records, group, fig_b, list(PAPER[group])[2:], traces)
        lines += [f"![{fig_a}](PLOTS/{group}-{fig_a}.png) ![{fig_b}](PLOTS/{group}-{fig_b}.png)", ""]
    return claims, lines


def _plot(plots, records: dict, group: str, name: str, metrics: list[str], traces: list[int]) -> None:
    def draw(*axes):
        for ax, m in zip(axes, metrics):
            for k, (policy, label) in enumerate((("ls_re", "G-Loadsharing"), ("m_reservation", "V-Reconfiguration"))):
                values = [mean_ci(metric(select(records[f"{group}-t{t}"], policy=policy), m)) for t in traces]
                ax.bar([t + 0.4 * k - 0.2 for t in traces], [v[0] for v in values], 0.4, label=label,
                       yerr=[0 if v[1] != v[1] else v[1] for v in values])
            ax.set_xticks(traces, [f"Trace-{t}" for t in traces])
            ax.set_title(NAMES[m])
            ax.legend()
    figure(plots, f"{group}-{name}", len(metrics), draw)

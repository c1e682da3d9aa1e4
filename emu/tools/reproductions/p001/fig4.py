"""Paper 001's Fig. 4, the static workload (scenarios/p001/fig4.toml): J1 and J2, large jobs with a task on
every node, and two local tasks per node, under PRED and under CSM, paired by seed. The paper: under CSM J1
finishes at 5400 s, 3072 s earlier than under PRED (about 36 %), and J2 slightly earlier; on node N1, J1's
resident set grows to its full size (here: its working set, which is all it references) while J2's shrinks.
"""
from __future__ import annotations

import csv
import json
from collections import defaultdict

import numpy as np

from emu.tools.reproduce import Claim, figure, fmt, mean_ci, paired, select
from emu.tools.reproductions.p001.plan import FIG4_PROBES

WHY_RESIDENCY = ("J2 gains pages under both policies: its faults load pages into the frames of the least recently "
                 "used task, and the local tasks, which both policies put behind the distributed ones, are that task "
                 "(their residency halves, plot fig4.png), so J2 grows from theirs rather than from J1's")
PAPER_J1_END = 5400.0                   # s: J1's end under CSM in the paper
LEAD = 0.25                             # the least lead of CSM's J1 over PRED's that the claim asks (paper: 36 %)
# Why CSM's lead is small here: J1's share of N1's CPU once the local tasks are gone, and the same comparison
# under the other readings of plan.FIG4_PROBES (on the probes' nodes)
WHY_FIG4 = ("once the local tasks end, J1 and J2 are each node's only tasks, and with memory full a fault of either "
            "takes its page from the other (the least recently run task): J1's share of N1's CPU from the last local task's end "
            "(at {t_local} s) to its own end was {pred} under PRED and {csm} under CSM; to end at {end:g} s it would need "
            "{need}. Where a task of J1 spends the time it is off the CPU (s, mean over its tasks): under PRED, {off_pred}; "
            "under CSM, {off_csm}; to end {lead:g} % before PRED's J1 it may spend {budget} s there in all. The paper's J1 spent "
            "{paper_off:g} s (it ends at {end:g} s with {tc:g} s of CPU): the {locals:g} s of the local tasks and the "
            "{j2:g} s J2 gets when it is overtaken MNOD = {mnod} times a turn (J1 running {turn} slices to its one: the "
            "CSM mode's bound), with no wait for partners at all, where here every burst ends waiting for one. Nor do "
            "other readings give CSM a lead near the paper's: on {nodes} nodes ({seeds}), J1 ends earlier under CSM by "
            "{probes}")
OFF_CPU = (("sync", "waiting for partners"), ("queue", "in the run queue"), ("page", "paging"))


def _finish(record: dict, job: str) -> float:
    """When a job's last task ended: its slowdown (eq. 10, one job) x tc after its arrival, both its stream's
    in the run's scenario (a batch arrival: at `start`; a fixed lifetime: tc)."""
    stream = next(w for w in record["config"]["workload"] if w["name"] == job)
    tc = stream["lifetime"]["mean"] / record["config"]["cluster"]["speed"]
    return stream["arrival"]["start"] + record["metrics"]["coscheduling"]["slowdown"][job] * tc


def _earlier(records: list[dict], job: str) -> tuple[float, float]:
    """(PRED - CSM) / PRED of the job's finish, paired by seed: how much earlier CSM ends it."""
    pred = {r["seed"]: _finish(r, job) for r in select(records, **{"cpu.insertion.name": "pred"})}
    csm = {r["seed"]: _finish(r, job) for r in select(records, **{"cpu.insertion.name": "csm"})}
    return paired(pred, csm, relative=True)


def _node_trace(record: dict, node: int = 0) -> dict:
    """Node N1's tasks over time from the run's `task_memory` events: name (J1, J2, L1, L2) -> [(time,
    res_mem, cpu)], a local task named by its order on the node."""
    series = defaultdict(list)
    with open(record["folder"] / "events.jsonl") as fh:
        for line in fh:
            e = json.loads(line)
            if e["event"] == "task_memory" and e["node"] == node:
                series[e["job"]].append((e["time"], e["resident"], e["cpu"]))
    with open(record["folder"] / "jobs.csv", newline="") as fh:
        program = {int(row["job"]): row["program"] for row in csv.DictReader(fh)}
    names, local = {}, 0
    for job in sorted(series):
        if not program[job]:
            local += 1
        names[job] = program[job] or f"L{local}"
    return {names[job]: points for job, points in series.items()}


def analyse(records: dict, plots) -> tuple[list[Claim], list[str]]:
    fig4 = records["fig4"]
    (m1, h1), (m2, h2) = _earlier(fig4, "J1"), _earlier(fig4, "J2")
    grows = [_residency(r) for r in select(fig4, **{"cpu.insertion.name": "csm"})]
    full = sum(j1_full and j2_less for j1_full, j2_less, _ in grows)
    claims = [
        Claim("Fig. 4", "J1 finishes earlier under CSM than under PRED (at least 25 %)",
              "5400 s against 8472 s: 36 %", fmt(m1, h1, 1, 100, " %"), m1 >= LEAD if not np.isnan(m1) else None,
              "" if m1 >= LEAD else _why_fig4(fig4, records)),
        Claim("Fig. 4", "J2 is not later under CSM than under PRED (\"slightly better\"; within 5 %)",
              "slightly earlier", fmt(m2, h2, 1, 100, " %"), m2 >= -0.05 if not np.isnan(m2) else None),
        Claim("Fig. 4", "under CSM, J1's resident set on node N1 grows to its full working set while J2's shrinks",
              "J1 gets much more memory", f"{full} of {len(grows)} seeds (J1's largest: "
              + ", ".join(f"{peak:.0%}" for _, _, peak in grows) + " of its mean working set; J2 shrinks in "
              + f"{sum(less for _, less, _ in grows)})", full == len(grows) if grows else None,
              "full: at least 95 % of J1's mean working set (0.8 x vir_mem: a task references only its working set, "
              "so LRU gives up the rest first) resident at some sample after J2 came; shrinks: J2 ends with fewer "
              "pages than it was first given. " + WHY_RESIDENCY),
    ]
    lines = ["## Fig. 4: the static workload", "",
             "| policy | J1 ends (s) | J2 ends (s) | local tasks' slowdown | faults per task |", "|---|---|---|---|---|"]
    for policy in ("pred", "csm"):
        rs = select(fig4, **{"cpu.insertion.name": policy})
        cells = [fmt(*mean_ci([_finish(r, "J1") for r in rs]), 0), fmt(*mean_ci([_finish(r, "J2") for r in rs]), 0),
                 fmt(*mean_ci([r["metrics"]["coscheduling"]["slowdown"]["local"] for r in rs]), 2),
                 fmt(*mean_ci([r["metrics"]["coscheduling"]["mean_page_faults"] for r in rs]), 0)]
        lines.append(f"| {policy.upper()} | " + " | ".join(cells) + " |")
    lines += ["", "A reduction is (PRED - CSM) / PRED of the job's end, paired by seed (mean ± 95 % interval).",
              "Node N1 over time, first seed: `fig4.png` (resident pages and CPU time of each task).", ""]
    _plot_fig4(plots, fig4)
    return claims, lines


def _after_locals(record: dict) -> tuple[float, float, float]:
    """On node N1: when its last local task ended, J1's share of the CPU from then to its own end, and the
    share it would need to end at the paper's 5400 s."""
    trace = _node_trace(record)
    t_local = max(points[-1][0] for name, points in trace.items() if name.startswith("L"))
    j1 = trace["J1"]
    at = max((p for p in j1 if p[0] <= t_local), key=lambda p: p[0])
    left = j1[-1][2] - at[2]
    return t_local, left / (j1[-1][0] - t_local), left / (PAPER_J1_END - t_local)


def _off_cpu(record: dict, job: str = "J1") -> dict[str, float]:
    """The mean over the job's tasks (jobs.csv rows) of each part of their time off the CPU (OFF_CPU)."""
    with open(record["folder"] / "jobs.csv", newline="") as fh:
        rows = [row for row in csv.DictReader(fh) if row["program"] == job]
    return {field: sum(float(row[field]) for row in rows) / len(rows) for field, _ in OFF_CPU}


def _why_fig4(fig4: list[dict], records: dict) -> str:
    got = {p: [_after_locals(r) for r in select(fig4, **{"cpu.insertion.name": p})] for p in ("pred", "csm")}
    off = {p: [_off_cpu(r) for r in select(fig4, **{"cpu.insertion.name": p})] for p in ("pred", "csm")}
    off_text = {p: ", ".join(f"{what} {fmt(*mean_ci([x[field] for x in v]), 0)}" for field, what in OFF_CPU)
                for p, v in off.items()}
    config = fig4[0]["config"]
    streams = {w["name"]: w for w in config["workload"]}
    speed = config["cluster"]["speed"]
    tc = streams["J1"]["lifetime"]["mean"] / speed
    locals_cpu = streams["local"]["jobs"] / config["cluster"]["nodes"] * streams["local"]["lifetime"]["mean"] / speed
    mnod = config["cpu"]["insertion"]["mnod"]
    budget = np.mean([(1 - LEAD) * _finish(r, "J1") for r in select(fig4, **{"cpu.insertion.name": "pred"})]) - tc
    share = {p: fmt(*mean_ci([x[1] for x in v]), 1, 100, " %") for p, v in got.items()}
    probes = [(label, records[f"fig4-probe-{k}"]) for k, label in enumerate(FIG4_PROBES) if f"fig4-probe-{k}" in records]
    seeds = sorted({r["seed"] for _, rs in probes for r in select(rs)})
    nodes = sorted({r["config"]["cluster"]["nodes"] for _, rs in probes for r in select(rs)})
    return WHY_FIG4.format(t_local=fmt(*mean_ci([x[0] for x in got["csm"]]), 0), pred=share["pred"],
                           csm=share["csm"], end=PAPER_J1_END, need=fmt(*mean_ci([x[2] for x in got["csm"]]), 1, 100, " %"),
                           off_pred=off_text["pred"], off_csm=off_text["csm"], budget=f"{budget:.0f}", lead=100 * LEAD,
                           paper_off=PAPER_J1_END - tc, tc=tc, locals=locals_cpu, j2=tc / (mnod + 1), mnod=mnod,
                           turn=mnod + 1,
                           nodes=" or ".join(map(str, nodes)), seeds="seed " + ", ".join(map(str, seeds)) if seeds else "not run",
                           probes="; ".join(f"{fmt(*_earlier(rs, 'J1'), 1, 100, ' %')} ({label})" for label, rs in probes)
                           or "(the probes were not run)")


def _residency(record: dict) -> tuple[bool, bool, float]:
    """On node N1, once J2 is there (and has taken its first pages, some of them J1's): whether J1's resident
    set grew back to its full working set (95 % of its mean: working_set x its pages), whether J2's ended below
    what it was first given, and J1's largest resident set over that mean working set."""
    trace = _node_trace(record)
    j1 = record["config"]["workload"][1]["memory"]
    pages = j1["working_set"] * j1["demand"] / record["config"]["memory"]["page_size"]
    since = trace["J2"][0][0]
    peak = max(res for t, res, _ in trace["J1"] if t >= since) / pages
    return peak >= 0.95, trace["J2"][-1][1] < trace["J2"][0][1], peak


def _plot_fig4(plots, records: list[dict]) -> None:
    runs = {p: sorted(select(records, **{"cpu.insertion.name": p}), key=lambda r: r["seed"]) for p in ("pred", "csm")}
    if not all(runs.values()):
        return
    traces = {p: _node_trace(rs[0]) for p, rs in runs.items()}

    def draw(*axes):
        for (policy, series), ax_mem, ax_cpu in zip(traces.items(), axes[:2], axes[2:]):
            for label, points in sorted(series.items()):
                t, res, cpu = zip(*points)
                ax_mem.plot(t, res, label=label)
                ax_cpu.plot(t, cpu, label=label)
            ax_mem.set_title(f"{policy.upper()}: resident pages, node N1")
            ax_cpu.set_title(f"{policy.upper()}: CPU time (s), node N1")
            for ax in (ax_mem, ax_cpu):
                ax.set_xlabel("time (s)")
                ax.legend()
    figure(plots, "fig4", 4, draw)

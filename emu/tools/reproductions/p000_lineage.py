"""A calibration study for papers 000/002 (issue 23): how hard a workstation pages once its jobs overflow its
memory, the quantity that decides whether memory reservation can gain over G-Loadsharing at all, run at full
scale under each reading the sources allow. `nowemu reproduce p000_lineage --report docs/calibration/p000-lineage.md`.

The fault settings:
- the scenarios' model: overflow, kappa = 800 faults per CPU-second when all demand overflows (scenarios/p000/
  spec.toml says where 800 comes from: Jiang and Zhang's measured slowdowns of pairs of these programs);
- the papers' lineage: the demand-ratio model of paper 003's Eq. 3.3 (Zhang et al. 2000), no fault while the
  demand D fits in memory M and mu x D / M faults per million instructions once it does not, where the thesis
  says "in practice, the page fault rates of applications range from 1 to 10 No./MI"; here mu = 0.25, 0.5, 1 and
  2 /MI, around the bottom of that range (the papers' CPUs at one instruction per cycle: `cpu.mips`).
Under each: G-Loadsharing (LS_RE, paper 002's reading: remote executions only) and memory reservation as the
papers run it, a reserving period for each blocked workstation at once up to the guard (`max_reserving` = the
cluster's nodes; the papers: "when the blocking problem is detected again in a workstation ... start another
reserving period"), ending as soon as the blocked node's job fits (`early_end`, paper 000 §2.1's "as soon as the
available memory ... is sufficiently large") or at the full drain. Paired by seed, every figure beside the paper's,
and paper 000's own arithmetic (`p000.paging_needed`): how much G-Loadsharing must page for the paper's
execution and queuing reductions to be possible at all.
"""
from __future__ import annotations

from emu.tools.reproduce import Claim, Experiment, fmt, mean_ci
from emu.tools.reproductions.p000 import GROUPS, NAMES, PAPER, TRACES, reduction, paging_needed

TITLE = "Papers 000/002's paging severity: the scenarios' overflow model beside the lineage's demand-ratio model"
FAULTS = {        # tag: the memory settings
    "overflow": ["memory.fault_model=overflow", 'memory.fault_rate="800 /s"'],
    **{f"mu{mu}": ["memory.fault_model=demand_ratio", f'memory.fault_rate="{mu} /MI"'] for mu in (0.25, 0.5, 1, 2)},
}
POLICIES = {      # tag: the policy and its settings
    "G": ["policy=ls_re"],
    "V-early": ["policy=m_reservation", "policy.max_reserving=32", "policy.early_end=true"],
    "V-drain": ["policy=m_reservation", "policy.max_reserving=32", "policy.early_end=false"],
}
METRICS = ("total_execution_time", "total_queue_time", "mean_slowdown", "mean_idle_memory")
BAND = 10.0


def _plan(quick: bool) -> tuple[list[str], list[int], list[str]]:
    """(groups, traces, fault settings): `quick` is one trace of the SPEC group on 8 nodes, two settings."""
    if quick:
        return ["spec"], [3], ["overflow", "mu1"]
    return list(GROUPS), list(TRACES), list(FAULTS)


def experiments(quick: bool, seeds: int | None) -> list[Experiment]:
    groups, traces, faults = _plan(quick)
    n = seeds or (1 if quick else 3)
    out = []
    for group in groups:
        for t in traces:
            jobs, span = TRACES[t]
            trace = [f'workload.arrival.span="{span} s"', f"workload.jobs={jobs}",
                     *(["cluster.nodes=8", f"workload.jobs={jobs // 4}"] if quick else [])]
            for fault in faults:
                for tag, policy in POLICIES.items():
                    out.append(Experiment(f"{group}-t{t}-{fault}-{tag}", GROUPS[group],
                                          [*policy, *FAULTS[fault], *trace], n))
    return out


def _row(records: dict, group: str, t: int, fault: str) -> tuple[str, dict, tuple | None]:
    """One table row (group, trace, setting): each reservation reading's reductions, how many printed figures
    it lands within ±10 points of, G-Loadsharing's paging over its CPU time and §5's need."""
    prefix = f"{group}-t{t}-{fault}"
    g = records[f"{prefix}-G"]
    cells, within = [f"{group.upper() if group == 'spec' else 'App'}", f"Trace-{t}", fault], {}
    for tag in ("V-early", "V-drain"):
        v, hits, figures = records[f"{prefix}-{tag}"], 0, []
        for m in (m for m in METRICS if m in PAPER[group]):
            mean, half = reduction(v, g, m)
            paper = PAPER[group][m][t - 1]
            hits += paper is not None and abs(mean - paper) <= BAND
            figures.append(f"{fmt(mean, half, 1)} [{'—' if paper is None else paper}]")
        printed = sum(PAPER[group][m][t - 1] is not None for m in METRICS if m in PAPER[group])
        within[tag] = (hits, printed)
        cells += ["; ".join(figures), f"{hits}/{printed}"]
    e, q = PAPER[group]["total_execution_time"][t - 1], PAPER[group]["total_queue_time"][t - 1]
    need = paging_needed(g, e, q) if e is not None and q is not None else None
    cells += [fmt(*mean_ci([r["metrics"]["total_page_time"] / r["metrics"]["total_cpu_time"] for r in g]), 3),
              "—" if need is None else fmt(*need, 2)]
    return "| " + " | ".join(cells) + " |", within, need


def analyse(records: dict, plots) -> tuple[list[Claim], list[str]]:
    done = {tuple(k.rsplit("-", 2)[:2]) for k in records if k.endswith("-G")}     # (group-tT, fault)
    lines = ["## Reductions by memory reservation against G-Loadsharing, per fault setting", "",
             "Paired by seed; mean ± 95 % interval in percent, the paper's figure in brackets (— where it prints "
             "none): " + "; ".join(NAMES[m] for m in METRICS if m in PAPER["spec"]) + " for SPEC, "
             + "; ".join(NAMES[m] for m in METRICS if m in PAPER["app"]) + " for App. *V-early*: a reserving "
             "period per blocked workstation up to the guard, ended as soon as the blocked job fits; *V-drain*: the "
             "same, ended at the full drain; *within*: how many of the paper's printed figures the mean lies within "
             "±10 points of. *§5 need*: G-Loadsharing's paging over the least the paper's execution and queuing "
             "reductions need of it (`p000.paging_needed`; below 1 they are out of reach).", "",
             "| group | trace | faults | V-early | within | V-drain | within | G: paging over CPU time | §5 need |",
             "|---|---|---|---|---|---|---|---|---|"]
    fits, needs = {}, {}
    for group in GROUPS:
        for fault in FAULTS:
            for t in TRACES:
                if (f"{group}-t{t}", fault) not in done:
                    continue
                line, within, need = _row(records, group, t, fault)
                lines.append(line)
                for tag, hit in within.items():
                    fits.setdefault((group, fault, tag), []).append(hit)
                if need is not None:
                    needs.setdefault((group, fault), []).append(need[0])
    lines += ["", "## Where each setting lands", "",
              "The paper's printed figures each setting lands within ±10 points of, over the traces run.", "",
              "| group | faults | V-early | V-drain |", "|---|---|---|---|"]
    for (group, fault, tag), hits in fits.items():
        if tag == "V-early":
            lines.append(f"| {group} | {fault} | " + " | ".join(
                f"{sum(h for h, _ in fits[group, fault, x])}/{sum(p for _, p in fits[group, fault, x])}"
                for x in ("V-early", "V-drain")) + " |")
    claims = [Claim(f"§5, {group} {fault}", "G-Loadsharing pages at least as much as the paper's execution and "
                    "queuing reductions need (every trace run)", "≥ 1", f"{min(v):.2f}-{max(v):.2f}", min(v) >= 1)
              for (group, fault), v in needs.items()]
    return claims, lines + [""]

"""Paper 003 (Qin's thesis), Chapter 4: parallel jobs of bulk-synchronous tasks among sequential ones on 32
nodes (scenarios/p003/parallel.toml), 30 % or 60 % of the jobs parallel, against the mean I/O access rate:
IOCM-RE against the CPU- and memory-based baselines and NLB (Fig. 4.2), and IOCM-PM against them (Fig. 4.4,
"the same configurations"): one set of runs serves both. Each job's rate is uniform in [0, 2 x the mean]. Also
IOCM-RE against BS, the space-sharing batch queue (Fig. 4.1), and the memory-intensive load against the page
fault rate (Fig. 4.3, scenarios/p003/parallel_memory.toml).

The metric is the mean slowdown over jobs, a parallel job counted once (summary.json's job_slowdown: its
arrival to its last task's end, over its longest task's time alone).

Scale: the scenario's trace is 280 jobs in 20 minutes; here an eighth of it, 35 jobs in 150 s at the same
arrival rate (`SCALE`), at four of the figures' ten rates, every third (`RUN`: both ends and the two between,
evenly spaced), so that five policies, two panels and five seeds (200 runs) fit beside Chapter 3 in the hour on
two cores on a slow day; Fig. 4.3 at the same scale. Six rates (every other one and the last) took the whole
reproduction to 65 minutes on 2026-11-30 (docs/p003.md, Time); `nowemu sweep scenarios/p003/parallel.toml` runs
any of the ten. The quick variant: the axes' ends, 8 jobs in 33 s, one seed.
"""
from __future__ import annotations

from emu.tools.reproduce import Claim, Experiment, mean_ci
from emu.tools.reproductions.p003.common import (change, curves, gain, job_slowdowns, job_slowdowns_by_seed,
                                                not_below, steeper, streams, table)

POLICIES = ("local", "cpu_re", "mem_re", "iocm_re", "iocm_pm")
NAMES = {"local": "NLB", "cpu_re": "CPU", "mem_re": "MEM", "iocm_re": "IOCM-RE", "iocm_pm": "IOCM-PM",
         "bs": "BS"}
RATES = tuple(1.0 + 0.0625 * i for i in range(10))      # Fig. 4.2: "1.0 and 1.563 No./MI with increments of 0.0625"
RUN = RATES[::3]                                        # four of them, both ends: see the module's docstring
PANELS = (30, 60)                                       # percent of the jobs parallel, Figs. 4.2-4.4 (a) and (b)
SCALE = (35, "150 s")                                   # jobs and span: an eighth of the scenario's trace
QUICK = (8, "33 s")
# Fig. 4.1(a), sequential jobs only (scenarios/p003/sequential32.toml: io.toml's 50 jobs a node in 20 minutes,
# 1600, the work of parallel.toml's 30 % trace): an eighth of its trace too, at the same four rates; its (b), 30 %
# parallel, is BS beside the 30 % panel's runs
SEQUENTIAL = (200, "150 s")
SEQUENTIAL_QUICK = (100, "75 s")
SAME = 0.10
# Fig. 4.3, the memory-intensive load (scenarios/p003/parallel_memory.toml) against the page fault rate: the
# thesis's "1 to 10 No./MI in practice", its ends and two between; NLB with the others (with faults queued at the
# disk it ran at the lowest only, a 60 % run at 10 /MI taking minutes; at a fixed fault time it takes seconds)
FAULTS = (1.0, 4.0, 7.0, 10.0)
MEMORY = ("local", "cpu_re", "mem_re", "iocm_re")


def _name(pct: int, rate: float) -> str:
    """An experiment: `pct` % of the jobs parallel (0: Fig. 4.1(a)'s sequential trace) at a mean rate."""
    return f"fig4.1a-{rate:g}MI" if pct == 0 else f"ch4-{pct}pc-{rate:g}MI"


def _memory(pct: int, faults: float) -> str:
    """A Fig. 4.3 experiment: `pct` % parallel at a page fault rate."""
    return f"fig4.3-{pct}pc-{faults:g}MI"


def experiments(quick: bool, seeds: int | None) -> list[Experiment]:
    n = seeds or (1 if quick else 5)
    rates = (RATES[0], RATES[-1]) if quick else RUN
    jobs, span = SEQUENTIAL_QUICK if quick else SEQUENTIAL
    out = [Experiment(_name(0, rate), "p003/sequential32.toml", ["policy=iocm_re,bs", *streams(jobs, span, 0, rate)],
                      n, samples=False) for rate in rates]
    jobs, span = QUICK if quick else SCALE
    for pct in PANELS:
        policies = POLICIES + (("bs",) if pct == 30 else ())
        out += [Experiment(_name(pct, rate), "p003/parallel.toml",
                           [f"policy={','.join(policies)}", *streams(jobs, span, pct, rate)], n, samples=False)
                for rate in rates]
        faults = (FAULTS[0], FAULTS[-1]) if quick else FAULTS
        out += [Experiment(_memory(pct, f), "p003/parallel_memory.toml",
                           [f"policy={','.join(MEMORY)}",
                            f'memory.fault_rate="{f:g} /MI"', *streams(jobs, span, pct)], n, samples=False)
                for f in faults]
    return out


def _slowdowns(records, pct, policy, rate) -> list[float]:
    return job_slowdowns(records, _name(pct, rate), policy)


def _rates(records, pct) -> list[float]:
    return [x for x in RATES if _name(pct, x) in records]


def _table(records, pct) -> tuple[list[str], dict]:
    return table(f"Parallel jobs, {pct} % of the jobs, against the mean I/O access rate (Figs. 4.2 and 4.4 "
                 f"({'a' if pct == 30 else 'b'}))", "Mean slowdown over jobs (a parallel job once)", "mean I/O rate",
                 "/MI", _rates(records, pct), {p: NAMES[p] for p in POLICIES},
                 lambda p, x: _slowdowns(records, pct, p, x))


def analyse(records: dict, plots) -> tuple[list[Claim], list[str]]:
    if not any(_name(pct, x) in records for pct in PANELS for x in RATES):
        return [], []
    claims, lines, m = [], ["![Mean slowdown against the mean I/O access rate, by policy](PLOTS/p003-ch4.png)", ""], {}
    for pct in PANELS:
        t, m[pct] = _table(records, pct)
        lines += t
    n = NAMES.get
    for pct in PANELS:
        xs, s = _rates(records, pct), m[pct]
        fig = f"Fig. 4.2({'a' if pct == 30 else 'b'})"
        lo, hi = xs[0], xs[-1]
        claims.append(Claim(fig, f"the mean slowdowns all increase with the I/O load ({pct} % parallel)", "all rise",
                            ", ".join(f"{n(p)} {s[p, lo]:.2f} → {s[p, hi]:.2f}" for p in POLICIES),
                            all(s[p, hi] > s[p, lo] for p in POLICIES), not_below(
                                [(f"{n(p)} at {lo:g} - at {hi:g} /MI (% of the latter)",
                                  job_slowdowns_by_seed(records, _name(pct, lo), p),
                                  job_slowdowns_by_seed(records, _name(pct, hi), p)) for p in POLICIES])))
        k = sum(s["iocm_re", x] < min(s["cpu_re", x], s["mem_re", x]) for x in xs)
        best = max(max(s[b, x] / s["iocm_re", x] for x in xs) for b in ("cpu_re", "mem_re"))
        claims.append(Claim(fig, "IOCM-RE greatly outperforms the CPU- and memory-based policies", "at every rate",
                            f"at {k} of {len(xs)}; largest factor {best:.2f}x", k == len(xs)))
        fig = f"Fig. 4.4({'a' if pct == 30 else 'b'})"
        k = sum(s["iocm_pm", x] < s["iocm_re", x] < min(s["cpu_re", x], s["mem_re", x]) for x in xs)
        claims.append(Claim(fig, "IOCM-PM < IOCM-RE < MEM, CPU (the issue's reading)", "at every rate",
                            f"at {k} of {len(xs)}", k == len(xs), "" if k == len(xs) else not_below(
                                [(f"{x:g} /MI: {n(a)} - {n(b)} (% of {n(b)})",
                                  job_slowdowns_by_seed(records, _name(pct, x), a),
                                  job_slowdowns_by_seed(records, _name(pct, x), b))
                                 for a, b in (("iocm_pm", "iocm_re"), ("iocm_re", "mem_re"), ("iocm_re", "cpu_re"))
                                 for x in xs])))
        gains = {b: max(s[b, x] / s["iocm_pm", x] for x in xs) for b in ("iocm_re", "mem_re", "cpu_re")}
        claims.append(Claim(fig, "IOCM-PM improves over IOCM-RE, MEM and CPU by up to 112.8 %, 142.6 %, 146.1 %",
                            "112.8 %, 142.6 %, 146.1 %", ", ".join(f"{n(b)} {gain(f, 1.0)}" for b, f in gains.items()),
                            all(f > 1 for f in gains.values()),
                            "holds if IOCM-PM is below them; the largest improvement over the rates, as "
                            "(S_other - S) / S and (S_other - S) / S_other"))
        rise = {p: s[p, hi] - s[p, lo] for p in ("iocm_pm", "iocm_re", "mem_re", "cpu_re")}
        calm = rise["iocm_pm"] < min(rise[p] for p in ("iocm_re", "mem_re", "cpu_re"))

        def rises(p, pct=pct):
            return change(job_slowdowns_by_seed(records, _name(pct, lo), p),
                          job_slowdowns_by_seed(records, _name(pct, hi), p))
        claims.append(Claim(fig, "CPU, MEM and IOCM-RE are more sensitive to the I/O access rate than IOCM-PM",
                            "IOCM-PM rises least", ", ".join(f"{n(p)} {r:+.2f}" for p, r in rise.items()), calm,
                            f"the rise from {lo:g} to {hi:g} /MI" + ("" if calm else "; " + steeper(
                                [(f"IOCM-PM's rise - {n(p)}'s", rises("iocm_pm"), rises(p))
                                 for p in ("iocm_re", "mem_re", "cpu_re")]))))
        worst = max(abs(s["mem_re", x] / s["cpu_re", x] - 1) for x in xs)
        claims.append(Claim(fig, "MEM ≈ CPU", "almost identical", f"within {100 * worst:.0f} %", worst <= SAME,
                            f"holds within {100 * SAME:.0f} %"))
    both = [x for x in _rates(records, 30) if x in _rates(records, 60)]
    k = sum(m[60][p, x] > m[30][p, x] for p in POLICIES for x in both)
    claims.append(Claim("Fig. 4.2", "at a fixed I/O rate every slowdown is higher with 60 % parallel jobs than with 30 %",
                        "60 % above 30 %", f"at {k} of {len(POLICIES) * len(both)} (policy, rate) pairs",
                        k == len(POLICIES) * len(both)))
    claims += _batch(records, lines) + _memory_load(records, lines)
    _plots(records, plots)
    return claims, lines


def _batch(records, lines) -> list[Claim]:
    """Fig. 4.1: IOCM-RE against BS, (a) sequential jobs only, (b) 30 % parallel."""
    claims, factor = [], {}
    for pct, panel in ((0, "a"), (30, "b")):
        xs = [x for x in _rates(records, pct) if _slowdowns(records, pct, "bs", x)]
        if not xs:
            return [Claim("Fig. 4.1", "IOCM-RE below BS, the space-sharing batch queue", "IOCM-RE below", "", None,
                          "no BS runs")]
        fig = f"Fig. 4.1({panel})"
        t, s = table(f"IOCM-RE against BS, {'sequential jobs only' if pct == 0 else '30 % of the jobs parallel'} "
                     f"({fig})", "Mean slowdown over jobs (a parallel job once)", "mean I/O rate", "/MI", xs,
                     {p: NAMES[p] for p in ("iocm_re", "bs")}, lambda p, x: _slowdowns(records, pct, p, x))
        lines += t
        lo, hi = xs[0], xs[-1]

        def seeds(p, x, pct=pct):
            return job_slowdowns_by_seed(records, _name(pct, x), p)
        claims.append(Claim(fig, "both IOCM-RE and BS rise with the I/O access rate", "both rise",
                            f"IOCM-RE {s['iocm_re', lo]:.2f} → {s['iocm_re', hi]:.2f}, BS {s['bs', lo]:.2f} → "
                            f"{s['bs', hi]:.2f}", s["iocm_re", hi] > s["iocm_re", lo] and s["bs", hi] > s["bs", lo],
                            not_below([(f"{NAMES[p]} at {lo:g} - at {hi:g} /MI (% of the latter)", seeds(p, lo),
                                        seeds(p, hi)) for p in ("iocm_re", "bs")])))
        k = sum(s["iocm_re", x] < s["bs", x] for x in xs)
        factor[pct] = max(s["bs", x] / s["iocm_re", x] for x in xs)
        claims.append(Claim(fig, "IOCM-RE is significantly better than BS", "at every rate",
                            f"at {k} of {len(xs)}; largest factor {factor[pct]:.2f}x", k == len(xs),
                            not_below([(f"{x:g} /MI: IOCM-RE - BS (% of BS)", seeds("iocm_re", x), seeds("bs", x))
                                       for x in xs])))
    claims.append(Claim("Fig. 4.1(b)", "BS degrades considerably when parallel jobs wait in its queue",
                        "(b) worse for BS than (a)", f"BS over IOCM-RE: up to {factor[0]:.2f}x in (a), "
                        f"{factor[30]:.2f}x in (b)", factor[30] > factor[0],
                        "holds if BS's largest factor over IOCM-RE is larger in (b) than in (a)"))
    return claims


def _memory_load(records, lines) -> list[Claim]:
    """Fig. 4.3: the memory-intensive load against the page fault rate."""
    claims = []
    for pct in PANELS:
        xs = [f for f in FAULTS if _memory(pct, f) in records]
        if not xs:
            continue
        fig = f"Fig. 4.3({'a' if pct == 30 else 'b'})"
        t, s = table(f"Memory-intensive load, {pct} % of the jobs parallel, against the page fault rate ({fig})",
                     "Mean slowdown over jobs (a parallel job once)", "page fault rate", "/MI", xs,
                     {p: NAMES[p] for p in MEMORY}, lambda p, f: job_slowdowns(records, _memory(pct, f), p))
        lines += t + [""]
        hi = xs[-1]
        worse = max(s["iocm_re", hi], s["mem_re", hi])
        factor, nlb = s["cpu_re", hi] / worse, s["local", hi] / worse
        claims.append(Claim(fig, "at a high page fault rate and a low I/O rate IOCM-RE and MEM outperform the "
                            "CPU-based and NLB schemes considerably", "IOCM-RE, MEM below CPU, NLB",
                            f"at {hi:g} /MI: CPU {factor:.2f}x, NLB {nlb:.2f}x the worse of IOCM-RE and MEM",
                            factor > 1 and nlb > 1))
    return claims


def _plots(records, plots) -> None:
    panels = [(pct, POLICIES, f"Figs. 4.2/4.4 ({pct} % parallel)") for pct in PANELS] + [
        (pct, ("iocm_re", "bs"), f"Fig. 4.1({panel})") for pct, panel in ((0, "a"), (30, "b"))]
    drawn = [(title, "mean I/O access rate (/MI)", _rates(records, pct),
              {NAMES[p]: [mean_ci(_slowdowns(records, pct, p, x))[0] for x in _rates(records, pct)] for p in policies})
             for pct, policies, title in panels]
    for pct in PANELS:
        xs = [f for f in FAULTS if _memory(pct, f) in records]
        drawn.append((f"Fig. 4.3 ({pct} % parallel)", "page fault rate (/MI)", xs,
                      {NAMES[p]: [mean_ci(job_slowdowns(records, _memory(pct, f), p))[0] for f in xs]
                       for p in MEMORY}))
    curves(plots, "p003-ch4", drawn, log=True)

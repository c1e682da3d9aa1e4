"""Paper 003 (Qin's thesis), Chapter 5: load balancing on the heterogeneous six-node Systems A-E of Table 5.4,
under Table 5.3's traces: the I/O-intensive Trace 1 (Fig. 5.1), Trace 2, the same without initial data
(Fig. 5.2), Trace 3, with 1 MB requests (Fig. 5.3), Trace 2's I/O rate swept on System A (Fig. 5.4), the
memory-intensive Trace 4 (Fig. 5.5), and the buffer hit ratios of Traces 2 and 3 (Fig. 5.6). The scenarios
(scenarios/p003/hetero/) say what stands in for the thesis's traces and why. Fig. 5.7 (six applications, one disk
aged 1 to 6 years) is `aging`.
"""
from __future__ import annotations

from emu.tools.reproduce import Claim, Experiment, by_seed, mean_ci, metric, select
from emu.tools.reproductions.p003.common import METRICS, change, curves, gain, gap, not_below, steeper, table

SYSTEMS = "ABCDE"
NAMES = {"local": "NLB", "cpu_re": "CPU-RE", "mem_re": "MEM-RE", "io_re": "IO-RE", "iocm_re_hetero": "IOCM-RE"}
ALL = tuple(NAMES)
THREE = ("cpu_re", "mem_re", "iocm_re_hetero")         # Figs. 5.2-5.4 and 5.6 ("NLB ≈ CPU-RE, IO-RE ≈ IOCM-RE")
# Table 5.3's traces as they differ from Trace 1 (the scenarios' own); Trace 3's deviation is Ch. 3's ratio
# (256 KB of 128 KB: half the mean), the thesis giving none for 1 MB
TRACES = {1: [], 2: ["workload.io.initial_data=0"],
          3: ["workload.io.initial_data=0", 'workload.io.size="1 MB"', 'workload.io.size_sd="512 KB"']}
# Fig. 5.4: modified Trace 2 on System A, mean rate 14 to 20 No./MI by 1 (each job's uniform up to twice that);
# its 20 is Trace 2's own point (Fig. 5.2's System A runs)
RATES = (14, 15, 16, 17, 18, 19)
# the quick variant: a sixth of the jobs at the same rate (Traces 1-3, then Trace 4's)
QUICK = (["workload.jobs=25", 'workload.arrival.span="300 s"'], ["workload.jobs=50", 'workload.arrival.span="200 s"'])
IO_RE = ["policy=io_re", "policy.implicit=true"]       # Sec. 5.2.2: "task j's explicit and implicit I/O load"
SAME = 0.10         # "about the same", "equally well": within 10 % of each other


def _scenario(system: str, memory: bool = False) -> str:
    return f"p003/hetero/{system.lower()}{'_memory' if memory else ''}.toml"


def experiments(quick: bool, seeds: int | None) -> list[Experiment]:
    """Each system under Traces 1-4 (Traces 1 and 4 with all five policies, IO-RE in an experiment of its own as
    it counts paging here; 2 and 3 with the three Figs. 5.2-5.3 show), and Fig. 5.4's rates; every policy on the
    same seeds. `quick`: Systems A and B, a sixth of the jobs, one seed, Fig. 5.4 at two rates (14 and 17 /MI)."""
    n = seeds or (1 if quick else 5)
    small, small4 = QUICK if quick else ([], [])
    out = []
    for s in ("AB" if quick else SYSTEMS):
        for trace, memory, sets in ((1, False, small), (4, True, small4)):
            out += [Experiment(f"trace{trace}-{s}", _scenario(s, memory),
                               [f"policy={','.join(p for p in ALL if p != 'io_re')}", *sets], n, samples=False),
                    Experiment(f"trace{trace}-{s}-io_re", _scenario(s, memory), [*IO_RE, *sets], n, samples=False)]
        out += [Experiment(f"trace{trace}-{s}", _scenario(s), [f"policy={','.join(THREE)}", *TRACES[trace], *small],
                           n, samples=False) for trace in (2, 3)]
    rates = ",".join(f'"{2 * r} /MI"' for r in (RATES[::3] if quick else RATES))
    out.append(Experiment("fig5.4", _scenario("A"), [f"policy={','.join(THREE)}", *TRACES[2],
                                                     f"workload.io.rate_max={rates}", *small], n, samples=False))
    return out


def _runs(records, trace: int, system: str, policy: str) -> list[dict]:
    if policy == "io_re":
        return select(records.get(f"trace{trace}-{system}-io_re", []))
    return select(records.get(f"trace{trace}-{system}", []), policy=policy)


def _systems(records) -> str:
    return "".join(s for s in SYSTEMS if f"trace1-{s}" in records)


def _means(records, trace: int, policies, name: str = "mean_slowdown") -> tuple[list[str], dict]:
    """The trace's table over the systems run (mean slowdown, or `name`) and its means by (policy, system)."""
    what = {1: "Trace 1 (I/O-intensive, 50 MB initial data; Fig. 5.1)", 2: "Trace 2 (no initial data; Fig. 5.2)",
            3: "Trace 3 (1 MB requests; Fig. 5.3)", 4: "Trace 4 (memory-intensive; Fig. 5.5)"}[trace]
    return table(f"{what}: {METRICS[name].split(' (')[0].lower()} by system", METRICS[name], "system", "",
                 list(_systems(records)), {p: NAMES[p] for p in policies},
                 lambda p, s: metric(_runs(records, trace, s, p), name))


def _per_run(records, trace: int, systems: str, what) -> str:
    """A line of per-run means by system, for the report's explanations: (policy, metric, its words) each."""
    return "Per run, by system: " + "; ".join(
        f"{words} " + ", ".join(f"{s} {mean_ci(metric(_runs(records, trace, s, p), name))[0]:,.3g}" for s in systems)
        for p, name, words in what) + "."


def _apart(records, points, name: str, relative: bool = True) -> str:
    """`not_below` over (trace, system, policy, rival): the policy's `name` less the rival's, paired by seed."""
    return not_below([(f"Trace {t}, {s}: {NAMES[p]} - {NAMES[q]} ({'% of ' + NAMES[q] if relative else 'points'})",
                       by_seed(_runs(records, t, s, p), name), by_seed(_runs(records, t, s, q), name))
                      for t, s, p, q in points], relative)


# why IOCM-RE and MEM-RE differ on Trace 4: which of a node's two I/O loads decides IOCM-RE's placement
WHY_EQUAL = ("; IOCM-RE places a job by the larger of its node's explicit and implicit I/O loads, as IO-RE by the first "
             "and MEM-RE by the second, and Trace 4's jobs do some explicit I/O, so where no node pages it places them "
             "as IO-RE does where that pays; remote executions per run, IOCM-RE against MEM-RE: {moves}; {order}")


def _why_equal(records, m5: dict, systems: str) -> str:
    """Fig. 5.5's miss: the systems where another scheme is not above the two, and those where the two differ."""
    rest = ("local", "cpu_re", "io_re")
    out = "".join(f"; {s}: {NAMES[p]} {m5[p, s]:.2f} not above MEM-RE's {m5['mem_re', s]:.2f} and IOCM-RE's "
                  f"{m5['iocm_re_hetero', s]:.2f}" for s in systems for p in [min(rest, key=lambda p: m5[p, s])]
                  if max(m5["iocm_re_hetero", s], m5["mem_re", s]) >= m5[p, s])
    unequal = [s for s in systems if abs(m5["iocm_re_hetero", s] / m5["mem_re", s] - 1) > SAME]
    if not unequal:
        return out

    def moves(s, p):
        return mean_ci(metric(_runs(records, 4, s, p), "remote_executions"))[0]
    higher = [(4, s, *sorted(("iocm_re_hetero", "mem_re"), key=lambda p: -m5[p, s])) for s in unequal]
    return out + WHY_EQUAL.format(moves=", ".join(f"{s} {moves(s, 'iocm_re_hetero'):.0f} against "
                                                  f"{moves(s, 'mem_re'):.0f}" for s in unequal),
                                  order=_apart(records, higher, "mean_slowdown"))


def _rise(m, p, a: str, b: str) -> float:
    return m[p, b] / m[p, a] - 1


def _growth(records, trace: int, policy: str, a: str, b: str) -> dict[int, float]:
    """A policy's rise in mean slowdown from system `a` to `b` under a trace, by seed, in % of a's (the same seed
    gives every system the same jobs)."""
    return change(*(by_seed(_runs(records, trace, s, policy), "mean_slowdown") for s in (a, b)), percent=True)


def _steeper(records, trace: int, a: str, b: str, pairs) -> str:
    """`steeper` over (policy, rival): where the policy's rise from `a` to `b` is not below the rival's, in points
    of % (`_growth`), paired by seed."""
    return steeper([(f"{NAMES[p]}'s rise - {NAMES[q]}'s (points of %)", _growth(records, trace, p, a, b),
                     _growth(records, trace, q, a, b)) for p, q in pairs])


def analyse(records: dict, plots) -> tuple[list[Claim], list[str]]:
    claims, lines = [], ["![Mean slowdown by system and trace, and against Trace 2's I/O rate on System A]"
                         "(PLOTS/p003b-ch5.png)", ""]
    n = NAMES.get
    systems = _systems(records)

    # -- Fig. 5.1: Trace 1 -----------------------------------------------------------------------------------
    t, m1 = _means(records, 1, ALL)
    lines += t + [_per_run(records, 1, systems, (("io_re", "remote_executions", "IO-RE's remote executions"),
                                                 ("iocm_re_hetero", "remote_executions", "IOCM-RE's"),
                                                 ("local", "cpu_utilization", "NLB's CPU utilization"))), ""]
    k = sum(all(m1[io, s] < m1[p, s] for io in ("io_re", "iocm_re_hetero") for p in ("local", "cpu_re", "mem_re"))
            for s in systems)
    losing = [(1, s, io, p) for s in systems for io in ("io_re", "iocm_re_hetero") for p in ("local", "cpu_re", "mem_re")
              if m1[io, s] >= m1[p, s]]
    claims.append(Claim("Fig. 5.1", "IO-RE and IOCM-RE significantly outperform NLB, CPU-RE and MEM-RE",
                        "on every system", f"on {k} of {len(systems)}", k == len(systems), "" if not losing else
                        "each remote execution carries the job's initial data (Trace 1: IO-RE's and IOCM-RE's remote "
                        "executions a run, the line below the table); " + _apart(records, losing, "mean_slowdown")))
    factors = {p: max(m1[p, s] / m1["iocm_re_hetero", s] for s in systems) for p in ("cpu_re", "mem_re")}
    claims.append(Claim("Fig. 5.1", "IOCM-RE improves over CPU-RE and MEM-RE by up to a factor of 5 and 3",
                        "5x, 3x", f"{factors['cpu_re']:.2f}x, {factors['mem_re']:.2f}x",
                        all(f > 1 for f in factors.values()), "the largest factor over the systems, beside the "
                        "thesis's; holds if IOCM-RE is below both somewhere"))
    k = sum(m1[p, systems[-1]] > m1[p, systems[0]] for p in ALL)
    claims.append(Claim("Fig. 5.1", "the mean slowdowns of almost all policies increase with heterogeneity",
                        f"{systems[0]} → {systems[-1]} rises", f"for {k} of {len(ALL)} policies: " + ", ".join(
                            f"{n(p)} {m1[p, systems[0]]:.2f} → {m1[p, systems[-1]]:.2f}" for p in ALL),
                        k >= len(ALL) - 1))
    if "A" in systems and "B" in systems:
        rise = {p: _rise(m1, p, "A", "B") for p in ALL}
        claims.append(Claim("Fig. 5.1", "A → B (CPU and memory heterogeneity only): IO-RE and IOCM-RE rise far "
                            "more than CPU-RE and MEM-RE", "+196.4 % vs +34.7 %, +47.9 %",
                            ", ".join(f"{n(p)} {100 * r:+.1f} %" for p, r in rise.items() if p != "local"),
                            min(rise["io_re"], rise["iocm_re_hetero"]) > max(rise["cpu_re"], rise["mem_re"], 0),
                            _steeper(records, 1, "A", "B", [(p, io) for io in ("io_re", "iocm_re_hetero")
                                                            for p in ("cpu_re", "mem_re")])))
    if "D" in systems and "E" in systems:
        rise = {p: _rise(m1, p, "D", "E") for p in ALL}
        claims.append(Claim("Fig. 5.1", "D → E (disk heterogeneity only): IO-RE and IOCM-RE less sensitive than the "
                            "others", "+3 % vs MEM-RE +5 %, CPU-RE +9 %",
                            ", ".join(f"{n(p)} {100 * r:+.1f} %" for p, r in rise.items() if p != "local"),
                            max(rise["io_re"], rise["iocm_re_hetero"]) < min(rise["cpu_re"], rise["mem_re"]),
                            _steeper(records, 1, "D", "E", [(io, p) for io in ("io_re", "iocm_re_hetero")
                                                            for p in ("cpu_re", "mem_re")])))

    # -- Figs. 5.2 and 5.3: initial data and request size ----------------------------------------------------
    t, m2 = _means(records, 2, THREE)
    lines += t
    t, m3 = _means(records, 3, THREE)
    lines += t
    k = sum(all(m[("iocm_re_hetero", s)] < m[p, s] for m in (m1, m2) for p in ("cpu_re", "mem_re")) for s in systems)
    losing = [(t, s, "iocm_re_hetero", p) for t, m in ((1, m1), (2, m2)) for s in systems for p in ("cpu_re", "mem_re")
              if m["iocm_re_hetero", s] >= m[p, s]]
    claims.append(Claim("Fig. 5.2", "IOCM-RE consistently outperforms CPU-RE and MEM-RE (Traces 1 and 2)",
                        "on every system", f"on {k} of {len(systems)}", k == len(systems),
                        _apart(records, losing, "mean_slowdown") if losing else ""))
    apart = max(abs(m2["cpu_re", s] / m1["cpu_re", s] - 1) for s in systems)
    far = max(systems, key=lambda s: abs(m2["cpu_re", s] / m1["cpu_re", s] - 1))
    high, low = (2, 1) if m2["cpu_re", far] > m1["cpu_re", far] else (1, 2)
    claims.append(Claim("Fig. 5.2", "CPU-RE's slowdowns for the two traces are roughly identical", "roughly identical",
                        f"within {100 * apart:.0f} %", apart <= SAME, f"holds within {100 * SAME:.0f} %" + (
                            "" if apart <= SAME else f"; the largest gap, on {far}: " + gap(
                                f"CPU-RE under Trace {high} - under Trace {low} (% of the latter)",
                                by_seed(_runs(records, high, far, "cpu_re"), "mean_slowdown"),
                                by_seed(_runs(records, low, far, "cpu_re"), "mean_slowdown")))))
    k = sum(m2[p, s] < m1[p, s] for p in ("mem_re", "iocm_re_hetero") for s in systems)
    claims.append(Claim("Fig. 5.2", "MEM-RE and IOCM-RE noticeably lower without initial data (Trace 2)",
                        "Trace 2 < Trace 1", f"at {k} of {2 * len(systems)} (policy, system)",
                        k == 2 * len(systems)))
    k = sum(m2[p, s] < m3[p, s] for p in THREE for s in systems)
    claims.append(Claim("Fig. 5.3", "for all policies on every system, Trace 2's slowdown significantly lower than "
                        "Trace 3's (1 MB requests)", "Trace 2 < Trace 3",
                        f"at {k} of {3 * len(systems)} (policy, system)", k == 3 * len(systems)))
    if "B" in systems:
        claims.append(Claim("Fig. 5.3", "Trace 3 on System B: IOCM-RE better than CPU-RE and MEM-RE",
                            "93.4 %, 33.2 %", f"{gain(m3['cpu_re', 'B'], m3['iocm_re_hetero', 'B'])}; "
                            f"{gain(m3['mem_re', 'B'], m3['iocm_re_hetero', 'B'])}",
                            m3["iocm_re_hetero", "B"] < min(m3["cpu_re", "B"], m3["mem_re", "B"]),
                            "improvement as (S_other - S) / S and (S_other - S) / S_other"))

    # -- Fig. 5.4: Trace 2's I/O rate on System A ------------------------------------------------------------
    xs, m4 = _fig54(records)
    if len(xs) > 1:
        lines += table("Trace 2's mean I/O rate on System A (Fig. 5.4)", "Mean slowdown (Eq. 3.22)",
                       "mean I/O rate", "/MI", xs, {p: NAMES[p] for p in THREE},
                       lambda p, x: _fig54_slowdowns(records, p, x))[0]
        rise = {p: m4[p, xs[-1]] - m4[p, xs[0]] for p in THREE}
        ok = all(r > 0 for r in rise.values()) and rise["iocm_re_hetero"] < min(rise["cpu_re"], rise["mem_re"])

        def seeds(p, x):
            return by_seed(_fig54_runs(records, p, x), "mean_slowdown")

        def rises(p):
            return change(seeds(p, xs[0]), seeds(p, xs[-1]))
        claims.append(Claim("Fig. 5.4", "all rise with the I/O rate; CPU-RE and MEM-RE much faster than IOCM-RE",
                            "IOCM-RE rises least", ", ".join(f"{n(p)} {r:+.2f}" for p, r in rise.items()), ok,
                            f"the rise from {xs[0]:g} to {xs[-1]:g} /MI" + ("" if ok else "; " + "; ".join(filter(None, [
                                not_below([(f"{n(p)} at {xs[0]:g} - at {xs[-1]:g} /MI (% of the latter)",
                                            seeds(p, xs[0]), seeds(p, xs[-1])) for p in THREE]),
                                steeper([(f"IOCM-RE's rise - {n(p)}'s", rises("iocm_re_hetero"), rises(p))
                                         for p in ("cpu_re", "mem_re")])])))))

    # -- Fig. 5.5: Trace 4 -----------------------------------------------------------------------------------
    t, m5 = _means(records, 4, ALL)
    lines += t + [_per_run(records, 4, systems, (("local", "page_faults", "NLB's page faults"),)), ""]
    k = sum(abs(m5["iocm_re_hetero", s] / m5["mem_re", s] - 1) <= SAME and
            max(m5["iocm_re_hetero", s], m5["mem_re", s]) < min(m5[p, s] for p in ("local", "cpu_re", "io_re"))
            for s in systems)
    claims.append(Claim("Fig. 5.5", "MEM-RE and IOCM-RE perform equally well, outperforming the rest",
                        "on every system", f"on {k} of {len(systems)}", k == len(systems),
                        f"equal: within {100 * SAME:.0f} %" + _why_equal(records, m5, systems)))
    if "D" in systems:
        claims.append(Claim("Fig. 5.5", "System D: MEM-RE and IOCM-RE beat CPU-RE and IO-RE by a factor of 8 and 5",
                            "8x, 5x", f"{m5['cpu_re', 'D'] / m5['iocm_re_hetero', 'D']:.2f}x, "
                            f"{m5['io_re', 'D'] / m5['iocm_re_hetero', 'D']:.2f}x (IOCM-RE)",
                            min(m5["cpu_re", "D"], m5["io_re", "D"]) > m5["iocm_re_hetero", "D"]))
    a, e = systems[0], systems[-1]
    ratios = {p: m5[p, e] / m5[p, a] for p in ("cpu_re", "iocm_re_hetero")}
    claims.append(Claim("Fig. 5.5", f"less sensitive to heterogeneity: CPU-RE's slowdown on {e} over {a}'s far "
                        "above IOCM-RE's", ">223x vs 29x", f"CPU-RE {ratios['cpu_re']:.2f}x, IOCM-RE "
                        f"{ratios['iocm_re_hetero']:.2f}x", ratios["cpu_re"] > ratios["iocm_re_hetero"],
                        _steeper(records, 4, a, e, [("iocm_re_hetero", "cpu_re")])))

    # -- Fig. 5.6: buffer hit ratios -------------------------------------------------------------------------
    t, h2 = _means(records, 2, THREE, "buffer_hit_ratio")
    lines += t
    t, h3 = _means(records, 3, THREE, "buffer_hit_ratio")
    lines += t
    below = [(trace, s, q) for trace, h in ((2, h2), (3, h3)) for s in systems for q in ("cpu_re", "mem_re")
             if h["iocm_re_hetero", s] < h[q, s]]
    k = 2 * len(systems) - len({(trace, s) for trace, s, _ in below})
    claims.append(Claim("Fig. 5.6", "IOCM-RE's buffer hit rate consistently higher than CPU-RE's and MEM-RE's",
                        "in all cases", f"in {k} of {2 * len(systems)} (trace, system)", k == 2 * len(systems),
                        _apart(records, [(t, s, q, "iocm_re_hetero") for t, s, q in below], "buffer_hit_ratio",
                               relative=False)))
    top = max(max(h.values()) for h in (h2, h3))
    claims.append(Claim("Fig. 5.6", "no hit ratio above r/(r + 1) (Eq. 3.5, r = 5)", "≤ 83.3 %",
                        f"highest {100 * top:.1f} %", top <= 5 / 6 + 1e-9))
    k = sum(h3[p, s] < h2[p, s] for p in THREE for s in systems)
    claims.append(Claim("Fig. 5.6", "the larger the average request, the lower the hit rate", "Trace 3 < Trace 2",
                        f"at {k} of {3 * len(systems)}", k == 3 * len(systems)))
    if "C" in systems:
        claims.append(Claim("Fig. 5.6", "IOCM-RE on System C: Trace 3's hit rate 47 %, Trace 2's above 69 %",
                            "47 %, > 69 %", f"{100 * h3['iocm_re_hetero', 'C']:.0f} %, "
                            f"{100 * h2['iocm_re_hetero', 'C']:.0f} %", None,
                            "the thesis's values, beside: its traces' data sizes are not known (scenarios/p003/"
                            "hetero/a.toml)"))
    _plots(records, plots, systems, (m1, m2, m3, m5), xs, m4)
    return claims, lines


def _fig54_runs(records, policy: str, rate: float) -> list[dict]:
    """Fig. 5.4's runs at a mean rate (/MI); its 20 is Trace 2 on System A."""
    if rate == 20:
        return _runs(records, 2, "A", policy)
    return select(records.get("fig5.4", []), policy=policy, **{"workload.io.rate_max": f'"{2 * rate} /MI"'})


def _fig54_slowdowns(records, policy: str, rate: float) -> list[float]:
    return metric(_fig54_runs(records, policy, rate), "mean_slowdown")


def _fig54(records) -> tuple[list[float], dict]:
    xs = [r for r in (*RATES, 20) if _fig54_slowdowns(records, "iocm_re_hetero", r)]
    return xs, {(p, x): mean_ci(_fig54_slowdowns(records, p, x))[0] for p in THREE for x in xs}


def _plots(records, plots, systems: str, tables: tuple, xs: list, m4: dict) -> None:
    panels = [(f"Fig. {fig}: {title}", "system", list(systems), {NAMES[p]: [m[p, s] for s in systems] for p in shown})
              for fig, title, m, shown in zip(("5.1", "5.2", "5.3", "5.5"), ("Trace 1", "Trace 2", "Trace 3",
                                                                               "Trace 4"), tables,
                                              (ALL, THREE, THREE, ALL))]
    panels.append(("Fig. 5.4: Trace 2 on System A", "mean I/O rate (/MI)", xs,
                   {NAMES[p]: [m4[p, x] for x in xs] for p in THREE}))
    curves(plots, "p003b-ch5", panels, log=True)

"""Paper 003 (Qin's thesis), Chapter 3: sequential jobs on Table 3.2's six nodes: the I/O-intensive load against
the maximal I/O access rate (Fig. 3.4), the memory-intensive load against the page fault rate (Fig. 3.5), and,
under the I/O-intensive load, the initial data size (Fig. 3.6) and the network bandwidth (Fig. 3.9). The
scenarios (scenarios/p003/io.toml, memory.toml) say what stands in for the thesis's traces and why.
"""
from __future__ import annotations

from emu.tools.reproduce import Claim, Experiment, by_seed, mean_ci, select
from emu.tools.reproductions.p003.common import change, curves, gain as _gain, gap, not_below, steeper, table
POLICIES = ("cm_re", "cm_pm", "io_re", "io_pm", "wal_re", "wal_pm", "iocm")
NAMES = {"local": "NLB", "cm_re": "CM-RE", "cm_pm": "CM-PM", "io_re": "IO-RE", "io_pm": "IO-PM",
         "wal_re": "WAL-RE", "wal_pm": "WAL-PM", "iocm": "IOCM"}
# the figures' axes (Table 3.2 and the captions): the setting, its values, and the quick variant's two
AXES = {
    "fig3.4": ("workload.io.rate_max", "/MI", (3.0, 3.125, 3.25, 3.375, 3.5, 3.625), (3.0, 3.5)),
    # Fig. 3.5's nine traces, 9.0 to 11.0 /MI by 0.25: every other one (the ends included), so that the
    # sensitivities of Figs. 3.7-3.11 fit in the hour; its curves are flat here for all but three schemes
    "fig3.5": ("memory.fault_rate", "/MI", tuple(9.0 + 0.5 * i for i in range(5)), (9.0, 11.0)),
    "fig3.6": ("workload.io.initial_data", "MB", (50, 100, 150, 200, 250, 300, 350), (50, 350)),
    "fig3.9": ("network.bandwidth", "Mbps", (50, 100, 250, 500, 750, 1000), (50, 1000)),
}
SCENARIO = {"fig3.4": "p003/io.toml", "fig3.5": "p003/memory.toml", "fig3.6": "p003/io.toml",
            "fig3.9": "p003/io.toml"}
SHOWN = {"fig3.4": POLICIES, "fig3.5": POLICIES, "fig3.6": ("wal_re", "iocm", "wal_pm"),
         "fig3.9": ("cm_pm", "wal_re", "iocm", "wal_pm")}
FIXED = {"fig3.9": ['workload.io.rate_max="3.5 /MI"']}      # Fig. 3.9's caption: I/O rate 3.5 No./MI
# Runs one figure takes from another's rather than making again: Fig. 3.9's 100 Mbps is io.toml's bandwidth, so
# that point is Fig. 3.4's at 3.5 /MI; and NLB, the reference line, moves no job, so neither the initial data
# (Fig. 3.6, at io.toml's AR of 3 /MI) nor the bandwidth (Fig. 3.9, at 3.5 /MI) touches it.
SHARED = {("fig3.9", 100): ("fig3.4", 3.5)}
NLB_FROM = {"fig3.6": ("fig3.4", 3.0), "fig3.9": ("fig3.4", 3.5)}
# NLB, the reference line of the others, is not in Fig. 3.5: the thesis's figure has no such line
WITHOUT_NLB = ("fig3.5",)
QUICK = ["workload.jobs=60", 'workload.arrival.span="240 s"']     # a fifth of the jobs, the same rate
SAME = 0.10         # "almost identical", "nearly identical": within 10 % of each other


def _lines(fig: str) -> tuple:
    """The figure's policies and NLB beside them, where it is shown."""
    return SHOWN[fig] if fig in WITHOUT_NLB else ("local",) + SHOWN[fig]


def _runs(fig: str) -> tuple:
    """The policies the figure runs itself: its lines, less NLB where Fig. 3.4's runs give it (`NLB_FROM`)."""
    return SHOWN[fig] if fig in NLB_FROM else _lines(fig)


def _text(fig: str, x: float) -> str:
    """An axis value as its `--set` text (what a record's combo holds)."""
    return f'"{x:g} {AXES[fig][1]}"'


def experiments(quick: bool, seeds: int | None) -> list[Experiment]:
    """Each figure's policies over its axis, every policy on the same seeds, and NLB beside them as the
    reference (from Fig. 3.4's runs where it is the same: `NLB_FROM`; not in Fig. 3.5: `WITHOUT_NLB`). `quick`:
    two values of each axis (its ends; Fig. 3.4's the two the others take NLB from), a fifth of the jobs at the
    same arrival rate, one seed."""
    n = seeds or (1 if quick else 5)
    out = []
    for fig, (key, _, values, ends) in AXES.items():
        xs = ",".join(_text(fig, x) for x in (ends if quick else values) if (fig, x) not in SHARED)
        out.append(Experiment(fig, SCENARIO[fig], [f"policy={','.join(_runs(fig))}", f"{key}={xs}",
                                                   *FIXED.get(fig, []), *(QUICK if quick else [])], n,
                              samples=False))
    return out


def _seeds(records, fig, policy, x) -> dict[int, float]:
    """A policy's mean slowdown at x by seed, from the figure's runs or those it takes (NLB_FROM, SHARED)."""
    fig, x = NLB_FROM[fig] if policy == "local" and fig in NLB_FROM else SHARED.get((fig, x), (fig, x))
    return by_seed(select(records[fig], policy=policy, **{AXES[fig][0]: _text(fig, x)}), "mean_slowdown")


def _slowdowns(records, fig, policy, x) -> list[float]:
    return list(_seeds(records, fig, policy, x).values())


def _behind(records, fig, xs, pairs) -> str:
    """Why an order did not come out: where a policy's mean is not below a rival's, (policy, rival) each, their
    difference paired by seed in % of the rival's."""
    unit = AXES[fig][1]
    return not_below([(f"{x:g} {unit}: {NAMES[a]} - {NAMES[b]} (% of {NAMES[b]})", _seeds(records, fig, a, x),
                       _seeds(records, fig, b, x)) for a, b in pairs for x in xs])


def _gap(records, fig, m, xs, a, b) -> str:
    """Why two policies said to be alike are not within SAME: their largest gap over the axis."""
    x = max(xs, key=lambda x: abs(m[a, x] / m[b, x] - 1))
    return "; the largest gap, " + gap(f"at {x:g} {AXES[fig][1]}: {NAMES[a]} - {NAMES[b]} (% of {NAMES[b]})",
                                       _seeds(records, fig, a, x), _seeds(records, fig, b, x))


def _steeper(records, fig, lo, hi, mine, others) -> str:
    """Why `mine` does not rise (or drop) least from `lo` to `hi`: its change less each other's, by seed, where
    not below zero (`steeper`)."""
    def size(p):
        return change(_seeds(records, fig, p, lo), _seeds(records, fig, p, hi), size=True)
    return steeper([(f"{NAMES[mine]}'s change - {NAMES[p]}'s", size(mine), size(p)) for p in others])


def _xs(records, fig) -> list[float]:
    """The axis's values run, by the figure or (SHARED) by another."""
    def seen(fig, x):
        return any(r["combo"][AXES[fig][0]] == _text(fig, x) for r in records[fig])
    return [x for x in AXES[fig][2] if seen(*SHARED.get((fig, x), (fig, x)))]


def _table(records, fig, title) -> tuple[list[str], dict]:
    """The figure's table (mean slowdown ± 95 % interval, and the trimmed mean) and its means by (policy, x)."""
    key, unit, _, _ = AXES[fig]
    lines, means = table(title, "Mean slowdown (Eq. 3.22)", key, unit, _xs(records, fig),
                         {p: NAMES[p] for p in _lines(fig)}, lambda p, x: _slowdowns(records, fig, p, x))
    notes = [f"The {x:g} {unit} row is Fig. 3.4's runs at {y:g} /MI (the same settings)."
             for (f, x), (_, y) in SHARED.items() if f == fig]
    if fig in NLB_FROM:
        notes.insert(0, f"NLB moves no job: its column is Fig. 3.4's runs at {NLB_FROM[fig][1]:g} /MI.")
    return lines + ([" ".join(notes), ""] if notes else []), means


def _order(means, xs, order) -> int:
    """At how many of the xs the means are in this order (each below the next)."""
    return sum(all(means[a, x] < means[b, x] for a, b in zip(order, order[1:])) for x in xs)


def _near(means, xs, a, b) -> tuple[bool, float]:
    worst = max(abs(means[a, x] / means[b, x] - 1) for x in xs)
    return worst <= SAME, worst


def analyse(records: dict, plots) -> tuple[list[Claim], list[str]]:
    claims, lines = [], ["![Mean slowdown against each figure's axis, by policy](PLOTS/p003-ch3.png)", ""]
    n = NAMES.get

    # -- Fig. 3.4: I/O-intensive ----------------------------------------------------------------------------
    t, m = _table(records, "fig3.4", "I/O-intensive load against the maximal I/O access rate AR (Fig. 3.4)")
    lines += t
    xs = _xs(records, "fig3.4")
    lo, hi = xs[0], xs[-1]
    rise = {p: m[p, hi] - m[p, lo] for p in POLICIES}
    claims.append(Claim("Fig. 3.4", "the mean slowdowns all increase with the I/O load", "all rise",
                        ", ".join(f"{n(p)} {m[p, lo]:.2f} → {m[p, hi]:.2f}" for p in POLICIES),
                        all(r > 0 for r in rise.values())))
    order = ("wal_pm", "iocm", "wal_re", "cm_re")
    k = _order(m, xs, order)
    claims.append(Claim("Fig. 3.4", "WAL-PM < IOCM < WAL-RE (≈ IO-RE) < CM-RE (≈ CM-PM), the issue's reading of "
                        "the four observations", "at every AR", f"at {k} of {len(xs)} values of AR",
                        k == len(xs), "" if k == len(xs) else _behind(records, "fig3.4", xs, zip(order, order[1:]))))
    for better, worse, words in (("wal_re", ("cm_re", "cm_pm"), "WAL-RE significantly outperforms CM-RE and CM-PM"),
                                 ("iocm", ("cm_re", "cm_pm", "io_re", "wal_re"),
                                  "IOCM outperforms CM-RE, CM-PM, IO-RE and WAL-RE"),
                                 ("wal_pm", ("wal_re",), "WAL-PM improves the performance even over WAL-RE")):
        k = sum(all(m[better, x] < m[w, x] for w in worse) for x in xs)
        claims.append(Claim("Fig. 3.4", words, "at every AR", f"at {k} of {len(xs)}", k == len(xs),
                            "" if k == len(xs) else _behind(records, "fig3.4", xs, [(better, w) for w in worse])))
    flat = all(rise["wal_pm"] < rise[p] for p in ("cm_re", "cm_pm", "wal_re"))
    claims.append(Claim("Fig. 3.4", "CM-RE, CM-PM and WAL-RE are more sensitive to the I/O access rate than WAL-PM",
                        "WAL-PM rises least", ", ".join(f"{n(p)} +{rise[p]:.2f}" for p in
                                                        ("wal_pm", "cm_re", "cm_pm", "wal_re")), flat,
                        "the rise of the mean slowdown from the lowest AR to the highest" + ("" if flat else "; " + _steeper(
                            records, "fig3.4", lo, hi, "wal_pm", ("cm_re", "cm_pm", "wal_re")))))
    for base, paper in ((("wal_re", "io_re"), "up to 10x (non-preemptive I/O-aware)"),
                        (("cm_re", "cm_pm"), "up to 20x (CPU-memory)")):
        factors = {b: max(m[b, x] / m["wal_pm", x] for x in xs) for b in base}
        claims.append(Claim("Fig. 3.4 (Ch. 3 summary)", f"WAL-PM's gain over {' and '.join(map(n, base))}", paper,
                            ", ".join(f"{n(b)} {f:.2f}x" for b, f in factors.items()),
                            all(f > 1 for f in factors.values()),
                            "holds if WAL-PM is below them; the largest factor over AR, beside the thesis's"))
    for a, b in (("io_re", "wal_re"), ("io_pm", "wal_pm"), ("cm_re", "cm_pm")):
        ok, worst = _near(m, xs, a, b)
        claims.append(Claim("Fig. 3.4", f"{n(a)} almost identical to {n(b)}", "almost identical",
                            f"within {100 * worst:.0f} % at every AR", ok, f"holds within {100 * SAME:.0f} %"
                            + ("" if ok else _gap(records, "fig3.4", m, xs, a, b))))

    # -- Fig. 3.5: memory-intensive -------------------------------------------------------------------------
    t, m = _table(records, "fig3.5", "Memory-intensive load against the page fault rate (Fig. 3.5)")
    lines += t
    xs = _xs(records, "fig3.5")
    top = xs[len(xs) // 2:]
    k = sum(min(m["io_re", x], m["io_pm", x]) > max(m[p, x] for p in POLICIES if p not in ("io_re", "io_pm"))
            for x in top)
    ahead = [(x, p, io) for x in top for io in ("io_re", "io_pm") for p in POLICIES
             if p not in ("io_re", "io_pm") and m[p, x] >= m[io, x]]
    claims.append(Claim("Fig. 3.5", "at high page fault rates IOCM, CM-x and WAL-x outperform IO-RE and IO-PM "
                        "considerably", "IO-RE, IO-PM worst", f"worst at {k} of the {len(top)} highest rates",
                        k == len(top), not_below([(f"{x:g} /MI: {n(p)} - {n(io)} (% of {n(io)})",
                                                   _seeds(records, "fig3.5", p, x), _seeds(records, "fig3.5", io, x))
                                                  for x, p, io in ahead])))
    gains = {p: max(m[p, x] / m["iocm", x] for x in xs) for p in ("cm_re", "cm_pm", "wal_re")}
    best = max(gains, key=gains.get)
    k = sum(all(m["iocm", x] <= m[p, x] for p in gains) for x in xs)
    claims.append(Claim("Fig. 3.5", "IOCM outperforms CM-RE, CM-PM and WAL-RE, by up to 18.3 %",
                        "18.3 % (largest)", f"below all three at {k} of {len(xs)}; largest over {n(best)}: "
                        f"{_gain(gains[best], 1.0)}", k == len(xs),
                        "improvement as (S_other - S) / S and (S_other - S) / S_other" + (
                            "" if k == len(xs) else "; " + _behind(records, "fig3.5", xs, [("iocm", p) for p in gains]))))
    for a, b in (("wal_re", "cm_re"), ("wal_pm", "cm_pm")):
        ok, worst = _near(m, xs, a, b)
        claims.append(Claim("Fig. 3.5", f"{n(a)} nearly identical to {n(b)}", "nearly identical",
                            f"within {100 * worst:.0f} %", ok, f"holds within {100 * SAME:.0f} %"
                            + ("" if ok else _gap(records, "fig3.5", m, xs, a, b))))
    for pm, re in (("cm_pm", "cm_re"), ("wal_pm", "wal_re")):
        k = sum(m[pm, x] > m[re, x] for x in xs)
        claims.append(Claim("Fig. 3.5", f"{n(pm)} slightly worse than {n(re)}", "consistently",
                            f"worse at {k} of {len(xs)}", k == len(xs),
                            "" if k == len(xs) else _behind(records, "fig3.5", xs, [(re, pm)])))
    k = sum(m["io_pm", x] < m["io_re", x] for x in top)
    claims.append(Claim("Fig. 3.5", "the opposite for the I/O-based policies: IO-PM better than IO-RE when memory "
                        "demand is high", "IO-PM < IO-RE", f"at {k} of the {len(top)} highest rates", k == len(top)))

    # -- Figs. 3.6 and 3.9: sensitivities --------------------------------------------------------------------
    t, m = _table(records, "fig3.6", "Initial data size, I/O-intensive load (Fig. 3.6)")
    lines += t
    xs = _xs(records, "fig3.6")
    k = sum(m["iocm", x] < m["wal_re", x] and m["wal_pm", x] < m["wal_re", x] for x in xs)
    claims.append(Claim("Fig. 3.6", "IOCM and WAL-PM consistently outperform WAL-RE", "at every size",
                        f"at {k} of {len(xs)}", k == len(xs),
                        "" if k == len(xs) else _behind(records, "fig3.6", xs, [("iocm", "wal_re"), ("wal_pm", "wal_re")])))
    rise = {p: m[p, xs[-1]] - m[p, xs[0]] for p in SHOWN["fig3.6"]}
    ok = all(r > 0 for r in rise.values()) and rise["wal_pm"] < min(rise["wal_re"], rise["iocm"])
    claims.append(Claim("Fig. 3.6", "slowdowns increase with the initial data size; WAL-RE and IOCM much more "
                        "sensitive to it than WAL-PM", "WAL-PM rises least",
                        ", ".join(f"{n(p)} {r:+.2f}" for p, r in rise.items()), ok,
                        f"the rise from {xs[0]:g} to {xs[-1]:g} MB" + ("" if ok else "; " + "; ".join(filter(None, [
                            not_below([(f"{n(p)} at {xs[0]:g} - at {xs[-1]:g} MB (% of the latter)",
                                        _seeds(records, "fig3.6", p, xs[0]), _seeds(records, "fig3.6", p, xs[-1]))
                                       for p in rise]),
                            _steeper(records, "fig3.6", xs[0], xs[-1], "wal_pm", ("wal_re", "iocm"))])))))
    t, m = _table(records, "fig3.9", "Network bandwidth, I/O-intensive load at 3.5 /MI (Fig. 3.9)")
    lines += t
    xs = _xs(records, "fig3.9")
    spread = max(m["cm_pm", x] for x in xs) / min(m["cm_pm", x] for x in xs) - 1
    top, bottom = max(xs, key=lambda x: m["cm_pm", x]), min(xs, key=lambda x: m["cm_pm", x])
    claims.append(Claim("Fig. 3.9", "CM-PM is not sensitive to network bandwidth", "flat",
                        f"varies by {100 * spread:.0f} %", spread <= SAME, f"holds within {100 * SAME:.0f} %" + (
                            "" if spread <= SAME else "; " + gap(f"CM-PM at {top:g} - at {bottom:g} Mbps (% of the latter)",
                                                                 _seeds(records, "fig3.9", "cm_pm", top),
                                                                 _seeds(records, "fig3.9", "cm_pm", bottom)))))
    drop = {p: m[p, xs[0]] - m[p, xs[-1]] for p in ("wal_re", "iocm", "wal_pm")}
    ok = all(d > 0 for d in drop.values()) and drop["wal_pm"] < min(drop["wal_re"], drop["iocm"])
    claims.append(Claim("Fig. 3.9", "the others drop slightly as the bandwidth rises; WAL-RE and IOCM more "
                        "sensitive to it than WAL-PM", "WAL-PM drops least",
                        ", ".join(f"{n(p)} {-d:+.2f}" for p, d in drop.items()), ok,
                        f"the drop from {xs[0]:g} to {xs[-1]:g} Mbps" + ("" if ok else "; " + "; ".join(filter(None, [
                            not_below([(f"{n(p)} at {xs[-1]:g} - at {xs[0]:g} Mbps (% of the latter)",
                                        _seeds(records, "fig3.9", p, xs[-1]), _seeds(records, "fig3.9", p, xs[0]))
                                       for p in drop]),
                            _steeper(records, "fig3.9", xs[0], xs[-1], "wal_pm", ("wal_re", "iocm"))])))))
    _plots(records, plots)
    return claims, lines


def _plots(records, plots) -> None:
    curves(plots, "p003-ch3", [(fig.replace("fig", "Fig. "), f"{AXES[fig][0]} ({AXES[fig][1]})", _xs(records, fig),
                                {NAMES[p]: [mean_ci(_slowdowns(records, fig, p, x))[0] for x in _xs(records, fig)]
                                 for p in _lines(fig)}) for fig in AXES])

"""Paper 003 (Qin's thesis), Chapter 6: the buffer feedback controller (policies/buffer_feedback.py) on Table
3.2's six identical nodes (scenarios/p003/io.toml and memory.toml, Ch. 3's loads: the thesis's Ch. 6 traces are
"the same as those used in [Zhang et al., 2000]" with an I/O rate added, as Ch. 3's): the hit probability
against the buffer size (Fig. 6.2), and CM, IO, WAL with and without the controller against the page fault rate
under a memory-intensive (Fig. 6.3), an I/O-intensive (Fig. 6.4) and a mixed load (Fig. 6.5); and the buffer's
size over time on each node (the controller's `buffer` events).
"""
from __future__ import annotations

import json

from emu.tools.reproduce import Claim, Experiment, by_seed, figure, mean_ci, metric, select
from emu.tools.reproductions.p003.common import METRICS, curves, gap, not_below, table

NAMES = {"local": "NLB", "cm_re": "CM", "io_re": "IO", "wal_re": "WAL", "cm_fc": "CM-FC", "io_fc": "IO-FC",
         "wal_fc": "WAL-FC"}
# each figure: its scenario, fixed settings (the captions' I/O rates, each job's uniform up to it as in Ch. 3;
# Fig. 6.2's page fault rate), its axis and values (the quick variant's two), its policies; Figs. 6.3 and 6.5 at
# every other page fault rate (Fig. 3.5's, for the time), Fig. 6.4 at all six. Fig. 6.2's quick variant takes
# three sizes, as its claim is about the slope below and above 150 MB
FIGS = {
    "fig6.2": ("p003/io.toml", ['workload.io.rate_max="2.75 /MI"', 'memory.fault_rate="5 /MI"'],
               "disk.buffer_cache", "MB", (25, 50, 100, 150, 200, 250, 300), (50, 150, 300),
               ("local", "cm_re", "io_re")),
    "fig6.3": ("p003/memory.toml", [], "memory.fault_rate", "/MI", (9.0, 9.5, 10.0, 10.5, 11.0), (9.0, 11.0),
               ("io_re", "wal_re", "io_fc", "wal_fc")),
    "fig6.4": ("p003/io.toml", ['workload.io.rate_max="3.5 /MI"'], "memory.fault_rate", "/MI",
               (2.0, 2.125, 2.25, 2.375, 2.5, 2.625), (2.0, 2.625), ("cm_re", "wal_re", "cm_fc", "wal_fc")),
    "fig6.5": ("p003/memory.toml", ['workload.io.rate_max="1.875 /MI"'], "memory.fault_rate", "/MI",
               (9.0, 9.5, 10.0, 10.5), (9.0, 10.5), ("cm_re", "io_re", "wal_re", "cm_fc", "io_fc", "wal_fc")),
}
QUICK = ["workload.jobs=30", 'workload.arrival.span="120 s"']     # a tenth of the jobs, the same rate
SAME = 0.10         # "close to one another", "similar": within 10 % of each other
# the thesis's reductions of mean slowdown, (S_base - S) / S_base: (better, base, up to, on average)
REDUCTIONS = {"fig6.3": [("wal_re", "io_re", 30.6, 23.7), ("wal_fc", "io_fc", 39.7, 32.0),
                         ("wal_fc", "wal_re", 73.2, 67.7), ("io_fc", "io_re", 69.6, 64.9)],
              "fig6.4": [("wal_re", "cm_re", 90.2, 80.5), ("cm_fc", "cm_re", 94.4, 90.3),
                         ("wal_fc", "wal_re", 73.8, 50.2)],
              "fig6.5": [("wal_fc", "wal_re", 27.3, 21.2), ("io_fc", "io_re", 24.7, 20.4)]}


# why a controlled policy is not below its base: the controller's walk of the buffer in the figure's runs
WHY_FC = ("the controller moved a node's buffer at most {travel} MB from the configured {start:g} MB in half of {fc}'s "
          "runs of this figure, at most {most} MB in any (the runs' `buffer` events): {fc} differs from {base} by "
          "that walk alone")


def _text(fig: str, x: float) -> str:
    return f'"{x:g} {FIGS[fig][3]}"'


def experiments(quick: bool, seeds: int | None) -> list[Experiment]:
    """Each figure's policies over its axis on the same seeds; `quick`: its two ends, a tenth of the jobs, one
    seed."""
    n = seeds or (1 if quick else 5)
    return [Experiment(fig, scenario, [f"policy={','.join(policies)}", *fixed,
                                       f"{key}={','.join(_text(fig, x) for x in (ends if quick else xs))}",
                                       *(QUICK if quick else [])], n, samples=False)
            for fig, (scenario, fixed, key, _, xs, ends, policies) in FIGS.items()]


def _runs(records, fig: str, policy: str, x: float) -> list[dict]:
    return select(records.get(fig, []), policy=policy, **{FIGS[fig][2]: _text(fig, x)})


def _xs(records, fig: str) -> list[float]:
    return [x for x in FIGS[fig][4] if _runs(records, fig, FIGS[fig][6][0], x)]


def _table(records, fig: str, title: str, name: str = "mean_slowdown") -> tuple[list[str], dict]:
    _, _, key, unit, _, _, policies = FIGS[fig]
    return table(title, METRICS[name], key, unit, _xs(records, fig), {p: NAMES[p] for p in policies},
                 lambda p, x: metric(_runs(records, fig, p, x), name))


def _reduction(m, xs, better: str, base: str) -> tuple[float, float, int]:
    """(S_base - S) / S_base in %: its largest and its mean over the xs, and at how many it is positive."""
    r = [100 * (m[base, x] - m[better, x]) / m[base, x] for x in xs]
    return max(r), sum(r) / len(r), sum(v > 0 for v in r)


def _travel(records, fig: str, policy: str) -> list[float]:
    """Each run of a controlled policy in `fig`: the farthest any node's buffer went from its configured size (MB),
    from the run's `buffer` events."""
    out = []
    for r in select(records.get(fig, []), policy=policy):
        start, far = r["config"]["disk"]["buffer_cache"], 0.0
        with open(r["folder"] / "events.jsonl") as fh:
            for line in fh:
                if '"buffer"' in line and (e := json.loads(line))["event"] == "buffer":
                    far = max(far, abs(e["size"] - start))
        out.append(far / 2**20)
    return out


def _why_fc(records, fig: str, fc: str, base: str) -> str:
    """How far the controller moved the buffer in `fc`'s runs of `fig` (see WHY_FC)."""
    travel = sorted(_travel(records, fig, fc))
    if not travel:
        return ""
    start = select(records[fig], policy=fc)[0]["config"]["disk"]["buffer_cache"] / 2**20
    return WHY_FC.format(travel=f"{travel[len(travel) // 2]:.1f}", most=f"{travel[-1]:.1f}", start=start,
                         fc=NAMES[fc], base=NAMES[base])


def _not_below(records, fig: str, xs, better: str, base: str) -> str:
    """`not_below` over the xs: `better` - `base` in % of `base`, paired by seed."""
    return not_below([(f"{x:g} {FIGS[fig][3]}: {NAMES[better]} - {NAMES[base]} (% of {NAMES[base]})",
                       by_seed(_runs(records, fig, better, x), "mean_slowdown"),
                       by_seed(_runs(records, fig, base, x), "mean_slowdown")) for x in xs])


def analyse(records: dict, plots) -> tuple[list[Claim], list[str]]:
    claims, lines = [], ["![Hit ratio against the buffer size, and mean slowdown against the page fault rate, with "
                         "and without the feedback controller (FC)](PLOTS/p003b-ch6.png)", "",
                         "![The buffer size on each node over time under the controller](PLOTS/p003b-ch6-buffer.png)",
                         ""]
    n = NAMES.get
    titles = {"fig6.3": "Memory-intensive load (I/O 0.125 /MI) against the page fault rate (Fig. 6.3)",
              "fig6.4": "I/O-intensive load (I/O 3.5 /MI) against the page fault rate (Fig. 6.4)",
              "fig6.5": "Memory- and I/O-intensive load (I/O 1.875 /MI) against the page fault rate (Fig. 6.5)"}
    t, h = _table(records, "fig6.2", "Buffer hit ratio against the buffer size, I/O 2.75 /MI, faults 5 /MI "
                  "(Fig. 6.2)", "buffer_hit_ratio")
    lines += t
    xs = _xs(records, "fig6.2")
    mid = min(xs, key=lambda x: abs(x - 150))
    slopes = {p: ((h[p, mid] - h[p, xs[0]]) / (mid - xs[0]) if mid > xs[0] else float("nan"),
                  (h[p, xs[-1]] - h[p, mid]) / (xs[-1] - mid) if xs[-1] > mid else float("nan"))
              for p in FIGS["fig6.2"][6]}
    claims.append(Claim("Fig. 6.2", "the hit probability rises with the buffer size, almost linearly below 150 MB, "
                        "then more slowly", "rises, then flattens",
                        ", ".join(f"{n(p)} {100 * a:.3f} then {100 * b:.3f} %/MB" for p, (a, b) in slopes.items()),
                        all(a > b > 0 for a, b in slopes.values()),
                        f"the slope from {xs[0]:g} to {mid:g} MB and from there to {xs[-1]:g} MB"))
    means = {}
    for fig, title in titles.items():
        t, m = _table(records, fig, title)
        lines += t
        means[fig] = m
        xs = _xs(records, fig)
        for better, base, top, avg in REDUCTIONS[fig]:
            most, mean, k = _reduction(m, xs, better, base)
            why = "" if k == len(xs) else "; " + "; ".join(filter(None, (
                _why_fc(records, fig, better, base) if better.endswith("_fc") else "",
                _not_below(records, fig, xs, better, base))))
            claims.append(Claim(fig.replace("fig", "Fig. "), f"{n(better)} reduces the mean slowdown of {n(base)}",
                                f"up to {top} % (average {avg} %)", f"up to {most:.1f} % (average {mean:.1f} %)",
                                k == len(xs), f"(S_{n(base)} - S_{n(better)}) / S_{n(base)}; holds if below at every "
                                "page fault rate" + why))
    m, xs = means["fig6.3"], _xs(records, "fig6.3")
    flat = [p for p in FIGS["fig6.3"][6] if not m[p, xs[-1]] > m[p, xs[0]]]
    claims.append(Claim("Fig. 6.3", "the mean slowdowns of all the policies increase with the page fault rate",
                        "all rise", f"{len(FIGS['fig6.3'][6]) - len(flat)} of {len(FIGS['fig6.3'][6])} rise", not flat,
                        f"rises: higher at {xs[-1]:g} than at {xs[0]:g} /MI" + ("; " + not_below(
                            [(f"{n(p)} at {xs[0]:g} - at {xs[-1]:g} /MI (% of the latter)",
                              by_seed(_runs(records, "fig6.3", p, xs[0]), "mean_slowdown"),
                              by_seed(_runs(records, "fig6.3", p, xs[-1]), "mean_slowdown")) for p in flat])
                                                                             if flat else "")))
    m, xs = means["fig6.4"], _xs(records, "fig6.4")
    k = sum(m["cm_fc", x] < m["wal_re", x] for x in xs)
    claims.append(Claim("Fig. 6.4", "CM-FC noticeably better than WAL", "at every rate", f"at {k} of {len(xs)}",
                        k == len(xs), "" if k == len(xs) else "; ".join(filter(None, (
                            _why_fc(records, "fig6.4", "cm_fc", "cm_re"),
                            _not_below(records, "fig6.4", xs, "cm_fc", "wal_re"))))))
    rise = {p: m[p, xs[-1]] - m[p, xs[0]] for p in FIGS["fig6.4"][6]}
    claims.append(Claim("Fig. 6.4", "CM very sensitive to the page fault rate; CM-FC, WAL and WAL-FC not",
                        "CM rises most", ", ".join(f"{n(p)} {r:+.2f}" for p, r in rise.items()),
                        rise["cm_re"] > max(rise[p] for p in ("cm_fc", "wal_re", "wal_fc")),
                        f"the rise from {xs[0]:g} to {xs[-1]:g} /MI"))
    m, xs = means["fig6.5"], _xs(records, "fig6.5")
    for group in (("cm_re", "io_re", "wal_re"), ("cm_fc", "io_fc", "wal_fc")):
        spread = max(max(m[p, x] for p in group) / min(m[p, x] for p in group) - 1 for x in xs)
        x = max(xs, key=lambda x: max(m[p, x] for p in group) / min(m[p, x] for p in group))
        hi, lo = max(group, key=lambda p: m[p, x]), min(group, key=lambda p: m[p, x])
        claims.append(Claim("Fig. 6.5", f"{', '.join(map(n, group))} close to one another", "close",
                            f"within {100 * spread:.0f} %", spread <= SAME, f"holds within {100 * SAME:.0f} %" + (
                                "" if spread <= SAME else "; the largest gap, " + gap(
                                    f"at {x:g} /MI: {n(hi)} - {n(lo)} (% of {n(lo)})",
                                    by_seed(_runs(records, "fig6.5", hi, x), "mean_slowdown"),
                                    by_seed(_runs(records, "fig6.5", lo, x), "mean_slowdown")))))
    _plots(records, plots)
    return claims, lines


def _plots(records, plots) -> None:
    panels = []
    for fig, (_, _, key, unit, _, _, policies) in FIGS.items():
        xs = _xs(records, fig)
        name = "buffer_hit_ratio" if fig == "fig6.2" else "mean_slowdown"
        panels.append((fig.replace("fig", "Fig. "), f"{key} ({unit})", xs,
                       {NAMES[p]: [mean_ci(metric(_runs(records, fig, p, x), name))[0] for x in xs]
                        for p in policies}))
    curves(plots, "p003b-ch6", panels)
    _buffer_plot(records, plots)


def _buffer_plot(records, plots) -> None:
    """The buffer size of each node over time in the first seed's run of each controlled policy at the highest
    page fault rate of Figs. 6.3 and 6.4 (its `buffer` events, from the run's events.jsonl)."""
    runs = [(fig, p, (_runs(records, fig, p, _xs(records, fig)[-1]) or [None])[0])
            for fig, p in (("fig6.3", "wal_fc"), ("fig6.4", "cm_fc"), ("fig6.4", "wal_fc"))]
    runs = [(fig, p, r) for fig, p, r in runs if r is not None]

    def draw(*axes):
        for ax, (fig, p, r) in zip(axes, runs):
            events = [json.loads(line) for line in open(r["folder"] / "events.jsonl")]
            for node in sorted({e["node"] for e in events if e["event"] == "buffer"}):
                steps = [(0.0, r["config"]["disk"]["buffer_cache"])] + [
                    (e["time"], e["size"]) for e in events if e["event"] == "buffer" and e["node"] == node]
                ax.step([t for t, _ in steps], [s / 2**20 for _, s in steps], where="post", label=f"node {node}")
            ax.set_xlabel("time (s)")
            ax.set_ylabel("buffer (MB)")
            ax.set_title(f"{fig.replace('fig', 'Fig. ')} {NAMES[p]}, seed {r['seed']}")
            ax.legend(fontsize=7)
    if runs:
        figure(plots, "p003b-ch6-buffer", len(runs), draw)

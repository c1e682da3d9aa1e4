"""Paper 003 (Qin's thesis), Secs. 3.4.3-3.4.6: WAL-PM's sensitivities on Table 3.2's six nodes: the initial
data size under the memory-intensive load at several page fault rates (Fig. 3.7), the mean request size at a
low and a high I/O access rate (Fig. 3.8), the write percentage (Fig. 3.10) and the re-access rate (Fig. 3.11)
under the I/O-intensive one (scenarios/p003/memory.toml, io.toml).

The thesis states none of these axes' values but Fig. 3.11's (Table 3.2: r = 1 to 5) and Fig. 3.7's count
("seven traces"); the values here are named in `FIGS` with their reasons. Every point where the settings are
Fig. 3.4's (256 KB, no writes, r = 5, at its AR) is Fig. 3.4's WAL-PM runs, not made again (`_at_fig34`). Three
values of Figs. 3.8, 3.10 and 3.11's axes and two of Fig. 3.7's lines, so that they fit beside the rest of the
reproduction in the hour on two cores (its I/O-intensive runs take 6 to 15 s each).
"""
from __future__ import annotations

from typing import NamedTuple

from emu.tools.reproduce import Claim, Experiment, by_seed, fmt, metric, paired, select
from emu.tools.reproductions.p003 import ch3
from emu.tools.reproductions.p003.common import change, curves, steeper, table


class Sensitivity(NamedTuple):
    title: str
    scenario: str
    axis: str                   # what the x values are, with their unit
    values: tuple
    quick: tuple
    sets: object                # an x -> its `--set`s
    trend: str                  # the thesis's observation along the axis: "rises with ..." or "falls as ..."
    lines: tuple = ()           # (`--set` key, unit, values): one curve each; () for one curve
    apart: str = ""             # the thesis's observation across the lines: the highest line rises more
    fig34: object = None        # the x at which the settings are Fig. 3.4's (io.toml's), if any


FIGS = {
    # "seven traces": Fig. 3.6's sizes; the lines are Fig. 3.5's lowest and highest page fault rates, the memory-
    # intensive load's AR of 0.125 /MI (the caption's) being memory.toml's
    "fig3.7": Sensitivity("Initial data size, memory-intensive load (Fig. 3.7)", "p003/memory.toml",
                          "initial data (MB)", (50, 100, 150, 200, 250, 300, 350), (50, 350),
                          lambda x: [f'workload.io.initial_data="{x:g} MB"'], "rises with the initial data size",
                          ("memory.fault_rate", "/MI", (9.0, 11.0)),
                          "WAL-PM's sensitivity to the initial data size grows with the page fault rate"),
    # the mean request size with its deviation at half of it (io.toml's Gamma of shape 4), around the thesis's
    # 256 KB; the lines are Fig. 3.4's lowest AR and Fig. 3.9's 3.5 /MI (the caption's 3.25 between them), the
    # low and the high I/O rate the text compares
    "fig3.8": Sensitivity("Mean I/O request size, I/O-intensive load (Fig. 3.8)", "p003/io.toml",
                          "mean request size (KB)", (128, 256, 384), (256, 384),
                          lambda x: [f'workload.io.size="{x:g} KB"', f'workload.io.size_sd="{x / 2:g} KB"'],
                          "rises with the mean request size", ("workload.io.rate_max", "/MI", (3.0, 3.5)),
                          "WAL-PM at a high I/O access rate is more sensitive to the data size than at a low one", 256),
    # none written (io.toml's reads only), and 40 % and 80 % of the accesses writes
    "fig3.10": Sensitivity("Write percentage, I/O-intensive load (Fig. 3.10)", "p003/io.toml", "writes (%)",
                           (0, 40, 80), (0, 80), lambda x: [f"workload.io.read_fraction={1 - x / 100:g}"],
                           "rises with the write percentage", fig34=0),
    # Table 3.2's r = 1 to 5: its ends and middle
    "fig3.11": Sensitivity("Re-access rate, I/O-intensive load (Fig. 3.11)", "p003/io.toml", "re-access rate r",
                           (1, 3, 5), (1, 5), lambda x: [f"workload.io.reaccess={x:g}"],
                           "falls as the re-access rate rises", fig34=5),
}
FIG34_AR = 3.0          # where a figure without lines takes Fig. 3.4's runs: io.toml's own AR


def _name(fig: str, x: float) -> str:
    return f"{fig}-{x:g}"


def _text(line: tuple, value: float) -> str:
    return f'"{value:g} {line[1]}"'


def experiments(quick: bool, seeds: int | None) -> list[Experiment]:
    """WAL-PM at each value of each figure's axis, its lines swept in each; `quick`: the axis's two `quick`
    values and the lines' ends, Ch. 3's quick jobs, one seed."""
    out = []
    for fig, s in FIGS.items():
        lines = [f"{s.lines[0]}={','.join(_text(s.lines, v) for v in s.lines[2])}"] if s.lines else []
        out += [Experiment(_name(fig, x), s.scenario, ["policy=wal_pm", *s.sets(x), *lines,
                                                       *(ch3.QUICK if quick else [])], seeds or (1 if quick else 5),
                           samples=False) for x in (s.quick if quick else s.values) if x != s.fig34]
    return out


def _runs(records, fig: str, line: float | None, x: float) -> list[dict]:
    s = FIGS[fig]
    if x == s.fig34:                        # Fig. 3.4's WAL-PM runs at this line's AR
        ar = FIG34_AR if line is None else line
        return select(records.get("fig3.4", []), policy="wal_pm", **{"workload.io.rate_max": f'"{ar:g} /MI"'})
    return select(records.get(_name(fig, x), []), **({s.lines[0]: _text(s.lines, line)} if s.lines else {}))


def _slowdowns(records, fig: str, line: float | None, x: float) -> list[float]:
    return metric(_runs(records, fig, line, x), "mean_slowdown")


def _rise(records, fig: str, line: float, lo: float, hi: float) -> dict[int, float]:
    """WAL-PM's rise from `lo` to `hi` on one line, by seed (the same seed gives both lines the same jobs)."""
    return change(*(by_seed(_runs(records, fig, line, x), "mean_slowdown") for x in (lo, hi)))


def _xs(records, fig) -> list[float]:
    s = FIGS[fig]
    return [x for x in s.values if _name(fig, x) in records or x == s.fig34 and "fig3.4" in records]


def analyse(records: dict, plots) -> tuple[list[Claim], list[str]]:
    claims, lines, drawn = [], ["![WAL-PM's mean slowdown against each figure's axis](PLOTS/p003-sensitivity.png)",
                                 ""], {}
    for fig, s in FIGS.items():
        xs = _xs(records, fig)
        if len(xs) < 2:
            continue
        ls = s.lines[2] if s.lines else (None,)
        names = {v: f"WAL-PM at {v:g} {s.lines[1]}" if s.lines else "WAL-PM" for v in ls}
        t, m = table(s.title, "Mean slowdown (Eq. 3.22)", s.axis, "", xs, names,
                     lambda v, x: _slowdowns(records, fig, v, x))
        lines += t
        if s.fig34 in xs:
            at = "" if s.lines else f" at {FIG34_AR:g} /MI"
            lines += [f"The {s.fig34:g} row is Fig. 3.4's WAL-PM runs{at} (the same settings).", ""]
        drawn[fig] = xs, {v: [m[v, x] for x in xs] for v in ls}, names
        rise = {v: m[v, xs[-1]] - m[v, xs[0]] for v in ls}
        said = ", ".join(f"{names[v]} {m[v, xs[0]]:.2f} → {m[v, xs[-1]]:.2f}" for v in ls)
        label, sign = f"Fig. {fig[3:]}", 1 if s.trend.startswith("rises") else -1
        claims.append(Claim(label, f"the mean slowdown {s.trend}", s.trend.split()[0], said,
                            all(sign * c > 0 for c in rise.values()), f"from {xs[0]:g} to {xs[-1]:g} ({s.axis})"))
        if s.lines:
            low, high = ls[0], ls[-1]
            ok = rise[high] > rise[low] + ch3.SAME * abs(rise[low])
            above, below = (_rise(records, fig, v, xs[0], xs[-1]) for v in (high, low))
            more = paired(above, below)
            claims.append(Claim(label, s.apart, f"rises more at {high:g} {s.lines[1]}",
                                f"{rise[high]:+.2f} at {high:g} {s.lines[1]}, {rise[low]:+.2f} at {low:g}", ok,
                                f"holds if the rise at {high:g} is more than {100 * ch3.SAME:.0f} % above the rise at "
                                f"{low:g}" + ("" if ok else "; " + (steeper(
                                    [(f"the rise at {low:g} - at {high:g} {s.lines[1]}", below, above)]) if more[0] <= 0
                                    else f"the rise at {high:g} - at {low:g} {s.lines[1]}, paired by seed: "
                                         f"{fmt(*more)}, above zero but not by {100 * ch3.SAME:.0f} %"))))
    if drawn:
        _plots(drawn, plots)
    return claims, (lines if drawn else [])


def _plots(lines, plots) -> None:
    curves(plots, "p003-sensitivity", [(fig.replace("fig", "Fig. "), FIGS[fig].axis, xs,
                                        {names[v]: y for v, y in ys.items()})
                                       for fig, (xs, ys, names) in lines.items()])

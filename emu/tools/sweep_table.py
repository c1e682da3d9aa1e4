"""The table of a sweep, and of `nowemu report`: one row per group of runs (an axis combination, or a results
folder), the main metrics' means over the seeds and the half-widths of their 95 % Student-t intervals
(`summarize`; `t_quantile` gives the t without scipy), printed as a rich table (`show`) and written as STEM.csv
and STEM.md (`write_tables`). A failed run is left out of the means and named in its row; with fewer than two
runs that did not fail, a row's intervals are blank.
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from emu.engine import results

# The main metrics (keys of summary.json's "metrics"), each with how the tables show it: its heading and the
# unit its values are divided by (the CSV keeps SI).
SHOWN = {"mean_response": ("response (s)", 1), "mean_slowdown": ("slowdown", 1), "mean_queue_time": ("queue (s)", 1),
         "throughput": ("jobs/s", 1), "cpu_utilization": ("CPU util.", 1), "mean_idle_memory": ("idle (GiB)", 2**30),
         "migrations": ("migrations", 1), "page_faults": ("page faults", 1)}
METRICS = tuple(SHOWN)


def _within(t: float, df: int) -> float:
    """P(|T| <= t) for Student's t with whole `df`: a finite series (Abramowitz & Stegun 26.7.3-4)."""
    theta = math.atan(t / math.sqrt(df))
    s, c2 = math.sin(theta), math.cos(theta) ** 2
    total = 0.0
    if df % 2:
        term = math.cos(theta)
        for k in range(1, (df - 1) // 2 + 1):
            total += term
            term *= c2 * 2 * k / (2 * k + 1)
        return 2 / math.pi * (theta + s * total)
    term = 1.0
    for k in range(1, df // 2 + 1):
        total += term
        term *= c2 * (2 * k - 1) / (2 * k)
    return s * total


def t_quantile(level: float, df: int) -> float:
    """The t such that P(|T| <= t) = level (0.95 for a 95 % interval), by bisection: numpy has no t
    distribution and scipy is not a dependency."""
    lo, hi = 0.0, 1.0
    while _within(hi, df) < level:
        hi *= 2
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if _within(mid, df) < level else (lo, mid)
    return (lo + hi) / 2


def _nan(value) -> float:
    return float("nan") if value is None else float(value)      # summary.json writes NaN as null


def summarize(records: list[dict], metrics=METRICS) -> list[dict]:
    """One row per group (in order of first appearance): its combo as columns, scenario, policy, runtime,
    seeds, n (runs that did not fail), each of `metrics`' mean and 95 % interval half-width over those runs, and
    the failed runs with their errors."""
    groups: dict[str, list] = {}
    for r in records:
        groups.setdefault(r["group"], []).append(r)
    rows = []
    for label, rs in groups.items():
        ok = [r for r in rs if not r["error"]]
        row = {"group": label, **rs[0]["combo"], "scenario": rs[0]["scenario"], "policy": rs[0]["policy"],
               "runtime": rs[0]["runtime"], "seeds": " ".join(str(r["seed"]) for r in rs), "n": len(ok)}
        t = t_quantile(0.95, len(ok) - 1) if len(ok) > 1 else float("nan")
        for m in metrics:
            values = np.array([_nan(r["metrics"][m]) for r in ok])
            row[m] = float(values.mean()) if len(ok) else float("nan")
            row[f"{m}_ci95"] = t * float(values.std(ddof=1)) / math.sqrt(len(ok)) if len(ok) > 1 else float("nan")
        row["failed"] = "; ".join(f"s{r['seed']}: {r['error']}" for r in rs if r["error"])
        rows.append(row)
    return rows


def _layout(rows: list[dict], sep: str, metrics=METRICS) -> tuple[str, list[str], list[list[str]]]:
    """(what every row shares, headings, cells): a column whose value is the same on every row moves to the
    title, and `failed` shows only when a run failed, so that the table fits a terminal."""
    shared = [c for c in ("scenario", "policy", "runtime", "seeds") if len({r[c] for r in rows}) == 1]
    columns = ["group", *(c for c in ("scenario", "policy", "runtime", "seeds") if c not in shared), "n"]
    failed = ["failed"] if any(r["failed"] for r in rows) else []

    def cell(row, m):
        mean, half, unit = row[m], row[f"{m}_ci95"], SHOWN.get(m, (m, 1))[1]
        if math.isnan(mean):
            return ""
        return f"{mean / unit:.3g}" + ("" if math.isnan(half) else f"{sep}± {half / unit:.2g}")
    title = ", ".join(f"{c} {rows[0][c]}" for c in shared)
    headings = [*columns, *(SHOWN.get(m, (m, 1))[0] for m in metrics), *failed]
    cells = [[str(r[c]) for c in columns] + [cell(r, m) for m in metrics] + [r[c] for c in failed] for r in rows]
    return title, headings, cells


def wide_console(stderr: bool = False):
    """A rich console for nowemu's output: a file or a pipe has no width, so it gets a wide one rather than
    rich's 80 columns, which split a table's eleven or so columns and a number from its unit."""
    from rich.console import Console
    terminal = Console(stderr=stderr)
    return terminal if terminal.is_terminal else Console(stderr=stderr, width=200)


def show(console, rows: list[dict], title: str, metrics=METRICS) -> None:
    """Print the rows as a rich table: means, and under them the 95 % half-widths."""
    from rich import box
    from rich.table import Table
    from rich.text import Text
    shared, headings, cells = _layout(rows, "\n", metrics)
    table = Table(title=f"{title}\n{shared}", box=box.SIMPLE_HEAD)
    for h in headings:
        text = h in ("group", "failed")      # folded, not cut: a row's name and its errors must stay whole
        table.add_column(h, style="red" if h == "failed" else None, justify="left" if text else "right",
                         overflow="fold" if text else "ellipsis")
    for row in cells:
        table.add_row(*map(Text, row))        # plain text: "[1,2]" in a value or an error is not markup
    console.print(table)


def write_tables(rows: list[dict], stem: Path, title: str, metrics=METRICS) -> None:
    """STEM.csv (every column, plain SI numbers, one column per half-width) and STEM.md (as printed)."""
    stem.parent.mkdir(parents=True, exist_ok=True)
    results._csv(stem.with_suffix(".csv"), rows)
    shared, headings, cells = _layout(rows, " ", metrics)
    lines = [f"{title}: {shared}", "", "| " + " | ".join(headings) + " |", "|" + "---|" * len(headings)]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in cells]
    stem.with_suffix(".md").write_text("\n".join(lines) + "\n")

"""What paper 003's chapters share in how their results are set beside the thesis's."""
from __future__ import annotations

from emu.tools.reproduce import by_seed, figure, fmt, mean_ci, order_why, paired


# what a table of a run metric is titled with: the metric's name in the tables of paper 003's chapters
METRICS = {"mean_slowdown": "Mean slowdown (Eq. 3.22)", "buffer_hit_ratio": "Buffer hit ratio",
           "job_slowdown": "Mean slowdown over jobs (a parallel job once; Eq. 7.2's dedicated time)",
           "job_turnaround": "Mean turn-around time over jobs (s; a parallel job once)"}


def by_chapter(chapters: tuple) -> tuple:
    """A paper's `experiments(quick, seeds)` and `analyse(records, plots)` (emu/tools/reproduce.py) as its
    chapters' in order, each chapter a module with the same two functions."""
    def experiments(quick: bool, seeds: int | None) -> list:
        return [e for chapter in chapters for e in chapter.experiments(quick, seeds)]

    def analyse(records: dict, plots) -> tuple[list, list[str]]:
        claims, lines = [], []
        for chapter in chapters:
            more = chapter.analyse(records, plots)
            claims, lines = claims + more[0], lines + more[1]
        return claims, lines
    return experiments, analyse


def not_below(pairs, relative: bool = True, digits: int = 1) -> str:
    """Why an order did not come out (`order_why`): of the pairs (label, mine, theirs), each a metric by seed,
    those where mine is not below theirs on average, mine - theirs paired by seed, in % of theirs (`relative`)
    or in points (x 100: ratios); a label says which."""
    diffs = []
    for label, mine, theirs in pairs:
        mean, half = paired(theirs, mine, True) if relative else paired(mine, theirs)
        mean = 0.0 - mean if relative else mean          # (0.0 - 0.0: no "-0.0")
        if mean >= 0:
            diffs.append((label, (100 * mean, 100 * half)))
    return order_why(diffs, digits)


def change(lo: dict, hi: dict, size: bool = False, percent: bool = False) -> dict:
    """A metric's change from `lo` to `hi` (each by seed), by seed; `size`: its size, a rise and a drop alike;
    `percent`: in % of lo's."""
    if percent:
        return {s: 100 * (hi[s] / lo[s] - 1) for s in lo.keys() & hi.keys()}
    return {s: abs(hi[s] - lo[s]) if size else hi[s] - lo[s] for s in lo.keys() & hi.keys()}


def steeper(pairs, digits: int = 2) -> str:
    """Why a change is not the least (`order_why`): of the pairs (label, mine, theirs), each a change by seed
    (`change`), those where mine is not below theirs on average, mine - theirs paired by seed."""
    diffs = [(label, paired(mine, theirs)) for label, mine, theirs in pairs]
    return order_why([(label, d) for label, d in diffs if d[0] >= 0], digits)


def gap(label: str, mine: dict, theirs: dict) -> str:
    """Why two things said to be alike are not: mine - theirs (each by seed) in % of theirs, paired by seed."""
    mean, half = paired(theirs, mine, True)
    return f"{label} {fmt(100 * (0.0 - mean), 100 * half, 1)}, paired by seed"


def trimmed(values: list[float]) -> float:
    """The thesis's average: the highest and the lowest dropped (with at least 4 values)."""
    v = sorted(values)
    return sum(v[1:-1]) / (len(v) - 2) if len(v) >= 4 else float("nan")


def gain(other: float, new: float) -> str:
    """An improvement in both forms: (S_other - S) / S and (S_other - S) / S_other."""
    return f"{100 * (other - new) / new:.1f} % / {100 * (other - new) / other:.1f} %"


def streams(jobs: int, span: str, pct: int, rate: float | None = None) -> list[str]:
    """The `--set`s of Ch. 4's two streams (sequential, parallel) for `jobs` in `span`, `pct` % of them parallel
    (none: one stream, Fig. 4.1(a)'s), each job's I/O rate uniform in [0, 2 x `rate`] (None: the scenario's)."""
    parallel = round(jobs * pct / 100)
    counts = {"workload.0.": jobs - parallel, "workload.1.": parallel} if pct else {"workload.": jobs}
    return [f"{prefix}{field}" for prefix, k in counts.items()
            for field in (f"jobs={k}", f'arrival.span="{span}"') + (() if rate is None else
                                                                   (f'io.rate_max="{2 * rate:g} /MI"',))]


def job_slowdowns(records, experiment: str, policy: str) -> list[float]:
    """One policy's runs in one experiment, each run's mean slowdown over jobs, a parallel job once (summary.json's
    `job_slowdown`; with no parallel job, its mean slowdown)."""
    return list(job_slowdowns_by_seed(records, experiment, policy).values())


def job_slowdowns_by_seed(records, experiment: str, policy: str) -> dict[int, float]:
    """`job_slowdowns` by seed."""
    runs = [r for r in records.get(experiment, []) if not r["error"] and r["combo"].get("policy") == policy]
    return {r["seed"]: r["metrics"].get("job_slowdown", {}).get("all", r["metrics"]["mean_slowdown"]) for r in runs}


def over_jobs_by_seed(runs: list[dict], name: str) -> dict[int, float]:
    """A metric over jobs (summary.json's `job_slowdown`, `job_turnaround`: a parallel job once) of each run, by
    seed."""
    return {s: v["all"] for s, v in by_seed(runs, name).items()}


def table(title: str, what: str, axis: str, unit: str, xs: list, columns: dict, slowdowns) -> tuple[list[str], dict]:
    """A figure's table: a row per x (a value, or a name), a column per policy (`columns`: policy -> its name),
    each the mean of `slowdowns(policy, x)` over the seeds ± its 95 % interval and, with 4 runs or more, the
    thesis's average in brackets; and the means by (policy, x)."""
    means = {}
    lines = [f"## {title}", "", f"{what} over the seeds ± 95 % interval; in brackets the thesis's average (highest "
             "and lowest run dropped) where there are 4 runs or more.", "",
             f"| {axis} | " + " | ".join(columns.values()) + " |", "|---" * (len(columns) + 1) + "|"]
    for x in xs:
        cells = []
        for p in columns:
            v = slowdowns(p, x)
            mean, half = mean_ci(v)
            means[p, x] = mean
            t = trimmed(v)
            cells.append(fmt(mean, half) + ("" if t != t else f" [{t:.2f}]"))
        lines.append(f"| {x if isinstance(x, str) else f'{x:g} {unit}'.rstrip()} | " + " | ".join(cells) + " |")
    return lines + [""], means


def curves(plots, name: str, panels: list, log: bool = False, ylabel: str = "mean slowdown", columns: int = 0) -> None:
    """Means (slowdowns unless `ylabel` says otherwise) as lines, a panel each: (title, x label, xs, {line's
    name: its ys}). A line has the same colour in every panel, whichever lines a panel leaves out."""
    colour = {label: f"C{i % 10}" for i, label in enumerate(dict.fromkeys(k for *_, ys in panels for k in ys))}

    def draw(*axes):
        for ax, (title, xlabel, xs, ys) in zip(axes, panels):
            for label, y in ys.items():
                ax.plot(xs, y, marker="o", label=label, color=colour[label])
            if log:
                ax.set_yscale("log")
            ax.set_xlabel(xlabel)
            ax.set_ylabel(ylabel)
            ax.set_title(title)
            ax.legend(fontsize=7)
    figure(plots, name, len(panels), draw, columns)

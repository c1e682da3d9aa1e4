"""Paper 003 (Qin's thesis), Chapter 7: communication-aware load balancing (policies/com_aware.py) against the
CPU-, MEM- and I/O-aware schemes on Table 7.1's 32 nodes (scenarios/p003/comm.toml): master-slave jobs against
the tasks per job at three message rates (Fig. 7.4), at three bandwidths (Fig. 7.5) and three mean message sizes
(Fig. 7.6), and mixes of communication-intensive jobs with I/O-intensive (Fig. 7.7) or memory-intensive ones
(Fig. 7.8). Fig. 7.9's applications are not in: their parameters are in Cypher et al. 1993, which is not on the
shelf (docs/p003b.md).

The thesis's improvements ("COM-aware improves ... by 174 %") are (S_other - S_COM) / S_COM; the tables give both
forms (spec 003b A19).
"""
from __future__ import annotations

import csv

from emu.tools.reproduce import Claim, Experiment, mean_ci, select
from emu.tools.reproductions.p003.common import METRICS, curves, not_below, over_jobs_by_seed, table

NAMES = {"cpu_re": "CPU-aware", "mem_re": "MEM-aware", "iocm_re": "I/O-aware", "com_aware": "COM-aware"}
OTHERS = ("cpu_re", "mem_re", "iocm_re")
TASKS, RATES = (4, 8, 16, 32), (0.1, 0.3, 0.5)         # Fig. 7.4's x (spec 003b A16) and subplots
TASKS_KEY, RATE_KEY = "workload.0.parallel.tasks", "workload.0.parallel.message_rate"
# Fig. 7.5's bandwidths beside Fig. 7.4's 1 Gbps; Fig. 7.6's mean sizes beside its 512 KB, each of deviation half
# its mean (the scenario's CV, spec A7); both at 0.1 /MI, Fig. 7.4's runs giving their third subplot
BANDWIDTHS = ("10 Mbps", "100 Mbps")
# at 10 Mbps the links are overloaded (16-task jobs under the I/O-aware scheme take two hours of virtual time to
# drain) and with 32-task jobs that scheme's load reports, over the tasks piled on each node, cost minutes a run
TASKS_AT = {"10 Mbps": TASKS[:3]}
SIZES = {"2 MB": "1 MB", "5 MB": "2.5 MB"}
# the quick variant: a quarter of the jobs (of the scenario's 64) in a quarter of the span, each stream's
JOBS, QUICK_JOBS = 64, 16
QUICK = [f'workload.{i}.arrival.span="40 s"' for i in range(3)]
# Figs. 7.7 and 7.8: the share of communication-intensive jobs among the 64, the rest I/O- (stream 1) or
# memory-intensive (stream 2); every other of the thesis's eleven traces (0 to 100 %), for the hour
SHARES, MIXES = (0, 20, 40, 60, 80, 100), {"fig7.7": (1, "I/O"), "fig7.8": (2, "memory")}
SMALL = 0.10        # "only marginally outperforms": within 10 %
SAME = 0.10         # "very close": within 10 % of each other


def _rate(x: float) -> str:
    return f'"{x:g} /MI"'


def _rate_panel(x: float) -> str:
    """The title of Fig. 7.4's subplot at message rate x (/MI)."""
    return f"{x:g} /MI"


def _axis_panel(point: str) -> str:
    """The title of Figs. 7.5 and 7.6's subplot at a bandwidth or a mean message size, each at 0.1 /MI."""
    return f"{point}, 0.1 /MI"


def experiments(quick: bool, seeds: int | None) -> list[Experiment]:
    """Every policy on the same seeds. `quick`: 4 and 16 tasks, 0.1 and 0.5 /MI, 10 Mbps, 5 MB, the mixes at 0, 40
    and 100 %, a quarter of the jobs, one seed."""
    n = seeds or (1 if quick else 5)
    jobs = QUICK_JOBS if quick else JOBS
    policies = f"policy={','.join(NAMES)}"

    def base(tasks=TASKS):
        return [policies, f"{TASKS_KEY}={','.join(map(str, TASKS[::2] if quick else tasks))}",
                *(QUICK + [f"workload.0.jobs={jobs}"] if quick else [])]
    rates = ",".join(map(_rate, RATES[::2] if quick else RATES))
    out = [Experiment("fig7.4", "p003/comm.toml", [*base(), f"{RATE_KEY}={rates}"], n, samples=False)]
    out += [Experiment(f"fig7.5-{b.replace(' ', '')}", "p003/comm.toml",
                       [*base(TASKS_AT.get(b, TASKS)), f'network.bandwidth="{b}"'], n, samples=False)
            for b in (BANDWIDTHS[:1] if quick else BANDWIDTHS)]
    out += [Experiment(f"fig7.6-{m.replace(' ', '')}", "p003/comm.toml",
                       [*base(), f'workload.0.parallel.message="{m}"', f'workload.0.parallel.message_sd="{sd}"'], n,
                       samples=False) for m, sd in (list(SIZES.items())[1:] if quick else SIZES.items())]
    for fig, (stream, _) in MIXES.items():
        for share in (SHARES[::2] if quick else SHARES):
            comm = round(jobs * share / 100)
            out.append(Experiment(f"{fig}-{share}", "p003/comm.toml",
                                  [policies, f"workload.0.jobs={comm}", f"workload.{stream}.jobs={jobs - comm}",
                                   *(QUICK if quick else [])], n, samples=False))
    return out


def _values(runs: list[dict], name: str) -> list[float]:
    return list(over_jobs_by_seed(runs, name).values())


def _runs(records, experiment: str, policy: str, tasks: int, rate: float | None = None) -> list[dict]:
    combo = {"policy": policy, TASKS_KEY: str(tasks)}
    if rate is not None:
        combo[RATE_KEY] = _rate(rate)
    return select(records.get(experiment, []), **combo)


def _panels(records) -> dict:
    """Each subplot's (experiment, rate in Fig. 7.4's runs or None) by its title."""
    panels = {_rate_panel(x): ("fig7.4", x) for x in RATES}
    panels.update((_axis_panel(b), (f"fig7.5-{b.replace(' ', '')}", None)) for b in BANDWIDTHS)
    panels[_axis_panel("1 Gbps")] = ("fig7.4", 0.1)
    panels.update((_axis_panel(m), (f"fig7.6-{m.replace(' ', '')}", None)) for m in SIZES)
    panels[_axis_panel("512 KB")] = ("fig7.4", 0.1)
    return {t: p for t, p in panels.items() if _runs(records, p[0], "com_aware", TASKS[0], p[1])}


def _tasks(records, experiment: str, rate) -> list[int]:
    return [k for k in TASKS if _runs(records, experiment, "com_aware", k, rate)]


def _away(runs: list[dict]) -> float:
    """The share of the runs' tasks that ran on another node than their job's home (where it arrived), from each
    run's jobs.csv, over the runs."""
    shares = []
    for r in runs:
        with open(r["folder"] / "jobs.csv", newline="") as fh:
            rows = list(csv.DictReader(fh))
        shares.append(sum(row["node"] != row["home"] for row in rows) / len(rows))
    return mean_ci(shares)[0]


def _placement(records, rate: float, k: int) -> str:
    """Where each scheme ran the tasks at Fig. 7.4's point (k tasks, `rate`): the why of its claims."""
    return (f"at {k} tasks and {rate:g} /MI the share of tasks run away from their job's home node is "
            + ", ".join(f"{NAMES[p]} {100 * _away(_runs(records, 'fig7.4', p, k, rate)):.0f} %" for p in NAMES)
            + " (jobs.csv, over the seeds)")


def _behind(records, rate: float, k: int, name: str = "job_slowdown") -> str:
    """`not_below` for COM-aware against each other scheme at Fig. 7.4's point, in % of the other's."""
    def seeds(p):
        return over_jobs_by_seed(_runs(records, "fig7.4", p, k, rate), name)
    return not_below([(f"COM-aware - {NAMES[p]} (% of {NAMES[p]})", seeds("com_aware"), seeds(p)) for p in OTHERS])


def _falls(means, records, name: str) -> str:
    """Fig. 7.4's steps (k tasks to the next k) along which a scheme's mean does not rise, paired by seed."""
    steps = []
    for x in RATES:
        m = means.get((_rate_panel(x), name))
        if m is None:
            continue
        ks = sorted({k for _, k in m})
        steps += [(p, x, a, b) for p in NAMES for a, b in zip(ks, ks[1:]) if m[p, b] <= m[p, a]]
    return not_below([(f"{NAMES[p]} at {x:g} /MI, {a} tasks - {b} (% of the latter)",
                       over_jobs_by_seed(_runs(records, "fig7.4", p, a, x), name),
                       over_jobs_by_seed(_runs(records, "fig7.4", p, b, x), name))
                      for p, x, a, b in steps])


def _gains(m: dict, k: int) -> dict:
    """COM-aware's improvement over each other scheme at k tasks, (S_other - S_COM) / S_COM in %."""
    return {p: 100 * (m[p, k] - m["com_aware", k]) / m["com_aware", k] for p in OTHERS}


def analyse(records: dict, plots) -> tuple[list[Claim], list[str]]:
    claims, lines = [], ["![Mean slowdown against the tasks per job at three message rates (Fig. 7.4), and against "
                         "the share of communication-intensive jobs (Figs. 7.7-7.8)](PLOTS/p003b-ch7-slowdown.png)", "",
                         "![Mean turn-around time against the tasks per job at three message rates (Fig. 7.4), three "
                         "bandwidths (Fig. 7.5) and three mean message sizes (Fig. 7.6), and in the mixes (Figs. "
                         "7.7-7.8)](PLOTS/p003b-ch7-turnaround.png)",
                         ""]
    panels = _panels(records)
    means, made = {}, {}
    for title, (experiment, rate) in panels.items():
        for name in ("job_slowdown", "job_turnaround"):
            if name == "job_slowdown" and experiment != "fig7.4":
                continue            # Figs. 7.5 and 7.6 show turn-around times only
            if (experiment, rate, name) in made:         # Fig. 7.4's 0.1 /MI runs in Figs. 7.5 and 7.6
                means[title, name] = made[experiment, rate, name]
                continue
            t, m = table(f"{METRICS[name].split(' (')[0]}, {title}", METRICS[name], "tasks per job", "",
                         _tasks(records, experiment, rate), NAMES,
                         lambda p, k: _values(_runs(records, experiment, p, k, rate), name))
            lines += t
            means[title, name] = made[experiment, rate, name] = m
    claims += _fig74(means, records)
    claims += _trend(means, "Fig. 7.5", (*BANDWIDTHS, "1 Gbps"),
                     "turn-around falls as the bandwidth rises (\"inversely proportional\")", falls=True,
                     average="61.4 %, 116.1 %, 182.9 % (10 Mbps, 100 Mbps, 1 Gbps)")
    claims += _trend(means, "Fig. 7.6", ("512 KB", *SIZES),
                     "turn-around rises with the mean message size", falls=False, average="grows (no numbers)")
    mixes = {}
    for fig, (_, kind) in MIXES.items():
        shares = [x for x in SHARES if select(records.get(f"{fig}-{x}", []), policy="com_aware")]
        if not shares:
            continue
        for name in ("job_slowdown", "job_turnaround"):
            t, m = table(f"{METRICS[name].split(' (')[0]}, {kind}- and communication-intensive jobs "
                         f"({fig.replace('fig', 'Fig. ')})", METRICS[name], "communication-intensive jobs", "%", shares,
                         NAMES, lambda p, x: _values(select(records.get(f"{fig}-{x}", []), policy=p), name))
            lines += t
            mixes[fig, name] = (shares, m)
    claims += _mixes(mixes, records)
    _plots(panels, means, plots, mixes)
    return claims, lines


def _mix_order(records, fig: str, pairs) -> str:
    """`not_below` over (share, scheme, rival) of a mix: the scheme's mean slowdown less the rival's, by seed."""
    def seeds(x, p):
        return over_jobs_by_seed(select(records.get(f"{fig}-{x}", []), policy=p), "job_slowdown")
    return not_below([(f"{x} %: {NAMES[p]} - {NAMES[q]} (% of {NAMES[q]})", seeds(x, p), seeds(x, q))
                      for x, p, q in pairs])


def _mixes(mixes: dict, records) -> list[Claim]:
    """Figs. 7.7 and 7.8's claims, on the mean slowdowns."""
    claims = []
    for fig in MIXES:
        if (fig, "job_slowdown") not in mixes:
            continue
        xs, m = mixes[fig, "job_slowdown"]
        f = fig.replace("fig", "Fig. ")
        best = [x for x in xs if m["com_aware", x] <= min(m[p, x] for p in OTHERS)]
        claims.append(Claim(f, "COM-aware performs the best in all cases", "at every share",
                            f"at {len(best)} of {len(xs)} shares", len(best) == len(xs), _mix_order(
                                records, fig, [(x, "com_aware", p) for x in xs if x not in best for p in OTHERS
                                               if m["com_aware", x] > m[p, x]])))
        if fig == "fig7.7":
            first = xs[0]
            claims.append(Claim(f, "COM- and I/O-aware noticeably outperform CPU- and MEM-aware when the load is "
                                "I/O-intensive", "both below", ", ".join(f"{NAMES[p]} {m[p, first]:.2f}" for p in NAMES),
                                max(m["com_aware", first], m["iocm_re", first])
                                < min(m["cpu_re", first], m["mem_re", first]), f"at {first} % communication-intensive"))
            gains = [min(m[p, x] for p in ("cpu_re", "mem_re")) / m["iocm_re", x] - 1 for x in xs]
            claims.append(Claim(f, "I/O-aware's improvement over CPU- and MEM-aware consistently decreases as the "
                                "share of communication-intensive jobs grows", "decreases",
                                ", ".join(f"{100 * g:.0f} %" for g in gains), _monotone(gains[::-1]),
                                "S_best of CPU, MEM / S_I/O - 1 at each share"))
            spread = {p: max(m[p, x] for x in xs) / min(m[p, x] for x in xs) - 1 for p in NAMES}
            claims.append(Claim(f, "COM-aware's mean slowdown is not sensitive to the share of communication-"
                                "intensive jobs", "insensitive", ", ".join(f"{NAMES[p]} {100 * v:.0f} %" for p, v in
                                                                          spread.items()),
                                spread["com_aware"] == min(spread.values()),
                                "each scheme's range over the shares (max / min - 1); holds if COM-aware's is the least"))
        else:
            first = xs[0]
            close = abs(m["com_aware", first] / m["mem_re", first] - 1)
            claims.append(Claim(f, "with a memory-intensive load COM-aware is very close to MEM-aware", "close",
                                f"{m['com_aware', first]:.2f} vs {m['mem_re', first]:.2f}", close <= SAME,
                                f"at {first} %; holds within {100 * SAME:.0f} %"))
            below = [x for x in xs if x < 40]
            above = [x for x in xs if x > 40]
            k = sum(m["mem_re", x] < min(m["cpu_re", x], m["iocm_re", x]) for x in below)
            claims.append(Claim(f, "MEM-aware better than CPU- and I/O-aware below 40 % communication-intensive jobs",
                                "below 40 %", f"at {k} of {len(below)} shares below 40 %", k == len(below), _mix_order(
                                    records, fig, [(x, "mem_re", p) for x in below for p in ("cpu_re", "iocm_re")
                                                   if m["mem_re", x] >= m[p, x]])))
            k = sum(m["mem_re", x] > max(m["cpu_re", x], m["com_aware", x]) for x in above)
            claims.append(Claim(f, "MEM-aware worse than CPU- and COM-aware above 40 %", "above 40 %",
                                f"at {k} of {len(above)} shares above 40 %", k == len(above), _mix_order(
                                    records, fig, [(x, p, "mem_re") for x in above for p in ("cpu_re", "com_aware")
                                                   if m[p, x] >= m["mem_re", x]])))
    return claims


def _fig74(means, records) -> list[Claim]:
    claims = []
    for name, what in (("job_slowdown", "slowdown"), ("job_turnaround", "turn-around time")):
        series = [[m[p, k] for k in sorted({k for _, k in m})] for x in RATES if (_rate_panel(x), name) in means
                  for m in [means[_rate_panel(x), name]] for p in NAMES]
        rising = sum(map(_monotone, series))
        claims.append(Claim("Fig. 7.4", f"every scheme's mean {what} rises with the tasks per job", "all rise",
                            f"{rising} of {len(series)} (scheme, rate) curves rise", rising == len(series),
                            "rises: each point above the one before" + ("" if rising == len(series) else
                                                                        "; " + _falls(means, records, name))))
    top, low = (_rate_panel(0.5), 16), (_rate_panel(0.1), 4)
    if (top[0], "job_slowdown") in means and (low[0], "job_slowdown") in means:
        g = _gains(means[top[0], "job_slowdown"], top[1])
        claims.append(Claim("Fig. 7.4", "16 tasks, 0.5 /MI: COM-aware improves the mean slowdown over CPU-, MEM- and "
                            "I/O-aware", "by more than 174 %, 182 %, 206 %",
                            ", ".join(f"{g[p]:.0f} %" for p in OTHERS), all(v > 0 for v in g.values()),
                            "(S_other - S_COM) / S_COM; holds if COM-aware is the best of the four" + (
                                "" if all(v > 0 for v in g.values()) else
                                "; " + "; ".join(filter(None, (_placement(records, 0.5, top[1]),
                                                               _behind(records, 0.5, top[1])))))))
        for name, what, paper in (("job_slowdown", "slowdown", "3 %"), ("job_turnaround", "turn-around", "4 %")):
            g = _gains(means[low[0], name], low[1])
            mean = sum(g.values()) / len(g)
            claims.append(Claim("Fig. 7.4", f"4 tasks, 0.1 /MI: COM-aware's gain in mean {what} only "
                                "marginal", f"as low as {paper}", ", ".join(f"{g[p]:.0f} %" for p in OTHERS),
                                abs(mean) <= 100 * SMALL, f"holds if their mean is within {100 * SMALL:.0f} %" + (
                                    "" if abs(mean) <= 100 * SMALL else "; " + _placement(records, 0.1, low[1]))))
        widening = [x for x in RATES if (_rate_panel(x), "job_slowdown") in means
                    and _average_gain(means[_rate_panel(x), "job_slowdown"], 16)
                    > _average_gain(means[_rate_panel(x), "job_slowdown"], 4)]
        rates = [x for x in RATES if (_rate_panel(x), "job_slowdown") in means]
        gaps = "; ".join(f"{x:g} /MI: {_average_gain(means[_rate_panel(x), 'job_slowdown'], 4):.0f} % at 4 tasks, "
                         f"{_average_gain(means[_rate_panel(x), 'job_slowdown'], 16):.0f} % at 16" for x in rates)
        claims.append(Claim("Fig. 7.4", "the gap between COM-aware and the others widens as jobs scale up",
                            "widens", f"at {len(widening)} of the rates (average gain at 16 tasks above that at 4)",
                            len(widening) == len(rates), f"COM-aware's average gain in mean slowdown, {gaps}" + (
                                "" if len(widening) == len(rates) else
                                "; " + _placement(records, 0.1, 4) + "; " + _placement(records, 0.1, 16))))
    return claims


def _average_gain(m: dict, k: int) -> float:
    g = _gains(m, k)
    return sum(g.values()) / len(g)


def _trend(means, fig: str, points: tuple, what: str, falls: bool, average: str) -> list[Claim]:
    """A figure whose subplots go up an axis (`points`: bandwidths, message sizes): every scheme's mean
    turn-around at each tasks-per-job moves the one way along it, and COM-aware's average gain over the others
    (over the tasks per job) grows along it."""
    points = [x for x in points if (_axis_panel(x), "job_turnaround") in means]
    if len(points) < 2:
        return []
    titles = [_axis_panel(x) for x in points]
    ks = sorted(set.intersection(*({k for _, k in means[t, "job_turnaround"]} for t in titles)))
    moves = [(p, k) for p in NAMES for k in ks
             if _monotone([means[t, "job_turnaround"][p, k] for t in (titles[::-1] if falls else titles)])]
    gains = [sum(_average_gain(means[t, "job_turnaround"], k) for k in ks) / len(ks) for t in titles]
    return [Claim(fig, f"every scheme's {what}", "all", f"{len(moves)} of {len(NAMES) * len(ks)} (scheme, tasks) "
                  "curves", len(moves) == len(NAMES) * len(ks)),
            Claim(fig, "COM-aware's average improvement in turn-around over the other three grows along the axis",
                  average, ", ".join(f"{g:.1f} %" for g in gains) + f" ({', '.join(points)})",
                  _monotone(gains), "(T_other - T_COM) / T_COM averaged over the schemes and the tasks per job" + (
                      "" if _monotone(gains) else "; by tasks per job: " + "; ".join(
                          f"{x}: " + ", ".join(f"{k} {_average_gain(means[t, 'job_turnaround'], k):.0f} %" for k in ks)
                          for x, t in zip(points, titles))))]


def _monotone(ys: list[float]) -> bool:
    return len(ys) >= 2 and all(b > a for a, b in zip(ys, ys[1:]))


def _plots(panels, means, plots, mixes) -> None:
    for name, label in (("job_slowdown", "mean slowdown"), ("job_turnaround", "mean turn-around (s)")):
        drawn = [(title, "tasks per job", sorted({k for _, k in m}), m)
                 for title in panels if (title, name) in means for m in [means[title, name]]]
        drawn += [(f"{fig.replace('fig', 'Fig. ')}: {kind} and communication", "communication-intensive jobs (%)",
                   xs, m) for fig, (_, kind) in MIXES.items() if (fig, name) in mixes for xs, m in [mixes[fig, name]]]
        curves(plots, f"p003b-ch7-{name.split('_')[1]}",
               [(title, axis, xs, {NAMES[p]: [m[p, x] for x in xs] for p in NAMES}) for title, axis, xs, m in drawn],
               ylabel=label, columns=3)

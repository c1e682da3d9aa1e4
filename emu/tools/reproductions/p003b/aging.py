"""Paper 003 (Qin's thesis), Sec. 5.4.6 (Fig. 5.7): the six real applications' traces on six nodes, five with
one-year-old disks and a sixth whose disk is 1 to 6 years old (scenarios/p003/hetero/aging.toml), under CPU-RE,
MEM-RE and IOCM-RE.

Each application's access rate is the one at which its share of time alone on I/O, on a one-year disk of this
platform, is the thesis's (`SHARES`, Sec. 5.4.6 citing its Fig. 4.7): f / (1 - f) / (mips x s), s a mean
request's service there, computed from the scenario's own disk and request size.

The metric is Sec. 4.4's (emu/tools/reproductions/p003/apps.py, the same traces on 32 nodes): the mean slowdown
over jobs, a parallel job counted once. Scale: a quarter of the traces at their arrival rate (17 jobs in 300 s;
an LU job spends 99 times its CPU time on the disks: its runs are a third of the figure's time). The quick
variant: DB2 and Pgrep (one of the thesis's sensitive and one of its insensitive group), ages 1 and 6, 4 jobs in
75 s, one seed.
"""
from __future__ import annotations

from emu.inputs import SCENARIOS, scenario
from emu.tools.reproduce import Claim, Experiment, select
from emu.tools.reproductions.p003.apps import APPS
from emu.tools.reproductions.p003.common import (METRICS, change, curves, job_slowdowns, job_slowdowns_by_seed,
                                                not_below, over_jobs_by_seed, steeper, table)
from emu.tools.reproductions.p003b.ch5 import NAMES as CH5_NAMES, THREE

SCENARIO = "p003/hetero/aging.toml"
# Table 5.2, each age's disk: seek, rotation, bandwidth (ages 5 and 6 seek on the table's 1.11-a-year trend,
# where it prints the bandwidth column again; scenarios/p003/hetero/e.toml)
AGES = {1: ("5.30 ms", "3.00 ms", "20 MB/s"), 2: ("5.89 ms", "3.33 ms", "14.3 MB/s"),
        3: ("6.54 ms", "3.69 ms", "10.2 MB/s"), 4: ("7.29 ms", "4.11 ms", "7.29 MB/s"),
        5: ("8.05 ms", "4.56 ms", "5.21 MB/s"), 6: ("8.93 ms", "5.07 ms", "3.72 MB/s")}
# Sec. 5.4.6: each application's share of its time (alone) on I/O; the first three are the ones it finds
# "more sensitive to the age of the slow disk"
SHARES = {"dmine": 0.74, "db2": 0.82, "lu": 0.99, "pgrep": 0.36, "titan": 0.24, "cholesky": 0.40}
SENSITIVE = ("dmine", "db2", "lu")
NAMES = {p: CH5_NAMES[p] for p in THREE}             # Ch. 5's CPU-RE, MEM-RE and IOCM-RE
SCALE = (17, "300 s")       # a quarter of aging.toml's 67 jobs in 1200 s
QUICK = (4, "75 s")


def rate(app: str) -> str:
    """The application's access rate (/MI) on this platform, from its share of time alone on I/O."""
    s = scenario.load(SCENARIOS / SCENARIO)
    disk, io = s["cluster"]["kinds"][0]["disk"], s["workload"][0]["io"]
    service = disk["seek"] + disk["rotation"] + io["size"] / disk["bandwidth"]
    f = SHARES[app]
    return f'"{f / (1 - f) / (s["cpu"]["mips"] * service):.4g} /MI"'


def _name(app: str, age: int) -> str:
    return f"fig5.7-{app}-{age}y"


def experiments(quick: bool, seeds: int | None) -> list[Experiment]:
    jobs, span = QUICK if quick else SCALE
    n = seeds or (1 if quick else 5)
    apps, ages = (("db2", "pgrep"), (1, 6)) if quick else (APPS, AGES)
    return [Experiment(_name(app, age), SCENARIO, [
        f"policy={','.join(NAMES)}", f"workload.jobs={jobs}", f'workload.arrival.span="{span}"',
        f"workload.io.rate={rate(app)}", *(f'cluster.kinds.1.disk.{k}="{v}"'
                                           for k, v in zip(("seek", "rotation", "bandwidth"), AGES[age]))],
        n, samples=False) for app in apps for age in ages]


def analyse(records: dict, plots) -> tuple[list[Claim], list[str]]:
    apps = [a for a in APPS if _name(a, 1) in records]
    if not apps:
        return [], []
    ages = [a for a in AGES if _name(apps[0], a) in records]
    lines, claims, m = [], [], {}
    for app in apps:
        t, means = table(f"{APPS[app]}'s trace against the slow disk's age (Fig. 5.7)", "Mean slowdown over jobs",
                         "age (years)", "", ages, NAMES, lambda p, age: job_slowdowns(records, _name(app, age), p))
        lines += t
        m.update({(app, p, age): v for (p, age), v in means.items()})
    first, last = ages[0], ages[-1]
    gains = [m[app, p, age] / m[app, "iocm_re_hetero", age] - 1 for app in apps for p in ("cpu_re", "mem_re")
             for age in ages]
    better = sum(all(m[app, "iocm_re_hetero", age] < min(m[app, "cpu_re", age], m[app, "mem_re", age])
                     for age in ages) for app in apps)
    claims.append(Claim("Fig. 5.7", "IOCM-RE more beneficial than CPU-RE and MEM-RE for all six applications",
                        "39.6 % to 129.2 %", f"below both at every age for {better} of {len(apps)} applications; "
                        f"gains {100 * min(gains):.1f} % to {100 * max(gains):.1f} %", better == len(apps),
                        "gain (S_other - S) / S over the applications, policies and ages"))
    rise = {(app, p): m[app, p, last] / m[app, p, first] - 1 for app in apps for p in NAMES}
    k = sum(r > 0 for r in rise.values())

    def seeds(app, p, age):
        return job_slowdowns_by_seed(records, _name(app, age), p)
    claims.append(Claim("Fig. 5.7", "for all six applications the slowdowns of the three schemes increase as the "
                        "slow disk ages", f"age {first} → {last} rises", f"for {k} of {len(rise)} (application, "
                        "policy)", k == len(rise), not_below(
                            [(f"{APPS[app]}, {NAMES[p]}: at age {first} - at {last} (% of the latter)",
                              seeds(app, p, first), seeds(app, p, last)) for app, p in rise])))
    if "db2" in apps:
        to = 5 if 5 in ages else last
        r = {p: m["db2", p, to] / m["db2", p, first] - 1 for p in NAMES}

        def growth(p):
            return change(seeds("db2", p, first), seeds("db2", p, to), percent=True)
        # the same runs' turn-around: a slowdown divides by the dedicated time, which a task homed on the slow
        # node takes on its disk too (Eq. 3.22), so part of the aging does not show in it
        def turnarounds(p, age):
            return list(over_jobs_by_seed(select(records.get(_name("db2", age), []), policy=p),
                                          "job_turnaround").values())
        t, turn = table(f"{APPS['db2']}'s trace against the slow disk's age, turn-around (Fig. 5.7)",
                        METRICS["job_turnaround"], "age (years)", "", ages, NAMES, turnarounds)
        lines += t
        why = [steeper([(f"IOCM-RE's rise - {NAMES[p]}'s (points of %)", growth("iocm_re_hetero"), growth(p))
                        for p in ("cpu_re", "mem_re")]),
               f"in mean turn-around time from age {first} to {to}: " + ", ".join(
                   f"{NAMES[p]} {turn[p, first]:.1f} → {turn[p, to]:.1f} s "
                   f"({100 * (turn[p, to] / turn[p, first] - 1):+.0f} %)" for p in NAMES)]
        claims.append(Claim("Fig. 5.7", f"DB2: from age {first} to {to}, CPU-RE's and MEM-RE's slowdowns rise by "
                            "70 %, IOCM-RE's by about 26 %", "+70 %, +70 %, +26 %",
                            ", ".join(f"{NAMES[p]} {100 * v:+.0f} %" for p, v in r.items()),
                            r["iocm_re_hetero"] < min(r["cpu_re"], r["mem_re"]), "; ".join(filter(None, why))))
    sensitive = {app: sum(rise[app, p] for p in NAMES) / len(NAMES) for app in apps}
    high = [sensitive[a] for a in apps if a in SENSITIVE]
    low = [sensitive[a] for a in apps if a not in SENSITIVE]
    if high and low:
        claims.append(Claim("Fig. 5.7", "Dmine, DB2 and LU more sensitive to the slow disk's age than Pgrep, Titan "
                            "and Cholesky", "the I/O-bound three rise more", ", ".join(
                                f"{APPS[a]} {100 * v:+.0f} %" for a, v in sensitive.items()), min(high) > max(low),
                            f"the rise from age {first} to {last}, averaged over the three policies"))
    curves(plots, "p003b-fig5.7", [(f"Fig. 5.7: {APPS[app]}", "age of the slow disk (years)", ages,
                                    {NAMES[p]: [m[app, p, age] for age in ages] for p in NAMES}) for app in apps],
           columns=3)
    return claims, ["![Mean slowdown against the slow disk's age, one panel per application]"
                    "(PLOTS/p003b-fig5.7.png)", ""] + lines

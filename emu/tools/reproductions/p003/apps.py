"""Paper 003 (Qin's thesis), Sec. 4.4: six traces of one real I/O-intensive parallel application each on Ch. 4's
32 nodes (scenarios/p003/apps/*.toml say what stands in for the University of Maryland traces): CPU and MEM
against the I/O-aware IOCM-RE and IOCM-PM (Fig. 4.5), and the I/O-aware schemes' improvement (Fig. 4.8).

Scale: a sixteenth of the traces (5 of their 84 jobs, in 75 s of their 20 minutes), half Ch. 4's: an LU trace
is 99 % I/O, a hundred times its CPU time on the disks, and at an eighth its runs alone would take ten minutes
of the hour on two cores. The quick variant: 3 jobs in 45 s, one seed.
"""
from __future__ import annotations

from emu.tools.reproduce import Claim, Experiment, figure, mean_ci
from emu.tools.reproductions.p003.common import gain, job_slowdowns, table

APPS = {"dmine": "Dmine", "pgrep": "Pgrep", "titan": "Titan", "db2": "DB2", "lu": "LU", "cholesky": "Cholesky"}
POLICIES = {"cpu_re": "CPU", "mem_re": "MEM", "iocm_re": "IOCM-RE", "iocm_pm": "IOCM-PM"}
SCALE = (5, "75 s")
QUICK = (3, "45 s")
SAME = 0.10


def experiments(quick: bool, seeds: int | None) -> list[Experiment]:
    jobs, span = QUICK if quick else SCALE
    return [Experiment(f"fig4.5-{app}", f"p003/apps/{app}.toml",
                       [f"policy={','.join(POLICIES)}", f"workload.jobs={jobs}", f'workload.arrival.span="{span}"'],
                       seeds or (1 if quick else 5), samples=False) for app in APPS]


def _slowdowns(records, policy, app) -> list[float]:
    return job_slowdowns(records, f"fig4.5-{app}", policy)


def analyse(records: dict, plots) -> tuple[list[Claim], list[str]]:
    apps = [a for a in APPS if f"fig4.5-{a}" in records]
    if not apps:
        return [], []
    app = {APPS[a]: a for a in apps}           # the table's rows are the names
    lines, m = table("The applications' traces (Fig. 4.5)", "Mean slowdown over jobs", "trace", "", list(app),
                     POLICIES, lambda p, name: _slowdowns(records, p, app[name]))
    s = {(p, a): m[p, APPS[a]] for p in POLICIES for a in apps}
    # Fig. 4.8: the better I/O-aware scheme over the better of the others, per trace
    ratio = {a: min(s["cpu_re", a], s["mem_re", a]) / min(s["iocm_re", a], s["iocm_pm", a]) for a in apps}
    lines += ["Fig. 4.8's improvement, the better of IOCM-RE and IOCM-PM over the better of CPU and MEM, as "
              "(S_other - S) / S and (S_other - S) / S_other: " + "; ".join(f"{APPS[a]} {gain(r, 1.0)}"
                                                                        for a, r in ratio.items()), ""]
    claims = []
    k = sum(r > 1 for r in ratio.values())
    claims.append(Claim("Fig. 4.5", "the I/O-aware schemes beat the non-I/O-aware ones on every application's "
                        "trace, by 23.6-88.0 %", "23.6-88.0 %",
                        f"on {k} of {len(apps)}, by {100 * (min(ratio.values()) - 1):.1f} to "
                        f"{100 * (max(ratio.values()) - 1):.1f} %", k == len(apps),
                        "holds if better on every trace; the improvement as (S_other - S) / S"))
    if "lu" in apps:
        top = sum(all(s[p, "lu"] >= s[p, a] for a in apps) for p in POLICIES)
        claims.append(Claim("Fig. 4.5", "LU has the largest mean slowdown", "LU largest",
                            f"under {top} of the {len(POLICIES)} policies", top == len(POLICIES)))
        rest = [a for a in apps if a != "lu"]
        ok = ratio["lu"] < min(ratio[a] for a in rest) and all(ratio[a] > 1.53 for a in rest)
        claims.append(Claim("Fig. 4.8", "the improvement is above 53 % for the five others, only 23.6 % for LU",
                            "> 53 %; LU 23.6 %", f"LU {100 * (ratio['lu'] - 1):.1f} %, the others "
                            f"{100 * (min(ratio[a] for a in rest) - 1):.1f} % at least", ok,
                            "holds if LU's is the smallest and the others' above 53 %"))
    worst = max(abs(s["iocm_pm", a] / s["iocm_re", a] - 1) for a in apps)
    claims.append(Claim("Fig. 4.5", "IOCM-RE ≈ IOCM-PM (the jobs alike: a new job is the best migrant)",
                        "about the same", f"within {100 * worst:.0f} %", worst <= SAME,
                        f"holds within {100 * SAME:.0f} %"))
    _plot(records, apps, plots)
    return claims, ["![Mean slowdown on each application's trace, by policy](PLOTS/p003-apps.png)", ""] + lines


def _plot(records, apps, plots) -> None:
    def draw(ax):
        width = 0.8 / len(POLICIES)
        for i, (p, name) in enumerate(POLICIES.items()):
            ax.bar([x + i * width for x in range(len(apps))],
                   [mean_ci(_slowdowns(records, p, a))[0] for a in apps], width, label=name)
        ax.set_xticks([x + 0.4 - width / 2 for x in range(len(apps))], [APPS[a] for a in apps])
        ax.set_yscale("log")
        ax.set_ylabel("mean slowdown")
        ax.set_title("Fig. 4.5: the applications' traces")
        ax.legend(fontsize=7)
    figure(plots, "p003-apps", 1, draw)

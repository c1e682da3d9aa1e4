"""Paper 003 (Qin's thesis), Sec. 4.4: six traces of one real I/O-intensive parallel application each on Ch. 4's
32 nodes (scenarios/p003/apps/*.toml say what stands in for the University of Maryland traces): CPU and MEM
against the I/O-aware IOCM-RE and IOCM-PM (Fig. 4.5), and the I/O-aware schemes' improvement (Fig. 4.8); and
five of the applications mixed among sequential jobs against the sequential jobs' I/O rate (Fig. 4.9,
scenarios/p003/apps_mixed.toml), at Ch. 4's scale. Fig. 4.9's "five policies" are taken to be Ch. 4's; its
observations name four of them, and NLB, which runs every task at home, is left out (as in Fig. 4.5).

Scale: a sixteenth of the traces (5 of their 84 jobs, in 75 s of their 20 minutes), half Ch. 4's: an LU trace
is 99 % I/O, a hundred times its CPU time on the disks, and at an eighth its runs alone would take ten minutes
of the hour on two cores. The quick variant: 3 jobs in 45 s, one seed.
"""
from __future__ import annotations

from emu.tools.reproduce import Claim, Experiment, figure, mean_ci
from emu.tools.reproductions.p003 import ch4
from emu.tools.reproductions.p003.common import (change, curves, gain, job_slowdowns, job_slowdowns_by_seed,
                                                not_below, steeper, streams, table)

APPS = {"dmine": "Dmine", "pgrep": "Pgrep", "titan": "Titan", "db2": "DB2", "lu": "LU", "cholesky": "Cholesky"}
POLICIES = {"cpu_re": "CPU", "mem_re": "MEM", "iocm_re": "IOCM-RE", "iocm_pm": "IOCM-PM"}
SCALE = (5, "75 s")
QUICK = (3, "45 s")
SAME = 0.10
MIXED = (0.375, 0.75, 1.125, 1.5)       # Fig. 4.9's axis, from the thesis's point at 0.375 /MI in steps of it


def experiments(quick: bool, seeds: int | None) -> list[Experiment]:
    jobs, span = QUICK if quick else SCALE
    n = seeds or (1 if quick else 5)
    out = [Experiment(f"fig4.5-{app}", f"p003/apps/{app}.toml",
                      [f"policy={','.join(POLICIES)}", f"workload.jobs={jobs}", f'workload.arrival.span="{span}"'],
                      n, samples=False) for app in APPS]
    jobs, span = ch4.QUICK if quick else ch4.SCALE
    return out + [Experiment(_mix(pct, rate), "p003/apps_mixed.toml",
                             [f"policy={','.join(POLICIES)}", *streams(jobs, span, pct),
                              f'workload.0.io.rate_max="{2 * rate:g} /MI"'], n, samples=False)
                  for pct in ch4.PANELS for rate in ((MIXED[0], MIXED[-1]) if quick else MIXED)]


def _mix(pct: int, rate: float) -> str:
    return f"fig4.9-{pct}pc-{rate:g}MI"


def _slowdowns(records, policy, app) -> list[float]:
    return job_slowdowns(records, f"fig4.5-{app}", policy)


def analyse(records: dict, plots) -> tuple[list[Claim], list[str]]:
    claims, lines = _single(records, plots)
    more = _mixed(records, plots)
    return claims + more[0], lines + more[1]


def _single(records, plots) -> tuple[list[Claim], list[str]]:
    """Figs. 4.5 and 4.8: a trace of one application each."""
    apps = [a for a in APPS if f"fig4.5-{a}" in records]
    if not apps:
        return [], []
    app = {APPS[a]: a for a in apps}           # the table's rows are the names
    lines, m = table("The applications' traces (Fig. 4.5)", "Mean slowdown over jobs", "trace", "", list(app),
                     POLICIES, lambda p, name: _slowdowns(records, p, app[name]))
    s = {(p, a): m[p, APPS[a]] for p in POLICIES for a in apps}
    # Fig. 4.8: the better I/O-aware scheme over the better of the others, per trace
    ratio = {a: min(s["cpu_re", a], s["mem_re", a]) / min(s["iocm_re", a], s["iocm_pm", a]) for a in apps}
    claims = []
    lines += ["Fig. 4.8's improvement, the better of IOCM-RE and IOCM-PM over the better of CPU and MEM, as "
              "(S_other - S) / S and (S_other - S) / S_other: " + "; ".join(f"{APPS[a]} {gain(r, 1.0)}"
                                                                        for a, r in ratio.items()), ""]
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


def _mixed(records, plots) -> tuple[list[Claim], list[str]]:
    """Fig. 4.9: five applications among sequential jobs, against the sequential jobs' mean I/O rate."""
    claims, lines, m, drawn = [], [], {}, []
    n = POLICIES.get
    for pct in ch4.PANELS:
        xs = [x for x in MIXED if _mix(pct, x) in records]
        if not xs:
            continue
        fig = f"Fig. 4.9({'a' if pct == 30 else 'b'})"
        t, s = table(f"Five applications among sequential jobs, {pct} % of the jobs parallel ({fig})",
                     "Mean slowdown over jobs (a parallel job once)", "sequential jobs' mean I/O rate", "/MI", xs,
                     POLICIES, lambda p, x: job_slowdowns(records, _mix(pct, x), p))
        lines += t
        m[pct] = s
        drawn.append((fig, "sequential jobs' mean I/O rate (/MI)", xs,
                      {n(p): [s[p, x] for x in xs] for p in POLICIES}))
        lo, hi = xs[0], xs[-1]
        rise = {p: s[p, hi] - s[p, lo] for p in POLICIES}

        def seeds(p, x, pct=pct):
            return job_slowdowns_by_seed(records, _mix(pct, x), p)
        rising = all(r > 0 for r in rise.values())
        claims.append(Claim(fig, "the mean slowdowns of the policies all increase with the I/O load", "all rise",
                            ", ".join(f"{n(p)} {s[p, lo]:.2f} → {s[p, hi]:.2f}" for p in POLICIES), rising,
                            "" if rising else not_below([(f"{n(p)} at {lo:g} - at {hi:g} /MI (% of the latter)",
                                                          seeds(p, lo), seeds(p, hi)) for p in POLICIES])))
        k = sum(all(s["iocm_pm", x] < s[p, x] for p in POLICIES if p != "iocm_pm") for x in xs)
        claims.append(Claim(fig, "IOCM-PM is substantially better than the other policies", "in all cases",
                            f"best at {k} of {len(xs)}", k == len(xs), "" if k == len(xs) else not_below(
                                [(f"{x:g} /MI: IOCM-PM - {n(p)} (% of {n(p)})", seeds("iocm_pm", x), seeds(p, x))
                                 for p in POLICIES if p != "iocm_pm" for x in xs])))
        calm = max(rise["iocm_re"], rise["iocm_pm"]) < min(rise["cpu_re"], rise["mem_re"])
        claims.append(Claim(fig, "the two I/O-aware schemes are less sensitive to I/O intensity than the non-I/O-aware "
                            "ones", "I/O-aware rise least", ", ".join(f"{n(p)} {r:+.2f}" for p, r in rise.items()),
                            calm, f"the rise from {lo:g} to {hi:g} /MI" + ("" if calm else "; " + steeper(
                                [(f"{n(a)}'s rise - {n(b)}'s", change(seeds(a, lo), seeds(a, hi)),
                                  change(seeds(b, lo), seeds(b, hi)))
                                 for a in ("iocm_re", "iocm_pm") for b in ("cpu_re", "mem_re")]))))
        if pct == 30:
            k = sum(s["iocm_re", x] < min(s["cpu_re", x], s["mem_re", x]) for x in xs)
            claims.append(Claim(fig, "IOCM-RE is the second best in most cases", "most rates",
                                f"below CPU and MEM at {k} of {len(xs)}", 2 * k > len(xs)))
            if lo == MIXED[0]:
                worse = s["iocm_re", lo] > max(s["cpu_re", lo], s["mem_re", lo])
                claims.append(Claim(fig, f"at {lo:g} /MI IOCM-RE is slightly worse than CPU and MEM (an inaccurate "
                                    "remote execution cost at a low I/O intensity)", "IOCM-RE above both",
                                    f"IOCM-RE {s['iocm_re', lo]:.2f}, CPU {s['cpu_re', lo]:.2f}, MEM "
                                    f"{s['mem_re', lo]:.2f}", worse, "" if worse else not_below(
                                        [(f"{n(p)} - IOCM-RE (% of IOCM-RE)", seeds(p, lo), seeds("iocm_re", lo))
                                         for p in ("cpu_re", "mem_re")])))
    if len(m) == 2:
        both = [x for x in MIXED if ("cpu_re", x) in m[30] and ("cpu_re", x) in m[60]]
        k = sum(m[60][p, x] > m[30][p, x] for p in POLICIES for x in both)
        claims.append(Claim("Fig. 4.9", "more parallel I/O-intensive jobs give a higher mean slowdown under every "
                            "policy", "60 % above 30 %", f"at {k} of {len(POLICIES) * len(both)} (policy, rate) pairs",
                            k == len(POLICIES) * len(both)))
    if drawn:
        curves(plots, "p003-mixed", drawn)
        lines = ["![Mean slowdown against the sequential jobs' I/O rate, by policy](PLOTS/p003-mixed.png)", ""] + lines
    return claims, lines


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

"""Paper 003 (Qin's thesis), Chapter 4: parallel jobs of bulk-synchronous tasks among sequential ones on 32
nodes (scenarios/p003/parallel.toml), 30 % or 60 % of the jobs parallel, against the mean I/O access rate:
IOCM-RE against the CPU- and memory-based baselines and NLB (Fig. 4.2), and IOCM-PM against them (Fig. 4.4,
"the same configurations"): one set of runs serves both. Each job's rate is uniform in [0, 2 x the mean].

The metric is the mean slowdown over jobs, a parallel job counted once (summary.json's job_slowdown: its
arrival to its last task's end, over its longest task's time alone).

Scale: the scenario's trace is 280 jobs in 20 minutes; here an eighth of it, 35 jobs in 150 s at the same
arrival rate (`SCALE`), at six of the figures' ten rates (every other one and the last: `RUN`), so that five
policies, two panels and five seeds (300 runs) fit beside Chapter 3 in the hour on two cores. The quick
variant: the axis's ends, 18 jobs in 75 s, one seed.
"""
from __future__ import annotations

from emu.tools.reproduce import Claim, Experiment, figure, mean_ci
from emu.tools.reproductions.p003.common import gain, table

POLICIES = ("local", "cpu_re", "mem_re", "iocm_re", "iocm_pm")
NAMES = {"local": "NLB", "cpu_re": "CPU", "mem_re": "MEM", "iocm_re": "IOCM-RE", "iocm_pm": "IOCM-PM"}
RATES = tuple(1.0 + 0.0625 * i for i in range(10))      # Fig. 4.2: "1.0 and 1.563 No./MI with increments of 0.0625"
RUN = RATES[::2] + RATES[-1:]                           # six of them, both ends: see the module's docstring
PANELS = (30, 60)                                       # percent of the jobs parallel, Figs. 4.2-4.4 (a) and (b)
SCALE = (35, "150 s")                                   # jobs and span: an eighth of the scenario's trace
QUICK = (18, "75 s")
SAME = 0.10


def _name(pct: int, rate: float) -> str:
    return f"ch4-{pct}pc-{rate:g}MI"


def experiments(quick: bool, seeds: int | None) -> list[Experiment]:
    n = seeds or (1 if quick else 5)
    jobs, span = QUICK if quick else SCALE
    out = []
    for pct in PANELS:
        parallel = round(jobs * pct / 100)
        for rate in (RATES[0], RATES[-1]) if quick else RUN:
            streams = [f"workload.0.jobs={jobs - parallel}", f"workload.1.jobs={parallel}"]
            for s in (0, 1):
                streams += [f'workload.{s}.arrival.span="{span}"', f'workload.{s}.io.rate_max="{2 * rate:g} /MI"']
            out.append(Experiment(_name(pct, rate), "p003/parallel.toml",
                                  [f"policy={','.join(POLICIES)}", *streams], n, samples=False))
    return out


def _slowdowns(records, pct, policy, rate) -> list[float]:
    runs = [r for r in records.get(_name(pct, rate), []) if not r["error"] and r["combo"].get("policy") == policy]
    return [r["metrics"]["job_slowdown"]["all"] for r in runs]


def _rates(records, pct) -> list[float]:
    return [x for x in RATES if _name(pct, x) in records]


def _table(records, pct) -> tuple[list[str], dict]:
    return table(f"Parallel jobs, {pct} % of the jobs, against the mean I/O access rate (Figs. 4.2 and 4.4 "
                 f"({'a' if pct == 30 else 'b'}))", "Mean slowdown over jobs (a parallel job once)", "mean I/O rate",
                 "/MI", _rates(records, pct), {p: NAMES[p] for p in POLICIES},
                 lambda p, x: _slowdowns(records, pct, p, x))


def analyse(records: dict, plots) -> tuple[list[Claim], list[str]]:
    if not any(_name(pct, x) in records for pct in PANELS for x in RATES):
        return [], []
    claims, lines, m = [], ["![Mean slowdown against the mean I/O access rate, by policy](PLOTS/p003-ch4.png)", ""], {}
    for pct in PANELS:
        t, m[pct] = _table(records, pct)
        lines += t
    n = NAMES.get
    for pct in PANELS:
        xs, s = _rates(records, pct), m[pct]
        fig = f"Fig. 4.2({'a' if pct == 30 else 'b'})"
        lo, hi = xs[0], xs[-1]
        claims.append(Claim(fig, f"the mean slowdowns all increase with the I/O load ({pct} % parallel)", "all rise",
                            ", ".join(f"{n(p)} {s[p, lo]:.2f} → {s[p, hi]:.2f}" for p in POLICIES),
                            all(s[p, hi] > s[p, lo] for p in POLICIES)))
        k = sum(s["iocm_re", x] < min(s["cpu_re", x], s["mem_re", x]) for x in xs)
        best = max(max(s[b, x] / s["iocm_re", x] for x in xs) for b in ("cpu_re", "mem_re"))
        claims.append(Claim(fig, "IOCM-RE greatly outperforms the CPU- and memory-based policies", "at every rate",
                            f"at {k} of {len(xs)}; largest factor {best:.2f}x", k == len(xs)))
        fig = f"Fig. 4.4({'a' if pct == 30 else 'b'})"
        k = sum(s["iocm_pm", x] < s["iocm_re", x] < min(s["cpu_re", x], s["mem_re", x]) for x in xs)
        claims.append(Claim(fig, "IOCM-PM < IOCM-RE < MEM, CPU (the issue's reading)", "at every rate",
                            f"at {k} of {len(xs)}", k == len(xs)))
        gains = {b: max(s[b, x] / s["iocm_pm", x] for x in xs) for b in ("iocm_re", "mem_re", "cpu_re")}
        claims.append(Claim(fig, "IOCM-PM improves over IOCM-RE, MEM and CPU by up to 112.8 %, 142.6 %, 146.1 %",
                            "112.8 %, 142.6 %, 146.1 %", ", ".join(f"{n(b)} {gain(f, 1.0)}" for b, f in gains.items()),
                            all(f > 1 for f in gains.values()),
                            "holds if IOCM-PM is below them; the largest improvement over the rates, as "
                            "(S_other - S) / S and (S_other - S) / S_other"))
        rise = {p: s[p, hi] - s[p, lo] for p in ("iocm_pm", "iocm_re", "mem_re", "cpu_re")}
        claims.append(Claim(fig, "CPU, MEM and IOCM-RE are more sensitive to the I/O access rate than IOCM-PM",
                            "IOCM-PM rises least", ", ".join(f"{n(p)} {r:+.2f}" for p, r in rise.items()),
                            rise["iocm_pm"] < min(rise[p] for p in ("iocm_re", "mem_re", "cpu_re"))))
        worst = max(abs(s["mem_re", x] / s["cpu_re", x] - 1) for x in xs)
        claims.append(Claim(fig, "MEM ≈ CPU", "almost identical", f"within {100 * worst:.0f} %", worst <= SAME,
                            f"holds within {100 * SAME:.0f} %"))
    both = [x for x in _rates(records, 30) if x in _rates(records, 60)]
    k = sum(m[60][p, x] > m[30][p, x] for p in POLICIES for x in both)
    claims.append(Claim("Fig. 4.2", "at a fixed I/O rate every slowdown is higher with 60 % parallel jobs than with 30 %",
                        "60 % above 30 %", f"at {k} of {len(POLICIES) * len(both)} (policy, rate) pairs",
                        k == len(POLICIES) * len(both)))
    claims += [Claim("Fig. 4.1", "IOCM-RE below BS, the space-sharing batch queue", "IOCM-RE below", "", None,
                     "BS (a central space-sharing queue) is not built yet"),
               Claim("Figs. 4.5, 4.8", "on the six applications' traces the I/O-aware schemes beat the others by "
                     "23.6-88.0 %, LU the highest slowdown and the smallest gain, IOCM-RE ≈ IOCM-PM",
                     "23.6-88.0 %", "", None, "the application models of Sec. 4.4 are not built yet")]
    _plots(records, plots)
    return claims, lines


def _plots(records, plots) -> None:
    def draw(*axes):
        for ax, pct in zip(axes, PANELS):
            xs = _rates(records, pct)
            for p in POLICIES:
                ax.plot(xs, [mean_ci(_slowdowns(records, pct, p, x))[0] for x in xs], marker="o", label=NAMES[p])
            ax.set_yscale("log")
            ax.set_xlabel("mean I/O access rate (/MI)")
            ax.set_ylabel("mean slowdown")
            ax.set_title(f"Figs. 4.2/4.4 ({pct} % parallel)")
            ax.legend(fontsize=7)
    figure(plots, "p003-ch4", len(PANELS), draw)

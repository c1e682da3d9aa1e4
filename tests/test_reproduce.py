"""`nowemu reproduce p004 --quick` (the scaled-down variant CI runs): every run of every experiment is written,
the report's figures are those of the runs' own summaries, and the claims the scaled-down model must keep
hold (Fig. 7's mechanism, Fig. 8's crossover, Table 1's orderings)."""
import json
import sys

import pytest

from emu.tools import cli, reproduce
from emu.tools.reproduce import mean_ci, paired
from emu.tools.reproductions.p004.sequential import idle_share


@pytest.fixture(scope="module")
def quick(ray_local, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("p004")
    report = tmp / "p004.md"
    status = cli.main(["reproduce", "p004", "--quick", "--out", str(tmp / "runs"), "--report", str(report)])
    return status, tmp / "runs", report.read_text()


def test_every_run_is_written_and_nothing_failed(quick):
    status, runs, text = quick
    assert status == 0
    folders = {p.parent.relative_to(runs).parts[0] for p in runs.rglob("summary.json")}
    fig13 = {f"fig13-{v}-i{i}" for v in ("ll8", "ll16", "ll32", "reconf") for i in (8, 16, 24)}
    assert folders == {"fig7", "fig8", "wl1", "wl2", "thr1", "thr2", "pause1", "pause2", "fig11-idle", "fig11a",
                       "fig11b", "fig12-idle", "fig12", "fig12-scv1"} | fig13
    # fig7: 4 levels x 3 switches x 2 seeds; fig8: 2 policies x 5 episodes; wl1, wl2, thr2: 4 policies x 2
    # seeds; thr1: 4 policies x 8 seeds (an hour of owners is a small sample); pause1, pause2: 3 pauses x 2
    # seeds; fig11: 2 idle + 3 levels x 2 + 3 x 2 x 2; fig12: 3 granularities x (2 idle + 2 x 2 x 2 + 2 with
    # exponential bursts); fig13: 3 idle counts x 4 variants x 2 levels x 2 seeds
    assert sum(1 for _ in runs.rglob("summary.json")) == 24 + 10 + 3 * 8 + 32 + 2 * 6 + 2 + 6 + 12 + 6 + 24 + 6 + 48
    assert "Scaled-down variant" in text and "run(s) failed" not in text


def test_report_numbers_are_the_runs_own(quick):
    _, runs, text = quick
    ie = [json.loads(p.read_text())["metrics"]["mean_response"]
          for p in runs.glob("wl1/*immediate_eviction*/summary.json")]
    assert len(ie) == 2
    mean, half = mean_ci(ie)
    assert f"1531 \\| {mean:.0f} ± {half:.0f}" in text


def test_the_claims_the_scaled_down_model_must_keep_hold(quick):
    _, _, text = quick
    rows = {line.split(" | ")[1]: line for line in text.splitlines()
            if line.startswith(("| Fig. ", "| Table 1", "| LL-W1"))}
    assert not any("| not measured |" in line for line in rows.values())
    for claim in ("run bursts per second track the model at every utilization",
                  "the owner's realized utilization equals the target", "local delay ratio about 1 % at c = 100 µs",
                  "under 5 % at 300 µs", "8 % at 500 µs",
                  "the foreign job uses over 90 % of the idle cycles",
                  "lingering finishes first for owner episodes shorter than the linger time, eviction after",
                  "above 50 %, lingering slows the job dramatically",
                  "larger synchronization granularity, less slowdown (2 or more nonidle nodes)",
                  "at 40 %, reconfiguration generally completes faster"):
        assert "| yes |" in rows[claim], rows[claim]


def test_immediate_eviction_computes_only_on_idle_nodes(quick):
    """IE's throughput against nodes x idle fraction: never above it (an evicted job leaves at once), and not
    far below it (the loss is the transfers into newly idle nodes). The paper's 'within 5 %' is the report's
    business: at this scale eight seeds of 15 minutes do not pin it down."""
    _, runs, _ = quick
    paths = list(runs.glob("thr1/*immediate_eviction*/summary.json"))
    assert len(paths) == 8
    for path in paths:
        share = idle_share(json.loads(path.read_text()))
        assert 0.85 < share <= 1.0, (path, share)


def test_unknown_paper_is_one_clear_line(capsys):
    assert cli.main(["reproduce", "p999"]) == 2
    err = capsys.readouterr().err
    assert "unknown paper 'p999'" in err and "p004" in err and err.count("\n") == 1


def test_a_full_run_gives_the_machine_pace_as_it_started_and_ended(ray_local, tmp_path, monkeypatch):
    """A paper of one small run, not --quick: its report's head says how fast the machine was, measured (two
    paces, each of the fixed loop alone and two at once), and invocations.jsonl keeps them; the running record
    (what a stopped invocation leaves) keeps the first."""
    import types
    from emu.tools import pace
    from emu.tools.reproduce import Experiment, read_head
    tiny = [Experiment("mm1", "mm1.toml", ["workload.jobs=50"])]
    paper = types.SimpleNamespace(TITLE="a test", analyse=lambda records, plots: ([], []),
                                  experiments=lambda quick, seeds: tiny)
    monkeypatch.setitem(sys.modules, "emu.tools.reproductions.tiny", paper)
    running = []
    monkeypatch.setattr(reproduce, "_keep_running", lambda out, so_far: running.append(json.loads(json.dumps(so_far))))
    report = tmp_path / "tiny.md"
    assert cli.main(["reproduce", "tiny", "--out", str(tmp_path / "runs"), "--report", str(report)]) == 0
    said = read_head(report.read_text())["pace"]
    kept = json.loads((tmp_path / "runs" / "invocations.jsonl").read_text())["pace"]
    assert [r["pace"] for r in running] == [kept[:1]]
    assert said == tuple(round(p[k], 3) for p in kept for k in ("alone", "pair"))
    assert all(0 < p[k] < 60 for p in kept for k in p) and len(kept) == 2
    assert pace.reference(1000) > 0


def test_p000_quick_writes_every_run_and_its_report(ray_local, tmp_path):
    """`nowemu reproduce p000 --quick`: both groups, traces 1, 3, 5, both policies, on 8 nodes, and the SPEC
    traces' bound (G-Loadsharing with unlimited memory), and G-Loadsharing migrating running jobs (paper 000's
    reading). The report's reductions are those of the runs (here: the execution-time one of SPEC-Trace-3, from
    its two summaries, the bound's and the one against the migrating G-Loadsharing, from their own); the oracle
    that CPU service does not depend on the policy holds."""
    report = tmp_path / "p000.md"
    assert cli.main(["reproduce", "p000", "--quick", "--out", str(tmp_path / "runs"), "--report", str(report)]) == 0
    folders = {p.parent.relative_to(tmp_path / "runs").parts[0] for p in (tmp_path / "runs").rglob("summary.json")}
    assert folders == {name.format(group, t) for name in ("{}-t{}", "{}-t{}-reservation", "{}-t{}-migrating")
                       for group in ("spec", "app") for t in (1, 3, 5)} | {f"spec-t{t}-bound" for t in (1, 3, 5)}

    def summary(experiment):
        return json.loads(next((tmp_path / "runs" / experiment).rglob("summary.json")).read_text())
    total = {"ls_re": summary("spec-t3")["metrics"]["total_execution_time"],
             "m_reservation": summary("spec-t3-reservation")["metrics"]["total_execution_time"]}
    assert summary("spec-t3-reservation")["config"]["policy"]["name"] == "m_reservation"
    text = report.read_text()
    assert f"| Fig. 1 SPEC-Trace-3 | total execution time reduced by | 32.4 % | " \
           f"{100 * (1 - total['m_reservation'] / total['ls_re']):.1f} % |" in text
    unlimited = summary("spec-t3-bound")
    bound = 100 * (1 - unlimited["metrics"]["total_execution_time"] / total["ls_re"])
    assert f"| {bound:.1f} % |" in text.split("### SPEC traces")[1].split("### App traces")[0]
    migrating = summary("spec-t3-migrating")
    against = 100 * (1 - total["m_reservation"] / migrating["metrics"]["total_execution_time"])
    assert f"| SPEC | Trace-3 | {against:.1f} % [32.4] |" in text
    assert "| §5 | CPU service is the same under both policies (T_cpu = T̂_cpu) | equal |" in text
    g = summary("spec-t3")["metrics"]
    need = (0.324 * (g["total_cpu_time"] + g["total_net_time"]) + (0.324 - 0.367) * g["total_queue_time"]) / 0.676
    share = f"{g['total_page_time'] / need:.2f}" if need > 0 else "inf"       # nil need: any paging will do
    assert f"| SPEC | Trace-3 | {g['total_cpu_time']:.0f} | {g['total_queue_time']:.0f} | " \
           f"{g['total_page_time']:.0f} | {share} |" in text        # §5's arithmetic
    claims = [line for line in text.splitlines() if line.startswith(("| Fig. ", "| §"))]
    assert len(claims) == 12 + 4 + 4 + 1 and all(("| yes |" in c) + ("| **no** |" in c) + ("| not measured |" in c) == 1
                                             for c in claims)


def test_p000_lineage_quick_sets_each_fault_setting_beside_the_paper(ray_local, tmp_path):
    """The calibration study of papers 000/002's paging (`reproduce p000_lineage --quick`: SPEC-Trace-3 on 8
    nodes, the overflow model and 1 fault per MI): every setting's G-Loadsharing and both reservation readings
    ran, with the faults given per MI at 400 MIPS, and the table's reductions are the runs'."""
    report = tmp_path / "lineage.md"
    assert cli.main(["reproduce", "p000_lineage", "--quick", "--out", str(tmp_path / "runs"),
                     "--report", str(report)]) == 0
    runs = tmp_path / "runs"
    summaries = {p.parent.relative_to(runs).parts[0]: json.loads(p.read_text()) for p in runs.rglob("summary.json")}
    assert set(summaries) == {f"spec-t3-{f}-{p}" for f in ("overflow", "mu1") for p in ("G", "V-early", "V-drain")}
    memory = summaries["spec-t3-mu1-G"]["config"]["memory"]
    assert memory["faults_per_mi"] == 1 and memory["fault_rate"] == 400 and memory["fault_model"] == "demand_ratio"
    assert summaries["spec-t3-mu1-V-early"]["config"]["policy"]["early_end"] is True
    total = {k: v["metrics"]["total_execution_time"] for k, v in summaries.items()}
    text = report.read_text()
    for fault in ("overflow", "mu1"):
        cut = 100 * (1 - total[f"spec-t3-{fault}-V-early"] / total[f"spec-t3-{fault}-G"])
        assert f"| SPEC | Trace-3 | {fault} | {cut:.1f} [32.4];" in text


def test_p002_quick_writes_every_run_and_its_report(ray_local, tmp_path):
    """`nowemu reproduce p002 --quick`: the network study on 4 and 8 nodes (Base and Net_RAM x 2 networks, LS_RE
    x 2 networks x 2 trace types; Net_RAM holding the CPU x 2 networks on 8 nodes) and the six schemes on
    Trace-1 of both groups. The report's figures are the runs' (here: Net_RAM's networking share on 8 nodes at
    100 Mbps, type 2, from its summary)."""
    report = tmp_path / "p002.md"
    assert cli.main(["reproduce", "p002", "--quick", "--out", str(tmp_path / "runs"), "--report", str(report)]) == 0
    runs = tmp_path / "runs"
    folders = {p.parent.relative_to(runs).parts[0] for p in runs.rglob("summary.json")}
    assert folders == {"net-n4", "net-n4-ls_re", "net-n8", "net-n8-ls_re", "net-n8-held", "app-t1",
                       "spec-t1", "app-t1-reservation", "spec-t1-reservation"}   # M-Reservation with paper 000's table
    assert sum(1 for _ in runs.rglob("summary.json")) == 2 * (4 + 4) + 2 + 2 * (5 + 1)
    # the network study on 8 nodes at 1 Gbps, type 2, is App-Trace-1's comparison on 8 nodes: run once, copied
    for twin, first in (("net-n8/net_ram-1_Gbps-s1", "app-t1/net_ram-s1"), ("net-n8/local-1_Gbps-s1", "app-t1/local-s1"),
                        ("net-n8-ls_re/0-1_Gbps-s1", "app-t1/ls_re-s1")):
        assert (runs / twin / "jobs.csv").read_bytes() == (runs / first / "jobs.csv").read_bytes()
    assert "27 runs (inline" in report.read_text() and "; 3 more folders there copy a run" in report.read_text()
    assert not list(runs.rglob("nodes.csv*")) and len(list(runs.rglob("jobs.csv"))) == 30   # no samples kept
    share = json.loads((runs / "net-n8" / "net_ram-100_Mbps-s1" / "summary.json").read_text())["metrics"]["network_share"]
    text = report.read_text()
    assert f"| Fig. 4a | Net_RAM's networking share, 8 nodes, 100 Mbps, type 2 | 9 % (16 nodes) | {100 * share:.2f} % |" in text
    claims = [line for line in text.splitlines() if line.startswith(("| Fig. ", "| §"))]
    assert len(claims) == 12 + 2 * 3 and all(("| yes |" in c) + ("| **no** |" in c) == 1 for c in claims)
    # the papers' own arithmetic: §6.1's 29.3 % below LS_RE and §7's 38 % below LS_Net_RAM put LS_Net_RAM above LS_RE
    assert "## The papers' own inconsistencies" in text and "make LS_Net_RAM take 1.14, 1.13, 0.83" in text
    # picked up with --resume: every run is read back, none is run again, and the claims are the same
    (runs / "net-n4" / "local-100_Mbps-s1" / "summary.json").unlink()    # as if stopped before its end (a short one)
    (runs / "invocations.jsonl").unlink()          # as if made before OUT kept them: the first is read from the head
    resume = ["reproduce", "p002", "--quick", "--out", str(runs), "--resume", "--report", str(report)]
    assert cli.main(resume) == 0
    assert "over 2 invocations" in report.read_text()            # the first made every run read back, then one more
    assert "which read 26 of the runs from the earlier ones" in report.read_text()   # besides 3 copies (above)
    assert [line for line in report.read_text().splitlines() if line.startswith(("| Fig. ", "| §"))] == claims
    assert cli.main(resume) == 0 and "over 3 invocations" in report.read_text()   # the first stays counted
    (runs / "net-n4" / "local-100_Mbps-s1" / "summary.json").unlink()
    (runs / "invocation-running.json").write_text('{"date": "d", "wall": 5.0, "made": 0}')   # one stopped early
    assert cli.main(resume) == 0 and "over 5 invocations" in report.read_text()
    assert "1 of them stopped before its end" in report.read_text() and not (runs / "invocation-running.json").exists()


def test_p001_quick_writes_every_run_and_its_report(ray_local, tmp_path):
    """`nowemu reproduce p001 --quick`: Fig. 4's static workload on 2 nodes under PRED and CSM, one point of each
    dynamic workload under its three policies, and the paced run beside inline. The report's figures are the
    runs' own: J1's and J2's ends from their slowdowns (eq. 10), the dynamic tables from the runs' summaries."""
    report = tmp_path / "p001.md"
    assert cli.main(["reproduce", "p001", "--quick", "--out", str(tmp_path / "runs"), "--report", str(report)]) == 0
    runs = tmp_path / "runs"
    done = sorted(f"{p.parent.parent.name}/{p.parent.name}" for p in runs.rglob("summary.json"))
    dynamic = [f"{case}/{p}-s1" for case, policies in (("high-f100", "csm pred rr"), ("low-pdt0.5", "csm dyn rr"),
                                                        ("medium-f100", "csm pred rr")) for p in policies.split()]
    probes = ["bounded-high-f100/s1", "bounded-medium-f100/s1", "fig4-probe-1/csm-s1", "fig4-probe-1/pred-s1"]
    assert done == [*probes, "fig4/csm-s1", "fig4/pred-s1", *dynamic[:3], *dynamic[3:6],
                    "lru-page-f100/pred-s1", "lru-page-f100/rr-s1", *dynamic[6:], "paced-inline/s1", "paced/s1"]
    ends = {}
    for policy in ("pred", "csm"):
        summary = json.loads((runs / "fig4" / f"{policy}-s1" / "summary.json").read_text())
        slowdown = summary["coscheduling"]["slowdown"]
        ends[policy] = (slowdown["J1"] * 3600, 10 + slowdown["J2"] * 3600)
        assert summary["coscheduling"]["jobs"] == {"J1": 1, "J2": 1, "parallel": 2}
    text = report.read_text()
    for policy, (j1, j2) in ends.items():
        assert f"| {policy.upper()} | {j1:.0f} | {j2:.0f} |" in text
    reduction = 100 * (ends["pred"][0] - ends["csm"][0]) / ends["pred"][0]
    assert f"| 5400 s against 8472 s: 36 % | {reduction:.1f} % |" in text
    # the whys' probes are computed from their runs: Fig. 4 under 1-s bursts, Fig. 12 with line 5 bounded
    probe = {p: json.loads((runs / "fig4-probe-1" / f"{p}-s1" / "summary.json").read_text())["coscheduling"]
             for p in ("pred", "csm")}
    lead = 100 * (probe["pred"]["slowdown"]["J1"] - probe["csm"]["slowdown"]["J1"]) / probe["pred"]["slowdown"]["J1"]
    assert f"J1 ends earlier under CSM by {lead:.1f} % (1-s bursts)" in text
    bounded = json.loads((runs / "bounded-medium-f100" / "s1" / "summary.json").read_text())["coscheduling"]
    pred = json.loads((runs / "medium-f100" / "pred-s1" / "summary.json").read_text())["coscheduling"]
    above = 100 * (bounded["slowdown"]["local"] - pred["slowdown"]["local"]) / pred["slowdown"]["local"]
    assert f"CSM's local slowdown is above PRED's by {above:.1f} % at mem_load 1.0" in text
    m = json.loads((runs / "medium-f100" / "csm-s1" / "summary.json").read_text())["coscheduling"]
    assert (f"| 100 ms | CSM | {m['mean_page_faults']:.0f} | {m['correlation']['parallel']:.3f} | "
            f"{m['slowdown']['small']:.2f} | {m['slowdown']['large']:.2f} |") in text
    paced = json.loads((runs / "paced" / "s1" / "summary.json").read_text())
    assert paced["runtime"] == "paced" and f"seed 1 at {paced['paced']['speed']:g}x" in text
    assert "## Real concurrency: paced against inline" in text and "| real concurrency |" in text
    assert (report.parent / "p001" / "fig4.png").exists() or "matplotlib" not in sys.modules


def test_an_unfaithful_paced_run_runs_again_slower(tmp_path, monkeypatch):
    """A paced run that the runtime reports unfaithful runs again at the next speed down, in turn, and keeps the
    first at which it is faithful, or the last; its unfaithful tries are listed, and the experiment's later runs
    start at the speed it kept. Resumed, a run starts at the speed an earlier invocation kept. (The runtime is
    stood in for: which speed is faithful is the machine's, and the test is of the stepping.)"""
    tried = []

    def execute(runs, out, address, resume=False):
        [r] = runs
        tried.append(r["config"]["speed"])
        r.update(error=None, unfaithful=[f"late at {r['config']['speed']}"] if r["config"]["speed"] > limit else [])

    def runs(*seeds):
        return [{"experiment": "paced", "config": {"speed": 100}, "dir": f"paced/s{s}", "seed": s} for s in seeds]
    monkeypatch.setattr(reproduce.sweep_runs, "execute", execute)
    ended, slower = [], {"paced": (50, 25, 10)}
    limit, two = 25, runs(1, 2)
    reproduce._paced(two, slower, tmp_path, None, False, ended.append)
    assert tried == [100, 50, 25, 25] and ended == two
    assert [r["config"]["speed"] for r in two] == [25, 25] and [r["unfaithful"] for r in two] == [[], []]
    assert two[0]["tried"] == [(100, ["late at 100"]), (50, ["late at 50"])] and two[1]["tried"] == []
    limit, tried[:], [one] = 1, [], runs(1)
    reproduce._paced([one], slower, tmp_path, None, False, ended.append)
    assert tried == [100, 50, 25, 10] and one["unfaithful"] == ["late at 10"] and len(one["tried"]) == 3
    (tmp_path / "paced" / "s1").mkdir(parents=True)
    (tmp_path / "paced" / "s1" / "summary.json").write_text(json.dumps({"config": {"speed": 25}}))
    limit, tried[:], [one] = 25, [], runs(1)
    reproduce._paced([one], slower, tmp_path, None, True, ended.append)
    assert tried == [25] and one["tried"] == []


def test_a_resumed_report_gives_the_pace_of_the_invocation_that_made_most_of_its_runs(tmp_path):
    """A resume that made few runs (or only re-analysed) would give its own machine's pace for runs made on
    another's: the report gives that of the invocation that made the most, with how many; a stopped one, which
    kept its start's pace only, is not it."""
    from emu.tools import pace
    from emu.tools.reproduce import INVOCATIONS, _busiest
    slow, fast = {"alone": 0.18, "pair": 0.36}, {"alone": 0.09, "pair": 0.09}
    lines = [{"made": 2000, "pace": [slow]},                        # stopped: its start only
             {"made": 1500, "pace": [fast, fast]}, {"made": 0, "pace": [slow, slow]}]
    (tmp_path / INVOCATIONS).write_text("".join(json.dumps(e) + "\n" for e in lines))
    assert _busiest(tmp_path, 0) == pace.words(fast, fast, made=1500)
    assert "as the invocation that made 1500 of the runs started" in _busiest(tmp_path, 0)
    assert _busiest(tmp_path, 1500) == ""                            # this one made as many: its own


def test_paired_differences_use_the_seeds_both_have():
    """A comparison paired by seed: the seed's own level cancels; a seed only one side has is left out."""
    a, b = {1: 10.0, 2: 20.0, 3: 30.0, 9: 99.0}, {1: 9.0, 2: 19.0, 3: 29.0}
    assert paired(a, b) == (1.0, 0.0)                                 # three equal differences: no spread
    mean, half = paired(a, b, relative=True)
    assert mean == pytest.approx((0.1 + 0.05 + 1 / 30) / 3) and half > 0


def test_p001_why_tells_the_seeds_spread_from_the_other_order():
    """An order that did not come out: a paired interval reaching zero is the seeds' spread, one that does not is
    the model's own order, and each is said as such."""
    from emu.tools.reproductions.p001.dynamic import _why
    tied = _why([("25 ms: CSM - PRED", (0.2, 0.5))])
    assert "within the seeds' spread" in tied and "the other way" not in tied and "25 ms: CSM - PRED 0.20 ± 0.50" in tied
    other = _why([("25 ms: CSM - PRED", (0.6, 0.5))], spread="")
    assert other.startswith("the other way") and "within the seeds' spread" not in other
    assert _why([]) == ""


def test_an_order_from_one_seed_says_its_spread_is_not_known():
    """With one seed (a quick run) a difference has no interval: neither the seeds' spread nor the other way."""
    from emu.tools.reproduce import order_why
    alone = order_why([("9 /MI: IO - IO-FC", (-1.5, float("nan")))], 1)
    assert alone == "one seed, whose spread is not known: 9 /MI: IO - IO-FC -1.5"
    both = order_why([("a", (0.2, 0.5)), ("b", (0.1, float("nan")))])
    assert both.startswith("within the seeds' spread") and both.endswith("one seed, whose spread is not known: b 0.10")



def test_a_change_that_is_not_the_least_says_by_how_much_paired_by_seed():
    """A claim that one curve changes least: each curve's change by seed, and where mine is not below another's,
    mine less theirs paired by seed; a pair where mine is below says nothing."""
    from emu.tools.reproductions.p003.common import change, steeper
    lo, hi = {1: 2.0, 2: 3.0, 3: 4.0, 7: 1.0}, {1: 5.0, 2: 5.0, 3: 7.0}
    mine = change(lo, hi)
    assert mine == {1: 3.0, 2: 2.0, 3: 3.0} and change(hi, lo, size=True) == mine     # seed 7 has one end only
    theirs = {1: 1.0, 2: 1.0, 3: 1.0}
    text = steeper([("mine's - theirs'", mine, theirs), ("theirs' - mine's", theirs, mine)])
    assert text.startswith("the other way") and "mine's - theirs' 1.67 ± 1.43" in text and "theirs' - mine's" not in text
    assert steeper([("theirs' - mine's", theirs, mine)]) == ""


@pytest.mark.slow
@pytest.mark.parametrize("paper", ["p000", "p001", "p002", "p004"])
def test_full_reproduction_runs_every_experiment(ray_local, tmp_path, paper):
    """The paper-scale reproductions (`nowemu reproduce PAPER`: p000 4 to 7 minutes on 2 cores, p002 a few
    hours, p004 20 to 35 minutes), run by `python -m pytest -m slow`: every run completes and every claim of
    the report is judged."""
    report = tmp_path / f"{paper}.md"
    assert cli.main(["reproduce", paper, "--out", str(tmp_path / "runs"), "--report", str(report)]) == 0
    text = report.read_text()
    assert "run(s) failed" not in text and "Scaled-down variant" not in text
    claims = [line for line in text.splitlines() if line.startswith(("| Fig. ", "| Table 1", "| §"))]
    assert claims and all(("| yes |" in c) + ("| **no** |" in c) + ("| not measured |" in c) == 1 for c in claims)


def test_p003_quick_writes_every_run_and_its_report(ray_local, tmp_path):
    """`nowemu reproduce p003 --quick`: Ch. 3's four experiments (Figs. 3.4, 3.5, 3.6, 3.9) at two values of their
    axes, each figure's policies and NLB (made once, in Fig. 3.4's runs, where the others share it; none in Fig.
    3.5), a fifth of the jobs; WAL-PM's sensitivities (Figs. 3.7, 3.8, 3.10, 3.11) at two values, Fig. 3.4's runs
    where the settings are its; Ch. 4's parallel jobs (Figs. 4.2 and 4.4, 30 % and 60 % parallel; BS beside the 30
    %) and sequential jobs (Fig. 4.1(a)) at the ends of the mean I/O rate, the memory-intensive load (Fig. 4.3, NLB
    among them) at the ends of the fault rate, the six applications' traces (Fig. 4.5) and five of them mixed (Fig.
    4.9); the tables' means are the runs' (one seed: the run's own mean slowdown), and every claim is decided."""
    from emu.tools.reproductions.p003 import apps, ch3, ch4, sensitivity
    report = tmp_path / "p003.md"
    assert cli.main(["reproduce", "p003", "--quick", "--out", str(tmp_path / "runs"), "--report", str(report)]) == 0
    runs = {p.parent.relative_to(tmp_path / "runs").parts for p in (tmp_path / "runs").rglob("summary.json")}
    ends = (ch4.RATES[0], ch4.RATES[-1])
    ch4_runs = {(ch4._name(pct, x), p) for pct in ch4.PANELS for x in ends for p in ch4.POLICIES} | {
        (ch4._name(pct, x), "bs") for pct in (0, 30) for x in ends} | {(ch4._name(0, x), "iocm_re") for x in ends} | {
        (ch4._memory(pct, f), p) for pct in ch4.PANELS for f in (ch4.FAULTS[0], ch4.FAULTS[-1]) for p in ch4.MEMORY} | {
        (f"fig4.5-{app}", p) for app in apps.APPS for p in apps.POLICIES} | {
        (apps._mix(pct, x), p) for pct in ch4.PANELS for x in (apps.MIXED[0], apps.MIXED[-1]) for p in apps.POLICIES}
    wal_pm = {sensitivity._name(fig, x): len(s.lines[2]) if s.lines else 1            # an experiment: its runs
              for fig, s in sensitivity.FIGS.items() for x in s.quick if x != s.fig34}
    assert {fig for fig, _ in runs} - {name for name, _ in ch4_runs} - set(wal_pm) == set(ch3.AXES)
    assert len(runs) == 2 * sum(len(ch3._runs(fig)) for fig in ch3.AXES) + len(ch4_runs) + sum(wal_pm.values())
    text = report.read_text()
    summary = json.loads((tmp_path / "runs" / "fig3.4" / "wal_pm-3.5_MI-s1" / "summary.json").read_text())
    assert summary["config"]["policy"]["name"] == "wal_pm" and summary["config"]["workload"][0]["jobs"] == 60
    row = next(line for line in text.splitlines() if line.startswith("| 3.5 /MI |"))
    assert row.split(" | ")[7] == f"{summary['metrics']['mean_slowdown']:.2f}"       # NLB, then the 7 in order
    claims = [line for line in text.splitlines() if line.startswith("| Fig. 3.")]
    assert len(claims) == 28 and all(("| yes |" in c) + ("| **no** |" in c) == 1 for c in claims)
    r_1 = json.loads(next((tmp_path / "runs" / sensitivity._name("fig3.11", 1)).glob("*/summary.json")).read_text())
    assert r_1["config"]["workload"][0]["io"]["reaccess"] == 1
    row = next(line for line in text.splitlines() if line.startswith("| 1 |"))       # Fig. 3.11's r = 1
    assert row.split(" | ")[1].rstrip(" |") == f"{r_1['metrics']['mean_slowdown']:.2f}"
    parallel = json.loads(next((tmp_path / "runs" / ch4._name(60, ch4.RATES[-1])).glob("iocm_re*/summary.json"))
                          .read_text())
    row = [line for line in text.splitlines() if line.startswith("| 1.5625 /MI |")][1]          # the 60 % table
    assert row.split(" | ")[4] == f"{parallel['metrics']['job_slowdown']['all']:.2f}"     # NLB, CPU, MEM, IOCM-RE
    claims = [line for line in text.splitlines() if line.startswith(("| Fig. 4", "| Figs. 4"))]
    assert len(claims) == 33 and all(("| yes |" in c) + ("| **no** |" in c) == 1 for c in claims)

def test_p003b_quick_writes_every_run_and_its_report(ray_local, tmp_path):
    """`nowemu reproduce p003b --quick`: Ch. 5's Systems A and B under Traces 1-4 (each trace's policies) and Fig.
    5.4 at two rates, a sixth of the jobs, one seed; Ch. 6's figures at the ends of their axes; the tables' means
    are the runs' own, and every claim is decided (those of Systems C-E, and the D → E rise, need the full run)."""
    from emu.tools.reproductions.p003b import ch5, ch6
    report = tmp_path / "p003b.md"
    assert cli.main(["reproduce", "p003b", "--quick", "--out", str(tmp_path / "runs"), "--report", str(report)]) == 0
    runs = {p.parent.relative_to(tmp_path / "runs").parts for p in (tmp_path / "runs").rglob("summary.json")}
    ch5_runs = [r for r in runs if not r[0].startswith(("fig5.7", "fig6", "fig7"))]
    assert len(ch5_runs) == 2 * (2 * len(ch5.ALL) + 2 * len(ch5.THREE)) + 2 * len(ch5.THREE)
    io_re = json.loads((tmp_path / "runs" / "trace1-A-io_re" / "s1" / "summary.json").read_text())
    assert io_re["config"]["policy"] == {"name": "io_re", "implicit": True, "request_size": 256 * 1024}
    summary = json.loads((tmp_path / "runs" / "trace1-B" / "iocm_re_hetero-s1" / "summary.json").read_text())
    assert summary["config"]["workload"][0]["jobs"] == 25
    text = report.read_text()
    row = next(line for line in text.splitlines() if line.startswith("| B |"))       # Trace 1's table first
    assert row.split(" | ")[-1].rstrip(" |") == f"{summary['metrics']['mean_slowdown']:.2f}"
    claims = [line for line in text.splitlines() if line.startswith("| Fig. 5.") and not line.startswith("| Fig. 5.7")]
    assert len(claims) == 15 and all(("| yes |" in c) + ("| **no** |" in c) == 1 for c in claims)
    # Fig. 5.7: DB2 and Pgrep with the slow disk 1 and 6 years old, each application at its derived access rate
    from emu.tools.reproductions.p003b import aging
    assert sum(1 for r in runs if r[0].startswith("fig5.7")) == 2 * 2 * len(aging.NAMES)
    old = json.loads(next((tmp_path / "runs" / "fig5.7-db2-6y").glob("iocm_re_hetero*/summary.json")).read_text())
    assert old["config"]["cluster"]["kinds"][1]["disk"]["bandwidth"] == 3.72 * 2 ** 20
    mips, io = old["config"]["cpu"]["mips"], old["config"]["workload"][0]["io"]
    new = old["config"]["cluster"]["kinds"][0]["disk"]                    # Table 5.2's one-year disk
    assert (new["seek"], new["rotation"], new["bandwidth"]) == (5.30e-3, 3.00e-3, 20 * 2 ** 20)
    service = new["seek"] + new["rotation"] + io["size"] / new["bandwidth"]   # its mean request
    share = io["rate"] * service / (1 + io["rate"] * service)             # rate: per CPU-second at speed 1
    assert abs(share - aging.SHARES["db2"]) < 1e-3 and mips == 100
    section = text[text.index("## DB2's trace against the slow disk's age"):]
    row = next(line for line in section.splitlines() if line.startswith("| 6 |"))
    assert row.split(" | ")[-1].rstrip(" |") == f"{old['metrics']['job_slowdown']['all']:.2f}"   # IOCM-RE last
    section = text[text.index("## DB2's trace against the slow disk's age, turn-around"):]   # the same runs'
    row = next(line for line in section.splitlines() if line.startswith("| 6 |"))
    assert row.split(" | ")[-1].rstrip(" |") == f"{old['metrics']['job_turnaround']['all']:.2f}"
    claims = [line for line in text.splitlines() if line.startswith("| Fig. 5.7")]
    assert len(claims) == 4 and all(("| yes |" in c) + ("| **no** |" in c) == 1 for c in claims)
    # Ch. 6: each figure's policies at its two ends (Fig. 6.2 at three buffer sizes), a tenth of the jobs
    assert sum(1 for _ in (tmp_path / "runs").glob("fig6.*/*/summary.json")) == sum(
        len(ends) * len(policies) for _, _, _, _, _, ends, policies in ch6.FIGS.values())
    wal_fc = next((tmp_path / "runs" / "fig6.4").glob("wal_fc-2.625*/events.jsonl")).read_text()
    assert '"event": "buffer"' in wal_fc                          # the controller resized the buffer
    claims = [line for line in text.splitlines() if line.startswith("| Fig. 6.")]
    assert len(claims) == 15 and all(("| yes |" in c) + ("| **no** |" in c) == 1 for c in claims)
    # Ch. 7: Fig. 7.4 at 4 and 16 tasks and two rates, 10 Mbps, 5 MB, the mixes at three shares, a quarter of the jobs
    from emu.tools.reproductions.p003b import ch7
    assert sum(1 for _ in (tmp_path / "runs").glob("fig7.*/*/summary.json")) == len(ch7.NAMES) * (2 * 2 + 2 + 2 + 2 * 3)
    com = json.loads(next((tmp_path / "runs" / "fig7.4").glob("com_aware-16-0.5*/summary.json")).read_text())
    assert com["config"]["workload"][0]["jobs"] == 16
    section = text[text.index("## Mean turn-around time over jobs, 0.5 /MI"):]
    row = next(line for line in section.splitlines() if line.startswith("| 16 |"))
    assert row.split(" | ")[-1].rstrip(" |") == f"{com['metrics']['job_turnaround']['all']:.2f}"   # COM-aware last
    claims = [line for line in text.splitlines() if line.startswith("| Fig. 7.")]
    assert len(claims) == 18 and all(("| yes |" in c) + ("| **no** |" in c) == 1 for c in claims)

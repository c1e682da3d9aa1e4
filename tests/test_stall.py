"""The stall guard (emu/engine/stall.py): a run whose jobs can make no more progress ends, every job counted, and
says so; a run that progresses slowly does not."""
import json

import pytest

from conftest import load
from emu.engine import cluster, stall
from emu.engine.conservative import InlineHosts, run_windows
from emu.engine.run import run
from emu.tools.sweep_runs import check_error
from policies.base import Policy

# 40 jobs on two workstations that report their load every second (the collector's events go on: a run with
# nothing left in its queues ends at once, stalled or not), a look every 100 s of virtual time
STALLING = ("mm1.toml", "workload.jobs=40", "cluster.nodes=2", "policy=cpu_threshold", 'stop.stall="100 s"')


@pytest.fixture
def odd_jobs_never_run(monkeypatch):
    """A policy bug, made on purpose: it holds every odd job off the CPU for ever (suspended, never resumed)."""
    monkeypatch.setattr(Policy, "runnable", lambda self, job, node: job.id % 2 == 0)


def test_a_run_that_cannot_progress_ends_as_stalled_with_every_job_counted(odd_jobs_never_run):
    result = run(load(*STALLING))
    s, states = result["summary"], result["summary"]["metrics"]["states"]
    stalled = s["stalled"]
    last_arrival = max(j["arrival"] for j in result["jobs"])
    # the even jobs ran and finished; nothing happened after the last of them but load samples
    assert states["done"] == 20 and states["suspended"] == 20 and stalled["held"] == 20
    assert stalled["at"] - stalled["since"] >= 100.0
    assert last_arrival < stalled["since"] < stalled["at"] == s["end"] < last_arrival + 400.0
    assert s["checks"]["jobs_accounted"]
    assert check_error(s) == stall.line(stalled)
    assert "held 20 job(s)" in stall.line(stalled)


def test_the_windows_of_the_stepped_runtime_stall_where_inline_does(odd_jobs_never_run):
    """The guard looks at window starts, which both runtimes know: the same end, the same jobs."""
    s = load(*STALLING)
    inline = run(s)
    bps = cluster.blueprints(s)
    hosts = InlineHosts([cluster.make(bp) for bp in bps])
    end = run_windows(hosts, cluster.lookahead(s), sum(len(bp.get("arrivals", ())) for bp in bps), s["stop"])
    windowed = sorted((j for f in hosts.finals() for j in f["jobs"]), key=lambda j: j["job"])
    assert end == inline["summary"]["end"] == inline["summary"]["stalled"]["at"]
    assert json.dumps(windowed) == json.dumps([{k: v for k, v in j.items() if k != "slowdown"}
                                               for j in inline["jobs"]])


def test_a_long_job_alone_is_no_stall():
    """One job of 2,000 s of work and nothing else happening to it (no I/O, no fault: no event of its own until
    it ends) under a look every 100 s: its CPU's busy time grows, so it is progress."""
    result = run(load("mm1.toml", "workload.jobs=1", 'workload.lifetime.distribution="fixed"',
                      'workload.lifetime.mean="2000 s"', "cluster.nodes=2", "policy=cpu_threshold",
                      'stop.stall="100 s"'))
    s = result["summary"]
    assert "stalled" not in s and s["metrics"]["jobs_done"] == 1
    assert result["jobs"][0]["cpu"] == pytest.approx(2000.0)


def test_nowemu_run_says_so_and_exits_with_status_4(odd_jobs_never_run, tmp_path, capsys):
    from conftest import SCENARIOS
    from emu.tools import cli
    name, *sets = STALLING
    status = cli.main(["run", str(SCENARIOS / name), *(a for s in sets for a in ("--set", s)), "--no-view",
                       "--out", str(tmp_path / "run")])
    stalled = json.loads((tmp_path / "run" / "summary.json").read_text())["stalled"]
    assert status == 4 and stalled["held"] == 20
    assert stall.line(stalled) in capsys.readouterr().out.replace("\n", "")


def _posted(sets: tuple, stop_at: float, clocks: tuple) -> list[list[dict]]:
    """Run a scenario in-process to `stop_at` (no look of its own), then what a paced host would post to its
    board at each of `clocks` (`Host._post`): every participant's snapshot with its figures."""
    from types import SimpleNamespace
    from actors.ray_actor import Host
    from emu.engine.inline import run_inline
    s = load(*sets, 'stop.when="time"', f'stop.time="{stop_at} s"', 'stop.stall="1e6 s"')
    bps = cluster.blueprints(s)
    host = Host(bps)
    run_inline(host.parts, host.heap, sum(len(bp.get("arrivals", ())) for bp in bps), s["stop"], cluster.lookahead(s))
    posts = []
    board = SimpleNamespace(post=SimpleNamespace(remote=posts.append))
    for t in clocks:
        host._post(board, t)
    return posts


def test_a_paced_driver_looks_at_the_figures_its_hosts_post(odd_jobs_never_run):
    """The paced runtime's guard: the driver reads the hosts' posts. Held jobs that never run: a stall at the
    first look a period after the first; a job running alone, no event of its own: none (its CPU's busy time
    as of each post's clock grows)."""
    stuck = _posted(STALLING, 1000.0, (1000.0, 1050.0, 1100.0))
    watch = stall.StallWatch({"stall": 100.0})
    assert watch.next == 100.0 and not watch.look(1000.0, stuck[0]) and watch.next == 1100.0
    assert not watch.look(1050.0, stuck[1])             # not due
    assert watch.look(1100.0, stuck[2]) and watch.report() == {"at": 1100.0, "since": 1000.0, "stall": 100.0,
                                                               "held": 20}
    assert not watch.look(1200.0, stuck[2])             # found once: the driver stops the actors once
    running = _posted(("mm1.toml", "workload.jobs=1", 'workload.lifetime.distribution="fixed"',
                       'workload.lifetime.mean="2000 s"', "cluster.nodes=2"), 500.0, (500.0, 600.0))
    watch = stall.StallWatch({"stall": 100.0})
    assert not watch.look(500.0, running[0]) and not watch.look(600.0, running[1]) and watch.at is None

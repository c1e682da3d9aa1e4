"""The paced runtime: workstations as Ray actors against the wall clock. It completes, reports its own
fidelity, and agrees with inline within the seed spread.

"Agrees within the seed spread" is checked as: the paced run's mean slowdown differs from the inline run of
the same seed by less than the inline runs differ across seeds (max - min over SEEDS). A paced run is its own
sample path: the milliseconds a message takes between hosts make load reports a little late, so a placement can go the
other way and the run takes another path from there. In an earlier 12-job memory scenario at 50x (r = 0.1 s
was 2 ms of wall time) such flips moved the mean slowdown of seed 8 from 2.19 to 2.67 and once to 3.04, above
every inline seed, and did so on CI. Asking that a single paced run fall inside the range of a few inline seeds
is therefore not a sound test; asking that timing noise stay smaller than workload noise is, and it still fails
on any gross distortion. The memory check now runs at 20x, where job messages have more time than a batch between hosts takes.
"""
import asyncio
import json
import time

import numpy as np
import pytest

from tests.conftest import ROOT, assert_balanced, load, run

SEEDS = tuple(range(7, 23))      # 16 inline seeds estimate the spread; each paced run uses one of them


def assert_agrees_with_inline(paced: dict, *args: str) -> None:
    inline = {s: run(*args, f"seed={s}")["summary"]["metrics"]["mean_slowdown"] for s in SEEDS}
    slowdown, seed = paced["summary"]["metrics"]["mean_slowdown"], paced["summary"]["seed"]
    spread = np.ptp(list(inline.values()))
    assert abs(slowdown - inline[seed]) <= spread, (slowdown, seed, inline)


@pytest.mark.ray
def test_paced_run_agrees_with_inline_spread(ray_local):
    paced = run("quickstart.toml", "workload.jobs=120", runtime="paced", speed=10.0)
    summary = paced["summary"]
    assert summary["metrics"]["jobs_done"] == 120
    assert_balanced(paced)
    fidelity, pace = summary["fidelity"], summary["paced"]
    for key in ("stragglers", "late_messages", "lateness_p99"):
        assert key in fidelity
    assert pace["event_lateness_ms_p99"] >= pace["event_lateness_ms_p50"] >= 0 and pace["events"] > 0
    assert pace["calls"] > 0 and pace["transit_ms_max"] >= pace["transit_ms_p99"] >= pace["transit_ms_p50"] > 0
    assert pace["job_window_ms"] == pytest.approx((0.1 + 0.0001) / 10.0 * 1e3)     # (r + latency) / speed
    assert len(summary["hosts"]) == 9 and summary["actors"] == 9     # 8 workstations + the collector, an actor each
    assert_agrees_with_inline(paced, "quickstart.toml", "workload.jobs=120")


@pytest.mark.ray
def test_paced_warns_when_too_fast(ray_local):
    """Too fast: at 1000x a remote execution's r = 0.1 s is 0.1 ms of wall time, less than a batch takes between
    two hosts (at 200x, 0.5 ms, the hosts' streams are now fast enough that some runs have no straggler), so
    job messages arrive after their deliver_at; the run completes and says so."""
    fast = run("quickstart.toml", "workload.jobs=60", runtime="paced", speed=1000.0)
    assert fast["summary"]["fidelity"]["stragglers"] > 0
    pace = fast["summary"]["paced"]
    assert pace["transit_ms_p99"] > pace["job_window_ms"]          # the reason, as the run measured it
    assert any("too high" in w or "cannot keep up" in w for w in fast["summary"]["warnings"])
    assert_balanced(fast)


def test_a_paced_warning_counts_its_stragglers_in_words():
    """No straggler, no warning; one is "a straggler", more are "stragglers" (reports quote these lines)."""
    from emu.engine.ray_runtime import paced_warnings

    def said(n):
        return paced_warnings({"fidelity": {"stragglers": n}, "paced": {
            "job_window_ms": 2.0, "transit_ms_p99": 1.6, "speed": 50, "event_lateness_ms_p99": 1.0}})
    assert said(0) == []
    assert said(1)[0].startswith("1 job-carrying message arrived after its destination had moved past its "
                                 "deliver_at (a straggler): a job message may have as little as 2.0 ms")
    assert said(3)[0].startswith("3 job-carrying messages arrived after their destination had moved past their "
                                 "deliver_at (stragglers)")


# Paper 000's SPEC programs (Table 1) at a tenth of their lifetimes, so that a paced run of memory reservation
# fits in under a minute of wall time at 20x (a remote execution's r = 0.1 s is then 5 ms of wall time, more
# than a batch between hosts takes); memory demands, the cluster and the policy are the paper's.
SPEC_TENTH = "workload.programs=[" + ", ".join(
    f'{{name="{name}", work="{work / 10:g} s", memory="{mb} MB"}}' for name, work, mb in
    (("apsi", 2619, 196), ("gcc", 228, 145), ("gzip", 249, 195), ("mcf", 969, 80), ("vortex", 345, 115),
     ("bzip", 403, 200))) + "]"


@pytest.mark.ray
def test_paced_memory_load_sharing_agrees_with_inline_spread(ray_local):
    """Issue 3's paced check: a scaled-down paper 000 scenario (SPEC memory demands, memory reservation, 4
    workstations, 24 jobs over 300 s) under the paced runtime on Ray at 20x. Inline runs of it reserve nodes and
    migrate to them on most seeds."""
    args = ("p000/spec.toml", "cluster.nodes=4", "workload.jobs=24", 'workload.arrival.span="300 s"', SPEC_TENTH)
    paced = run(*args, "seed=8", runtime="paced", speed=20.0)
    assert_balanced(paced)
    assert paced["summary"]["metrics"]["jobs_done"] == 24
    assert_agrees_with_inline(paced, *args)


class _Board:
    """The board, in-process: keeps the posts; a post is awaitable, as a Ray call is."""

    def __init__(self):
        self.posts = []

    def remote(self, snapshots):
        self.posts.append(snapshots)
        return self

    def __await__(self):
        return iter(())

    @property
    def post(self):
        return self


def test_a_host_behind_reports_the_lateness_of_every_event():
    """The paced loop, in-process and without Ray: a host whose clock started 0.4 s of wall time ago (4 virtual
    seconds at 10x) catches up on the events already due. Each of them was late, and each is recorded; the old
    recording (after a completed sleep only) saw none of them and reported a p99 of a tenth of a millisecond."""
    from actors.ray_actor import Host
    from emu.engine import cluster
    s = load("quickstart.toml", "workload.jobs=20", 'stop.when="time"', "stop.time=6.0")
    host, board = Host(cluster.blueprints(s)), _Board()
    behind, speed = 0.4, 10.0
    asyncio.run(host.run_paced(time.time() - behind, speed, 6.0, board))
    late = np.frombuffer(host.lateness)
    assert late.max() >= behind                           # the first reports, due at the epoch
    assert (late >= behind - 2.0 / speed).sum() >= 3 * 8   # the reports of 0, 1 and 2 s at least, on 8 nodes
    assert np.percentile(late, 99) > 0.2
    assert board.posts and all(snap["lateness_p99"] >= 0 for snap in board.posts[-1])


def test_staggered_reports_take_turns_within_the_period():
    """load_index.stagger: workstation i reports (and samples) first at i/N of the period, then every period;
    off by default, where every node reports at 0."""
    for stagger, phases in (("false", [0.0] * 4), ("true", [0.0, 0.25, 0.5, 0.75])):
        result = run("quickstart.toml", "cluster.nodes=4", "workload.jobs=10", f"load_index.stagger={stagger}")
        assert_balanced(result)
        first = {}
        for sample in result["samples"]:
            first.setdefault(sample["node"], sample["time"])
        assert [first[i] for i in range(4)] == phases


def test_bad_actors_is_one_line_and_exit_2():
    import subprocess
    import sys
    for args in (["--actors", "0"], ["--actors", "10"], ["--actors", "2", "--runtime", "inline"],
                 ["--actors", "2", "--runtime", "stepped"]):
        out = subprocess.run([sys.executable, "-m", "emu", "run", str(ROOT / "scenarios" / "quickstart.toml"),
                              "--no-view", *args], capture_output=True, text=True, cwd=ROOT)
        assert out.returncode == 2 and out.stderr.count("\n") == 1 and "actors" in out.stderr, (args, out.stderr)


@pytest.mark.ray
def test_paced_run_on_two_actors(ray_local):
    """--actors 2: the 8 workstations and the collector on two hosts, each one shared heap."""
    result = run("quickstart.toml", "workload.jobs=40", "load_index.stagger=true", runtime="paced", speed=20.0,
                 actors=2)
    summary = result["summary"]
    assert_balanced(result)
    assert summary["metrics"]["jobs_done"] == 40
    assert summary["actors"] == 2 and len(summary["hosts"]) == 9
    assert len({h["ray_node"] for h in summary["hosts"].values()}) == 1      # one Ray node here
    assert summary["paced"]["events"] > 0


def test_a_host_keeps_fine_slices_within_the_paced_now():
    """QuantumCPU ends bare slices in one loop up to the next event anywhere, and no further than its queue's
    horizon: a paced host sets that to the virtual now of each turn, so no workstation's clock runs ahead of
    the wall clock (where a message from another host could still be due)."""
    from actors.ray_actor import Host
    from emu.engine import cluster
    s = load("mm1.toml", "workload.jobs=4", 'workload.arrival.mean_interarrival="1 ms"', "cpu.mode=quantum",
             'cpu.time_slice="10 ms"', 'workload.lifetime.distribution="fixed"', 'workload.lifetime.mean="50 s"')
    host = Host(cluster.blueprints(s))
    for vnow in (0.5, 1.25, 3.0):
        while not host._advance(vnow, time.time(), 1.0):
            pass
        assert max(p.q.now for p in host.parts.values()) < vnow
    assert sum(p.cpu.dispatches for p in host.parts.values() if hasattr(p, "cpu")) > 200


def test_a_turn_ends_at_its_budget_and_the_next_goes_on(monkeypatch):
    """A paced host processes due events for at most TURN of wall time, then looks at its inbox before going on
    (a message that came meanwhile is applied before the host moves past its deliver_at): ending turns there
    changes nothing of what its participants compute."""
    import actors.ray_actor as ray_actor
    from emu.engine import cluster
    s = load("quickstart.toml", "workload.jobs=30", "cluster.nodes=3")

    def turns(budget: float):
        monkeypatch.setattr(ray_actor, "TURN", budget)
        host, count = ray_actor.Host(cluster.blueprints(s)), 1
        while not host._advance(60.0, time.time(), 1.0):
            count += 1
        return [p.final()["jobs"] for p in host.parts.values()], count

    whole, one = turns(60.0)
    sliced, many = turns(0.0)                   # one local event a turn
    assert one == 1 and many > 100
    assert json.dumps(sliced) == json.dumps(whole)


def test_a_host_stream_takes_frames_only_after_the_runs_token():
    """Paced hosts send batches over TCP streams of their own: bound to loopback for an embedded Ray, and a
    stream that does not open with the run's token is dropped unread (anyone on the machine can connect)."""
    import msgpack

    from actors.ray_actor import Host
    from emu.engine import cluster
    from emu.engine.envelope import encode_batch
    host = Host(cluster.blueprints(load("quickstart.toml", "cluster.nodes=2", "workload.jobs=2")))
    batch = encode_batch(host.parts[0].advance(0.0) or [])

    async def send(token: bytes, port: int) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        frame = msgpack.packb([time.time(), [(batch, [0])]])
        writer.write(token + len(frame).to_bytes(4, "big") + frame + bytes(4))
        await writer.drain()
        await reader.read()             # the host closes it: after the last frame, or at once on a bad token
        writer.close()

    async def scenario():
        address, port = await host.listen(True, b"0123456789abcdef")
        assert address == "127.0.0.1"
        await send(b"fedcba9876543210", port)
        assert not host.inbox and host.closed == 0
        await send(b"0123456789abcdef", port)
        assert len(host.inbox) == 1 and host.inbox[0][1] == [0] and host.closed == 1
        host.server.close()
    asyncio.run(scenario())

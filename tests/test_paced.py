"""The paced runtime: 8 workstations as Ray actors against the wall clock. It completes, reports its own
fidelity, and its mean slowdown lies within the spread of inline runs over several seeds."""
import numpy as np
import pytest

from tests.conftest import assert_balanced, run

SEEDS = (7, 8, 9, 10, 11, 12, 13, 14)


@pytest.mark.ray
def test_paced_run_agrees_with_inline_spread(ray_local):
    paced = run("quickstart.toml", "workload.jobs=120", runtime="paced", speed=10.0)
    summary = paced["summary"]
    assert summary["metrics"]["jobs_done"] == 120
    assert_balanced(paced)
    fidelity, pace = summary["fidelity"], summary["paced"]
    for key in ("stragglers", "late_messages", "lateness_p99"):
        assert key in fidelity
    assert pace["wake_lateness_ms_p99"] >= pace["wake_lateness_ms_p50"] >= 0
    assert len(summary["hosts"]) == 9                       # 8 workstations + the collector, each an actor
    inline = [run("quickstart.toml", "workload.jobs=120", f"seed={s}")["summary"]["metrics"]["mean_slowdown"]
              for s in SEEDS]
    slowdown = summary["metrics"]["mean_slowdown"]
    assert min(inline) <= slowdown <= max(inline), (slowdown, inline)
    # and closer to its own seed's inline run than the seeds are to one another
    same_seed = inline[SEEDS.index(summary["seed"])]
    assert abs(slowdown - same_seed) <= np.ptp(inline)


@pytest.mark.ray
def test_paced_warns_when_too_fast(ray_local):
    """Too fast: at 200x a remote execution's r = 0.1 s is 0.5 ms of wall time, less than a Ray call takes, so
    job messages arrive after their deliver_at; the run completes and says so."""
    fast = run("quickstart.toml", "workload.jobs=60", runtime="paced", speed=200.0)
    assert fast["summary"]["fidelity"]["stragglers"] > 0
    assert any("too high" in w or "cannot keep up" in w for w in fast["summary"]["warnings"])
    assert_balanced(fast)


@pytest.mark.ray
def test_paced_memory_load_sharing_agrees_with_inline_spread(ray_local):
    """Issue 3's paced check: a scaled-down paper 000 scenario (SPEC jobs, memory reservation, 4 workstations)
    under the paced runtime on Ray. Its virtual horizon is thousands of seconds, so it runs at 50x: a remote
    execution's r = 0.1 s is still 2 ms of wall time, and the load reports' 1 s period 20 ms. (At 100x it left
    the inline spread once, on a machine running two other reproductions at the same time.)"""
    args = ("p000/spec.toml", "cluster.nodes=4", "workload.jobs=12", 'workload.arrival.span="300 s"')
    paced = run(*args, "seed=8", runtime="paced", speed=50.0)
    assert_balanced(paced)
    assert paced["summary"]["metrics"]["jobs_done"] == 12
    inline = [run(*args, f"seed={s}")["summary"]["metrics"]["mean_slowdown"] for s in SEEDS]
    slowdown = paced["summary"]["metrics"]["mean_slowdown"]
    assert min(inline) <= slowdown <= max(inline), (slowdown, inline)
    assert abs(slowdown - inline[SEEDS.index(8)]) <= np.ptp(inline)

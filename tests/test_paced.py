"""The paced runtime: workstations as Ray actors against the wall clock. It completes, reports its own
fidelity, and agrees with inline within the seed spread.

"Agrees within the seed spread" is checked as: the paced run's mean slowdown differs from the inline run of
the same seed by less than the inline runs differ across seeds (max - min over SEEDS). A paced run is its own
sample path: Ray's few milliseconds per message make load reports a little late, so a placement can go the
other way and the run takes another path from there. In the 12-job memory scenario one such flip moves the
mean slowdown of seed 8 from 2.19 to about 2.67, above every one of 40 inline seeds (1.64-2.58), and it did so on
CI. Asking that a single paced run fall inside the range of a few inline seeds is therefore not a sound test;
asking that timing noise stay smaller than workload noise is, and it still fails on any gross distortion.
"""
import numpy as np
import pytest

from tests.conftest import assert_balanced, run

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
    assert pace["wake_lateness_ms_p99"] >= pace["wake_lateness_ms_p50"] >= 0
    assert len(summary["hosts"]) == 9                       # 8 workstations + the collector, each an actor
    assert_agrees_with_inline(paced, "quickstart.toml", "workload.jobs=120")


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
    execution's r = 0.1 s is still 2 ms of wall time, and the load reports' 1 s period 20 ms."""
    args = ("p000/spec.toml", "cluster.nodes=4", "workload.jobs=12", 'workload.arrival.span="300 s"')
    paced = run(*args, "seed=8", runtime="paced", speed=50.0)
    assert_balanced(paced)
    assert paced["summary"]["metrics"]["jobs_done"] == 12
    assert_agrees_with_inline(paced, *args)

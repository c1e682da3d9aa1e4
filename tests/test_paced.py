"""The paced runtime: workstations as Ray actors against the wall clock. It completes, reports its own
fidelity, and agrees with inline within the seed spread.

"Agrees within the seed spread" is checked as: the paced run's mean slowdown differs from the inline run of
the same seed by less than the inline runs differ across seeds (max - min over SEEDS). A paced run is its own
sample path: Ray's few milliseconds per message make load reports a little late, so a placement can go the
other way and the run takes another path from there. In an earlier 12-job memory scenario at 50x (r = 0.1 s
was 2 ms of wall time) such flips moved the mean slowdown of seed 8 from 2.19 to 2.67 and once to 3.04, above
every inline seed, and did so on CI. Asking that a single paced run fall inside the range of a few inline seeds
is therefore not a sound test; asking that timing noise stay smaller than workload noise is, and it still fails
on any gross distortion. The memory check now runs at 20x, where job messages have more than a Ray call's time.
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


# Paper 000's SPEC programs (Table 1) at a tenth of their lifetimes, so that a paced run of memory reservation
# fits in under a minute of wall time at 20x (a remote execution's r = 0.1 s is then 5 ms of wall time, more
# than a Ray call takes); memory demands, the cluster and the policy are the paper's.
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

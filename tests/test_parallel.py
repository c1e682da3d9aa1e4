"""Bulk-synchronous parallel jobs (paper 004 §7): tasks on different workstations that synchronize by real
messages; lingering tasks slow the whole job down (spec 004 §9's bounds)."""
import pytest

from tests.conftest import assert_balanced, load, run

P1 = "p004/ll_p1.toml"
G, ITERATIONS = 0.1, 100


def completion(*overrides: str) -> float:
    result = run(P1, *overrides)
    assert_balanced(result)
    assert result["summary"]["metrics"]["jobs_done"] == 8
    return result["summary"]["metrics"]["makespan"]


def test_on_idle_nodes_a_job_takes_its_compute_plus_its_messages():
    result = run(P1, "owner.nodes=0")
    assert_balanced(result)
    makespan = result["summary"]["metrics"]["makespan"]
    assert ITERATIONS * G < makespan < ITERATIONS * G * 1.01             # 1 KB messages at 155 Mbps: < 1 %
    jobs = result["jobs"]
    assert len({j["group"] for j in jobs}) == 1 and sorted(j["node"] for j in jobs) == list(range(8))
    assert all(j["sync"] > 0 and j["net"] == 0 for j in jobs)
    sync_bytes = 8 * 7 * ITERATIONS * 1024               # each task tells the 7 others at every iteration
    assert sync_bytes < result["summary"]["metrics"]["bytes_sent"] < sync_bytes * 1.3


@pytest.mark.parametrize("u", [0.2, 0.4])
def test_one_lingering_task_slows_the_job_at_least_by_its_share(u):
    """Spec §9: a task on a node at utilization u needs at least g / (1 - u) per phase, so the job's slowdown
    is at least 1 / (1 - u); fluid mode gives about that, fine mode more (the slowest burst decides)."""
    idle = completion("owner.nodes=0")
    fluid = completion(f"owner.utilization={u}", 'cpu.mode="fluid"') / idle
    fine = completion(f"owner.utilization={u}") / idle
    assert fluid == pytest.approx(1 / (1 - u), rel=0.02)
    assert fine >= fluid * 0.99


def test_more_nonidle_nodes_never_help_and_barrier_waits_for_all():
    idle = completion("owner.nodes=0")
    slowdowns = [completion(f"owner.nodes={k}") / idle for k in (1, 2, 4, 8)]
    assert all(b >= a * 0.97 for a, b in zip(slowdowns, slowdowns[1:])), slowdowns
    assert slowdowns[-1] <= 2.0 * 1.05            # paper: at most about 2 at 20 % even with all 8 nonidle
    news = completion("owner.nodes=8", "workload.parallel.barrier=false") / idle
    assert news <= slowdowns[-1]                  # neighbours only: no task waits for all the others


def test_bad_task_placement_is_one_clear_line():
    from emu.inputs.scenario import ScenarioError
    with pytest.raises(ScenarioError, match=r"parallel.nodes': expected 8 node ids from 0 to 7"):
        load(P1, "workload.parallel.nodes=[0, 1, 2]")

"""Accounting invariants on every kind of run: nothing lost, time split exactly, work conserved."""
import pytest

from tests.conftest import assert_balanced, run


@pytest.mark.parametrize("overrides", [
    (),
    ("policy=local",),
    ("policy=random",),
    ("cpu.mode=\"quantum\"",),
    ("load_index.exchange=\"gossip\"",),
    ("policy.hold=true", "policy.threshold=1"),
    ("network.bandwidth=\"10 Mbps\"",),
])
def test_every_run_balances(overrides):
    result = run("quickstart.toml", "workload.jobs=100", *overrides)
    assert_balanced(result)
    assert result["summary"]["metrics"]["jobs_done"] == 100


def test_stopping_early_reports_every_job_with_its_state():
    result = run("quickstart.toml", "stop.when=\"time\"", "stop.time=\"40 s\"", "network.bandwidth=\"10 Mbps\"")
    states = result["summary"]["metrics"]["states"]
    assert states["done"] < 200
    m = result["summary"]["metrics"]
    assert sum(states.values()) == m["jobs_submitted"]
    assert m["jobs_submitted"] + m["jobs_not_arrived"] == 200 and m["jobs_not_arrived"] > 0
    assert_balanced(result)
    assert states["pending"] + states["ready"] + states["running"] + states["blocked"] > 0
    unfinished = [j for j in result["jobs"] if j["state"] != "done"]
    assert all(j["finish"] < 0 for j in unfinished)
    c = result["summary"]["checks"]
    assert c["work_conservation_error"] < 1e-9
    assert c["jobs_accounted"]


def test_cpu_time_is_the_same_under_every_policy():
    """Spec 000 §6 oracle 2: T_cpu does not depend on the policy (homogeneous nodes, no switch overhead)."""
    totals = [run("quickstart.toml", "workload.jobs=80", "cpu.context_switch=0", *o)["summary"]["metrics"]["total_cpu_time"]
              for o in [("policy=local",), ("policy=random",), ()]]
    assert totals[1] == pytest.approx(totals[0], rel=1e-9)
    assert totals[2] == pytest.approx(totals[0], rel=1e-9)


def test_slowdown_is_at_least_one():
    result = run("quickstart.toml", "workload.jobs=100", "cpu.context_switch=0")
    assert min(j["slowdown"] for j in result["jobs"]) >= 1 - 1e-9

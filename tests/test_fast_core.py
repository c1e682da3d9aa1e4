"""The fast core's own guarantees (issue 21): what the inline runtime may skip, it skips without changing
what a run computes."""
from conftest import assert_balanced, run


def test_a_policy_that_reads_no_index_runs_without_load_exchange():
    """The papers' Base reads no load index, so its cluster exchanges none: no collector, no message on the
    network; the workstations still sample their load each period for the results."""
    local = run("quickstart.toml", "policy=local", "workload.jobs=40")
    shared = run("quickstart.toml", "workload.jobs=40")
    assert_balanced(local)
    assert local["summary"]["metrics"]["bytes_sent"] == 0
    assert shared["summary"]["metrics"]["bytes_sent"] > 0
    period = local["summary"]["config"]["load_index"]["period"]
    times = sorted({s["time"] for s in local["samples"]})
    assert len(times) > 2 and all(abs(b - a - period) < 1e-9 for a, b in zip(times, times[1:]))

"""Queueing theory holds: one workstation, Poisson arrivals, exponential work, round-robin with a small
time slice and no overhead is M/M/1-PS, whose mean response time is E[S] / (1 - rho)."""
import numpy as np
import pytest

from tests.conftest import assert_balanced, run


def batch_means_halfwidth(values, batches=30):
    """95 % interval half-width of the mean, by batch means (responses in a queue are correlated)."""
    b = np.asarray(values[: len(values) // batches * batches]).reshape(batches, -1).mean(axis=1)
    return 2.045 * b.std(ddof=1) / np.sqrt(batches)


@pytest.mark.parametrize("rho,jobs", [(0.5, 60_000), (0.8, 250_000)])
def test_mm1_processor_sharing_mean_response(rho, jobs):
    result = run("mm1.toml", f"workload.jobs={jobs}", f"workload.arrival.mean_interarrival={1 / rho}",
                 "cpu.mode=\"quantum\"", "cpu.time_slice=\"50 ms\"", "cpu.context_switch=0")
    responses = np.array([j["response"] for j in result["jobs"]])
    theory = 1.0 / (1.0 - rho)
    halfwidth = batch_means_halfwidth(responses)
    assert halfwidth / theory < 0.05, "not enough jobs for a 5 % test"
    assert abs(responses.mean() - theory) / theory < 0.05
    assert result["summary"]["metrics"]["cpu_utilization"] == pytest.approx(rho, rel=0.03)
    assert_balanced(result)


def test_littles_law_by_two_independent_measurements():
    """L (jobs present, integrated by the nodes) equals lambda W (from the jobs' own timestamps)."""
    result = run("quickstart.toml")
    m, c = result["summary"]["metrics"], result["summary"]["checks"]
    lam = m["jobs_done"] / m["makespan"]
    assert c["little_L"] == pytest.approx(lam * m["mean_response"], rel=1e-6)
    assert c["little_error"] < 1e-9


def test_fluid_and_quantum_levels_agree():
    fluid = run("quickstart.toml")["summary"]["metrics"]
    quantum = run("quickstart.toml", "cpu.mode=\"quantum\"")["summary"]["metrics"]
    assert quantum["mean_response"] == pytest.approx(fluid["mean_response"], rel=0.03)
    assert quantum["mean_slowdown"] == pytest.approx(fluid["mean_slowdown"], rel=0.03)

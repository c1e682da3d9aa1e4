"""The CPU at both fidelity levels, driven directly through its event queue."""
import pytest

from actors.cpu import FluidCPU, QuantumCPU
from actors.job import Job
from emu.engine.kernel import EventQueue


def make(cpu_cls, speed=1.0, slice_=0.01, cs=0.0, insertion=None):
    q = EventQueue()
    finished = []

    def on_stop(job):
        finished.append((job.id, q.now))
        return False
    cpu = cpu_cls(q, speed, on_stop, slice_, cs, insertion)
    return q, cpu, finished


def job(i, work, cls="local"):
    j = Job(id=i, home=0, arrival=0.0, work=work, cls=cls)
    j.stop_at = work
    return j


@pytest.mark.parametrize("cpu_cls", [FluidCPU, QuantumCPU])
def test_single_job_runs_work_over_speed(cpu_cls):
    q, cpu, finished = make(cpu_cls, speed=2.0)
    cpu.add(job(1, 3.0))
    q.run_until(100)
    assert finished == [(1, pytest.approx(1.5))]


@pytest.mark.parametrize("cpu_cls", [FluidCPU, QuantumCPU])
def test_two_equal_jobs_share_the_cpu(cpu_cls):
    q, cpu, finished = make(cpu_cls, slice_=0.001)
    a, b = job(1, 1.0), job(2, 1.0)
    cpu.add(a)
    cpu.add(b)
    q.run_until(100)
    assert [t for _, t in finished] == pytest.approx([2.0, 2.0], abs=2e-3)
    for j in (a, b):
        assert j.cpu == pytest.approx(1.0)
        assert j.cpu + j.queue == pytest.approx(2.0, abs=2e-3)


@pytest.mark.parametrize("cpu_cls", [FluidCPU, QuantumCPU])
def test_local_work_preempts_foreign_work_at_once(cpu_cls):
    q, cpu, finished = make(cpu_cls, slice_=0.1)
    cpu.add(job(1, 1.0, "foreign"))
    q.run_until(0.25)
    cpu.add(job(2, 0.5, "local"))
    q.run_until(100)
    assert finished[0] == (2, pytest.approx(0.75))        # the owner's job never waits for the foreign one
    assert finished[1] == (1, pytest.approx(1.5))


def test_a_held_cpu_runs_no_ready_job_and_counts_busy():
    """Paper 002's synchronous remote fault (`memory.remote_fault = "holds_cpu"`): while a job that left the
    ready set holds the CPU, the ready jobs wait (queue time, no progress) and the time is busy, not work."""
    q, cpu, finished = make(FluidCPU)
    a = job(1, 1.0)
    cpu.add(a)
    q.run_until(0.25)
    cpu.hold()
    q.run_until(0.75)
    cpu.replan()                # the jobs' accounts brought up to now
    assert (a.done, a.cpu, a.queue) == (pytest.approx(0.25), pytest.approx(0.25), pytest.approx(0.5))
    assert cpu.busy_time() == pytest.approx(0.75) and cpu.work == pytest.approx(0.25)
    cpu.hold(-1)
    q.run_until(100)
    assert finished == [(1, pytest.approx(1.5))]
    assert cpu.busy_time() == pytest.approx(1.5) and cpu.work == pytest.approx(1.0)


def test_quantum_charges_context_switches():
    q, cpu, finished = make(QuantumCPU, slice_=0.1, cs=0.01)
    cpu.add(job(1, 1.0))
    cpu.add(job(2, 1.0))
    q.run_until(100)
    # 20 slices of 0.1 s, each preceded by a switch (the two jobs alternate; the first dispatch switches too)
    assert finished[-1][1] == pytest.approx(2.0 + 20 * 0.01)
    assert cpu.switching == pytest.approx(20 * 0.01)
    assert cpu.work == pytest.approx(2.0)


def test_fluid_charges_switches_as_efficiency():
    q, cpu, finished = make(FluidCPU, slice_=0.1, cs=0.01)
    cpu.add(job(1, 1.0))
    cpu.add(job(2, 1.0))
    q.run_until(100)
    assert finished[-1][1] == pytest.approx(2.0 * 1.1)


def test_insertion_policy_decides_where_a_ready_job_goes():
    calls = []

    def arrivals_first(queue, job, reason):
        calls.append((job.id, reason))
        return 0 if reason == "arrival" else len(queue)

    q, cpu, finished = make(QuantumCPU, slice_=0.1, insertion=arrivals_first)
    cpu.add(job(1, 0.3))
    cpu.add(job(2, 0.1))
    cpu.add(job(3, 0.1))            # inserted at the front: runs before job 2
    q.run_until(100)
    assert [i for i, _ in finished] == [3, 2, 1]
    assert calls[:3] == [(1, "arrival"), (2, "arrival"), (3, "arrival")] and (1, "quantum") in calls


def test_stop_that_goes_on_keeps_the_slice():
    q = EventQueue()
    seen = []

    def on_stop(j):
        seen.append(q.now)
        if j.done < j.work:
            j.stop_at = j.work      # e.g. a change of memory demand: it goes on
            return True
        return False
    cpu = QuantumCPU(q, 1.0, on_stop, 0.1, 0.05, None)
    j = job(1, 0.08)
    j.stop_at = 0.03
    cpu.add(j)
    q.run_until(10)
    assert seen == [pytest.approx(0.08), pytest.approx(0.13)]   # one switch in, none at the stop

"""Paper 001's run-queue insertion policies (policies/rr, dyn, pred, csm) on spec 001 §8.2's hand-checkable
cases, and the starvation bound, without a workstation: a node here is what the policies read of one."""
import math
from types import SimpleNamespace

import pytest

import policies
from actors.job import Job


class Node:
    """What an insertion policy reads: message counts, and the page memory's over-commitment and sizes."""

    def __init__(self, over=False, pages=None):
        self.received, self.counts, self.sizes = {}, {}, pages or {}
        self.pages = SimpleNamespace(over=lambda: over, resident=lambda j: self.sizes[j.id][0],
                                     working_set=lambda j: self.sizes[j.id][1])
        self.queues = SimpleNamespace(queued=lambda j: self.counts.get(j.id, 0),
                                      rec=lambda j: self.received.get((j.group, j.rank), 0))


def task(i, mes=0.0, de=0, group=-1):
    j = Job(id=i, home=0, arrival=0.0, work=1.0, group=group)
    j.mes, j.de = mes, de
    return j


def insertion(name, **params):
    return policies.load(name, "INSERTION")(**params)


def test_case_i_csm_mode_overtakes_higher_fault_probabilities_within_bounds():
    # [R, A(local, pg 0.0, de 1), B(dist, pg 0.4, de 0), C(local, pg 0.3, de 0)] + h(dist, rec 0, pg 0.1)
    a, b, c, h = task(1, 0.0, 1), task(2, 0.5, 0, group=7), task(3, 0.0, 0), task(4, 0.5, 0, group=8)
    node = Node(over=True, pages={1: (10, 10), 2: (6, 10), 3: (7, 10), 4: (9, 10)})
    node.counts[4] = 1          # a message in flight: its mes stays > 0 (it is distributed)
    queue = [a, b, c]
    at = insertion("csm", mnol=2, mnod=2).insert(queue, h, "quantum", node)
    queue.insert(at, h)
    assert [j.id for j in queue] == [1, 4, 2, 3]
    assert (a.de, b.de, c.de) == (1, 1, 1)


def test_case_ii_predictive_mode_stops_at_the_starvation_bound():
    # [R, A(local, de 2), B(dist, mes 0.2, de 0)] + h(mes 0.9): B overtaken, A not (de 2 = MNOL)
    a, b, h = task(1, 0.0, 2), task(2, 0.2, 0, group=7), task(3, 0.9, 0, group=8)
    node = Node(over=False)
    node.counts[3] = 1          # eq. (2): 0.3 x 0.9 + 0.7 x 1 = 0.97
    for name in ("pred", "csm"):
        a.de, b.de = 2, 0
        queue = [a, b]
        at = insertion(name).insert(queue, h, "quantum", node)
        assert at == 1 and b.de == 1 and a.de == 2
        assert h.mes == pytest.approx(0.3 * (0.9 if name == "pred" else 0.97) + 0.7)


def test_case_iii_and_iv_a_waiting_message_goes_to_the_top_only_where_the_mode_says():
    queue = [task(1, 0.99, group=6), task(2, 0.99, group=7)]     # more messages than h: the predictive path
    h = task(3, 0.5, group=8)                                      # leaves it at the bottom
    for over, name, top in [(True, "csm", True), (True, "dyn", True), (False, "dyn", True), (False, "csm", False)]:
        node = Node(over=over, pages={1: (1, 1), 2: (1, 1), 3: (1, 1)})
        node.received[(8, 0)] = 1
        node.counts[3] = 1
        h.mes = 0.5
        at = insertion(name).insert(list(queue), h, "unblock", node)
        assert at == (0 if top else 2), (over, name)
    assert all(j.de == 0 for j in queue)      # a jump to the top counts no overtakes


def test_a_bounded_dynamic_mode_counts_its_overtakes():
    """CSM's `dynamic = "bounded"`: a task woken with a message waiting goes up past every task still within its
    starvation bound, each counting the overtake, and stops below one at its bound (a local task at MNOL)."""
    a, b, c, h = task(1, 0.0, 2), task(2, 0.5, 0, group=7), task(3, 0.0, 0), task(4, 0.5, 0, group=8)
    node = Node(over=True, pages={i: (1, 10) for i in (1, 2, 3, 4)})
    node.received[(8, 0)] = 1
    queue = [a, b, c]
    assert insertion("csm", dynamic="bounded").insert(queue, h, "unblock", node) == 1
    assert (a.de, b.de, c.de) == (2, 1, 1)


def test_local_tasks_and_rr_go_to_the_bottom():
    queue = [task(1, 0.1, group=7), task(2, 0.2, group=8)]
    node = Node(over=True, pages={1: (0, 10), 2: (0, 10), 3: (10, 10), 4: (10, 10)})
    assert insertion("csm").insert(queue, task(3), "arrival", node) == 2          # local (mes 0)
    node.counts[4] = 5
    assert insertion("rr").insert(queue, task(4, 1.0, group=9), "arrival", node) == 2


def test_overtakes_between_two_insertions_are_bounded_by_mnod():
    """Spec 001 §8.2 oracle 3: a distributed task is passed at most MNOD times between its insertions."""
    victim = task(1, 0.1, group=7)
    queue = [victim]
    node = Node(over=False)
    pred = insertion("pred", mnod=3)
    for i in range(10):
        h = task(10 + i, 5.0, group=20 + i)
        node.counts[h.id] = 9
        queue.insert(pred.insert(queue, h, "arrival", node), h)
    assert victim.de == 3 and queue.index(victim) == 3


def test_equal_keys_keep_fifo():
    node = Node(over=False)
    queue = [task(1, 0.7, group=7), task(2, 0.7, group=8)]
    h = task(3, 0.0, group=9)
    node.counts[3] = 1          # mes becomes 0.7: equal keys never overtake
    assert insertion("pred").insert(queue, h, "arrival", node) == 2


def test_literal_and_corrected_eq3():
    csm, literal = insertion("csm"), insertion("csm", pg_fault="literal")
    node = Node(pages={1: (6, 10), 2: (12, 10)})
    assert csm.fault_probability(task(1), node) == pytest.approx(0.4)
    assert literal.fault_probability(task(1), node) == pytest.approx(0.6)
    assert csm.fault_probability(task(2), node) == 0.0 and literal.fault_probability(task(2), node) == 0.0


def test_metrics_by_the_papers_equations():
    """Spec 001 §8.1 (6): one job of 4 tasks, tc 100, task responses 100..130: correlation 70 %; slowdown a
    ratio of sums; faults per task averaged per node, then over nodes."""
    from emu.engine.coscheduling import metrics
    from emu.engine.samples import Samples

    def row(job, node, group, finish, faults, work=100.0, program="large"):
        return {"job": job, "node": node, "group": group, "state": "done", "arrival": 0.0, "finish": finish,
                "response": finish, "work": work, "faults": faults, "program": program if group >= 0 else ""}
    jobs = [row(i, i, 0, 100.0 + 10 * i, faults=i) for i in range(4)]
    jobs += [row(4, 0, -1, 50.0, faults=10, work=25.0), row(5, 0, -1, 150.0, faults=20, work=25.0)]
    jobs.append(row(6, 1, 1, 60.0, faults=2, work=20.0, program="small"))     # a job of one task: no partner
    # the load reached: samples up to the last arrival (0 s here, and one later sample that does not count)
    samples = Samples(["node", "time", "jobs", "demand", "memory"],
                      [(0, 0.0, 3, 150.0, 100.0), (1, 0.0, 1, 50.0, 100.0), (0, 10.0, 9, 900.0, 100.0)])
    m = metrics(jobs, {i: 1.0 for i in range(4)}, samples)
    assert m["tasks_per_node"] == pytest.approx(2.0) and m["memory_load"] == pytest.approx(1.0)
    assert m["correlation"] == {"large": pytest.approx(70.0), "parallel": pytest.approx(70.0)}   # not the small one
    assert m["slowdown"]["large"] == pytest.approx(130.0 / 100.0)
    assert m["slowdown"]["small"] == pytest.approx(60.0 / 20.0)
    assert m["slowdown"]["local"] == pytest.approx((50.0 + 150.0) / 50.0)
    # node 0: tasks with 0, 10, 20 faults -> 10; node 1: 1 and 2 -> 1.5; nodes 2-3: 2, 3
    assert m["mean_page_faults"] == pytest.approx((10 + 1.5 + 2 + 3) / 4)


def test_a_top_insertion_preempts_only_when_asked():
    """Spec 001 §4.3 (register row 4): by default a task woken with a message waiting becomes the next to run;
    with `preempt` it takes the CPU at once and the task it displaced goes back by the policy, behind it."""
    from actors.cpu import QuantumCPU
    from emu.engine.kernel import EventQueue

    for preempt, when in ((False, 0.1), (True, 0.05)):
        q, node, picked = EventQueue(), Node(), []
        node.received[(7, 0)] = 1
        policy = insertion("dyn", preempt=preempt)
        cpu = QuantumCPU(q, 1.0, lambda j: False, 0.1, 0.0, lambda rq, j, reason: policy.insert(rq, j, reason, node),
                         on_dispatch=lambda j: picked.append((q.now, j.id)) or True)
        running, woken = task(1, 0.5, group=6), task(2, 0.5, group=7)
        for j in (running, woken):
            j.stop_at = j.work
        cpu.add(running)                    # on the CPU (an empty run queue: it is dispatched)
        q.at(0.05, lambda _: cpu.add(woken, "unblock"))
        q.run_until(0.06)
        assert cpu.queues[0] == [running if preempt else woken]    # displaced: back in the queue, next after it
        q.run_until(0.15)
        assert picked[:2] == [(0.0, 1), (pytest.approx(when), 2)], preempt


@pytest.mark.parametrize("case", ["low", "medium", "high"])
def test_the_dynamic_scenarios_arrive_at_the_calibrated_mit(case):
    """scenarios/p001/{low,medium,high}.toml are the reproduction's pdt-0.5 points: their streams' mean
    interarrival times are mit / share with mit from plan.MIT (the calibration's), to the digits written."""
    from emu.inputs import SCENARIOS
    from emu.inputs.scenario import load
    from emu.tools.reproductions.p001.plan import MIT, arrivals

    scenario = load(SCENARIOS / "p001" / f"{case}.toml")
    for item in arrivals(case, 0.5, MIT[case, 0.5]):
        key, value = item.split("=")
        stream = scenario["workload"][int(key.split(".")[1])]
        assert stream["arrival"]["mean_interarrival"] == pytest.approx(float(value.split()[0]), rel=1e-4)


def test_the_mapping_counts_what_it_sent_until_its_view_is_refreshed():
    """Two jobs mapped within one period do not land on the same least-loaded nodes: the first's tasks count
    in the second's mapping, though the node's own counting of each send changes its view (view_version), until
    reports refresh it (view_refreshes)."""
    node = SimpleNamespace(id=0, index={p: {"demand": 0.0} for p in (1, 2, 3)}, pager=SimpleNamespace(demand=0.0),
                           peers=lambda: [0, 1, 2, 3], view_version=0, view_refreshes=0)
    mapping = policies.load("least_mem")()

    def job(i):
        j = Job(id=i, home=0, arrival=0.0, work=1.0, group=i, memory=[[0.0, 100.0]])
        j.tasks = 2
        return j

    assert mapping.map_tasks(job(1), node) == [0, 1]
    node.view_version += 2                  # actors/migration.py counts each task sent in the view at once
    assert mapping.map_tasks(job(2), node) == [2, 3]
    node.view_version += 1
    node.view_refreshes += 1                # reports came: they show what is there now (no demand, here)
    assert mapping.map_tasks(job(3), node) == [0, 1]


def test_burst_lengths_drawn_by_block_are_splitmix64_one_at_a_time():
    """`Job.burst_length` draws a block of bursts at once with numpy: bit for bit the hash of one draw at a time,
    across a block's edge and back (a task's partners may be an iteration behind)."""
    mask = (1 << 64) - 1

    def one(seed, i):
        z = (seed + (i + 1) * 0x9E3779B97F4A7C15) & mask
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        z ^= z >> 31
        return -0.025 * math.log(1.0 - (z >> 11) / 9007199254740992.0)

    for seed in (0, 1, 12345, (1 << 63) - 1, 0x5DEECE66D0F1E2D3 & ((1 << 63) - 1)):
        job = Job(id=1, home=0, arrival=0.0, work=1.0, burst=0.025, burst_seed=seed)
        for i in (0, 1, 1022, 1023, 1024, 1023, 5000, 3):
            assert job.burst_length(i) == one(seed, i)
        assert "bursts" not in job.to_state()

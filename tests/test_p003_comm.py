"""Paper 003 (Qin's thesis), Chapter 7: master-slave jobs with Poisson messages of Gamma sizes, their
communication in the dedicated time (Eq. 7.2), the communication load (Eqs. 7.4-7.5) and COM-aware."""
from collections import defaultdict
from types import SimpleNamespace

import pytest

from actors.job import Job
from emu.inputs.scenario import ScenarioError
from emu.inputs.workload import generate
from policies.com_aware import communication_load, node_loads, slave_communication
from tests.conftest import assert_balanced, load, run

KB, MB = 2**10, 2**20
GBPS = 1e9 / 8
SMALL = ["workload.0.jobs=8", 'workload.0.arrival.span="20 s"']


def test_a_master_talks_to_every_slave_and_each_slave_to_its_master_at_the_messages_rate():
    """0.1 /MI at 1000 MIPS: a burst of 10 ms of CPU between messages; the job alone spends, per burst, its
    master's 15 messages of 512 KB one after another on a 1 Gbps link (Eq. 7.2's T_COM), in every task's
    dedicated time."""
    tasks = [j for j in generate(load("p003/comm.toml"), 32) if j.group == 0]
    assert len(tasks) == 16 and [t.rank for t in tasks] == list(range(16))
    assert [r for r, _ in tasks[0].partners] == list(range(1, 16))
    assert all([r for r, _ in t.partners] == [0] for t in tasks[1:])
    t = tasks[0]
    assert t.burst == pytest.approx(0.01) and (t.message, t.message_sd) == (512 * KB, 256 * KB)
    assert {x.work for x in tasks} == {t.work}
    assert t.dedicated_com == pytest.approx(t.work / 0.01 * 15 * 512 * KB / GBPS)
    assert t.dedicated(1.0) == pytest.approx(t.work + t.dedicated_io + t.dedicated_com)


@pytest.mark.parametrize("field, value, message", [
    ("workload.1.parallel.message_rate", '"0.1 /MI"', "need parallel.pattern = 'master'"),
    ("workload.0.jobs", "0", "at least one job"),
])
def test_bad_communication_settings_name_their_field(field, value, message):
    with pytest.raises(ScenarioError, match=message) as e:
        load("p003/comm.toml", f"{field}={value}")
    assert str(e.value).startswith(str(load("p003/comm.toml")["file"]))


def test_eq_7_4_a_slave_with_its_master_has_no_communication_load():
    """A master on node 0 with slaves on 0, 1 and 2: its load is its two off-node slaves'; the slave beside it
    has none; each away slave's is 2 x its remaining bursts x a message's time on the wire."""
    def task(rank, node, partners):
        j = Job(id=rank, home=0, arrival=0.0, work=0.5, group=0, rank=rank, burst=0.01, message=512 * KB,
                partners=partners, dedicated_io=0.2)
        j.done = 0.1
        return j, node
    one = 2 * 0.4 / 0.01 * 512 * KB / GBPS
    master, _ = task(0, 0, [[1, 0], [2, 1], [3, 2]])
    assert slave_communication(master, GBPS) == pytest.approx(one)
    assert communication_load(master, 0, GBPS) == pytest.approx(2 * one)
    near, far = task(1, 0, [[0, 0]])[0], task(2, 1, [[0, 0]])[0]
    assert communication_load(near, 0, GBPS) == 0.0
    assert communication_load(far, 1, GBPS) == pytest.approx(one)
    node = SimpleNamespace(id=0, speed=2.0, jobs={0: master, 1: near}, nic=SimpleNamespace(bandwidth=GBPS))
    cpu, com, disk = node_loads(node)           # Eq. 7.5, and the CPU and disk seconds still to use
    assert (cpu, com, disk) == pytest.approx((2 * 0.4 / 2.0, 2 * one, 2 * 0.2 * 0.8))


def test_messages_between_tasks_on_one_node_do_not_cross_its_link():
    """Under NLB every task runs at home: the jobs' thousands of 512-KB messages never reach a link (what the
    links carry is the load reports)."""
    r = run("p003/comm.toml", "policy=local", *SMALL)
    assert_balanced(r)
    jobs = r["jobs"]
    assert all(j["node"] == j["home"] for j in jobs)
    bursts = sum(j["work"] / 0.01 for j in jobs)
    assert bursts > 1000 and r["summary"]["metrics"]["bytes_sent"] < bursts * KB


@pytest.mark.parametrize("cost", ["0.1 s", "1000 s"])
def test_com_aware_sends_a_slave_only_where_both_criteria_hold(cost):
    """On a nearly idle cluster COM-aware sends most of a 16-task job's slaves to nodes of no communication load:
    a slave goes while Criterion 1 holds (the home's communication load above the node's by more than a slave's)
    and its expected time there (Eq. 3.9) plus the remote-execution cost beats home's (Criterion 2), which at a
    cost of 1000 s it never does: then every task stays with its master."""
    r = run("p003/comm.toml", "policy=com_aware", f'network.remote_exec_cost="{cost}"', *SMALL)
    assert_balanced(r)
    home = defaultdict(list)
    for j in r["jobs"]:
        home[j["group"]].append(j["node"] == j["home"])
    if cost == "0.1 s":
        assert all(1 <= sum(tasks) < len(tasks) / 2 for tasks in home.values())
    else:
        assert all(all(tasks) for tasks in home.values())
    assert r["summary"]["metrics"]["job_turnaround"]["parallel"] > 0

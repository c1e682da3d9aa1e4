"""Paper 003 (Qin's thesis), Chapter 5: heterogeneous platforms (Systems A-E), the capability-weighted rules of
IO-RE, CPU-RE and MEM-RE, IOCM-RE's dispatch, and the buffer hit ratio."""
from itertools import count
from types import SimpleNamespace

import pytest

from actors.buffer_cache import BufferCache
from actors.disk import Disk
from actors.job import Job
from emu.engine.results import buffer_hit_ratio
from emu.inputs.scenario import heterogeneity, node_specs
from policies.cpu_re import CPURemoteExecution
from policies.disk_view import DiskView
from policies.io_re import IORemoteExecution, disk_power
from policies.iocm_re_hetero import HeterogeneousIOCMRemoteExecution
from tests.conftest import assert_balanced, load, run

MB = 2**20
VERSIONS = count()
# Table 5.4's heterogeneity levels (CPU, memory, disk); B's disk printed "20", a misprint for 0 (its disks alike)
TABLE_5_4 = {"a": (0, 0, 0), "b": (0.27, 0.2, 0), "c": (0.27, 0.2, 0.25), "d": (0.35, 0.28, 0.2),
             "e": (0.35, 0.28, 0.3)}


@pytest.mark.parametrize("system", sorted(TABLE_5_4))
def test_each_systems_heterogeneity_level_is_table_5_4s(system):
    """Eqs. 5.2-5.5 on the scenario's nodes, to Table 5.4's two digits (C's disk is 0.245, E's 0.294)."""
    specs = node_specs(load(f"p003/hetero/{system}.toml"))
    levels = heterogeneity(specs)
    assert [levels[r] for r in ("cpu", "memory", "disk")] == pytest.approx(TABLE_5_4[system], abs=0.0065)
    assert len(specs) == 6 and sum(s["speed"] for s in specs) == pytest.approx(6.0)    # 600 MIPS in every system


def test_a_kinds_own_disk_replaces_the_clusters_fields_it_names():
    """System E's node 1 has a 5-year-old disk (Table 5.2, its seek extrapolated), node 3 a new one; a field a
    kind leaves out is the cluster's (`disk.buffer_cache`)."""
    specs = node_specs(load("p003/hetero/e.toml"))
    old, new = specs[0]["disk"], specs[2]["disk"]
    assert (old["seek"], old["rotation"], old["bandwidth"]) == pytest.approx((8.05e-3, 4.56e-3, 5.21 * MB))
    assert (new["seek"], new["rotation"], new["bandwidth"]) == pytest.approx((5.30e-3, 3.00e-3, 20 * MB))
    assert old["buffer_cache"] == new["buffer_cache"] == 64 * MB


def node(i: int, loads: dict, powers: dict, disk: Disk, jobs=(), speed=1.0, memory=416 * MB, demand=0.0,
         fault_rate=0.0):
    """Node i whose view holds its peers' reports: I/O load, disk power, jobs, demand, memory, speed."""
    index = {p: {"io": loads[p], "disk_power": powers[p], "ready": 1, "demand": 0.0, "memory": memory,
                 "speed": 1.0} for p in loads if p != i}
    return SimpleNamespace(id=i, index=index, view_version=next(VERSIONS), view_refreshes=next(VERSIONS), disk=disk, jobs=dict(enumerate(jobs)),
                           cpu=SimpleNamespace(queue_length=lambda: len(jobs)),
                           speed=speed, peers=lambda: sorted(loads), remote_io=SimpleNamespace(guests={}),
                           cache=BufferCache(SimpleNamespace(buffer_cache=64 * MB), "reaccess"),
                           pager=SimpleNamespace(user_memory=memory, demand=demand, fault_rate=fault_rate))


def test_io_re_weighs_each_nodes_threshold_by_its_disks_performance():
    """Eq. 5.6 by hand: I/O loads 300 (home, the job of rate 100 counted), 60 and 55 misses per CPU-second; disk
    performance (Eq. 5.1, 256 KB requests) 48.1 (home: 5.3 + 3.0 ms + 12.5 ms), 48.1 and 12.3 requests per
    second (a 6-year-old disk: 8.93 + 5.07 ms + 67.2 ms). Thresholds: 415 x D_i / 108.5: 183.9, 183.9, 47.1.
    Home is overloaded; node 2 has the least load but is above its own threshold, so the job goes to node 1."""
    home = Disk(None, 5.30e-3, 3.00e-3, 20 * MB)
    slow = Disk(None, 8.93e-3, 5.07e-3, 3.72 * MB)
    powers = {0: disk_power(home, 256 * 1024), 1: disk_power(home, 256 * 1024), 2: disk_power(slow, 256 * 1024)}
    assert powers[0] == pytest.approx(1 / (0.0083 + 0.0125)) and powers[2] == pytest.approx(1 / (0.014 + 0.25 / 3.72))
    policy = IORemoteExecution()
    n = node(0, {0: 200.0, 1: 60.0, 2: 55.0}, powers, home)
    policy.io_load = lambda _: 200.0                                    # home's own, as of now
    job = Job(7, 0, 0.0, 1.0, io_rate=100.0)
    loads = {0: 300.0, 1: 60.0, 2: 55.0}
    thresholds = policy.thresholds(loads, n)
    assert thresholds == pytest.approx({p: 415 * d / sum(powers.values()) for p, d in powers.items()})
    assert thresholds[2] == pytest.approx(47.1, abs=0.05) and thresholds[1] == pytest.approx(183.9, abs=0.05)
    assert policy.place(job, n) == 1
    # on a homogeneous cluster the threshold is the mean, and the least loaded node takes it
    powers[2] = powers[0]
    assert IORemoteExecution.thresholds(policy, loads, node(0, loads, powers, home)) == pytest.approx(
        {p: 415 / 3 for p in loads})


def test_cpu_re_counts_jobs_per_unit_of_speed():
    """A node of speed 2 has twice a speed-1 node's CPU threshold, and of two peers holding 3 jobs at speed 2
    and 2 jobs at speed 1 the first has the fewer per unit of speed (1.5 against 2)."""
    policy = CPURemoteExecution(threshold=2)
    view = {0: (4, 0.0, MB, 2.0), 1: (3, 0.0, MB, 2.0), 2: (2, 0.0, MB, 1.0)}
    assert policy.overload(view, 0) is None                              # 4 jobs, not above 2 x 2
    view[0] = (5, 0.0, MB, 1.0)
    assert policy.overload(view, 0) == 0
    policy.view = lambda job, node, here=1, planned=(): view
    assert policy.target(Job(1, 0, 0.0, 1.0), SimpleNamespace(id=0)) == 1


def test_iocm_re_hetero_follows_the_larger_of_a_nodes_explicit_and_implicit_io_loads():
    """Home pages (its demand, the job counted, above its memory: Eq. 3.3's 10 faults per CPU-second x 1.25 per
    job, 2 jobs) more than it misses (no explicit I/O): MEM-RE's memory rule, to the node of most idle memory.
    With a job of rate 100 and no paging the explicit load is the larger: IO-RE's rule, to the least I/O load."""
    home = Disk(None, 8e-3, 0.0, 40 * MB)
    powers = dict.fromkeys(range(3), disk_power(home, 256 * 1024))
    n = node(0, {0: 0.0, 1: 50.0, 2: 0.0}, powers, home, jobs=[Job(3, 0, 0.0, 5.0, memory=[(0.0, 300 * MB)])],
             memory=400 * MB, demand=300 * MB, fault_rate=10.0)
    n.index[1]["memory"], n.index[2]["demand"] = 800 * MB, 200 * MB
    policy = HeterogeneousIOCMRemoteExecution(criterion=False)         # the dispatch alone (the criterion: below)
    big = Job(8, 0, 0.0, 1.0, memory=[(0.0, 200 * MB)])
    assert policy.place(big, n) == 1                                    # the most idle memory: 800 MB, none used
    n.view_version = n.view_refreshes = next(VERSIONS)
    n.pager.demand = 100 * MB                                           # no paging now; an I/O-bound job
    n.index[1]["io"] = 100.0
    n.index[2]["io"] = 0.0
    n.jobs[0].io_rate, n.jobs[0].io_size, n.jobs[0].io_reaccess = 0.0, 256 * 1024, 5
    heavy = Job(9, 0, 0.0, 1.0, io_rate=100.0, io_size=256 * 1024, io_reaccess=5, memory=[(0.0, MB)])
    policy.io.io_load = lambda _: 300.0
    assert policy.place(heavy, n) == 2                                  # IO-RE: the least I/O load


def test_iocm_re_hetero_sends_a_job_only_where_it_pays():
    """System E under Trace 1, every job doing I/O (so IO-RE's branch decides): with the criterion (the default) a
    job leaves only if it expects to be done sooner there by more than the cost, so at Table 3.2's 0.1 s (and its
    50 MB of initial data) fewer jobs leave than by IO-RE's rule alone, and at a cost of 100,000 s none does."""
    sets = ("workload.variants=[]", "workload.jobs=30", 'workload.arrival.span="360 s"')
    away = {}
    for criterion, cost in (("true", "0.1 s"), ("false", "0.1 s"), ("true", "100000 s")):
        r = run("p003/hetero/e.toml", f"policy.criterion={criterion}", f'network.remote_exec_cost="{cost}"', *sets)
        assert_balanced(r)
        away[criterion, cost] = sum(j["node"] != j["home"] for j in r["jobs"])
    assert 0 < away["true", "0.1 s"] < away["false", "0.1 s"] and away["true", "100000 s"] == 0


def test_a_peer_is_estimated_with_its_own_cpu_speed_and_disk():
    """A peer's report with its disk's timing (`DiskView.timing`) gives a node like it: its speed and a disk whose
    service times are the peer's to the last bit; a peer without one, or not yet reported, is taken as this node."""
    old = Disk(None, 8.93e-3, 5.07e-3, 3.72 * MB)
    n = node(0, {0: 0.0, 1: 0.0}, {0: 1.0, 1: 1.0}, Disk(None, 5.30e-3, 3.00e-3, 20 * MB))
    n.index[1].update(speed=0.5, **DiskView.timing(SimpleNamespace(disk=old)))
    peer = DiskView.like(n, 1)
    assert peer.speed == 0.5 and peer.pager is n.pager
    for size, accesses in ((4096, 1), (256 * 1024, 1), (50 * 4096, 50)):
        assert peer.disk.service_time(size, accesses) == old.service_time(size, accesses)
    del n.index[1]["disk_timing"]
    assert DiskView.like(n, 1) is n and DiskView.like(n, 5) is n


def test_buffer_hit_ratio_is_one_less_the_misses_over_the_accesses():
    assert buffer_hit_ratio([{"io_accesses": 100.0, "io_requests": 20}, {"io_accesses": 0.0, "io_requests": 0}]) \
        == pytest.approx(0.8)
    assert buffer_hit_ratio([{"io_accesses": 0.0, "io_requests": 0}]) != buffer_hit_ratio([])     # NaN, both


def test_a_heterogeneous_run_balances_and_its_hit_ratio_stays_below_r_over_r_plus_1():
    """System E, a few Trace 1 jobs under IOCM-RE: the accounting holds and no more than r/(r+1) = 5/6 of the
    accesses hit (Eq. 3.5)."""
    r = run("p003/hetero/e.toml", "workload.jobs=30", 'workload.arrival.span="360 s"')
    assert_balanced(r)
    assert 0.0 < r["summary"]["metrics"]["buffer_hit_ratio"] < 5 / 6


def test_the_buffer_feedback_controller_follows_eq_6_2():
    """Slowdowns 2, 4, 1, 6 completing in turn (each job 1 s of work alone, its slowdown its response): the mean
    goes 2, 3, 2.33, 3.25. Eq. 6.2 with G_b = 0.5 MB and a first direction of +1: -0.5 MB (the mean rose), then
    -0.33 MB (it fell: the same direction), then +0.46 MB (it rose: the other). The buffer grows only into
    memory the jobs do not demand."""
    from policies.wal_fc import WALFeedback
    sizes = []
    pager = SimpleNamespace(memory=640 * MB, demand=100 * MB, buffer_cache=160 * MB, page_size=4096)

    def resize(size):
        pager.buffer_cache = size
        sizes.append(size)
    node = SimpleNamespace(id=0, now=0.0, speed=1.0, index={}, pager=pager, set_buffer_cache=resize,
                           log=lambda *a, **k: None)
    policy = WALFeedback()
    for slowdown in (2.0, 4.0, 1.0, 6.0):
        node.now = slowdown
        policy.finished(Job(1, 0, 0.0, 1.0), node)
    steps = [b - a for a, b in zip([160 * MB] + sizes, sizes)]
    assert steps == pytest.approx([-0.5 * MB, -MB / 3, 0.5 * MB * (7 / 3 - 3.25) * -1])
    latest, start = WALFeedback(history=1), pager.buffer_cache     # s_u the newly completed job's slowdown alone
    for slowdown in (2.0, 4.0, 1.0, 6.0):
        node.now = slowdown
        latest.finished(Job(1, 0, 0.0, 1.0), node)
    steps = [b - a for a, b in zip([start] + sizes[3:], sizes[3:])]
    assert steps == pytest.approx([-MB, -1.5 * MB, 2.5 * MB])     # 0.5 x (2 - 4), x (4 - 1) x -1, x (1 - 6) x -1
    pager.demand = 640 * MB - pager.buffer_cache            # the jobs use the rest: no room to grow
    policy.direction, policy.last = 1.0, 10.0              # the mean fell from 10: grow, were there room
    node.now = 1.0
    policy.finished(Job(2, 0, 0.0, 1.0), node)
    assert len(sizes) == 6

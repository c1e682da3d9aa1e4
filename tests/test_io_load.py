"""Paper 003's load-balancing arithmetic (policies/io_load.py) against values worked by hand from the thesis's
equations, with Table 3.2's platform: 800 MIPS, a 160 MB buffer, 256 KB requests, r = 5, 100 Mbps links and
40 MB/s disks."""

import pytest

from policies.io_load import (Queue, Stream, buffer_shares, cost_effectiveness, data_move, hit_rate,
                              implicit_io_load, io_load, iocm_cost, least_if_overloaded, migration_cost, overloaded, queue,
                              response, wait,
                              weighted_average_load, written_data)

MB = 2**20
KB256 = 256 * 1024
NET, DISK = 100e6 / 8, 40 * MB


def test_implicit_io_load_is_zero_until_memory_overflows_then_mu_times_demand_over_memory():
    assert implicit_io_load(100.0, 600 * MB, 640 * MB) == 0.0
    assert implicit_io_load(100.0, 640 * MB, 640 * MB) == 0.0           # fits exactly: no paging
    assert implicit_io_load(100.0, 800 * MB, 640 * MB) == pytest.approx(125.0)


def test_the_buffer_is_shared_by_io_volume_and_a_job_whose_data_outgrows_its_share_hits_less():
    # A: 1.5 No./MI at 800 MIPS = 1200 requests per CPU-s, 2 CPU-s; B: 0.5 No./MI = 400 /s, 10 CPU-s
    shares = buffer_shares([1200 * KB256, 400 * KB256], 160 * MB)
    assert shares == pytest.approx([120 * MB, 40 * MB])                  # 3 : 1
    # A's distinct data 1200 x 2 x 256 KB / 6 = 100 MB fits its 120 MB: the ceiling r/(r+1)
    assert hit_rate(1200, 2.0, KB256, 5, shares[0]) == pytest.approx(5 / 6)
    # B's 400 x 10 x 256 KB / 6 = 166.7 MB does not fit 40 MB: 5 x 40 / (6 x 166.7) = 0.2, as Eq. 3.8 gives
    # directly: r d_buf(i) / (t_j sum lam_k d_k) = 5 x 160 MB / (10 x 1600 x 256 KB)
    assert hit_rate(400, 10.0, KB256, 5, shares[1]) == pytest.approx(0.2)
    assert hit_rate(400, 10.0, KB256, 5, shares[1]) == pytest.approx(5 * 160 * MB / (10 * 1600 * KB256))
    assert buffer_shares([0.0, 0.0], 160 * MB) == [0.0, 0.0]             # no I/O: nothing to share


def test_io_load_adds_each_jobs_paging_to_the_accesses_that_miss():
    # two jobs, paging at 125 each (the overflow above), A missing 1/6 of 1200, B 0.8 of 400
    assert io_load(125.0, 2, [1200, 400], [5 / 6, 0.2]) == pytest.approx(250 + 200 + 320)
    assert io_load(125.0, 3, [1200, 400], [5 / 6, 0.2]) == pytest.approx(375 + 200 + 320)     # one without I/O


def test_weighted_average_load_normalises_each_index_by_the_clusters_largest():
    nodes = [(2, 100, 50), (4, 50, 0), (1, 200, 100)]
    wal = weighted_average_load(nodes, [(0.5, 0.2, 0.3)] * 3)
    # tops (4, 200, 100): 0.5 x 2/4 + 0.2 x 100/200 + 0.3 x 50/100; 0.5 x 1 + 0.2 x 1/4; 0.5/4 + 0.2 + 0.3
    assert wal == pytest.approx([0.5, 0.55, 0.625])
    assert weighted_average_load([(1, 0, 0), (2, 0, 0)], [(1, 1, 1)] * 2) == pytest.approx([0.5, 1.0])   # 0/0 is 0
    # each node by its own shares (WAL-RE's `weights = "node"`): the same tops, node 1 all CPU, node 0 all memory
    assert weighted_average_load([(2, 100, 0), (4, 50, 0)], [(0, 1, 0), (1, 0, 0)]) == pytest.approx([1.0, 1.0])
    assert not overloaded(wal, 2)                                      # highest, but 0.625 / 0.558 < 1.25
    assert overloaded([1, 1, 4], 2) and not overloaded([1, 1, 4], 0)  # 4 / 2 > 1.25
    assert not overloaded([0, 0], 0)
    # the rule's candidate: the least loaded node when home is overloaded, ties to home, then the lowest id
    assert least_if_overloaded({0: 1, 1: 1, 2: 4}, 2) == 0 and least_if_overloaded({0: 1, 1: 1, 2: 4}, 0) is None
    assert least_if_overloaded({3: 0, 5: 0, 7: 10}, 7) == 3


def test_local_response_time_is_cpu_sharing_plus_the_mg1_disk_behind_the_other_jobs():
    own = [Stream(10.0, 0.01)]                                         # 10 accesses of 10 ms per CPU-second
    other = queue([own])
    assert other.on_cpu == pytest.approx(1 / 1.1)                      # on the CPU 1/(1 + 0.1) of its time
    # the other issues 10 / 1.1 requests a second (E(L) < 1: the CPU all its own when there), rho 0.0909, and
    # Lambda E(s^2) = 9.09e-4: a request of ours waits 9.09e-4 / (2 x 0.909) = 0.5 ms behind them
    assert wait(other) == pytest.approx(5e-4)
    # 2 CPU-seconds shared with it, E(L) = 1 + 0.909; 20 requests of 10 ms plus the wait
    assert response(2.0, other, [(own, other)]) == pytest.approx(2 * (1 + 1 / 1.1) + 20 * 0.0105)    # 4.02818
    assert response(2.0, other, [(own, other)]) == pytest.approx(4.02818, abs=1e-5)
    # alone, a job takes its dedicated time: its own requests never queue behind each other
    assert response(2.0, Queue(), [(own, Queue())]) == pytest.approx(2.2)
    assert wait(Queue()) == 0.0


def test_an_io_bound_job_does_not_saturate_its_disk_alone_and_a_saturated_queue_is_held_below_rho_1():
    # lam s = 2: on the CPU a third of its time, so 33.3 requests a second, rho 2/3, E(s^2) 4e-4
    alone = queue([[Stream(100.0, 0.02)]])
    assert alone.on_cpu == pytest.approx(1 / 3)
    assert wait(alone) == pytest.approx((100 / 3) * 4e-4 / (2 * (1 - 2 / 3)))         # 0.02
    # three of them: E(L) = 1, rho 2 -> held at 0.99: 100 x 4e-4 / (2 x 0.01) = 2 s; but each has one request
    # outstanding at most (it blocks until served), so a request waits behind three at most: 60 ms
    three = queue([[Stream(100.0, 0.02)]] * 3)
    assert three.held == pytest.approx(0.06)
    assert wait(three) == pytest.approx(0.06)
    assert wait(three._replace(held=10.0)) == pytest.approx(100 * 4e-4 / 0.02)


def test_a_job_of_two_streams_is_on_the_cpu_for_the_share_both_leave_it_and_can_be_taken_away():
    # 10 explicit accesses of 10 ms and 5 faults of 20 ms per CPU-second: on the CPU 1/(1 + 0.1 + 0.1)
    job = [Stream(10.0, 0.01), Stream(5.0, 0.02)]
    q = queue([job])
    assert q == pytest.approx(Queue(1 / 1.2, 15 / 1.2, 0.2 / 1.2, (10 * 1e-4 + 5 * 4e-4) / 1.2, 0.2 / 15))
    assert wait(q) == pytest.approx(0.0025 / (2 * (1 - 0.2 / 1.2)))                   # 1.5 ms
    assert q.plus([Stream(1.0, 0.5)]).plus([Stream(1.0, 0.5)], -1) == pytest.approx(q)
    # a job whose share on the CPU is set by streams elsewhere, or that is not on this CPU (its I/O only here)
    assert Queue().plus([Stream(10.0, 0.01)], p=0.5, cpu=False) == pytest.approx(Queue(0.0, 5.0, 0.05, 5e-4, 0.01))


def test_remote_response_time_adds_the_data_nodes_disk_and_the_link():
    own = [Stream(10.0, 0.01)]                                         # its misses, at node k's disk
    disk = queue([[Stream(20.0, 0.01)]])                               # node k's job: 20 / 1.2 a second, rho 1/6
    link = queue([[Stream(11.0, 0.021)]])                              # 256 KB at 100 Mbps, 11 / 1.231 a second
    k = (20 / 1.2) * 0.01**2 / (2 * (1 - 0.2 / 1.2))                   # 1 ms
    net = (11 / 1.231) * 0.021**2 / (2 * (1 - 0.231 / 1.231))          # 2.43 ms
    sent = [Stream(10.0, 0.021)]
    # alone on its CPU: 2 s; 20 requests at k's disk, 20 transfers on the link, each its service plus the wait
    assert response(2.0, Queue(), [(own, disk), (sent, link)]) == pytest.approx(2 + 20 * (0.01 + k)
                                                                                + 20 * (0.021 + net))
    assert response(2.0, Queue(), [(own, disk), (sent, link)]) == pytest.approx(2.68851, abs=1e-5)


def test_migration_costs_and_cost_effectiveness():
    move = data_move(60 * MB, NET, DISK, DISK)
    assert move == pytest.approx(60 * MB / 12.5e6 + 1.5 + 1.5)         # 5.03 s on the link, 1.5 s per disk
    assert iocm_cost(0.1, 60 * MB, True, False, NET, DISK, DISK) == pytest.approx(0.1)        # I/O stays home
    assert iocm_cost(0.1, 60 * MB, False, True, NET, DISK, DISK) == pytest.approx(move)       # only I/O moves
    assert iocm_cost(0.1, 60 * MB, True, True, NET, DISK, DISK) == pytest.approx(0.1 + move)
    # 4 CPU-s at 1200 accesses per CPU-s, 30 % writes of 256 KB, each datum 6 times: 60 MB written
    written = written_data(4.0, 1200, 0.3, KB256, 5)
    assert written == pytest.approx(60 * MB)
    cost = migration_cost(0.5, 12.5e6, 60 * MB, written, NET, DISK, DISK)
    assert cost == pytest.approx(0.5 + 1.0 + 2 * move)
    assert cost_effectiveness(4.0, 1200, cost) == pytest.approx(4800 / cost)
    assert cost_effectiveness(0.0, 1200, cost) == 0.0                   # a newborn job: chosen only if alone

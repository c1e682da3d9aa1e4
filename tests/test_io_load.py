"""Paper 003's load-balancing arithmetic (policies/io_load.py) against values worked by hand from the thesis's
equations, with Table 3.2's platform: 800 MIPS, a 160 MB buffer, 256 KB requests, r = 5, 100 Mbps links and
40 MB/s disks."""
import math

import pytest

from policies.io_load import (Stream, buffer_shares, cost_effectiveness, data_move, hit_rate, implicit_io_load,
                              io_load, iocm_cost, migration_cost, on_cpu, overloaded, queue_time, response,
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
    wal = weighted_average_load(nodes, (0.5, 0.2, 0.3))
    # tops (4, 200, 100): 0.5 x 2/4 + 0.2 x 100/200 + 0.3 x 50/100; 0.5 x 1 + 0.2 x 1/4; 0.5/4 + 0.2 + 0.3
    assert wal == pytest.approx([0.5, 0.55, 0.625])
    assert weighted_average_load([(1, 0, 0), (2, 0, 0)], (1, 1, 1)) == pytest.approx([0.5, 1.0])   # 0/0 is 0
    assert not overloaded(wal, 2)                                      # highest, but 0.625 / 0.558 < 1.25
    assert overloaded([1, 1, 4], 2) and not overloaded([1, 1, 4], 0)  # 4 / 2 > 1.25
    assert not overloaded([0, 0], 0)


def test_local_response_time_is_cpu_sharing_plus_the_mg1_disk():
    two = [Stream(10.0, 0.01), Stream(10.0, 0.01)]
    assert on_cpu(two) == pytest.approx(2 / 1.1)                       # each on the CPU 1/(1 + 0.1) of its time
    # rates deflated by E(L) = 1.818: 5.5 each, Lambda 11, rho 0.11, E(s) 0.01, Lambda E(s^2) = 11 x 1e-4
    wait = 0.01 + 11 * 0.01**2 / (2 * (1 - 0.11))
    assert queue_time(two, on_cpu(two)) == pytest.approx(wait)
    assert response(2.0, 10.0, two) == pytest.approx(2 * (2 / 1.1) + 2 * 10 * wait)    # 3.8487
    assert response(2.0, 10.0, two) == pytest.approx(3.84872, abs=1e-5)
    assert queue_time([Stream(100.0, 0.02)]) == math.inf               # rho = 2: saturated
    assert queue_time([]) == 0.0 and response(1.0, 0.0, [Stream(0.0, 0.01)]) == pytest.approx(1.0)


def test_remote_response_time_adds_the_data_nodes_disk_and_the_link():
    cpu = [Stream(10.0, 0.01)]                                         # the job alone on its CPU: E(L) = 1/1.1
    disk = [Stream(20.0, 0.01)]                                        # node k: E(L) = 1/1.2, rate 24, rho 0.24
    link = [Stream(11.0, 0.021)]                                       # 256 KB at 100 Mbps, 11 per second
    k = 0.01 + 24 * 0.01**2 / (2 * (1 - 0.24))
    net = 0.021 + 11 * 0.021**2 / (2 * (1 - 11 * 0.021))
    assert response(2.0, 10.0, cpu, disk, link) == pytest.approx(2 / 1.1 + 20 * k + 20 * net)
    assert response(2.0, 10.0, cpu, disk, link) == pytest.approx(2.53284, abs=1e-5)


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

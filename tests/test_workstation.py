"""The workstation's parts: disk, network interface, pager, and their effect on jobs."""
import pytest

from actors.disk import Disk
from actors.memory import Pager
from actors.nic import NetworkInterface
from emu.engine.kernel import EventQueue
from tests.conftest import assert_balanced, load, run

MB = 2**20


def test_disk_serves_fifo_with_seek_rotation_and_transfer():
    q = EventQueue()
    disk = Disk(q, seek=0.0039, rotation=0.002, bandwidth=160 * MB)
    assert disk.service_time(4096) == pytest.approx(0.0059 + 4096 / (160 * MB))
    done = []
    for i in range(3):
        disk.submit(4096, done.append, i)
    assert disk.waiting == 3
    q.run_until(1)
    s = disk.service_time(4096)
    assert disk.waiting == 0
    assert disk.free_at == pytest.approx(3 * s)


def test_disk_without_queueing_serves_requests_independently():
    q = EventQueue()
    disk = Disk(q, 0.01, 0.0, 1e12, queueing=False)
    finishes = [disk.submit(4096, lambda _: None) for _ in range(3)]
    assert finishes == pytest.approx([0.01] * 3)


def test_a_request_beside_the_queue_neither_waits_nor_delays_the_queue():
    """`memory.fault_service = "fixed"`: a fault is served at once beside the explicit I/O's queue, and is
    still counted in the disk's activity (the load reports' implicit I/O)."""
    q = EventQueue()
    disk = Disk(q, 0.01, 0.0, 1e12)
    assert disk.submit(4096, lambda _: None) == pytest.approx(0.01)
    assert disk.submit(4096, lambda _: None, queued=False) == pytest.approx(0.01)
    assert disk.submit(4096, lambda _: None) == pytest.approx(0.02)
    assert disk.waiting == 3 and disk.busy == pytest.approx(0.03)


def test_faults_at_a_fixed_service_time_never_wait_for_the_disk():
    """Under `fixed` a faulted job's paging time is exactly its faults times one disk service; under the default
    (`disk`) some fault waits in the queue behind another request."""
    sets = ("policy=local", "workload.jobs=80")
    queued = run("quickstart.toml", *sets)
    fixed = run("quickstart.toml", *sets, 'memory.fault_service="fixed"')
    s = load("quickstart.toml", *sets)
    disk, page = s["disk"], s["memory"]["page_size"]
    per_fault = disk["seek"] + disk["rotation"] + page / disk["bandwidth"]
    faulted = [j for j in fixed["jobs"] if j["faults"]]
    assert faulted and all(j["page"] == pytest.approx(j["faults"] * per_fault) for j in faulted)
    waited = [j for j in queued["jobs"] if j["faults"] and j["page"] > j["faults"] * per_fault * (1 + 1e-9)]
    assert waited, "under the default some fault waits behind another request"
    assert_balanced(fixed)


def test_nic_queues_messages_on_the_link():
    nic = NetworkInterface(bandwidth=1.25e6, latency=1e-4)     # 10 Mbps
    first = nic.transmit(0.0, 125_000)                        # 0.1 s on the wire
    second = nic.transmit(0.0, 125_000)
    assert first == pytest.approx(0.1 + 1e-4)
    assert second == pytest.approx(0.2 + 1e-4)
    assert nic.transmit(1.0, 0, fixed=0.1) == pytest.approx(1.0 + 1e-4 + 0.1)


def test_pager_overflow_model():
    p = Pager(memory=100 * MB, swap=100 * MB, page_size=4096, fault_rate=50.0)
    p.demand = 80 * MB
    assert p.idle == 20 * MB and p.fault_rate_now() == 0
    p.demand = 200 * MB
    assert p.overflow() == pytest.approx(0.5)
    assert p.fault_rate_now() == pytest.approx(25.0)
    assert p.fits(0) and not p.fits(1)
    p.buffer_cache = 50 * MB                 # the buffer cache comes out of user memory
    assert p.user_memory == 50 * MB


def test_pager_demand_ratio_model():
    """Spec 000 §4.5 (b), the Zhang et al. lineage (spec 003 Eq. 3.3): no faults while the demand fits, then a
    rate proportional to D / M at once (a cliff, where the overflow model starts from zero)."""
    p = Pager(memory=100 * MB, swap=100 * MB, page_size=4096, fault_rate=400.0, fault_batch=50,
              fault_model="demand_ratio")
    p.demand = 100 * MB
    assert p.fault_rate_now() == 0
    p.demand = 102 * MB
    assert p.fault_rate_now() == pytest.approx(400.0 * 1.02 / 50)


def test_migration_costs_r_plus_image_over_bandwidth():
    """Spec 000 §2.1: preemptive migration costs r + D/B (D the memory image)."""
    result = run("quickstart.toml", "network.bandwidth=\"10 Mbps\"", "workload.jobs=200")
    migrations = [e for e in result["events"] if e["event"] == "migrate"]
    assert migrations, "the quick start must show migrations"
    excess = [e["cost"] - (0.1 + e["bytes"] / 1.25e6) for e in migrations]    # over r + D/B: link queueing
    assert min(excess) >= -1e-9
    assert min(excess) < 0.01                           # one that found its link free cost r + D/B and no more


def test_paging_appears_only_when_memory_overflows():
    roomy = run("quickstart.toml", "policy=local", "cluster.memory=\"16 GB\"", "workload.jobs=80")
    tight = run("quickstart.toml", "policy=local", "workload.jobs=80")
    assert roomy["summary"]["metrics"]["page_faults"] == 0
    assert tight["summary"]["metrics"]["page_faults"] > 0
    assert tight["summary"]["metrics"]["total_page_time"] > 0
    faulted = [j for j in tight["jobs"] if j["faults"]]
    assert all(j["page"] > 0 for j in faulted)


def test_explicit_io_goes_through_the_disk_and_the_buffer_cache_absorbs_reads():
    common = ("policy=local", "workload.jobs=60", "workload.io.rate=\"20 /s\"", "workload.io.size=\"64 KB\"")
    no_cache = run("quickstart.toml", *common)
    cached = run("quickstart.toml", *common, "disk.buffer_cache=\"64 MB\"")
    assert no_cache["summary"]["metrics"]["total_io_time"] > 0
    assert cached["summary"]["metrics"]["total_io_time"] < 0.2 * no_cache["summary"]["metrics"]["total_io_time"]
    assert_balanced(no_cache)
    assert_balanced(cached)


def test_memory_demand_follows_the_profile():
    s = load("quickstart.toml", "workload.jobs=5")
    from emu.inputs.workload import generate
    for j in generate(s, 8):
        assert [f for f, _ in j.memory] == sorted(f for f, _ in j.memory)
        assert j.memory[-1][1] == max(m for _, m in j.memory)        # ramp and hold
        assert 96 * MB <= j.peak_demand() <= 320 * MB


def test_swap_bounds_admission():
    """With memory + swap for about one large job, jobs wait in the pending pool instead of overcommitting."""
    flat = ("policy=local", "cluster.memory=\"256 MB\"", "workload.jobs=60", "workload.memory.ramp=0")
    capped = run("quickstart.toml", *flat, "cluster.swap=\"64 MB\"")
    free = run("quickstart.toml", *flat, "cluster.swap=\"8 GB\"")
    assert_balanced(capped)
    for r in (capped, free):
        assert r["summary"]["metrics"]["jobs_done"] == 60
    # waiting for admission replaces paging: more queueing, less paging
    assert capped["summary"]["metrics"]["total_page_time"] < free["summary"]["metrics"]["total_page_time"]
    samples = capped["samples"]
    assert max(s["demand"] for s in samples) <= (256 + 64) * MB or any(
        e["event"] == "over_swap" for e in capped["events"])
    assert max(s["pending"] for s in samples) > 0


@pytest.mark.parametrize("policy", ["random", "cpu_threshold"])
def test_a_job_that_may_not_leave_its_home_is_never_sent(policy):
    """workload.nonmigratable: the pinned jobs run where they arrive, whatever the policy would do with them."""
    from emu.engine.cluster import blueprints
    sets = (f"policy={policy}", "workload.jobs=200", "workload.nonmigratable=0.5", "policy.threshold=1")
    migratable = {j.id: j.migratable for bp in blueprints(load("quickstart.toml", *sets)) for j in bp.get("arrivals", ())}
    jobs = run("quickstart.toml", *sets)["jobs"]
    pinned = [j for j in jobs if not migratable[j["job"]]]
    assert 60 < len(pinned) < 140 and all(j["state"] == "done" for j in jobs)
    assert all(j["remote_execs"] == 0 and j["migrations"] == 0 and j["node"] == j["home"] for j in pinned)
    assert sum(j["remote_execs"] for j in jobs) > 0             # the others are sent


def test_io_rates_drawn_per_job_are_uniform_up_to_the_maximum_and_leave_every_other_draw():
    """Paper 003's "uniformly distributed between 0 and AR", drawn on a stream of its own."""
    from emu.inputs.workload import generate
    plain = generate(load("quickstart.toml", "workload.jobs=2000"), 8)
    drawn = generate(load("quickstart.toml", "workload.jobs=2000", 'workload.io.rate_max="30 /s"'), 8)
    assert [(j.arrival, j.home, j.work, j.memory) for j in drawn] == [(j.arrival, j.home, j.work, j.memory)
                                                                       for j in plain]
    rates = [j.io_rate for j in drawn]
    assert 0 <= min(rates) < 0.1 and 29.9 < max(rates) <= 30
    assert sum(rates) / len(rates) == pytest.approx(15.0, abs=0.6)      # 3 standard errors of the mean


def test_the_reaccess_cache_serves_r_of_every_r_plus_1_accesses_while_a_jobs_data_fits_its_share():
    """disk.cache_model = "reaccess" (paper 003, Eqs. 3.5-3.8). With a disk that serves each request alone, a
    job's I/O time is its misses (its io_requests) times one service; over its accesses, rate x work in
    expectation, the runs give the share that missed."""
    from emu.inputs.workload import generate
    common = ("policy=local", "workload.jobs=200", 'workload.io.rate="20 /s"', 'workload.io.size="64 KB"',
              'disk.cache_model="reaccess"', "disk.queueing=false")
    service = 0.008 + 0.002 + 64 * 1024 / (40 * MB)           # quickstart's disk: seek, rotation, transfer

    def missed(*extra):
        r = run("quickstart.toml", *common, *extra)
        assert_balanced(r)
        misses = sum(j["io_requests"] for j in r["jobs"])
        assert sum(j["io"] for j in r["jobs"]) / service == pytest.approx(misses)
        return misses / sum(j.io_rate * j.work for j in generate(load("quickstart.toml", *common, *extra), 8))
    assert missed('disk.buffer_cache="256 MB"') == pytest.approx(1.0, rel=0.03)       # r = 0: nothing again
    fits = missed('disk.buffer_cache="256 MB"', "workload.io.reaccess=5")            # at most 21 MB a job
    assert fits == pytest.approx(1 / 6, rel=0.06)
    assert missed('disk.buffer_cache="4 MB"', "workload.io.reaccess=5") > fits + 0.02   # outgrown shares


def test_the_reaccess_cache_shares_the_buffer_by_io_volume_among_the_jobs_that_do_io():
    """The jobs of tests/test_io_load.py's hand-worked example, as a node's resident jobs (one doing no I/O)."""
    from types import SimpleNamespace
    from actors.buffer_cache import BufferCache
    from actors.job import Job
    a = Job(0, 0, 0.0, 2.0, io_rate=1200.0, io_size=256 * 1024, io_reaccess=5)
    b = Job(1, 0, 0.0, 10.0, io_rate=400.0, io_size=256 * 1024, io_reaccess=5)
    idle = Job(2, 0, 0.0, 50.0)
    cache = BufferCache(SimpleNamespace(buffer_cache=160 * MB), "reaccess")
    assert cache.hit_ratio(a, [idle, a, b]) == pytest.approx(5 / 6)
    assert cache.hit_ratio(b, [idle, a, b]) == pytest.approx(0.2)
    assert cache.hit_ratio(b, [b]) == pytest.approx(5 * 160 / (6 * 166.66667), rel=1e-6)   # alone: all 160 MB
    # a job's dedicated I/O (its slowdown's) is with the buffer the node was given, whatever control made of it
    disk = SimpleNamespace(service_time=lambda size: 0.01)
    alone = cache.dedicated_io(b, disk)
    assert alone == pytest.approx(400 * 10 * (1 - cache.hit_ratio(b, [b])) * 0.01)
    cache.pager.buffer_cache = 16 * MB
    assert cache.hit_ratio(b, [b]) < 0.1 and cache.dedicated_io(b, disk) == pytest.approx(alone)


def test_request_sizes_drawn_from_a_gamma_keep_their_mean():
    """io.size_sd (paper 003: 256 KB requests with a deviation of 128 KB): each miss reads a Gamma-sized request."""
    common = ("policy=local", "workload.jobs=200", 'workload.io.rate="20 /s"', 'workload.io.size="256 KB"',
              "disk.queueing=false")

    def per_request(*extra):
        r = run("quickstart.toml", *common, *extra)
        return sum(j["io"] for j in r["jobs"]) / sum(j["io_requests"] for j in r["jobs"])
    fixed = per_request()
    assert fixed == pytest.approx(0.008 + 0.002 + 256 * 1024 / (40 * MB))
    assert per_request('workload.io.size_sd="128 KB"') == pytest.approx(fixed, rel=0.01)

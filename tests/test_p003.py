"""Paper 003 (Qin's thesis): the I/O-aware policies on the workstation's I/O model."""
from types import SimpleNamespace

import pytest

from actors.buffer_cache import BufferCache
from actors.job import Job
from policies.io_re import explicit_io_load
from tests.conftest import assert_balanced, run

MB = 2**20
SMALL = ("workload.jobs=100", 'workload.arrival.span="1200 s"')      # a third of scenarios/p003/io.toml


def test_a_nodes_explicit_io_load_is_what_misses_the_buffer():
    """Eqs. 3.2 and 3.4 on tests/test_io_load.py's hand-worked pair: 1200 x 1/6 + 400 x 0.8 accesses per CPU-second."""
    jobs = {0: Job(0, 0, 0.0, 2.0, io_rate=1200.0, io_size=256 * 1024, io_reaccess=5),
            1: Job(1, 0, 0.0, 10.0, io_rate=400.0, io_size=256 * 1024, io_reaccess=5),
            2: Job(2, 0, 0.0, 50.0)}
    node = SimpleNamespace(jobs=jobs, cache=BufferCache(SimpleNamespace(buffer_cache=160 * MB), "reaccess"))
    assert explicit_io_load(node) == pytest.approx(200 + 320)


def test_io_re_sends_jobs_away_from_io_hot_spots_and_shortens_their_time():
    """NLB leaves each job on its (uniformly drawn) home node; IO-RE sends it to the node of least explicit I/O
    load. Over three seeds, paired, the I/O time and the mean response fall."""
    for seed in (1, 2, 3):
        nlb = run("p003/io.toml", *SMALL, f"seed={seed}", "policy=local")
        io_re = run("p003/io.toml", *SMALL, f"seed={seed}", "policy=io_re")
        for r in (nlb, io_re):
            assert_balanced(r)
            assert r["summary"]["metrics"]["jobs_done"] == 100
        a, b = nlb["summary"]["metrics"], io_re["summary"]["metrics"]
        assert b["remote_executions"] > 0
        assert b["total_io_time"] < a["total_io_time"] and b["mean_response"] < a["mean_response"], seed


def test_slowdown_divides_by_the_cpu_and_io_time_a_job_would_take_alone():
    """Eq. 3.22: T_wall / (T_CPU + T_IO), T_IO the job's accesses that would miss with the whole buffer (alone,
    its distinct data fits it or not), each a mean request's service with no queue (8 ms + 256 KB / 40 MB/s)."""
    r = run("p003/io.toml", *SMALL, "policy=local")
    service = 0.008 + 256 * 1024 / (40 * MB)
    for job in (j for j in r["jobs"] if j["io_requests"]):
        assert job["dedicated_io"] > 0
        assert job["slowdown"] == pytest.approx(job["response"] / (job["work"] + job["dedicated_io"]))
    from emu.inputs.workload import generate
    from tests.conftest import load
    s = load("p003/io.toml", *SMALL)
    jobs = generate(s, 6)
    one = max(jobs, key=lambda j: j.io_rate * j.work)                     # its data outgrows the buffer alone
    row = next(j for j in r["jobs"] if j["job"] == one.id)
    data = one.io_rate * one.work * 256 * 1024 / 6
    h = 5 / 6 if data <= 160 * MB else 5 * 160 * MB / (6 * data)
    assert row["dedicated_io"] == pytest.approx(one.io_rate * one.work * (1 - h) * service)

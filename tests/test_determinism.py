"""Determinism: the same scenario and seed give byte-identical results under inline and stepped, every file of
the results folder (summary.json but for what says how it ran: RUNTIME); another seed gives other results.
Stepped runs on a real embedded Ray, one actor per workstation."""
import pytest

from emu.engine import results
from tests.conftest import assert_balanced, assert_identical_folders, run


def jobs_csv(result, path):
    results.write(result, path)
    return (path / "jobs.csv").read_bytes()

@pytest.mark.ray
@pytest.mark.parametrize("overrides", [
    # the stall guard looks every 5 s of virtual time (emu/engine/stall.py): at the same window starts
    ("workload.jobs=40", 'stop.stall="5 s"'),
    # 100-ms slices (paper 001's): a stepped run's cost is its windows, and the scenario's 10-ms slices on eight
    # nodes made it about three times as long (45 s against 16 s, timed by hand on 2026-11-29)
    ("workload.jobs=40", "cpu.mode=\"quantum\"", 'cpu.time_slice="100 ms"', "load_index.exchange=\"gossip\""),
])
def test_inline_and_stepped_are_byte_identical(ray_local, tmp_path, overrides):
    inline = run("quickstart.toml", *overrides)
    stepped = run("quickstart.toml", *overrides, runtime="stepped")
    assert inline["summary"]["metrics"]["migrations"] + inline["summary"]["metrics"]["remote_executions"] > 0
    assert_identical_folders(inline, stepped, tmp_path)
    assert_balanced(stepped)


def test_same_seed_same_results_other_seed_other_results(tmp_path):
    a = jobs_csv(run("quickstart.toml", "workload.jobs=60"), tmp_path / "a")
    b = jobs_csv(run("quickstart.toml", "workload.jobs=60"), tmp_path / "b")
    c = jobs_csv(run("quickstart.toml", "workload.jobs=60", "seed=8"), tmp_path / "c")
    assert a == b
    assert a != c


@pytest.mark.ray
@pytest.mark.parametrize("name, overrides", [
    ("p004/ll_c1.toml", ("cluster.nodes=6", "workload.jobs=10", 'workload.lifetime={distribution="fixed", mean="60 s"}',
                         "policy=linger_longer")),
    ("p004/ll_p1.toml", ("owner.nodes=3", "workload.parallel.iterations=20")),
    # paper 000's reservations (its first 1000 s: a stepped run's cost is its windows, and a long job's tail holds
    # thousands of seconds of them); paper 002's network RAM on a shared bus (its own scenarios' jobs run for
    # hours: millions of windows of 0.05 ms stepped)
    ("p000/spec.toml", ("cluster.nodes=6", "workload.jobs=60", 'workload.arrival.span="1200 s"', 'stop.when="time"',
                        'stop.time="1000 s"')),
    # paper 001: page memory, insertion by CSM, ring tasks mapped by least memory and messaging between actors;
    # arrivals and lifetimes shortened to a minute of virtual time (about 700 faults, two 4-task rings): a stepped
    # run's cost is its windows: the scenario's own span (about 2600 s) took 90 s, this one 15 s (timed by hand)
    ("p001/medium.toml", ("cluster.nodes=4", "workload.0.jobs=6", "workload.1.jobs=3", "workload.2.jobs=2",
                          "workload.1.parallel.sizes=[1]", "workload.2.parallel.sizes=[2, 4]",
                          'workload.0.arrival.mean_interarrival="1 s"', 'workload.1.arrival.mean_interarrival="4 s"',
                          'workload.2.arrival.mean_interarrival="4 s"', 'workload.0.lifetime.mean="5 s"',
                          'workload.1.lifetime.mean="5 s"', 'workload.2.lifetime.mean="8 s"', 'network.latency="10 ms"')),
    # paper 003: I/O through the re-access buffer model, IO-RE's index in the load reports
    ("p003/io.toml", ("workload.jobs=20", 'workload.arrival.span="60 s"', 'workload.lifetime.max="20 s"',
                      'network.latency="20 ms"',      # stepped's windows are a latency long: twice as many at 10 ms
                      'workload.io.initial_data="10 MB"')),   # sent when its read from the disk is done
    # paper 003's IOCM (a job's computation and I/O split: its data to its I/O node, each miss a request there and
    # its bytes back) and WAL-PM (migrations decided at arrivals, the data written so far moved along); at 20 ms
    # latency (half the stepped windows of 10 ms), where IOCM still splits jobs (four, in the first 45 s; five at
    # 10 ms) and WAL-PM still migrates (one, of 20 jobs) (inline runs, 2026-11-29)
    ("p003/io.toml", ("workload.jobs=40", 'workload.arrival.span="40 s"', 'workload.lifetime.max="20 s"',
                      'network.latency="20 ms"', 'workload.io.initial_data="10 MB"', "workload.io.read_fraction=0.5",
                      "policy=iocm", 'stop.when="time"', 'stop.time="45 s"')),
    ("p003/io.toml", ("workload.jobs=20", 'workload.arrival.span="20 s"', 'workload.lifetime.max="20 s"',
                      'network.latency="20 ms"', 'workload.io.initial_data="10 MB"', "workload.io.read_fraction=0.5",
                      "policy=wal_pm")),
    # paper 003's Ch. 4: parallel tasks with I/O mapped by IOCM-RE, preempted by IOCM-PM with their messages;
    # BS's central queue, by messages to and from node 0 (all 13 jobs through it at 20 ms, as at 10 ms)
    *[("p003/parallel.toml", ("cluster.nodes=6", "workload.0.jobs=8", "workload.1.jobs=5",
                              "workload.1.parallel.sizes=[2, 3, 4]", 'workload.0.arrival.span="20 s"',
                              'workload.1.arrival.span="20 s"', 'workload.0.lifetime.max="5 s"',
                              'workload.1.lifetime.max="5 s"', 'network.latency="20 ms"', f"policy={policy}"))
      for policy in ("iocm_pm", "bs")],
])
def test_every_family_is_identical_inline_and_stepped(ray_local, tmp_path, name, overrides):
    """Every paper's models across runtimes. Paper 004's: owners' bursts and episodes drawn inside each actor, evictions and
    migrations, and parallel tasks synchronizing by messages between actors."""
    inline = run(name, *overrides)
    stepped = run(name, *overrides, runtime="stepped")
    assert_identical_folders(inline, stepped, tmp_path)
    assert_balanced(stepped)


def test_every_random_stream_is_drawn_through_one_registry_of_distinct_purposes():
    """Two purposes drawing from one stream correlate what should be independent (a job stream's
    nonmigratable flags once shared a stream with node i's owner bursts): every purpose has its own number,
    and nothing outside `emu.inputs.streams` derives a stream of its own."""
    import pathlib

    from emu.inputs import streams
    purposes = {name: v for name, v in vars(streams).items() if name.isupper() and isinstance(v, int)}
    assert len(set(purposes.values())) == len(purposes) >= 6
    root = pathlib.Path(__file__).resolve().parents[1]
    rogue = [str(p.relative_to(root)) for d in ("emu", "actors", "policies") for p in (root / d).rglob("*.py")
             if "SeedSequence" in p.read_text() and p.name != "streams.py"]
    assert rogue == []

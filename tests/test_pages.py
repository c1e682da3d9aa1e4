"""Paper 001's page-level memory (actors/pages.py) alone, and a workstation running it (spec 001 §8)."""
import random

import numpy as np
import pytest

from actors.job import Job
from actors.pages import PageMemory
from emu.engine.run import run
from emu.inputs import scenario


def task(i, work=100.0):
    return Job(id=i, home=0, arrival=0.0, work=work)


def check(mem: PageMemory):
    """Spec 001 §8.2 oracle 7: no more pages than frames, none beyond a task's own, counts as the bitmaps."""
    assert mem.used == sum(t.res for t in mem.tasks.values()) <= mem.frames
    for t in mem.tasks.values():
        assert t.res == int(t.resident.sum()) <= t.vir
        assert np.isinf(t.stamp[~t.resident]).all() and np.isfinite(t.stamp[t.resident]).all()


def test_eq7_initial_residency_and_eviction_of_the_oldest():
    mem = PageMemory(1000, random.Random(1))
    a, b = task(1), task(2)
    mem.admit(a, 600, 1.0, 0.0, 0.0)          # N = 600 < M: all of it
    assert mem.resident(a) == 600
    mem.admit(b, 900, 1.0, 0.0, 0.0)          # N = 1500 >= M: 900 x 1000 / 1500
    assert mem.resident(b) == 600 and mem.resident(a) == 400 and mem.demand == 1500 and mem.over()
    check(mem)
    mem.release(a)
    assert mem.used == 600 and mem.demand == 900
    check(mem)


def test_eq7_from_free_frames_takes_no_resident_page():
    """`admission = "free"`: eq. (7)'s count, capped at the free frames; the others keep what they hold."""
    mem = PageMemory(1000, random.Random(1), admission="free")
    a, b, c = task(1), task(2), task(3)
    mem.admit(a, 600, 1.0, 0.0, 0.0)
    mem.admit(b, 900, 1.0, 0.0, 0.0)          # eq. (7): 600, but only 400 frames are free
    assert mem.resident(a) == 600 and mem.resident(b) == 400 and mem.used == 1000
    mem.admit(c, 100, 1.0, 0.0, 0.0)          # none free: it starts with nothing and faults its pages in
    assert mem.resident(c) == 0 and mem.resident(a) == 600 and mem.demand == 1600
    page = mem.reference(c)
    assert page >= 0
    mem.load(c, page)                         # the oldest page of the node goes: a's (admitted first)
    assert mem.resident(c) == 1 and mem.resident(a) == 599
    check(mem)


def test_a_task_not_scheduled_loses_its_pages_first():
    """Task-granular LRU: every dispatch stamps the task's resident working set, so faults of a busy task
    take the frames of one that does not run."""
    mem = PageMemory(100, random.Random(2))
    idle, busy = task(1), task(2)
    mem.admit(idle, 50, 1.0, 0.0, 0.0)
    mem.admit(busy, 80, 1.0, 0.0, 0.0)        # N = 130: 80 x 100/130 = 61, 11 of them from idle
    assert mem.resident(idle) == 39
    while mem.resident(busy) < 80:
        page = mem.reference(busy)
        if page >= 0:
            mem.load(busy, page)
    assert mem.resident(idle) == 20
    check(mem)


def oldest_page(mem: PageMemory) -> tuple:
    """The node's least recently used page, found the slow way: (task, page) of the smallest stamp as of now,
    equal stamps lowest page first."""
    _, owner, page = min((float(t.stamps()[p]), i, p) for i, t in mem.tasks.items()
                             for p in np.flatnonzero(t.resident))
    return owner, int(page)


@pytest.mark.parametrize("lru, frames", [("task", 500), ("page", 500), ("task", 40)])
def test_memory_is_conserved_and_faults_take_the_oldest_page_under_random_use(lru, frames):
    """Phases, dispatches, admissions and exits at random: every fault on a full node takes the page that the
    stamps, read whole, say is the oldest (each task's cached oldest page is a shortcut to it, never another
    answer). At 40 frames a task keeps a few pages, often only those loaded since it was dispatched."""
    rng = random.Random(3)
    mem = PageMemory(frames, random.Random(4), lru)
    live = []
    for step in range(3000):
        if not live or (rng.random() < 0.02 and len(live) < 6):
            j = task(step, work=50.0)
            mem.admit(j, rng.randint(1, 300), 0.6, 0.1, 0.05)
            live.append(j)
        elif rng.random() < 0.01:
            mem.release(live.pop(rng.randrange(len(live))))
        else:
            j = rng.choice(live)
            j.done += 0.5
            page = mem.reference(j)
            if page >= 0:
                victim = oldest_page(mem) if mem.used >= mem.frames else None
                mem.load(j, page)
                if victim:
                    assert not mem.tasks[victim[0]].resident[victim[1]]
        check(mem)


def test_fault_frequency_matches_the_corrected_eq3():
    """Spec 001 §8.1 (3): with the resident pages a frozen subset of the working set, the share of references
    that fault is 1 - res/wrk."""
    mem = PageMemory(10_000, random.Random(5))
    j = task(1)
    mem.admit(j, 1000, 1.0, 0.0, 0.0)         # one phase, the whole task its working set
    t = mem.tasks[1]
    out = np.arange(1000) >= 300                        # keep 300 pages: the corrected eq. (3) says 0.7
    t.resident[out], t.stamp[out], t.res = False, np.inf, 300
    mem.used, t.oldest = 300, None
    faults = sum(mem.reference(j) >= 0 for _ in range(20_000))
    assert faults / 20_000 == pytest.approx(0.7, abs=0.01)


LONE = """
name = "lone"
runtime = "inline"
cluster = { nodes = 1, memory = "4 MB" }
cpu = { mode = "quantum", time_slice = "100 ms", slices = "exponential", context_switch = 0 }
memory = { fault_model = "pages", fault_delay = "20 ms" }
policy = { name = "local" }
[[workload]]
jobs = 1
arrival = { process = "poisson", mean_interarrival = "1 s" }
lifetime = { distribution = "fixed", mean = "30 s" }
memory = { demand = "8 MB", working_set = 0.5, working_set_sd = 0.1, phase_length = 0.1 }
"""


def test_a_lone_task_takes_its_work_plus_the_paging_delay_per_fault(tmp_path):
    """Spec 001 §8.2 oracle 2: faults at the start of a dispatch, a pure 20 ms delay each, nothing else."""
    (tmp_path / "lone.toml").write_text(LONE)
    result = run(scenario.load(tmp_path / "lone.toml"), runtime="inline")
    (job,) = result["jobs"]
    assert job["state"] == "done" and job["faults"] > 100
    assert job["response"] == pytest.approx(30.0 + 0.02 * job["faults"], rel=1e-9)
    assert job["page"] == pytest.approx(0.02 * job["faults"], rel=1e-9)


def test_uses_at_one_instant_keep_their_order():
    """A task dispatched right after another, at the same virtual time, is the more recently used: when the
    other's fault brings a page in, the frame comes from the other's own pages (stamps are the order of uses,
    not times; with times the two tied and the task admitted first lost its page)."""
    mem = PageMemory(100, random.Random(6))
    first, second = task(1), task(2)
    mem.admit(first, 50, 1.0, 0.0, 0.0)
    mem.admit(second, 60, 1.0, 0.0, 0.0)             # N = 110: 60 x 100 / 110 = 54, 4 of them first's
    assert (mem.resident(first), mem.resident(second), mem.used) == (46, 54, 100)
    mem.reference(second)                            # second picked (it faults, say) ...
    mem.reference(first)                             # ... and first right after it
    missing = int(np.flatnonzero(~mem.tasks[2].resident)[0])
    mem.load(second, missing)                        # second's page comes in: a frame of second's own
    assert (mem.resident(first), mem.resident(second)) == (46, 54)
    check(mem)

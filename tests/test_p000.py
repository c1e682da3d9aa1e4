"""Papers 000/002: LS_RE (G-Loadsharing) and memory reservation (V-Reconfiguration). The reservation rules on a
hand-built load index (spec 000 §6 oracles 8 and the §4.2 rules), and on the emulator: the blocking signature
(total idle memory stays large while no workstation can take a job) and reservation at work, scaled down."""
import itertools
import math
import random
from types import SimpleNamespace

import pytest

from emu.inputs.workload import offered_load
from policies.ls_net_ram import NetworkRAMLoadSharing
from policies.ls_re import LoadSharing
from policies.m_reservation import MemoryReservation
from policies.suspension import JobSuspension
from tests.conftest import assert_balanced, load, run, two_at_a_time

MB = 2 ** 20
VERSIONS = itertools.count()        # every hand-built view is a new one (policies cache per view version)
SPEC = "p000/spec.toml"
SMALL = ("cluster.nodes=8", "workload.jobs=144")      # Trace-3 at its load per node: reproduce p000 --quick


def report(node, jobs, idle, blocked=False, largest=0.0, reservation="normal", host_for=-1, hosted=0):
    return {"node": node, "time": 0.0, "jobs": jobs, "idle": idle * MB, "memory": 384 * MB, "blocked": blocked,
            "largest": largest * MB, "reservation": reservation, "host_for": host_for, "hosted": hosted}


class Node(SimpleNamespace):
    """A workstation as policies read it, from a load index written by hand."""

    def __init__(self, node_id, view, jobs=(), idle=None, overflow=0.0):
        own = view[node_id]
        super().__init__(id=node_id, now=100.0, index={k: v for k, v in view.items() if k != node_id},
                         view_version=next(VERSIONS), view_refreshes=next(VERSIONS),
                         reported=own, jobs={j.id: j for j in jobs}, remote_cost=0.1, period=1.0,
                         nic=SimpleNamespace(bandwidth=10e6 / 8), events=[])
        idle = own["idle"] if idle is None else idle * MB
        self.pager = SimpleNamespace(idle=idle, user_memory=384 * MB, overflow=lambda: overflow)

    def load(self):
        return self.reported

    def log(self, kind, **fields):
        self.events.append(kind)


def job(job_id, demand, started=True, state="ready"):
    return SimpleNamespace(id=job_id, migratable=True, state=state, start=1.0 if started else -1.0,
                           demand=lambda: demand * MB)


def policy(**params):
    return MemoryReservation(**{"threshold": 4, "candidates": 3, "timeout": 1200.0, "max_reserving": 1, **params})


# A cluster of four: node 0 pages with two large jobs and no peer would take even its smaller one; node 3 has
# the most idle memory and one job.
def cluster(idle3=300):
    return {0: report(0, 3, 0, blocked=True, largest=196), 1: report(1, 4, 150), 2: report(2, 2, 120),
            3: report(3, 1, idle3)}


def test_the_chosen_node_reserves_itself_and_no_other_does():
    view = cluster()
    decided = {}
    for n in range(4):
        p, node = policy(), Node(n, view)
        p.migrations(node)
        decided[n] = p.reservation
    assert decided == {0: "normal", 1: "normal", 2: "normal", 3: "reserving"}


def test_no_reservation_unless_idle_memory_adds_up_to_a_node():
    """Activation guard: the cluster's idle memory must exceed the mean user memory (384 MB)."""
    view = cluster(idle3=100)           # 0 + 150 + 120 + 100 = 370 MB < 384 MB
    p = policy()
    p.migrations(Node(3, view))
    assert p.reservation == "normal"
    unguarded = policy(guard=0)         # a study setting: the guard off
    unguarded.migrations(Node(3, view))
    assert unguarded.reservation == "reserving"


def test_a_reserving_node_takes_nothing_and_a_reserved_one_only_migrations():
    p = policy()
    p.migrations(Node(3, cluster()))
    assert p.reservation == "reserving"
    assert not p.accept(job(9, 50), Node(3, cluster()))
    drained = Node(3, cluster(), jobs=(), idle=384)
    p.migrations(drained)
    assert p.reservation == "reserved" and p.host_for == 0
    assert not p.accept(job(10, 50, started=False), drained)     # a new job: no
    assert p.accept(job(11, 196), drained)                       # a migrated one: yes
    p.finished(job(11, 196), drained)
    assert p.reservation == "normal" and "unreserve" in drained.events


def test_early_end_reserves_once_the_largest_blocked_job_fits():
    """A15's alternative: the reserving period ends as soon as a blocked node's largest job (196 MB) would fit
    beside the node's own jobs, not when the node is empty (the default)."""
    own = job(5, 60)
    for early, expected in ((False, "reserving"), (True, "reserved")):
        p = policy(early_end=early)
        p.migrations(Node(3, cluster()))
        assert p.reservation == "reserving"
        still_busy = Node(3, cluster(), jobs=(own,), idle=250)
        p.migrations(still_busy)
        assert p.reservation == expected
        if early:
            assert p.host_for == 0 and p.accept(job(11, 196), still_busy)
    cramped = policy(early_end=True)
    cramped.migrations(Node(3, cluster()))
    cramped.migrations(Node(3, cluster(), jobs=(own,), idle=150))        # 150 MB: the 196-MB job does not fit
    assert cramped.reservation == "reserving"


def test_a_reserved_node_with_a_queue_runs_its_guests_first_come_first_served():
    """A21 (`queue`): a reserved node hosts any job its memory would hold, even with no room now, and gives
    its guests their turn in arrival order, as many as its memory (384 MB) and slots (2) hold; one that has
    started is never held off again. Without `queue` it hosts a job only when there is room for it now."""
    view = cluster()
    view[3] = report(3, 0, 384, reservation="reserved")
    p = policy(threshold=2, queue=True)
    p.reservation = "reserved"
    first, second, third = (job(k, demand, state="in_transit") for k, demand in ((1, 196), (2, 195), (3, 80)))
    node = Node(3, view, idle=384)
    for guest in (first, second, third):
        assert p.accept(guest, node)
        node.jobs[guest.id] = guest
    assert not p.accept(job(4, 400), node)                              # more than its memory: no
    assert [p.runnable(j, node) for j in (first, second, third)] == [True, False, False]   # 80 MB waits too
    first.state, second.state, third.state = "running", "suspended", "suspended"
    first.demand = lambda: 300 * MB                                     # grown: still its turn
    assert p.runnable(first, node) and not p.runnable(second, node)
    del node.jobs[1]
    p.finished(first, node)
    assert [p.runnable(j, node) for j in (second, third)] == [True, True]
    assert p.reservation == "reserved"
    strict = policy(threshold=2)
    strict.reservation = "reserved"
    busy = Node(3, view, jobs=(job(1, 196),), idle=188)
    assert not strict.accept(job(2, 195), busy) and strict.runnable(job(2, 195), busy)


def test_only_the_named_blocked_node_sends_and_only_once():
    view = cluster()
    view[3] = report(3, 0, 384, reservation="reserved", host_for=0)
    view[2] = report(2, 2, 50, blocked=True, largest=150)
    big, small = job(1, 196), job(2, 80)
    p0, node0 = policy(), Node(0, view, jobs=(big, small), overflow=0.2)
    assert p0.migrations(node0) == [(big, 3)]
    assert p0.migrations(node0) == []           # the host has not reported the job's arrival yet
    p2 = policy()
    assert p2.migrations(Node(2, view, jobs=(job(3, 150),), overflow=0.2)) == []


def test_ls_re_places_at_home_then_on_a_peer_then_waits():
    ls = LoadSharing(threshold=2)
    view = {0: report(0, 1, 100), 1: report(1, 1, 50), 2: report(2, 2, 300)}
    node = Node(0, view, jobs=(job(5, 10),), idle=100)
    node.rng = random.Random(0)
    assert ls.place(job(6, 60, started=False), node) == 0            # room and a slot at home
    node.jobs[7] = job(7, 10)
    assert ls.place(job(6, 40, started=False), node) == 1            # CPU full: the peer with a slot
    assert ls.place(job(6, 200, started=False), node) is None        # nobody has the memory: it waits


def test_g_loadsharing_with_migrate_moves_the_job_that_ends_the_overflow():
    """Paper 000's G-Loadsharing (`migrate`, A13): a page-faulting node sends the smallest job whose leaving ends
    its overflow (here 40 MB over: the 60-MB job, not the 200-MB one nor the 30-MB one) to a peer that would take
    it; failing that, the next job that has a taker; nothing if no job has one. Paper 002's LS_RE moves nothing."""
    view = {0: report(0, 3, 0), 1: report(1, 1, 100), 2: report(2, 3, 300)}      # node 2: no slot (threshold 3)
    jobs = (job(1, 200), job(2, 60), job(3, 30))
    node = Node(0, view, jobs=jobs, idle=0, overflow=0.1)
    node.pager.demand, node.rng = 424 * MB, random.Random(0)
    assert LoadSharing(threshold=3, migrate=True).migrations(node) == [(jobs[1], 1)]
    assert LoadSharing(threshold=3).migrations(node) == []
    view[1] = report(1, 1, 50)                                                   # 60 MB fits nowhere now
    node = Node(0, view, jobs=jobs, idle=0, overflow=0.1)
    node.pager.demand, node.rng = 424 * MB, random.Random(0)
    assert LoadSharing(threshold=3, migrate=True).migrations(node) == [(jobs[2], 1)]
    view[1] = report(1, 1, 10)
    node = Node(0, view, jobs=jobs, idle=0, overflow=0.1)
    node.pager.demand = 424 * MB
    assert LoadSharing(threshold=3, migrate=True).migrations(node) == []


def test_a_suspended_job_frees_its_slot_for_a_new_one():
    """Job suspension (paper 002's discussed baseline): a swapped-out job holds no job slot, so a new job runs
    at its home even when no peer has a slot (submissions go on)."""
    view = {0: report(0, 1, 100), 1: report(1, 2, 50)}                 # the one peer is full
    node = Node(0, view, jobs=(job(5, 10), job(7, 90, state="suspended")), idle=100)
    node.rng = random.Random(0)
    suspension = JobSuspension(threshold=2)
    assert not suspension.no_room(node)
    assert suspension.place(job(6, 60, started=False), node) == 0
    node.jobs[8] = job(8, 10)                                          # two jobs on the CPU: now it waits
    assert suspension.no_room(node) and suspension.place(job(6, 60, started=False), node) is None


@pytest.mark.parametrize("policy_class", [LoadSharing, MemoryReservation, JobSuspension, NetworkRAMLoadSharing])
def test_no_room_never_hides_a_placement(policy_class):
    """`no_room` lets a workstation skip retrying its pending pool: on random views, whenever it says so, the
    whole of `place` (its own use of the shortcut turned off) keeps every job waiting; and it does say so."""
    rng = random.Random(7)
    fired, states = 0, ("ready", "running", "suspended")
    for _ in range(400):
        view = {p: report(p, rng.choice([1, 2, 2, 3]), rng.choice([0, 20, 100, 300])) for p in range(4)}
        jobs = [job(10 + k, rng.choice([10, 90, 200]), state=rng.choice(states)) for k in range(rng.randint(0, 3))]
        node = Node(0, view, jobs=jobs, idle=rng.choice([0, 50, 300]))
        node.rng = random.Random(1)
        policy, full = policy_class(threshold=2), policy_class(threshold=2)
        full.no_room = lambda node: False
        if policy.no_room(node):
            fired += 1
            for demand in (1, 60, 250):
                for migratable in (True, False):
                    new = job(99, demand, started=False)
                    new.migratable = migratable
                    assert full.place(new, node) is None
    assert fired > 20


def test_a_node_whose_jobs_all_wait_for_the_disk_is_still_blocked():
    """A paging node's jobs spend most of their time waiting for their pages: at a load-report instant they may
    all be off the CPU. The node is blocked all the same (it used to flicker out of blocking, and each flicker
    cancelled a reserving period), and the policy still names its largest job."""
    view = cluster(idle3=150)           # no peer has 190 MB idle and a slot
    waiting = (job(1, 196, state="blocked"), job(2, 190, state="blocked"))
    node = Node(0, view, jobs=waiting, overflow=0.02)
    assert LoadSharing(threshold=4).blocked(node)
    assert policy().report(node)["largest"] == 196 * MB


def test_a_job_waiting_for_its_pages_migrates_once_they_are_in():
    """`Migration.migrate` of a job blocked on the disk: the job stays until its page read completes, then goes
    (its time up to then is paging, and the accounting still balances)."""
    from actors.workstation import Workstation
    from emu.engine import cluster, results
    from emu.engine.inline import run_inline
    from policies.base import Policy
    # ls_re: a policy that reads the load index, so that the cluster exchanges one (the hook runs on it)
    s = load(SPEC, "cluster.nodes=2", "workload.jobs=1", "policy=ls_re", 'cluster.memory="64 MB"')
    asked = []

    class MoveWhenBlocked(Policy):
        def migrations(self, node):
            waiting = [j for j in node.jobs.values() if j.state == "blocked"]
            if waiting and not asked:
                asked.append((node.now, waiting[0].id))
                return [(waiting[0], 1 - node.id)]
            return []

    parts, heap, _ = cluster.in_process(cluster.blueprints(s))
    for p in parts.values():
        if isinstance(p, Workstation):
            p.policy = MoveWhenBlocked()
    end = run_inline(parts, heap, 1, s["stop"], cluster.lookahead(s))
    result = results.assemble([p.final() for p in parts.values()], s, end, {})
    assert_balanced(result)
    (when, job_id), = asked
    moved = [e for e in result["events"] if e["event"] == "migrate"]
    assert [e["job"] for e in moved] == [job_id]
    assert moved[0]["time"] > when                      # it left when its pages were in, not when asked
    row, = result["jobs"]
    assert row["state"] == "done" and row["migrations"] == 1 and row["node"] == moved[0]["dest"]


def small_run(policy: str) -> dict:
    return run(SPEC, *SMALL, f"policy={policy}")


@pytest.fixture(scope="module")
def small_runs():
    """G-Loadsharing and M-Reservation on the same jobs, two at a time (CI's time is capped)."""
    policies = ("ls_re", "m_reservation")
    return dict(zip(policies, two_at_a_time(small_run, policies)))


def blocked_samples(seed: int) -> tuple[int, list[tuple[float, bool]]]:
    """One seed of the blocking signature under G-Loadsharing: its sample times, and for each time some node
    was blocked, the idle memory added up over the nodes and whether jobs were waiting."""
    result = run(SPEC, "policy=ls_re", f"seed={seed}")
    assert_balanced(result)
    by_time = {}
    for s in result["samples"]:
        by_time.setdefault(s["time"], []).append(s)
    return len(by_time), [(sum(s["idle"] for s in g), sum(s["pending"] for s in g) > 0)
                          for g in by_time.values() if any(s["blocked"] for s in g)]


def test_blocking_signature():
    """Spec 000 §1: during blocking the cluster's idle memory, added up, stays large (more than a node's)
    while nodes page and none would take their jobs. A property of the workload, not of one draw: it is
    counted over two seeds side by side (CI's time is capped), each seed's blocked share held to its bound. At
    the paper's scale (32 nodes, Trace-3): the bar is one node's memory whatever the cluster's size, so on 8
    nodes (a quarter of the memory) the lineage's fault model, which keeps overflowing nodes full, leaves it in
    about a fifth of the blocked samples, against four fifths here (about 25 s a seed)."""
    seeds = two_at_a_time(blocked_samples, (1, 2))
    blocked, large = [], []
    for times, mine in seeds:
        assert len(mine) > 0.2 * times
        blocked += mine
        large += [(idle, waiting) for idle, waiting in mine if idle > 384 * MB]
    assert len(large) > 0.5 * len(blocked)
    assert all(waiting for _, waiting in large[:50])     # jobs wait all the while


def test_reservation_reserves_migrates_and_releases(small_runs):
    result = small_runs["m_reservation"]
    assert_balanced(result)
    events = [e["event"] for e in result["events"]]
    assert events.count("reserve") > 0 and events.count("reserved") > 0
    assert result["summary"]["metrics"]["migrations"] > 0
    for node in {e["node"] for e in result["events"]}:       # each node: reserve, unreserve, reserve, ...
        mine = [e["event"] for e in result["events"] if e["node"] == node and "reserve" in e["event"]]
        mine = [e for e in mine if e != "reserved"]
        assert mine[::2] == ["reserve"] * len(mine[::2]) and mine[1::2] == ["unreserve"] * len(mine[1::2])
    # CPU service is the same under both policies (spec 000 §6 oracle 2)
    cpu = [r["summary"]["metrics"]["total_cpu_time"] for r in small_runs.values()]
    assert cpu[0] == pytest.approx(cpu[1], rel=1e-6)


def test_reserved_nodes_queue_their_guests_when_asked():
    """With `queue` (A21) reserved nodes take guests they have no room for yet and hold them off, swapped out,
    until their turn: every guest held off resumes, in the order the guests came, and nothing is lost."""
    result = run(SPEC, *SMALL, "policy=m_reservation", "policy.queue=true")
    assert_balanced(result)
    events = result["events"]
    held = [e for e in events if e["event"] == "suspend"]
    assert len(held) > 5
    for node in {e["node"] for e in held}:
        came = [e["job"] for e in events if e["node"] == node and e["event"] == "migrated_in"]
        waited = [e["job"] for e in events if e["node"] == node and e["event"] == "suspend"]
        resumed = [e["job"] for e in events if e["node"] == node and e["event"] == "resume"]
        assert set(waited) <= set(came) and resumed == waited == sorted(waited, key=came.index)


@pytest.mark.parametrize("jobs, span, derived", [(359, 3586, 2.51), (777, 3582, 5.44)])
def test_offered_load_is_spec_000s_derived_figure(jobs, span, derived):
    """Spec 000 Appendix B derives the SPEC traces' offered load from Table 1 and the job counts (uniform
    program choice); the drawn traces carry it, within the sampling spread of a few hundred jobs."""
    drawn = [offered_load(load("p000/spec.toml", f"workload.jobs={jobs}", f'workload.arrival.span="{span} s"',
                               f"seed={seed}")) for seed in (1, 2, 3)]
    assert sum(drawn) / 3 == pytest.approx(derived, rel=0.08)


def test_paging_needed_is_paper_000s_own_arithmetic():
    """§5: T_exe = T_cpu + T_page + T_que + T_mig, T_cpu and T_mig equal under both policies, V's paging >= 0.
    Trace-1's reductions (execution 29.3 %, queuing 24.8 %) need T_page >= (0.293 (T_cpu + T_mig) + 0.045 T_que)
    / 0.707: with T_cpu 1000 s, T_mig 0 and T_que 500 s, (293 + 22.5) / 0.707 = 446.25 s. A run paging exactly
    that is at 1; half of it, at 0.5 (the figures out of reach); network time counts with the CPU's."""
    from emu.tools.reproductions.p000 import paging_needed

    def g(page, net=0.0):
        return {"metrics": {"total_cpu_time": 1000.0, "total_queue_time": 500.0, "total_net_time": net,
                            "total_page_time": page}}
    need = 315.5 / 0.707
    assert paging_needed([g(need)], 29.3, 24.8)[0] == pytest.approx(1.0)
    assert paging_needed([g(need / 2)], 29.3, 24.8)[0] == pytest.approx(0.5)
    assert paging_needed([g(need + 29.3 / 70.7, net=1.0)], 29.3, 24.8)[0] == pytest.approx(1.0)
    mean, half = paging_needed([g(need), g(need / 2)], 29.3, 24.8)
    assert mean == pytest.approx(0.75) and half > 0
    assert paging_needed([g(0.0, net=0.0)], 10.0, 90.0) == (math.inf, pytest.approx(math.nan, nan_ok=True))

"""The policy interface: a policy decides, the workstation acts (Batsim's boundary).

Each workstation holds its own policy object (decisions are decentralized) and calls it:

- `place(job, node)` when a job arrives at its home node, and again for every job in the pending pool each
  time the load index is refreshed: return `node.id` to run it here, another node's id to send it there by
  remote execution (cost r), or `None` to keep it waiting in the pending pool. A job that is not
  `migratable` (paper 002's type-1 traces) may not even be sent: only `node.id` or `None` for it.
- `no_room(node)` before the pending pool is retried: True when `place` would keep every pending job waiting
  (no job slot here nor in view), so that the workstation skips asking it job by job. A shortcut only: it
  must never hide a placement.
- `accept(job, node)` when a job sent by another node arrives (its sender's view may have been stale):
  return False to send it back, to wait in its sender's pending pool.
- `migrations(node)` each time the load index is refreshed: a list of `(job, destination)` preemptive
  migrations (cost r + D/B, D the job's memory image). A policy with `migrates_on_arrival` (paper 003's
  preemptive schemes, which "only arrival events trigger") is asked right after each of its `place`
  decisions instead, and never at a refresh.
- `runnable(job, node)` whether a resident job may use the CPU now; asked when it is admitted or unblocked,
  at every load-index refresh and whenever the node's owner comes or goes (paper 004): a job it holds off is
  `suspended` (resident, off the CPU, its time counted as waiting) until it says yes again or the job
  migrates. With `releases_memory` a suspended job is also swapped out (paper 002's job suspension).
- `remote_memory(node)` each time the load index is refreshed: a list of `(host, bytes)` of network RAM to
  ask of peers for this node's overflow (paper 002; `node.pager.shortfall()` is what is not yet held or asked for).
- `report(node)` extra fields this node publishes in its load report (e.g. a reservation flag).
- `finished(job, node)` after a job completes here (feedback policies such as buffer control).
- `receive(env, node)` a message of the policy's own, of a kind it names in `MESSAGES` (and in
  `emu.engine.envelope.KINDS`), which it sends with `node.send(dest, kind, payload)`: the one case so far is the
  batch system's central queue (policies/bs.py). The pending pool is retried after each.

`node` is the workstation, to be read and not written: `node.id`, `node.now`, `node.jobs` (resident jobs by
id), `node.pending`, `node.pager` (`user_memory`, `demand`, `idle`), `node.cpu.queue_length()`, `node.load()`
(its own current report), `node.index` (node id -> the last report received from that node: possibly stale,
with its `time`; `node.reported` is this node's own report as broadcast to all; `node.view_version` changes
whenever the index does, for a policy that caches what it derives from it, `node.view_refreshes` whenever reports
arrive: a node's own counting of a job it sent, in the index's `jobs`, `idle` and `foreign`, changes only the
first), `node.peers()`, `node.rng`, `node.speed`, `node.nic` (`bandwidth`), `node.remote_cost` (r) and `node.owner` (None, or its
owner: `nonidle`, `since`, `u`, `episode_utilization()`; reports then carry `nonidle`, `owner_util`,
`owner_since`). Every report has `foreign`, the foreign jobs resident. A policy may record what it decides
in the run's events with `node.log(kind, **fields)` (paper 000's reservations).

A policy that never reads `node.index` says so (`reads_index = False`): its cluster then exchanges no load
information, as a NOW without load sharing runs no load daemon (the workstations still sample their load
for the results at the load-index period). With no index refresh to prompt it, such a node retries its
pending pool when a job completes (where memory and a job slot come free), not also once a period.

Parameters are declared in `PARAMS` as `name: (kind, default, meaning)`, kind one of the unit kinds of
`emu.inputs.units` or "int", "number", "bool", "str", or a tuple of the strings it may be; the scenario loader
checks them and converts units. A number is at least 0 (a count, a time, a weight), or at least a fourth
element when there is one: `(kind, default, meaning, minimum)`. A run-queue insertion policy (`Insertion`,
below; `cpu.insertion` names one) declares its own the same way.
"""
from __future__ import annotations


class Params:
    """Parameters declared in `PARAMS` become attributes (the scenario loader has checked them)."""
    PARAMS: dict = {}

    def __init__(self, **params):
        for name, (_, default, *_) in self.PARAMS.items():
            setattr(self, name, params.get(name, default))


class Policy(Params):
    releases_memory = False     # a job this policy suspends is swapped out (its memory freed) until it resumes
    # Whether it reads the load index (`node.index`). A policy that reads none (the papers' Base) runs on a
    # cluster with no load-information exchange at all: no reports, no collector, no broadcasts on the network.
    reads_index = True
    # Whether it maps a parallel job's tasks (`parallel.mapping = "policy"`, paper 001): they all arrive at the
    # job's home node, and `place` sends each to its node and fills in its `partners`' nodes
    maps_tasks = False
    # Whether `migrations` is asked after each placement (paper 003) rather than at each load-index refresh
    migrates_on_arrival = False
    MESSAGES: tuple = ()        # kinds of messages of its own, which `receive` gets

    def place(self, job, node):
        return node.id

    def no_room(self, node) -> bool:
        return False

    def accept(self, job, node) -> bool:
        return True

    def migrations(self, node) -> list:
        return []

    def runnable(self, job, node) -> bool:
        return True

    def remote_memory(self, node) -> list:
        return []

    def report(self, node) -> dict:
        return {}

    def finished(self, job, node) -> None:
        pass

    def receive(self, env, node) -> None:
        pass


class RemoteExecution(Policy):
    """Remote execution to where a load index says (paper 003's CM-RE, WAL-RE, IO-RE): `target(job, node)` names the
    node a new job should run on (None, or this node: here), `count(job, peer, node)` adds a job sent to `peer`
    to what this node sees of it until its view is refreshed. A job that may not move stays."""

    def place(self, job, node):
        return self.sent_to(job, self.target(job, node) if job.migratable else None, node)

    def sent_to(self, job, best, node) -> int:
        """`best` (None: here) as a placement, a peer counted in this node's view at once."""
        if best is None or best == node.id:
            return node.id
        self.count(job, best, node)
        return best


class SentSinceView:
    """What a node has itself sent to each peer (peer -> amounts) since its view of the load index was last
    refreshed by reports, for a policy to add to the view: the jobs it places in one period then do not all go where
    the view, up to a period old, shows the least load (paper 001's mapping, paper 003's I/O-aware placements).
    The job count needs none: the node counts each job it sends in its index at once (actors/migration.py)."""
    __slots__ = ("version", "sent")

    def __init__(self):
        self.version, self.sent = -1, {}

    def of(self, node) -> dict:
        """The amounts sent since `node`'s view was last refreshed (none once it is)."""
        if self.version != node.view_refreshes:
            self.version, self.sent = node.view_refreshes, {}
        return self.sent


def least_loaded(node, exclude=()):
    """A peer with the fewest resident jobs in this node's view: the better, by most idle memory, of two drawn
    at random among those (two_choices). Every node reads the same view, a period old; a fixed tie-break (the
    lowest id, as before issue 21) sent every overloaded node's job to the same peer in one period, a herd that
    then migrated back and paged (docs/benchmarks.md's 64-workstation quick start gives both versions' faults
    and migrations side by side)."""
    fewest, best = None, []
    for peer, r in node.index.items():
        if peer == node.id or peer in exclude:
            continue
        if fewest is None or r["jobs"] < fewest:
            fewest, best = r["jobs"], [peer]
        elif r["jobs"] == fewest:
            best.append(peer)
    return two_choices(node, best, lambda p: (-node.index[p]["idle"], p)) if best else None


def free_node(node, lingering: bool, others_only: bool = False, held: bool = False):
    """Where a foreign job may go (spec 004 §4.7): a node with no foreign job, an idle one if any, else (only if
    `lingering` allows it) a nonidle one. This node is judged by its state now (`held`: it keeps itself for a
    job on its way), peers by this node's possibly stale view (a peer whose report names a `host_for` keeps
    itself too); a node without an owner counts as idle at 0 %. Returns a node id or None.

    The paper's central simulator takes the free node of lowest owner utilization. Decentralized, with views a
    period old, that rule sends every node's job to the same node each period (herding: all but one are
    refused and retry a period later). nowemu instead takes the less utilized of two free nodes of the best
    class drawn at random (the power of two choices, Mitzenmacher 2001), still preferring low utilization.

    A node that has not heard from its peers yet (no load index: the run's first period) does not settle for a
    nonidle node, its own included: the central simulator sees every idle node from the start, and a job placed
    on a nonidle node by a lingering policy may stay there for good (Linger-Forever)."""
    free = {False: [], True: []}
    if not others_only and not held:
        owner = node.owner
        if not any(j.cls == "foreign" for j in node.jobs.values()):
            free[bool(owner and owner.nonidle)].append((owner.u if owner else 0.0, node.id))
    for peer, r in node.index.items():
        if not r["foreign"] and r.get("host_for", -1) < 0:
            free[r.get("nonidle", False)].append((r.get("owner_util", 0.0), peer))
    heard = bool(node.index) or node.workstations == 1
    best = free[False] or (free[True] if lingering and heard else [])
    return two_choices(node, best)[1] if best else None


def two_choices(node, candidates: list, key=None):
    """The better (by `key`) of two candidates drawn at random (the power of two choices, Mitzenmacher 2001):
    how a decentralized policy that reads a view one period old avoids sending every node's job to the same
    best node in that period (herding), while still preferring good nodes."""
    return min(node.rng.sample(candidates, min(2, len(candidates))), key=key)


def free_node_here(node, lingering: bool) -> bool:
    """Whether this node can take a foreign job arriving now: no foreign job here, and idle unless lingering."""
    return not any(j.cls == "foreign" for j in node.jobs.values()) and (
        lingering or not (node.owner and node.owner.nonidle))


class Insertion(Params):
    """A run-queue insertion policy (paper 001's `insert_RQ`, spec 001 §4): every ready task passes it on its
    way into the CPU's run queue (arriving, back from a quantum, woken from a fault or a receive), and
    `insert(queue, job, reason, node)` returns its place there. `queue` holds the waiting tasks, first to run
    first; the running task (the paper's RQ[0]) is not in it, so it is never overtaken (a place of -1 puts the
task ahead of it: it preempts). This base is
    round-robin (the bottom) and holds what the coscheduling policies share: eq. (2)'s smoothing of a task's
    message counts into `job.mes` (a task of mes 0 is local), and the walk of Algorithm 1's lines 7-12 from
    the bottom, overtaking while the policy's condition and the starvation bounds (MNOL for local tasks, MNOD
    for distributed ones, counted in each overtaken task's `de`) allow. Ties never overtake: equal keys are
    FIFO."""
    PARAMS = {
        "mnol": ("int", 2, "MNOL: the overtakes a local task may suffer between two of its insertions"),
        "mnod": ("int", 2, "MNOD: the same for a distributed task"),
        "p": ("number", 0.3, "eq. (2)'s weight of the past count (P)"),
        # spec 001 ambiguity register row 6: at each insertion (default) or at each dispatch
        "mes_update": (("insert", "dispatch"), "insert", "when eq. (2) is applied: insert or dispatch"),
        # row 4: whether the dynamic mode's insertion at the top (Algorithm 1's line 5, RQ[0] := task_h) preempts
        # the running task, which its policy then puts back behind it. Default: no, it becomes the next to run
        # (spec 001's reading); the paper's notation (RQ[0] "is the currently executing task") leans to yes, but
        # a full reproduction under it had CSM fault more than RR and PRED, against the paper's Figs. 8a and 10a
        # (docs/p001.md)
        "preempt": ("bool", False, "a task put on top preempts the running one"),
    }

    def top(self) -> int:
        """The place of a task that goes to the top: next to run, or (`preempt`) ahead of the running one."""
        return -1 if self.preempt else 0

    def insert(self, queue, job, reason, node) -> int:
        return len(queue)

    def dispatched(self, job, node) -> None:
        """The CPU picked `job` (to run, or to fault at its page reference)."""
        if self.mes_update == "dispatch":
            job.mes = self.p * job.mes + (1.0 - self.p) * node.queues.queued(job)

    def entered(self, job, node) -> None:
        """Eq. (2) (unless it runs at dispatches), and `de` counts from this entry."""
        if self.mes_update == "insert":
            job.mes = self.p * job.mes + (1.0 - self.p) * node.queues.queued(job)
        job.de = 0

    def behind(self, queue, beats) -> int:
        """Lines 7-12: the place after walking up from the bottom past each task that `beats(task)` says the
        new one goes before, within its starvation bound; every task passed counts one more overtake."""
        i = len(queue)
        mnol, mnod = self.mnol, self.mnod
        while i:
            x = queue[i - 1]
            if x.de >= (mnol if x.mes == 0 else mnod) or not beats(x):
                break
            x.de += 1
            i -= 1
        return i

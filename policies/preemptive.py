"""Preemptive migration as paper 003's schemes do it (Qin's thesis, Secs. 3.2.5-3.2.6, Fig. 3.3), the part that
WAL-PM, IO-PM and CM-PM share; they differ in the load index that finds an overloaded node (`target`), each
that of its remote-execution scheme (WAL-RE, IO-RE, CM-RE), and CM-PM in its choice of the job to move too
(policies/cm_pm.py: by CPU and memory, not by I/O).

On a job's arrival, with the job counted on its home node i (Fig. 3.3's step 1), the policy's index may say
that i is overloaded and name the candidate node k of least load. Then the jobs of i whose expected remaining
response time there exceeds that on k plus their migration cost are eligible (EM(i, k), Eq. 3.18), the new job
among them, and the one of largest migration cost-effectiveness (MCE, Eq. 3.21: the I/O it has issued per
second of its cost) moves: the new job by remote execution, a running one by preemptive migration. At most one
job per arrival, and nothing at other times ("only arrival events trigger WAL-PM"; `migrates_on_arrival`). Each
decision is in the run's events (`remote` or `preempt`, the job and its destination); a running job blocked on
its disk leaves once its request is served.

Expected remaining response times (Eq. 3.17, Eq. 3.9 for t - a) come from the disk queues of i (now, the new job
counted) and of k (policies/disk_view.py). A job's age a is the CPU time it has had (spec 003a §7.4 item 19),
its t its whole CPU time (the thesis's oracle), its lam its explicit I/O rate. Where MCE ties (a newborn has 0,
so has a job without I/O), the larger expected gain decides, then the lower job id.

Costs (Eq. 3.19): e = f = the scenario's fixed remote-execution cost r (the lineage's, paper 000: the thesis
gives neither), the memory image m_j its demand now, the data (initial, plus written so far for a running job,
Eq. 3.20) read at the source disk, sent, written at the destination, at the nominal bandwidths of this node's
link and disk (the cluster is homogeneous); the emulator then moves all of it through the real disks and link.
"""
from __future__ import annotations

from policies.base import Policy
from policies.disk_view import DiskView, disk_queue, remaining
from policies.io_load import cost_effectiveness, data_move, migration_cost


class PreemptiveMigration(Policy):
    migrates_on_arrival = True

    # A scheme provides, from its load index: `target(job, node)`, the candidate node k when `node`, with `job`
    # counted on it, is overloaded (else None or node.id), and `count(job, peer, node)`, which adds a job sent
    # to `peer` to the index until the view is refreshed (its remote-execution policy's, as a mixin's).

    def __init__(self, **params):
        super().__init__(**params)
        self.moves: list = []           # the migration decided by the last `place`, for `migrations`
        self.disks = DiskView()

    def report(self, node) -> dict:
        return self.disks.report(node)

    def migrations(self, node) -> list:
        moves, self.moves = self.moves, []
        return moves

    def place(self, job, node):
        if not job.migratable:
            return node.id
        k = self.target(job, node)
        if k is None or k == node.id or "disk" not in node.index.get(k, {}):
            return node.id
        q = self.migrant(job, node, k)
        if q is None:
            return node.id
        self.count(q, k, node)
        self.disks.add(node, k, q)
        node.log("preempt" if q is not job else "remote", job=q.id, dest=k)
        if q is job:
            return k
        self.moves.append((q, k))
        return node.id

    def migrant(self, job, node, k: int, arriving: bool = True, leaving=()):
        """The job of EM(i, k) (Eq. 3.18), the new `job` among them unless it is placed already (not
        `arriving`), of largest MCE (Eq. 3.21); None if EM is empty. Jobs `leaving` (ids), chosen already, are
        neither candidates nor counted at home."""
        speed = node.speed
        everyone = [j for j in node.jobs.values() if j.id not in leaving] + ([job] if arriving else [])
        home = (*disk_queue(node, everyone), sum(j.demand() for j in everyone), node.pager.user_memory)
        there = self.disks.peer(node, k)
        best, best_key = None, None
        for q in everyone:
            if not movable(q, node):
                continue
            rest = (q.work - q.done) / speed
            cost = move_cost(q, job, node)
            gain = remaining(q, node, rest, home, True) - remaining(q, node, rest, there, False) - cost
            if not gain > 0:            # not eligible
                continue
            key = (cost_effectiveness(q.done / speed, q.io_rate * speed, cost), gain, -q.id)
            if best_key is None or key > best_key:
                best, best_key = q, key
        return best


def movable(q, node) -> bool:
    """Whether job `q` of `node` (or arriving there) may move now: not pinned, not already on its way or leaving,
    not split from its I/O (IOCM's), not a parallel task waiting for its partners."""
    return q.migratable and q.state != "in_transit" and q.id not in node.leaving and q.io_node < 0 \
        and not node.phases.waits(q)


def move_cost(q, job, node, there: float | None = None) -> float:
    """Eq. 3.19's cost of moving `q` from `node` (to a disk of bandwidth `there`; default: like this one's): by
    remote execution if it is the arriving `job` (e and its initial data), else by preemptive migration (f, its
    memory image, its initial and written data)."""
    net, disk = node.nic.bandwidth, node.disk.bandwidth
    if q is job:
        return node.remote_cost + data_move(q.initial_data, net, disk, there or disk)
    return migration_cost(node.remote_cost, q.demand(), q.initial_data, q.written, net, disk, disk)

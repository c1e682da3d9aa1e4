"""Jobs leaving a workstation: remote execution (a pending job placed on another node), preemptive migration
(a resident job's state and memory image moved, for a cost of r + D/B) and a refused job sent back.

A job on its way is a message (`remote_exec`, `migrate`, `job_return`) carrying its state; its time on the
wire is charged to its `net` by the node that receives it (`Workstation._receive`), which may refuse it
(`Policy.accept`) and send it back. A migration asked for while the job waits for its pages or data waits
for them (`node.leaving`); a parallel task waiting for its partners cannot move.
"""
from __future__ import annotations


class Migration:
    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node

    def ship(self, job, dest: int, kind: str, **fields) -> float:
        """Send a job away: its state goes over the link, plus the fixed cost r. A job that has started carries
        its memory image too (D bytes, its demand now) wherever it goes: a migration, a refused one sent back,
        or one waiting in a pending pool sent on by remote execution."""
        node = self.node
        image = job.demand() if job.start >= 0 else 0.0
        job.state = "in_transit"
        at = node.send(dest, kind, {"job": job.to_state(), "sent": node.q.now, **fields}, extra=image,
                       fixed=node.remote_cost)
        if dest in node.index:      # count it in our view at once, so one period does not herd jobs there
            view = node.index[dest]
            node.index[dest] = {**view, "jobs": view["jobs"] + 1, "idle": view["idle"] - job.demand(),
                                "foreign": view["foreign"] + (job.cls == "foreign")}
            node.view_version += 1
        return at

    def migrate(self, job, dest: int) -> None:
        """Preemptive migration: stop the job, carry its state and memory image (r + D/B) to `dest`.
        A job waiting for its pages or data (on the disk, or from network RAM) leaves as soon as they are in;
        a parallel task waiting for its partners cannot move (asking for it is a policy error)."""
        node = self.node
        if job.id not in node.jobs or not job.migratable or (job.group, job.rank) in node.waiting:
            raise ValueError(f"policy asked node {node.id} to migrate job {job.id}, which is {job.state}"
                             f"{'' if job.migratable else ' and not migratable'}")
        if job.state == "blocked":
            node.leaving[job.id] = dest
            return
        self.depart(job, dest)

    def depart(self, job, dest: int) -> None:
        node = self.node
        node.count_population()
        node.owner_time(job)
        if job.state == "suspended":
            job.queue += node.q.now - job.since
        elif job.state != "blocked":
            node.cpu.remove(job)
        del node.jobs[job.id]
        node.foreign -= job.cls == "foreign"
        node.memory_changed()
        job.migrations += 1
        at = self.ship(job, dest, "migrate")
        node.log("migrate", job=job.id, src=node.id, dest=dest, bytes=job.demand(),
                 cost=None if at is None else at - node.q.now)

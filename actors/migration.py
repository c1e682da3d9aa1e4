"""Jobs moving between workstations: remote execution (a pending job placed on another node), preemptive
migration (a resident job's state and memory image moved, for a cost of r + D/B) and a refused job sent back.

A job on its way is a message (`remote_exec`, `migrate`, `job_return`) carrying its state; its time on the
wire is charged to its `net` by the node that receives it (`arrive`), which may refuse it (`Policy.accept`) and
send it back. A migration asked for while the job waits for its pages or data waits for them (`node.leaving`);
a parallel task waiting for its partners cannot move, and one that moves takes the messages already in for it
along, those still on their way following it (actors/message_queues.py).

A job with data of its own (paper 003's home model: the initial data it was submitted with, on its home node's
disk, and what it has written since, Eq. 3.20's d^W) takes it along wherever it is placed or moved: read from
the disk it leaves, sent over the link with the job, written to the disk of the node that takes it before it
runs there (Eqs. 3.14 and 3.19's data term, through the real disks and link). All of that is its time in
transit (`net`). A refused job goes back without it.
"""
from __future__ import annotations


class Migration:
    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node

    def ship(self, job, dest: int, kind: str, **fields) -> float | None:
        """Send a job away: its state goes over the link, plus the fixed cost r. A job that has started carries
        its memory image too (D bytes, its demand now) wherever it goes: a migration, a refused one sent back,
        or one waiting in a pending pool sent on by remote execution. Returns when it arrives (None when not yet
        known: on a bus, or while its initial data is read)."""
        node = self.node
        image = job.demand() if job.start >= 0 else 0.0
        job.state = "in_transit"
        payload = {"job": None, "sent": node.q.now, **fields, **self._messages(job, dest)}
        data = self.data(job) if kind != "job_return" else 0.0
        if data > 0:
            node.moving[job.id] = job
            node.disk.submit(data, self._send, (job, dest, kind, payload, image + data))
            at = None
        else:
            at = self._send((job, dest, kind, payload, image))
        if dest in node.index:      # in our view at once (resident, in its CPU queue): one period must not herd jobs
            view = node.index[dest]
            node.index[dest] = {**view, "jobs": view["jobs"] + 1, "ready": view["ready"] + 1,
                                "idle": view["idle"] - job.demand(),
                                "foreign": view["foreign"] + (job.cls == "foreign")}
            node.view_version += 1
        return at

    @staticmethod
    def data(job) -> float:
        """The bytes of its own a job takes along: its initial data and what it has written, unless they stay on
        an I/O node of its own (remote I/O)."""
        return job.initial_data + job.written if job.io_node < 0 else 0.0

    def _send(self, item) -> float | None:
        job, dest, kind, payload, size = item
        self.node.moving.pop(job.id, None)
        payload["job"] = job.to_state()
        return self.node.send(dest, kind, payload, extra=size, fixed=self.node.remote_cost)

    def arrive(self, env, job) -> None:
        """A job message came: a refused job back where it came from, or a job this node takes (its initial data
        written here first) or refuses."""
        node, kind = self.node, env.kind
        node.count_population()
        job.net += node.q.now - env.payload["sent"]
        if job.group >= 0:                  # a parallel task: the messages it brings along, none to forward now
            node.queues.join(job, env.payload.get("inbox", ()))
        if kind == "job_return" and job.start >= 0:     # a refused migration: it goes on where it ran
            node.admit(job)
        elif kind == "job_return":
            job.state, job.since = "pending", node.q.now
            node.pending.append(job)
        elif node.placement.fits(job) and node.policy.accept(job, node):
            if kind == "migrate":      # where a moved job's stay here begins (on a bus only the receiver knows)
                node.log("migrated_in", job=job.id, src=env.sender)
            if self.data(job) > 0:
                node.moving[job.id] = job
                node.disk.submit(self.data(job), self._data_written, (job, node.q.now))
            else:
                node.admit(job)
        else:
            node.log("refused", job=job.id, src=env.sender)
            self.ship(job, env.sender, "job_return", reason="refused")

    def _messages(self, job, dest: int) -> dict:
        """A parallel task leaving, whether it ran here, was refused or is sent on from its pool: the messages in
        for it go along, those to come follow it (its partners send where it was mapped)."""
        if job.group < 0:
            return {}
        got = self.node.queues.leave(job, dest)
        return {"inbox": got} if got else {}

    def _data_written(self, item) -> None:
        job, since = item
        del self.node.moving[job.id]
        self.node.count_population()
        job.net += self.node.q.now - since
        self.node.admit(job)

    def migrate(self, job, dest: int) -> None:
        """Preemptive migration: stop the job, carry its state and memory image (r + D/B) to `dest`.
        A job waiting for its pages or data (on the disk, or from network RAM) leaves as soon as they are in;
        a parallel task waiting for its partners cannot move (asking for it is a policy error)."""
        node = self.node
        if job.id not in node.jobs or not job.migratable or node.phases.waits(job):
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
        node.unseat(job)
        node.memory_changed()
        job.migrations += 1
        at = self.ship(job, dest, "migrate")
        data = self.data(job)
        node.log("migrate", job=job.id, src=node.id, dest=dest, bytes=job.demand(),
                 cost=None if at is None else at - node.q.now, **({"data": data} if data else {}))

"""A parallel task's compute phases (paper 001's rings, paper 003's bulk-synchronous and master-slave jobs, paper
004's parallel programs): at the end of each it sends every partner a message and goes on only once it has
theirs of this iteration, some of which may be here already (actors.message_queues). The wait is its own share
of the time (`sync`). A message to a partner on this node does not cross the link (paper 003's Eq. 7.4: no
communication load): it is a local event of this instant.
"""
from __future__ import annotations


class Phases:
    __slots__ = ("node", "waiting")

    def __init__(self, node):
        self.node = node
        self.waiting: dict[tuple, list] = {}    # (group, rank) -> [task, iteration, messages still due, since]

    def waits(self, job) -> bool:
        """Whether task `job` waits for its partners (it cannot move)."""
        return (job.group, job.rank) in self.waiting

    def end(self, job) -> bool:
        """Task `job` ends a compute phase: its messages go out; True if it goes on (its partners' are all in)."""
        node = self.node
        q = node.q
        for rank, dest in job.partners:
            sync = {"group": job.group, "to": rank, "from": job.rank, "it": job.iteration}
            if dest == node.id:
                q.at(q.now, self.synced, sync)
                continue
            at = node.send(dest, "sync", sync, extra=node.gamma(job.message, job.message_sd))
            if node.insertion is not None:      # its send queue: read only by paper 001's insertion policies
                node.queues.sent(job, at)
        if job.burst > 0:
            job.sync_at += job.burst_length(job.iteration)
        due = len(job.partners) - node.queues.take(job)
        node.set_stop(job)
        if due <= 0:
            return True
        job.state = "blocked"
        self.waiting[job.group, job.rank] = [job, job.iteration, due, q.now]
        return False

    def synced(self, p: dict) -> None:
        """A partner's message of a phase (`end`'s) for a task here, or for one that was."""
        node, key = self.node, (p["group"], p["to"])
        wait = self.waiting.get(key)
        if wait is not None and wait[1] == p["it"]:
            wait[2] -= 1
            node.queues.woke(wait[0])
            if wait[2] == 0:
                job, _, _, since = self.waiting.pop(key)
                job.sync += node.q.now - since
                node.wants_cpu(job, "unblock")
        elif key in node.queues.moved:     # it migrated on: the message follows it
            dest, size = node.queues.moved[key]
            node.send(dest, "sync", p, extra=size)
        else:
            node.queues.arrived(p["group"], p["to"], p["it"])

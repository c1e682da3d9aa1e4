"""Handing a free idle node to one job waiting to leave a nonidle one (paper 004's eviction policies).

The paper's simulator is central: when a node falls free and idle it gives it to one waiting job (spec A8:
evicted jobs first, then queued ones, lingering ones last). Decentralized, every node sees the free node in the
same broadcast, one period old, and if each sent its waiting job there all but one would be refused and travel
back with their image: under Immediate-Eviction with 128 jobs on 64 nodes, 460 of 540 migrations per run did,
each 2 x 21 s on the wire. So the hand-off is a handshake in the load reports:

- a node with a job that wants to leave and has nowhere to go says so (`due_since`, `due_job`, `due_bytes`);
- a node free and idle names the one of those waiting longest that no other node has named (`host_for`,
  `host_job`) and keeps itself for it: its own queue waits and peers do not send it theirs
  (`policies.base.free_node` skips a node that names a job), until the job arrives, or its transfer's time and
  two load-index periods have passed;
- only the job named goes there; but while no job is known to be waiting anywhere (no other node reports one),
  a job that has just come to want to leave goes straight to a free idle node in view: there is nobody to
  collide with, and the central simulator would have moved it at once (Fig. 8's timing).

A policy mixes `Handoff` in, which places and accepts foreign jobs (a free node, not one kept for another job;
a nonidle one too if the policy is `lingering`) and offers the node when it places a job or one is done. The
policy calls `offer` when it refreshes, sends a job waiting to leave to its `destination` when there is one,
and `announce`s the others. A policy whose `handing_off` is false keeps none of it: a job waiting to leave goes
to any free idle node it sees.
"""
from policies.base import free_node, free_node_here
from policies.linger_cost import migration_time

NONE = (-1.0, -1, 0.0)


class Handoff:
    def __init__(self, **params):
        super().__init__(**params)
        self.due = NONE             # (since, job id, bytes): this node's job waiting longest to leave
        self.host_for, self.host_job, self.expect_until = -1, -1, 0.0      # the job this node keeps itself for

    def report(self, node) -> dict:
        since, job, size = self.due
        return {"due_since": since, "due_job": job, "due_bytes": size, "host_for": self.host_for,
                "host_job": self.host_job}

    handing_off = True
    lingering = False           # whether a foreign job may be placed on a nonidle node (Linger-Longer)

    @property
    def holding(self) -> bool:
        return self.host_for >= 0

    def place(self, job, node):
        if job.cls != "foreign":
            return node.id
        self.offer(node)
        return free_node(node, lingering=self.lingering, held=self.holding)

    def accept(self, job, node):
        return job.cls != "foreign" or (free_node_here(node, lingering=self.lingering) and self.takes_handoff(job))

    def finished(self, job, node) -> None:
        self.offer(node)        # before this node's queue takes the place

    def announce(self, node, waiting: list) -> None:
        """The jobs here that want to leave and have nowhere to go: report the one announced first (its
        `since` kept while it waits)."""
        if not waiting or not self.handing_off:
            self.due = NONE
        elif self.due[1] not in {j.id for j in waiting}:
            self.due = (node.now, waiting[0].id, waiting[0].demand())

    def destination(self, node, job) -> int | None:
        """Where this job, waiting to leave, goes now: the peer that named it; else, while no job is known to be
        waiting anywhere, a free idle node in view; else nowhere yet."""
        if not self.handing_off:
            return free_node(node, lingering=False, others_only=True)
        waiting = False
        for peer, r in node.index.items():
            if r.get("host_for") == node.id and r.get("host_job") == job.id:
                return peer
            waiting = waiting or r.get("due_since", -1.0) >= 0
        return None if waiting else free_node(node, lingering=False, others_only=True)

    def takes_handoff(self, job) -> bool:
        """Whether a foreign job arriving may stay as far as the hand-off goes: only the job named, while this
        node keeps itself for one."""
        if self.host_for < 0:
            return True
        if job.id != self.host_job:
            return False
        self.host_for, self.host_job = -1, -1
        return True

    def offer(self, node) -> None:
        """If this node is free and idle, name the job it will take (keep the one named until it comes)."""
        if not self.handing_off:
            return
        if not free_node_here(node, lingering=False):
            self.host_for, self.host_job = -1, -1
            return
        if self.host_for >= 0 and node.now <= self.expect_until:
            return
        taken = {r.get("host_job") for r in node.index.values()}
        waiting = [(r["due_since"], p) for p, r in node.index.items()
                   if r.get("due_since", -1.0) >= 0 and r["due_job"] not in taken]
        self.host_for, self.host_job = -1, -1
        if waiting:
            self.host_for = min(waiting)[1]
            r = node.index[self.host_for]
            self.host_job = r["due_job"]
            self.expect_until = (node.now + migration_time(r["due_bytes"], node.nic.bandwidth, node.remote_cost)
                                 + 2 * node.period)

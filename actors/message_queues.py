"""A workstation's message queues for its parallel tasks: the partners' messages that came before their task
waited for them (`inbox`, by (group, rank, iteration): what a task's sync takes), and, for paper 001 (§3.1),
per task the messages received and not yet taken (its RMQ count, `rec`) and those it sent that are still on
their way (its SMQ, `send`); eq. (1)'s c_mes = rec + send is what the run-queue insertion policies smooth
into `mes`.

A received message stays in the receive queue until its task reads it: at its sync point if it was there
first, or, if it woke the task from a receive, when the task next runs (so that the insertion that puts the
woken task back in the run queue sees it: dynamic coscheduling's signal). A sent message stays in the send
queue until it arrives: under a constant latency (paper 001's network) the sender knows when that is, so
nothing needs to tell it.

A task that leaves a node (migrated by paper 003's IOCM-PM, refused where it was mapped and sent back, or sent
on from the pending pool) takes the messages already in for it along (`leave`, `join`), and the node it left
forwards those still on their way to it (`moved`): its partners keep sending where it was mapped.
"""
from __future__ import annotations


class MessageQueues:
    __slots__ = ("now", "inbox", "received", "sending", "held", "moved")

    def __init__(self, queue):
        self.now = queue                        # the node's event queue (its clock)
        self.inbox: dict[tuple, int] = {}       # (group, rank, iteration) -> messages in before their task waited
        self.received: dict[tuple, int] = {}    # (group, rank) -> messages in, not yet taken
        self.sending: dict[int, list] = {}      # task id -> when its messages on their way arrive
        self.held: dict[int, int] = {}          # task id -> messages that woke it, read when it runs
        self.moved: dict[tuple, tuple] = {}     # (group, rank) -> (node, message size): a task gone from here

    def _count(self, group: int, rank: int, n: int) -> None:
        key = (group, rank)
        self.received[key] = self.received.get(key, 0) + n

    def arrived(self, group: int, rank: int, iteration: int, n: int = 1) -> None:
        """A message (or n) for a task not yet waiting for it."""
        key = (group, rank, iteration)
        self.inbox[key] = self.inbox.get(key, 0) + n
        self._count(group, rank, n)

    def take(self, job) -> int:
        """`job` reached its sync: how many of this iteration's messages were already in (it takes them)."""
        got = self.inbox.pop((job.group, job.rank, job.iteration), 0)
        if got:
            self._count(job.group, job.rank, -got)
        return got

    def woke(self, job) -> None:
        """A message for `job`, waiting in a receive: in its queue until it runs."""
        self._count(job.group, job.rank, 1)
        self.held[job.id] = self.held.get(job.id, 0) + 1

    def runs(self, job) -> None:
        """`job` got the CPU: it reads the messages that woke it."""
        if self.held:
            self._count(job.group, job.rank, -self.held.pop(job.id, 0))

    def rec(self, job) -> int:
        return self.received.get((job.group, job.rank), 0)

    def sent(self, job, arrives: float | None) -> None:
        if arrives is not None:             # (on a bus only the bus knows)
            self.sending.setdefault(job.id, []).append(arrives)

    def queued(self, job) -> int:
        """c_mes (eq. 1)."""
        sending = self.sending.get(job.id)
        if sending:
            now = self.now.now
            while sending and sending[0] <= now:
                sending.pop(0)
        return self.rec(job) + (len(sending) if sending else 0)

    def finished(self, job) -> None:
        self.sending.pop(job.id, None)
        self.held.pop(job.id, None)

    def leave(self, job, dest: int) -> list:
        """Task `job` migrates to `dest`: the messages in for it, as [iteration, count] pairs to take along;
        those still to come are forwarded there."""
        self.moved[job.group, job.rank] = (dest, job.message)
        mine = [key for key in self.inbox if key[0] == job.group and key[1] == job.rank]
        got = [[key[2], self.inbox.pop(key)] for key in mine]
        if got:
            self._count(job.group, job.rank, -sum(n for _, n in got))
        self.finished(job)
        return got

    def join(self, job, got) -> None:
        """Task `job` came here with these messages (`leave`'s pairs)."""
        self.moved.pop((job.group, job.rank), None)
        for iteration, n in got:
            self.arrived(job.group, job.rank, iteration, n)

"""A workstation's message queues of paper 001 (§3.1): per parallel task, the messages received and not yet
taken (its RMQ count, `rec`) and those it sent that are still on their way (its SMQ, `send`); eq. (1)'s
c_mes = rec + send is what the run-queue insertion policies smooth into `mes`.

A received message stays in the receive queue until its task reads it: at its sync point if it was there
first, or, if it woke the task from a receive, when the task next runs (so that the insertion that puts the
woken task back in the run queue sees it: dynamic coscheduling's signal). A sent message stays in the send
queue until it arrives: under a constant latency (paper 001's network) the sender knows when that is, so
nothing needs to tell it.
"""
from __future__ import annotations


class MessageQueues:
    __slots__ = ("now", "received", "sending", "held")

    def __init__(self, queue):
        self.now = queue                        # the node's event queue (its clock)
        self.received: dict[tuple, int] = {}    # (group, rank) -> messages in, not yet taken
        self.sending: dict[int, list] = {}      # task id -> when its messages on their way arrive
        self.held: dict[int, int] = {}          # task id -> messages that woke it, read when it runs

    def arrived(self, group: int, rank: int) -> None:
        key = (group, rank)
        self.received[key] = self.received.get(key, 0) + 1

    def woke(self, job) -> None:
        """A message for `job`, waiting in a receive: in its queue until it runs."""
        self.arrived(job.group, job.rank)
        self.held[job.id] = self.held.get(job.id, 0) + 1

    def runs(self, job) -> None:
        """`job` got the CPU: it reads the messages that woke it."""
        if self.held:
            self.taken(job.group, job.rank, self.held.pop(job.id, 0))

    def taken(self, group: int, rank: int, n: int) -> None:
        if n:
            self.received[group, rank] -= n

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

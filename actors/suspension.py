"""Job suspension: one workstation holding resident jobs off its CPU when its policy says they may not run
(`Policy.runnable`), and letting them run again when it says they may.

Paper 004's eviction policies suspend a foreign job while the owner is active; paper 002's discussed
baseline (`policies/suspension.py`) suspends an overflowing node's largest job. A suspended job stays
resident; its time suspended is time waiting (`queue`). If the policy `releases_memory`, a suspended job is
also swapped out: its memory leaves the node's demand and is written to the disk (nothing waits for the
write), and it is read back, as paging time, before the job runs again.
"""
from __future__ import annotations

import math

from policies.base import Policy


class Suspension:
    __slots__ = ("node",)

    def __init__(self, node):
        self.node = node

    def hold(self) -> None:
        """Ask the policy again which resident jobs may run (the owner came or went, the load index was
        refreshed): suspend or resume them. A policy that never holds a job off (its `runnable` is the base
        one) has nothing to answer."""
        node = self.node
        if type(node.policy).runnable is Policy.runnable:
            return
        for job in list(node.jobs.values()):
            runnable = node.policy.runnable(job, node)
            if job.state == "suspended" and runnable:
                node.owner_time(job)
                self.resume(job)
            elif job.state in ("ready", "running") and not runnable:
                node.owner_time(job)
                node.cpu.remove(job)
                self.suspend(job)

    def suspend(self, job) -> None:
        """Hold a job off the CPU; swap it out if the policy `releases_memory`."""
        node = self.node
        job.state, job.since = "suspended", node.q.now
        node.log("suspend", job=job.id)
        if node.policy.releases_memory:
            node.memory_changed()
            self.swap(job, None)

    def resume(self, job) -> None:
        """Let a suspended job run again; one that was swapped out first reads its memory back (page time)."""
        node = self.node
        job.queue += node.q.now - job.since
        node.log("resume", job=job.id)
        if node.policy.releases_memory:
            job.state = "blocked"
            node.memory_changed()
            self.swap(job, node.unblock)
        else:
            node.cpu.add(job, "resume")

    def swap(self, job, done) -> None:
        """Write out or read back a job's memory: one disk access per fault burst's worth of pages (as a fault
        burst reads its pages), plus the transfer."""
        pager = self.node.pager
        burst = pager.page_size * pager.fault_batch
        self.node.disk.submit(job.demand(), done or (lambda _: None), (job, "page", self.node.q.now),
                              max(1, math.ceil(job.demand() / burst)))

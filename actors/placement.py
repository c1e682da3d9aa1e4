"""A job's arrival and its wait for a place: one workstation's pending pool.

Every job arrives at its home node from the workload, already drawn (arrivals cost no messages), and waits
in the node's pending pool (`node.pending`) while the policy places it (`Policy.place`): here, on another node
by remote execution, or not yet. A job placed here is admitted if the swap bound lets it in; the pool is
asked again at every load-index refresh and when a job completes here. A finished job of a constant
population is replaced at once by a copy, at the back of the pool.
"""
from __future__ import annotations

from collections import deque

from actors.job import Job


class Placement:
    __slots__ = ("node", "upcoming", "replaced")

    def __init__(self, node, arrivals):
        self.node = node
        # the jobs to arrive here, in time order, each with its place in the event order: only the next one is
        # in the heap (a heap of every arrival of a paper-scale trace would make every event dearer)
        self.upcoming = deque(zip(node.q.reserve(len(arrivals)), arrivals)) if arrivals else deque()
        self.replaced = 0               # finished jobs of a constant population, replaced by copies
        self._next_arrival()

    def _next_arrival(self) -> None:
        if self.upcoming:
            seq, job = self.upcoming[0]
            self.node.q.at(job.arrival, self._arrive, job, seq=seq)

    def _arrive(self, job: Job) -> None:
        node = self.node
        self.upcoming.popleft()
        self._next_arrival()
        node.count_population()
        job.node, job.state, job.since = node.id, "pending", node.q.now
        if job.io_rate > 0 and not job.dedicated_io:        # its slowdown's I/O part: alone on its home node
            job.dedicated_io = node.cache.dedicated_io(job, node.disk)
        node.pending.append(job)
        self.place(job)

    def fits(self, job: Job) -> bool:
        """Swap bounds admission (spec 000 A7): resident demand may not exceed memory + swap. Demands are
        those of now (the papers' jobs do not declare their memory in advance), so jobs that grow later may
        still overcommit. An empty node takes any job, so that no job waits forever; one that overflows even
        so is logged."""
        node = self.node
        if not node.jobs:
            if not node.pager.fits(job.demand()):
                node.log("over_swap", job=job.id, demand=job.demand())
            return True
        return node.pager.fits(job.demand())

    def place(self, job: Job) -> None:
        node = self.node
        dest = node.policy.place(job, node)
        if node.policy.migrates_on_arrival:
            for other, there in node.policy.migrations(node):
                node.migration.migrate(other, there)
        if dest is None or (dest == node.id and not self.fits(job)):
            return
        if dest != node.id and not job.migratable:
            raise ValueError(f"policy asked node {node.id} to send job {job.id} to node {dest}; it is not migratable")
        node.count_population()
        node.pending.remove(job)
        job.queue += node.q.now - job.since
        if dest != node.id:
            job.remote_execs += 1
            node.log("remote_exec", job=job.id, dest=dest)
        if node.remote_io.place(job, dest):         # its data to its I/O node first (paper 003's IOCM)
            return
        if dest == node.id:
            node.admit(job)
        else:
            node.migration.ship(job, dest, "remote_exec")

    def retry(self) -> None:
        """Ask the policy again about every pending job, unless it says there is no room for any."""
        node = self.node
        if not node.pending or node.policy.no_room(node):
            return
        for job in list(node.pending):
            self.place(job)

    def replace(self, job: Job) -> None:
        """A constant population: a copy of the finished job joins this node's queue at once (behind the jobs
        already waiting). Ids are unique without coordination: workload ids, then node + nodes x count."""
        node = self.node
        copy = Job(id=node.spec["job_ids"] + node.id + node.workstations * self.replaced, home=node.id,
                   arrival=node.q.now, work=job.work, memory=job.memory, io_rate=job.io_rate, io_size=job.io_size,
                   io_read=job.io_read, program=job.program, cls=job.cls, migratable=job.migratable, closed=True)
        self.replaced += 1
        copy.node, copy.since = node.id, node.q.now
        node.pending.append(copy)

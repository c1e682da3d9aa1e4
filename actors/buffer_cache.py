"""The I/O buffer cache of one workstation: the share of a job's explicit I/O accesses it serves (at no cost:
the job goes on running; `Workstation._next_miss` draws only the misses), the rest going to the disk. Its size
comes out of user memory (`Pager.buffer_cache`, which paper 003's feedback control resizes while running).

Two models (`disk.cache_model`):
- "footprint", the default: a read hits with probability min(1, size / the summed request sizes of the resident
  jobs that do I/O); a write always goes to the disk.
- "reaccess", paper 003's (the thesis's Eqs. 3.5-3.8, `policies.io_load.hit_rate`): a job accesses each datum
  r + 1 times (`io_reaccess` = r), so at most r/(r+1) of its accesses hit, reads and writes alike, as Eq. 3.4
  counts them; its share of the buffer is in proportion to its I/O volume rate (rate x mean request size) among
  the resident jobs', and when its distinct data over its life, rate x work x size / (r+1), outgrows that share,
  its hit rate falls in proportion. The job's whole work is what the thesis's simulator knows of it.
"""
from __future__ import annotations

from policies.io_load import buffer_shares, hit_rate


class BufferCache:
    __slots__ = ("pager", "reaccess", "rates", "configured")

    def __init__(self, pager, model: str):
        self.pager = pager
        self.configured = pager.buffer_cache    # its size in the dedicated system of a job's slowdown
        self.reaccess = model == "reaccess"
        self.rates: dict[int, float] = {}   # job id -> its hit ratio, while the resident jobs and the size hold

    def forget(self) -> None:
        """The resident jobs or the buffer's size changed (`Workstation.memory_changed`, which a resize calls
        too): their shares of the buffer with them."""
        self.rates.clear()

    def ratio(self, job, jobs) -> float:
        """`hit_ratio`, kept per job until `forget`: the workstation asks at every I/O miss, and computing it
        anew, O(jobs) each time, took an eighth of an I/O-bound run's time."""
        rate = self.rates.get(job.id)
        if rate is None:
            rate = self.rates[job.id] = self.hit_ratio(job, jobs)
        return rate

    def hit_ratio(self, job, jobs, size: float | None = None) -> float:
        """The share of `job`'s accesses the cache serves now (or were it of `size`), under either model."""
        size = self.pager.buffer_cache if size is None else size
        return self.hit_rate(job, jobs, size) if self.reaccess else job.io_read * self._footprint(jobs, size)

    def dedicated_io(self, job, disk) -> float:
        """The I/O time `job` would take alone on this node (the thesis's T_IO of Eq. 3.22, the "dedicated" part
        of its slowdown): its accesses, those of them that would miss with the whole buffer its own, each one
        mean request's service with no queue. The buffer is the node's configured one, not what paper 003's
        feedback control has made of it: that would give the same job other dedicated times under control."""
        miss = 1.0 - self.hit_ratio(job, [job], self.configured)
        return job.io_rate * job.work * miss * disk.service_time(job.io_size)

    def hit_rate(self, job, jobs, size: float) -> float:
        """h(i, j) under the "reaccess" model, the resident `jobs` sharing a buffer of `size`."""
        doing = [j for j in jobs if j.io_rate > 0]
        share = buffer_shares([j.io_rate * j.io_size for j in doing], size)[doing.index(job)]
        return hit_rate(job.io_rate, job.work, job.io_size, job.io_reaccess, share)

    @staticmethod
    def _footprint(jobs, size: float) -> float:
        footprint = sum(j.io_size for j in jobs if j.io_rate > 0)
        return min(1.0, size / footprint) if footprint > 0 else 0.0

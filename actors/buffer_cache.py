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
    __slots__ = ("pager", "reaccess", "rates")

    def __init__(self, pager, model: str):
        self.pager = pager
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

    def hit_ratio(self, job, jobs) -> float:
        """The share of `job`'s accesses the cache serves now, under either model."""
        return self.hit_rate(job, jobs) if self.reaccess else job.io_read * self._footprint(jobs)

    def dedicated_io(self, job, disk) -> float:
        """The I/O time `job` would take alone on this node (the thesis's T_IO of Eq. 3.22, the "dedicated" part
        of its slowdown): its accesses, those of them that would miss with the whole buffer its own, each one
        mean request's service with no queue."""
        return job.io_rate * job.work * (1.0 - self.hit_ratio(job, [job])) * disk.service_time(job.io_size)

    def hit_rate(self, job, jobs) -> float:
        """h(i, j) under the "reaccess" model, the resident `jobs` sharing the buffer."""
        doing = [j for j in jobs if j.io_rate > 0]
        share = buffer_shares([j.io_rate * j.io_size for j in doing], self.pager.buffer_cache)[doing.index(job)]
        return hit_rate(job.io_rate, job.work, job.io_size, job.io_reaccess, share)

    def _footprint(self, jobs) -> float:
        footprint = sum(j.io_size for j in jobs if j.io_rate > 0)
        return min(1.0, self.pager.buffer_cache / footprint) if footprint > 0 else 0.0

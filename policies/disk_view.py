"""What a node knows of the cluster's disks, for paper 003's expected response times (Eqs. 3.9-3.13): each
node's disk queue (its jobs' requests summed, `policies.io_load.Queue`) and the I/O volume rate that splits its
buffer (Eq. 3.6's sum of lam d^RW), which every load report carries (`disk`, `io_volume`) for the policies
that estimate (the PM schemes, IOCM); a peer's as last reported, plus the jobs this node has itself sent there
since its view was refreshed.

A job's requests at a disk are its explicit accesses that miss the buffer there (Eqs. 3.5-3.6), each a mean
request's service, and its page faults at the node that runs it (Eq. 3.3 with that node's memory demand, the
job counted), each a batch's: the disk serves both (spec 003a §4.2's open points (a) and (d)). A node's queue
holds its resident jobs' faults, the explicit misses of those whose I/O is here, and those of its guests
(jobs computing elsewhere whose I/O is here: not on its CPU; actors/remote_io.py).
"""
from __future__ import annotations

from typing import NamedTuple

from policies.base import SentSinceView
from policies.io_load import Queue, Stream, hit_rate, implicit_io_load, response


def explicit(job, node, volume: float) -> list[Stream]:
    """`job`'s explicit accesses that miss the buffer of a node like `node` whose jobs there, `job` among them,
    ask it for this volume of bytes per CPU-second; per CPU-second of `job`."""
    lam = job.io_rate * node.speed
    if lam <= 0:
        return []
    share = node.pager.buffer_cache * lam * job.io_size / volume
    miss = 1.0 - hit_rate(lam, job.work / node.speed, job.io_size, job.io_reaccess, share)
    return [Stream(lam * miss, node.disk.service_time(job.io_size))]


def faults(job, node, demand: float, memory: float) -> list[Stream]:
    """`job`'s page faults on a node like `node` whose jobs, `job` among them, demand this much of this memory."""
    pager = node.pager
    rate = implicit_io_load(pager.fault_rate, demand, memory) * job.fault_scale / pager.fault_batch
    if rate <= 0:
        return []
    return [Stream(rate, node.disk.service_time(pager.fault_batch * pager.page_size, pager.fault_batch))]


def volume(job, speed: float) -> float:
    """Eq. 3.6's lam_j d_j^RW: the bytes per CPU-second a job asks of the buffer."""
    return job.io_rate * speed * job.io_size


def remaining(job, node, rest: float, state: tuple, resident: bool) -> float:
    """Eq. 3.9, or Eq. 3.17 for the remaining `rest` CPU-seconds of a running job: `job`'s expected response
    time on a node like `node` in `state` (its disk Queue, I/O volume rate, memory demand and memory), `job`
    among the jobs there (`resident`: its own requests taken out of the queue it waits in) or added to them."""
    q, vol, demand, memory = state
    if not resident:
        vol, demand = vol + volume(job, node.speed), demand + job.demand()
    streams = faults(job, node, demand, memory) + explicit(job, node, vol)
    others = q.plus(streams, -1) if resident else q
    return response(rest, others, [(streams, others)])


def disk_queue(node, jobs: list) -> tuple[Queue, float]:
    """The disk queue of `node` with these resident `jobs` (the jobs there, or with a new one counted) and its
    guests, and the I/O volume rate that shares its buffer (every resident job doing I/O: a job whose I/O node is
    another still reads through the buffer of the node that runs it)."""
    vol = sum(volume(j, node.speed) for j in jobs if j.io_rate > 0)
    demand, memory = sum(j.demand() for j in jobs), node.pager.user_memory
    q = Queue()
    for j in jobs:
        pages, own = faults(j, node, demand, memory), explicit(j, node, vol)
        if j.io_node < 0 or j.io_node == node.id:
            q = q.plus(pages + own)
        else:                           # on this CPU, its misses at its I/O node's disk
            q = q.plus(pages, p=1.0 / (1.0 + sum(s.rate * s.service for s in pages + own)))
    for g in node.remote_io.guests.values():
        q = q.plus(explicit(g, node, volume(g, node.speed)), cpu=False)
    return q, vol


def misses(node, jobs) -> list[tuple[float, float]]:
    """(lam_j, h(i, j)) of every job whose explicit I/O this node's disk serves, per op: its resident jobs doing
    I/O here, through its buffer, and its guests, whose hit ratio at the buffer of the node that runs them is
    taken as if they had it alone (this node does not know that one's other jobs)."""
    cache = node.cache
    out = [(j.io_rate, cache.hit_ratio(j, jobs)) for j in jobs
           if j.io_rate > 0 and (j.io_node < 0 or j.io_node == node.id)]
    return out + [(g.io_rate, cache.hit_ratio(g, [g])) for g in node.remote_io.guests.values()]


class DiskTiming(NamedTuple):
    """A peer's disk as its load report gives it (`disk_timing`), for what a request's service takes there."""
    positioning: float                  # seek and rotation, s
    bandwidth: float                    # bytes/s

    def service_time(self, size: float, accesses: int = 1) -> float:
        return accesses * self.positioning + size / self.bandwidth


class Like(NamedTuple):
    """A node like a peer, for the estimates above: the peer's CPU speed and disk, this node's pager (paging and
    buffer settings are the cluster's; a heterogeneous cluster differs in speed, memory and disk, Ch. 5)."""
    speed: float
    disk: DiskTiming
    pager: object


class DiskView:
    __slots__ = ("added",)

    def __init__(self):
        self.added = SentSinceView()    # peer -> [I/O volume, memory demand, Queue] of the jobs sent there

    @staticmethod
    def report(node) -> dict:
        q, vol = disk_queue(node, list(node.jobs.values()))
        return {"disk": list(q), "io_volume": vol}

    @staticmethod
    def timing(node) -> dict:
        """The report of a node's disk for peers that differ (Ch. 5's): `like` reads it."""
        d = node.disk
        return {"disk_timing": (d.seek + d.rotation, d.bandwidth)}

    @staticmethod
    def like(node, k: int):
        """A node like peer k, as its last report gives it (`timing`; without it, or before k has reported: this
        node, as on a homogeneous cluster)."""
        r = node.index.get(k, {})
        if "disk_timing" not in r:
            return node
        return Like(r["speed"], DiskTiming(*r["disk_timing"]), node.pager)

    def peer(self, node, k: int) -> tuple[Queue, float, float, float]:
        """Peer k's disk queue, I/O volume rate, memory demand and memory, as this node sees them (a peer that
        has not reported yet: idle, as the cluster starts, with this node's memory)."""
        r = node.index.get(k, {})
        if "disk" not in r:
            r = {"disk": Queue(), "io_volume": 0.0, "demand": 0.0, "memory": node.pager.user_memory}
        vol, demand, q = self.added.of(node).get(k, (0.0, 0.0, Queue()))
        return Queue(*(a + b for a, b in zip(r["disk"], q))), r["io_volume"] + vol, r["demand"] + demand, r["memory"]

    def add(self, node, k: int, job, cpu: bool = True, io: bool = True) -> None:
        """Count `job`, sent to k, until the view is refreshed: to run there (`cpu`: its faults and its share of
        the buffer there), with its I/O there (`io`: its misses on that disk; from another node's buffer, as if
        it had that alone), or both."""
        q, vol, demand, memory = self.peer(node, k)
        there = self.like(node, k)
        if cpu:
            vol, demand = vol + volume(job, there.speed), demand + job.demand()
        streams = ((faults(job, there, demand, memory) if cpu else [])
                   + (explicit(job, there, vol if cpu else volume(job, there.speed)) if io else []))
        added = self.added.of(node).setdefault(k, [0.0, 0.0, Queue()])
        added[2] = added[2].plus(streams, cpu=cpu)
        if cpu:
            added[0] += volume(job, there.speed)
            added[1] += job.demand()

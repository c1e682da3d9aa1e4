"""The arithmetic of I/O-aware load balancing (paper 003, Qin's thesis, Secs. 3.2.2-3.2.6 and 4.1): load
indices, the buffer's hit rate, expected response times through M/G/1 disk and network queues, migration costs
and migration cost-effectiveness. Pure functions of plain numbers: a policy file states its rule, this file the
thesis's equations (numbered as there), each checked against hand-worked values in tests/test_io_load.py.

Units: times in seconds, sizes in bytes, bandwidths in bytes per second. A job's work `t` and age `a` are in
CPU-seconds on the node that runs it, its I/O rate `lam` and the page fault rate `mu` in requests per
CPU-second: the thesis's No./MI times the CPU's MIPS, so that its products t_j * lam_j are counts of requests,
as its equations need (spec 003a §2.5).

Where the thesis is silent (spec 003a §4.2): the disk queue is fed by what misses the buffer (the caller passes
those rates), the job being placed counts among the node's jobs, and a queue at or beyond saturation (rho >= 1)
gives an infinite response time, so that no criterion picks it.
"""
from __future__ import annotations

import math
from typing import NamedTuple

INF = math.inf


class Stream(NamedTuple):
    """A job's requests at one queue: `rate` per CPU-second of the job, each served in `service` seconds."""
    rate: float
    service: float


# -- load indices (Sec. 3.2.2) ---------------------------------------------------------------------------------
def implicit_io_load(mu: float, demand: float, available: float) -> float:
    """Eq. 3.3, l_page(i, j): no paging while the node's memory demand (the sum of its jobs' r_MEM) fits in the
    memory available to jobs, else mu x demand / available; the same for every job of the node."""
    return 0.0 if demand <= available else mu * demand / available


def buffer_shares(volumes: list[float], buffer: float) -> list[float]:
    """Eq. 3.6, d_buf(i, j): the node's buffer split in proportion to its jobs' I/O volume rates lam_j x d_j^RW
    (the `volumes`)."""
    total = sum(volumes)
    return [buffer * v / total if total > 0 else 0.0 for v in volumes]


def hit_rate(lam: float, t: float, size: float, r: float, share: float) -> float:
    """Eqs. 3.5 and 3.7, h(i, j): a job re-reads its data r times, so at most r/(r+1) of its accesses hit; less in
    proportion when its distinct data, lam t d^RW / (r+1), outgrows its share of the buffer."""
    data = lam * t * size / (r + 1)
    if share >= data:
        return r / (r + 1)
    return r * share / ((r + 1) * data)


def io_load(page: float, jobs: int, lams: list[float], hits: list[float]) -> float:
    """Eqs. 3.2 and 3.4, load_IO(i): each of the node's `jobs` paging at `page` (Eq. 3.3), plus the explicit load
    of those doing I/O, the accesses that miss the buffer, lam_j (1 - h(i, j))."""
    return jobs * page + sum(lam * (1.0 - h) for lam, h in zip(lams, hits))


def weighted_average_load(nodes: list[tuple[float, float, float]], weights: tuple[float, float, float]) -> list[float]:
    """Eq. 3.16, load_WAL(i) for every node from its (CPU, memory, I/O) loads: each index over its largest in the
    cluster (a term of 0 where the largest is 0), weighted by the shares of time spent on CPU, paging and I/O."""
    tops = [max(n[x] for n in nodes) for x in range(3)]
    return [sum(w * n[x] / top for x, (w, top) in enumerate(zip(weights, tops)) if top > 0) for n in nodes]


def overloaded(loads: list[float], i: int, ratio: float = 1.25) -> bool:
    """Sec. 3.2.1's test (IOCM's I/O overload, WAL-PM's trigger): node i's load is the cluster's highest and
    more than `ratio` times the mean."""
    mean = sum(loads) / len(loads)
    return loads[i] >= max(loads) and mean > 0 and loads[i] / mean > ratio


# -- expected response times (Secs. 3.2.3, 3.2.6) --------------------------------------------------------------
def on_cpu(streams: list[Stream]) -> float:
    """Eq. 3.12, E(L_i): the mean number of jobs on the CPU or in its queue, job k there a share
    1 / (1 + lam_k s_k) of its time (the rest in I/O)."""
    return sum(1.0 / (1.0 + s.rate * s.service) for s in streams)


def queue_time(streams: list[Stream], share: float = 1.0) -> float:
    """The brackets of Eqs. 3.9 and 3.13: a request's mean time in an M/G/1 queue (Pollaczek-Khinchine),
    E(s) + Lambda E(s^2) / (2 (1 - rho)), the streams' rates per CPU-second divided by `share` (Eq. 3.10: a job
    time-sharing the CPU with E(L_i) - 1 others issues its requests that much more slowly); inf if saturated."""
    rates = [s.rate / share for s in streams]
    arrivals = sum(rates)
    if arrivals == 0:
        return 0.0
    rho = sum(x * s.service for x, s in zip(rates, streams))
    if rho >= 1.0:
        return INF
    second = sum(x * s.service ** 2 for x, s in zip(rates, streams))     # Lambda x E(s^2), Eq. 3.11
    return rho / arrivals + second / (2.0 * (1.0 - rho))


def response(t: float, lam: float, cpu: list[Stream], disk: list[Stream] | None = None,
             link: list[Stream] | None = None) -> float:
    """Eq. 3.9 (local I/O): t E(L_i) + t lam [disk queue time], the node's jobs `cpu` (their disk streams, the
    job itself among them) and, by default, its disk fed by the same streams. Eq. 3.13 (remote I/O on node k):
    `disk` is node k's, and `link` the streams crossing the link from i to k (rates per wall second). For the
    remaining time of a running job (Eq. 3.17, r_PM) pass t - a."""
    shared = on_cpu(cpu)
    time = t * shared + t * lam * queue_time(cpu if disk is None else disk,
                                             shared if disk is None else on_cpu(disk))
    if link:
        time += t * lam * queue_time(link)
    return time


# -- migration costs (Secs. 3.2.4, 3.2.6, 4.1) -----------------------------------------------------------------
def data_move(size: float, net: float, src_disk: float, dst_disk: float) -> float:
    """Moving `size` bytes of data: sent over the link, read at the source disk, written at the destination's."""
    return size * (1.0 / net + 1.0 / src_disk + 1.0 / dst_disk)


def iocm_cost(e: float, initial: float, moves_job: bool, moves_io: bool, net: float, src_disk: float,
              dst_disk: float) -> float:
    """Eq. 3.14, c_j: the fixed cost e when the computation leaves its home node, plus moving the initial data
    when its I/O does. Also Eq. 4.1's and Eq. 3.19's remote-execution cost (both moving)."""
    return (e if moves_job else 0.0) + (data_move(initial, net, src_disk, dst_disk) if moves_io else 0.0)


def written_data(a: float, lam: float, w: float, size: float, r: float) -> float:
    """Eq. 3.20, d_j^W: the data a job has written in its age a (a share w of its accesses, each distinct datum
    accessed r + 1 times), which a preemptive migration moves with its initial data."""
    return a * lam * w * size / (r + 1)


def migration_cost(f: float, memory: float, initial: float, written: float, net: float, src_disk: float,
                   dst_disk: float) -> float:
    """Eq. 3.19, preemptive migration: the fixed cost f, the memory image over the network, the initial and
    written data moved."""
    return f + memory / net + data_move(initial + written, net, src_disk, dst_disk)


def cost_effectiveness(a: float, lam: float, cost: float) -> float:
    """Eq. 3.21, MCE(j): the I/O a job has issued so far (a lam) per second of its migration cost; WAL-PM moves
    the eligible job with the largest."""
    return a * lam / cost if cost > 0 else INF

"""The arithmetic of I/O-aware load balancing (paper 003, Qin's thesis, Secs. 3.2.2-3.2.6 and 4.1): load
indices, the buffer's hit rate, expected response times through M/G/1 disk and network queues, migration costs
and migration cost-effectiveness. Pure functions of plain numbers: a policy file states its rule, this file the
thesis's equations (numbered as there), each checked against hand-worked values in tests/test_io_load.py.

Units: times in seconds, sizes in bytes, bandwidths in bytes per second. A job's work `t` and age `a` are in
CPU-seconds on the node that runs it, its I/O rate `lam` and the page fault rate `mu` in requests per
CPU-second: the thesis's No./MI times the CPU's MIPS, so that its products t_j * lam_j are counts of requests,
as its equations need (spec 003a §2.5).

Where the thesis is silent (spec 003a §4.2): the disk queue is fed by what misses the buffer (the caller passes
those rates), and a queue's utilization is held below `RHO_MAX` (its open-queue formula has no answer at or
past saturation, which the thesis's I/O-bound jobs reach: a node then still ranks by its load, not all alike at
infinity). Whether the job itself is among the node's jobs M_i in Eq. 3.9 (open point (c)): it counts in the
node's load (the policies add it), but the queues it waits in are formed by the others' requests, since its own
never queue behind each other (each blocks it until served, Sec. 3.1); so it waits t E(L) on the CPU with E(L)
its own 1 plus the others', and each of its requests takes its own service plus the M/G/1 wait behind the
others'. A job alone then gets exactly its dedicated time, t + t lam s, where the literal formula would have an
I/O-bound job alone queue behind itself (4 times its dedicated time at lam s = 7).

Eq. 3.10 deflates a job's I/O rate per CPU-second by E(L_i) "because under time-sharing each job issues I/O
only while it holds the CPU". Literally, lam / E(L_i), that inflates it whenever E(L_i) < 1, which is when the
jobs are I/O-bound, as the thesis's are (1.5 No./MI at 800 MIPS and 14.25 ms a miss is 2.85 s of disk per
CPU-second, spec 003a §2.5): a job alone with lam s = 7 has E(L) = 1/8 and would load its disk to rho = 56.
nowemu reads the sentence instead: job k is in the CPU's queue a share p_k = 1 / (1 + lam_k s_k) of its time
(Eq. 3.12's p_CPU^k) and gets 1 / E(L_i) of the CPU there when others are too, so it issues lam_k p_k /
max(1, E(L_i)) requests a second (a job alone: rho = lam s / (1 + lam s) < 1).

The open queue's wait is also held to what the thesis's closed system allows (Sec. 3.1: a job blocks on each
request until it is served, so it has one at most at a queue): a request waits behind one request of each
other job there at most, the sum of their mean services. Near saturation the M/G/1 formula (or its clamp at
`RHO_MAX`) asks for seconds where the disk has a few requests to serve: on paper 003's I/O-intensive load,
IOCM's estimates of a job's slowdown at home were tens of times the slowdowns realized, and the link's cost of
a remote miss was lost beside them (tests/test_p003.py holds the estimate within a factor of two of them).
"""
from __future__ import annotations

import math
from typing import NamedTuple

INF = math.inf
RHO_MAX = 0.99      # spec 003a §4.2 (b)'s proposed clamp


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


def weighted_average_load(nodes: list[tuple[float, float, float]], weights: list[tuple[float, float, float]]) \
        -> list[float]:
    """Eq. 3.16, load_WAL(i) for every node from its (CPU, memory, I/O) loads: each index over its largest in the
    cluster (a term of 0 where the largest is 0), weighted by the shares of time spent on CPU, paging and I/O, a
    node's own (`weights`, one triple a node: the cluster's, repeated, or each node's)."""
    tops = [max(n[x] for n in nodes) for x in range(3)]
    return [sum(w * n[x] / top for x, (w, top) in enumerate(zip(ws, tops)) if top > 0) for n, ws in zip(nodes, weights)]


def overloaded(loads: list[float], i: int, ratio: float = 1.25) -> bool:
    """Sec. 3.2.1's test (IOCM's I/O overload, WAL-PM's trigger): node i's load is the cluster's highest and
    more than `ratio` times the mean."""
    mean = sum(loads) / len(loads)
    return loads[i] >= max(loads) and mean > 0 and loads[i] / mean > ratio


def least_if_overloaded(loads: dict[int, float], home: int, ratio: float = 1.25) -> int | None:
    """Sec. 3.2.1's rule on a load index by node: when node `home` is overloaded (`overloaded`), the node of
    least load (ties: `home`, then the lowest id); else None."""
    ids = sorted(loads)
    if not overloaded([loads[p] for p in ids], ids.index(home), ratio):
        return None
    return min(ids, key=lambda p: (loads[p], p != home, p))


# -- expected response times (Secs. 3.2.3, 3.2.6) --------------------------------------------------------------
class Queue(NamedTuple):
    """Jobs' requests at one M/G/1 queue summed over the jobs, all that Eqs. 3.10-3.12 need (and what a load
    report carries of a node's disk): E(L_i), the jobs on the CPU or in its queue (Eq. 3.12: job k there a
    share p_k = 1 / (1 + its sum of lam s) of its time, the rest in I/O), and the jobs' requests while there,
    sum of lam p, with the service they ask, sum of lam p s, and its second moment, sum of lam p s^2; and the
    closed system's bound on a wait, each job's mean service (one request of each at most: `wait`)."""
    on_cpu: float = 0.0
    rate: float = 0.0
    busy: float = 0.0
    second: float = 0.0
    held: float = 0.0

    def plus(self, job: list[Stream], sign: float = 1.0, p: float | None = None, cpu: bool = True) -> Queue:
        """This queue with a job's streams added (`sign` -1: taken away). `p`: its share on the CPU when these
        are not all its streams (remote I/O: some go to another node); `cpu` False: it is not on this node's
        CPU (a job whose I/O only is here)."""
        rate, busy = sum(s.rate for s in job), sum(s.rate * s.service for s in job)
        p = sign * (1.0 / (1.0 + busy) if p is None else p)
        return Queue(self.on_cpu + (p if cpu else 0.0), self.rate + p * rate, self.busy + p * busy,
                     self.second + p * sum(s.rate * s.service ** 2 for s in job),
                     self.held + (sign * busy / rate if rate > 0 else 0.0))


def queue(jobs: list[list[Stream]]) -> Queue:
    """The queue of these jobs, each given by its streams."""
    total = Queue()
    for job in jobs:
        total = total.plus(job)
    return total


def wait(q: Queue) -> float:
    """A request's mean wait behind the requests of `q` in an M/G/1 queue (Pollaczek-Khinchine, the brackets of
    Eqs. 3.9 and 3.13 less the request's own service), Lambda E(s^2) / (2 (1 - rho)): each job's requests arrive
    at its rate per CPU-second times the share of the time it is on the CPU (Eq. 3.10's deflation, read as that:
    see the module's docstring), rho held below `RHO_MAX`; and never more than one request of each job there
    (the closed system's bound, `Queue.held`)."""
    if q.rate <= 0:
        return 0.0
    share = max(1.0, q.on_cpu)
    rho = min(q.busy / share, RHO_MAX)
    return min(q.second / share / (2.0 * (1.0 - rho)), q.held)      # Lambda E(s^2), Eq. 3.11


def response(t: float, others: Queue, legs: list[tuple[list[Stream], Queue]]) -> float:
    """Eq. 3.9 (local I/O), Eq. 3.13 (remote I/O) and, for the remaining t - a of a running job, Eq. 3.17: a job
    of t CPU-seconds sharing the CPU with `others` (E(L) = 1 + theirs), each of its `legs` its requests at one
    queue (a disk, a link) with the queue of the others' requests there: t E(L) + t sum over its requests of
    lam (s + wait)."""
    time = t * (1.0 + others.on_cpu)
    for streams, q in legs:
        w = wait(q)
        time += t * sum(s.rate * (s.service + w) for s in streams)
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

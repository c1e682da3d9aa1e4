"""IOCM (paper 003, Sec. 3.2.1, Fig. 3.2): I/O-CPU-memory-based load balancing, which may split a new job into
its computation and its I/O, each on the node that suits it. On a job's arrival at node i, the job counted there:

1. its I/O node M_IO: i, unless i is I/O-overloaded (its I/O load, Eq. 3.2, the cluster's highest and above
   1.25 times the mean), then the node of least I/O load;
2. its computing node M_CM: CM-RE's rule (policies/cm_re.py: by memory load when i's memory is overloaded,
   else by job count when its CPU is, beyond the CPU threshold, else i);
3. if either is not i, the split is made only if the job's expected response time at home exceeds that of the
   chosen pair plus its cost (Eq. 3.15, with Eq. 3.14's costs); else everything stays at home (only the chosen
   pair is weighed: spec 003a §4.5's default);
4. a job whose I/O goes to a node other than the one it runs on computes there and sends each access to its I/O
   node, its initial data moved there first unless that is i (actors/remote_io.py).

Expected response times: Eq. 3.9 when computation and I/O are together, Eq. 3.13 when not, from the nodes' disk
queues (policies/disk_view.py); the job is on its computing node's CPU, pages at its disk, and reads through
its buffer, and what misses goes to its I/O node's disk, and back over the link when that is another node. The
link is the I/O node's outgoing one (actors/nic.py: one FIFO queue per node, spec 003a §7.1's "or per NIC"),
where the replies to all its guests' misses queue: each report carries that queue (`link`), and a node adds
the guests it has itself sent there since. Fixed cost e: the scenario's remote-execution cost r, as for the PM
schemes.
"""
from __future__ import annotations

from policies.base import SentSinceView
from policies.cm_re import CMRemoteExecution
from policies.disk_view import DiskView, disk_queue, explicit, faults, volume
from policies.io_load import Queue, Stream, iocm_cost, least_if_overloaded, response
from policies.iocm_re import IOLoads
from policies.wal_re import RATIO, node_loads


class IOCM(CMRemoteExecution):
    PARAMS = {**CMRemoteExecution.PARAMS,
              "ratio": ("number", RATIO, "a node is I/O-overloaded when its I/O load is the highest and above this "
                                         "multiple of the mean (Sec. 3.2.1)")}

    def __init__(self, **params):
        super().__init__(**params)
        self.disks = DiskView()
        self.io = IOLoads()
        self.links = SentSinceView()          # node -> the Queue of replies to the guests sent there since

    def report(self, node) -> dict:
        return {**self.disks.report(node), "io_load": node_loads(node)["io_load"], "link": list(link_queue(node))}

    def place(self, job, node):
        if not job.migratable:
            return node.id
        i = node.id
        loads = self.io.of(node, job)
        io = least_if_overloaded(loads, i, self.ratio)
        io = i if io is None else io
        cm = self.target(job, node)
        if cm is None or (cm != i and "disk" not in node.index.get(cm, {})):
            cm = i
        if job.io_rate == 0:            # nothing to split: its initial data, if any, goes where it runs
            io = cm
        if cm == i and io == i:
            return i
        net, disk = node.nic.bandwidth, node.disk.bandwidth
        cost = iocm_cost(node.remote_cost, job.initial_data, cm != i, io != i, net, disk, disk)
        if self.expected(job, node, i, i) <= self.expected(job, node, cm, io) + cost:
            return i
        node.log("iocm", job=job.id, cm=cm, io=io)
        job.io_node = -1 if io == cm else io
        if cm != i:
            self.count(job, cm, node)
        if io != i:
            self.io.add(node, io, job)
        if io != cm:
            links = self.links.of(node)
            links[io] = links.get(io, Queue()).plus(replies(job, node), cpu=False)
        if io == cm:
            self.disks.add(node, cm, job)
        else:
            if cm != i:
                self.disks.add(node, cm, job, io=False)
            if io != i:
                self.disks.add(node, io, job, cpu=False)
        return cm

    def expected(self, job, node, cm: int, io: int) -> float:
        """The job's expected response time computing on `cm` with its I/O on `io` (Eq. 3.9 if the same node,
        else Eq. 3.13)."""
        t, speed = job.work / node.speed, node.speed
        q_cm, vol_cm, demand, memory = self.state(node, cm)
        pages = faults(job, node, demand + job.demand(), memory)
        misses = explicit(job, node, vol_cm + volume(job, speed))      # through the buffer of the node it runs on
        if io == cm:
            return response(t, q_cm, [(pages + misses, q_cm)])
        link = [Stream(s.rate, job.io_size / node.nic.bandwidth + node.nic.latency) for s in misses]
        return response(t, q_cm, [(pages, q_cm), (misses, self.state(node, io)[0]), (link, self.link(node, io))])

    def link(self, node, n: int) -> Queue:
        """Node n's outgoing link: the replies to its guests' misses (this node's now, a peer's as seen)."""
        if n == node.id:
            return link_queue(node)
        added = self.links.of(node).get(n, Queue())
        return Queue(*(a + b for a, b in zip(node.index[n]["link"], added)))

    def state(self, node, n: int) -> tuple:
        """Node n's disk queue, I/O volume rate, memory demand and memory (of the jobs there: a new job's are
        added by the caller): this node's now, a peer's as seen."""
        if n != node.id:
            return self.disks.peer(node, n)
        q, vol = disk_queue(node, list(node.jobs.values()))
        return q, vol, node.pager.demand, node.pager.user_memory


def replies(job, node) -> list[Stream]:
    """A guest's misses at its I/O node, `node` or one like it, as the replies they make on its link: as many as
    its disk serves there (`disk_view.explicit`, its buffer as if its own), each a mean request's bytes."""
    return [Stream(s.rate, job.io_size / node.nic.bandwidth) for s in explicit(job, node, volume(job, node.speed))]


def link_queue(node) -> Queue:
    """The queue at `node`'s outgoing link of the replies to its guests' misses (they are not on its CPU)."""
    q = Queue()
    for g in node.remote_io.guests.values():
        q = q.plus(replies(g, node), cpu=False)
    return q


POLICY = IOCM

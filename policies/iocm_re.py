"""IOCM-RE (paper 003, Sec. 4.1): I/O-CPU-memory load balancing by remote execution, for parallel jobs and
sequential ones alike (a sequential job is a job of one task). On a job's arrival at its home node i:

1. if i's I/O load (Eq. 3.2, implicit and explicit, the job counted) is above 0, its tasks go to "a group of
   nodes with lighter I/O load", ties broken by the smaller memory load: the k nodes of least (I/O load,
   memory demand), one task each while the cluster has enough, ties in order from i; each task leaves
   i only if its expected response time there beats that at home by more than the cost, r(i, j) > r(k, j) +
   c_j(i, k) (Eq. 3.9 from the nodes' disk queues, policies/disk_view.py; Eq. 4.1's c = e + its initial data
   through both disks and the link), else it runs at home. Every task of the job counts at home until it is
   sent away (Fig. 3.3's step 1, the new job counted on its home node, for all its tasks; the thesis's "load
   status updated" after each decision): a task weighs home as it would be were the job's tasks not yet placed
   all to stay there;
2. else, if i's memory is overloaded (the demand above the memory its jobs have), the tasks go to the nodes
   lightly loaded in memory; else, if i is CPU-overloaded (beyond the CPU threshold), to the nodes of fewest
   jobs: MEM-RE's rules (policies/mem_re.py). Else it stays.

No split of computation and I/O: a task moves with its data. Nothing moves afterwards (IOCM-PM, Sec. 4.3, adds
that). "I/O load above 0" is the thesis's own test (spec 003a §4.8 asks whether Ch. 3's 1.25 rule was meant:
under its I/O-intensive loads nearly every node has some, so the first rule decides nearly always, and its
criterion is what keeps a task home). Fixed cost e: the scenario's remote-execution cost r.
"""
from policies.base import SentSinceView
from policies.disk_view import DiskView, disk_queue, remaining
from policies.mem_re import MemoryRemoteExecution
from policies.preemptive import move_cost
from policies.wal_re import node_loads


class IOCMRemoteExecution(MemoryRemoteExecution):
    def __init__(self, **params):
        super().__init__(**params)
        self.disks = DiskView()
        self.io = IOLoads()

    def report(self, node) -> dict:
        return {**self.disks.report(node), "io_load": node_loads(node)["io_load"]}

    def place_one(self, job, node):
        if not job.migratable or node_loads(node, job)["io_load"] <= 0:
            return super().place_one(job, node)
        return self.by_io(job, node, 1)[0]

    def map_tasks(self, job, node) -> list:
        if node_loads(node, job)["io_load"] <= 0:
            return super().map_tasks(job, node)
        return self.by_io(job, node, job.tasks)

    def by_io(self, job, node, k: int) -> list:
        """Rule 1 for k tasks like `job`: their nodes."""
        i, view = node.id, self.view(job, node, 0)
        loads = self.io.of(node)
        nodes = least(node, k, lambda p: (loads.get(p, 0.0), view[p][1] if p in view else 0.0))
        everyone = list(node.jobs.values()) + [job] * k         # every task counted at home first
        for r, p in enumerate(nodes):
            if p != i and pays(self.disks, job, node, everyone, p):
                everyone.remove(job)
                self.sent_away(job, p, node)
            else:
                nodes[r] = i
        return nodes

    def sent_away(self, job, p: int, node) -> None:
        """`job` (or a task) sent to p: counted there in each of this node's views until they are refreshed."""
        self.count(job, p, node)
        self.io.add(node, p, job)
        self.disks.add(node, p, job)


class IOLoads:
    """Eq. 3.2's I/O load of every node as a node sees it (IOCM's and IOCM-RE's index): its own now (a new job
    counted, if given), its peers' as last reported plus the I/O rates of the jobs it has sent them since."""
    __slots__ = ("sent",)

    def __init__(self):
        self.sent = SentSinceView()

    def of(self, node, job=None) -> dict:
        sent = self.sent.of(node)
        loads = {p: r["io_load"] + sent.get(p, 0.0) for p, r in node.index.items() if "io_load" in r}
        loads[node.id] = node_loads(node, job)["io_load"]
        return loads

    def add(self, node, peer: int, job) -> None:
        sent = self.sent.of(node)
        sent[peer] = sent.get(peer, 0.0) + job.io_rate


def pays(disks: DiskView, job, node, everyone: list, p: int) -> bool:
    """The criterion r(i, j) > r(k, j) + c_j(i, k): a task like `job`, among `everyone` at home, expects to be done
    sooner on p (Eq. 3.9 with p's CPU speed and disk, as this node sees p through `disks`) by more than the cost of
    sending it there (Eq. 4.1: e and its initial data through both disks and the link)."""
    home = (*disk_queue(node, everyone), sum(j.demand() for j in everyone), node.pager.user_memory)
    peer = disks.like(node, p)
    there = remaining(job, peer, job.work / peer.speed, disks.peer(node, p), False)
    cost = move_cost(job, job, node, peer.disk.bandwidth)
    return remaining(job, node, job.work / node.speed, home, True) > there + cost


def least(node, k: int, key) -> list:
    """The k nodes of least `key(node id)` (more than the cluster: round again), ties in order from `node`."""
    n = node.workstations
    order = sorted(range(n), key=lambda p: (key(p), (p - node.id) % n))
    return [order[r % n] for r in range(k)]


POLICY = IOCMRemoteExecution

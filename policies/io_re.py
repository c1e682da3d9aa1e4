"""IO-RE (paper 003, after Lee et al. 2000): I/O-based load balancing by remote execution, on the explicit I/O
load, the accesses per CPU-second that miss the buffer cache, summed over the node's jobs (Eqs. 3.2 and 3.4
without the paging term, as the thesis's IO-RE "is based only on explicit I/O load" in Ch. 3: spec 003a §7.4
item 18). Nothing moves afterwards; a job's computation and its I/O go together.

The rule is the one the thesis spells out in Ch. 5 (Sec. 5.2.2): a new job, counted on its home node, runs there
while that node's I/O load is below its threshold (Eq. 5.6: the cluster's I/O load times the node's share of the
cluster's disk performance, D_i of Eq. 5.1 with d the scenario's mean request size, `request_size`; on a
homogeneous cluster, the mean); else it goes to the node of least I/O load among those below their own threshold
whose load is lighter than home's by more than the job's own ("to avoid useless migrations"; spec 003b's A10), and
stays home if there is none. Ch. 5 counts a node's paging in its I/O load too ("explicit and implicit I/O load",
Eq. 3.2 whole): `implicit = true`. Ch. 3's one line ("greedily assigns ... to the node that has the least
accumulated I/O load") would move nearly every job, each with its initial data, which its Ch. 3 results (IO-RE
"almost identical" to WAL-RE, Fig. 3.4) do not fit.

Each node publishes its I/O load and its disk's performance in its load report (`io`, `disk_power`); a node reads
its own as of now and its peers' from its view (up to one period old). Between two refreshes of the view it adds to
each node the rates of the jobs it has sent there (as if they all missed: their hits depend on the share of the
cache they will get), so that the jobs of one period do not all go to the same node. Ties go to the lowest id.
"""
from policies.base import RemoteExecution, SentSinceView
from policies.disk_view import misses
from policies.wal_re import node_loads


def explicit_io_load(node) -> float:
    """Eq. 3.2's explicit part on `node` now: sum of lam_j (1 - h(i, j)) over the jobs whose I/O its disk serves."""
    return sum(lam * (1.0 - h) for lam, h in misses(node, node.jobs.values()))


def disk_power(disk, request: float) -> float:
    """Eq. 5.1: the requests of mean size `request` a disk serves per second."""
    return 1.0 / disk.service_time(request)


class IORemoteExecution(RemoteExecution):
    PARAMS = {"implicit": ("bool", False, "count paging in the I/O load (Ch. 5) or explicit I/O only (Ch. 3)"),
              "request_size": ("size", 256 * 1024, "d of Eq. 5.1, the mean request size, for each disk's performance")}

    def __init__(self, **params):
        super().__init__(**params)
        self.sent = SentSinceView()           # node -> I/O rate

    def io_load(self, node) -> float:
        return node_loads(node)["io_load"] if self.implicit else explicit_io_load(node)

    def report(self, node) -> dict:
        return {"io": self.io_load(node), "disk_power": disk_power(node.disk, self.request_size)}

    def loads(self, node) -> dict:
        """Each node's I/O load as this node sees it, with what it has sent there since its view changed."""
        sent = self.sent.of(node)
        loads = {peer: r["io"] + sent.get(peer, 0.0) for peer, r in node.index.items() if "io" in r}
        loads[node.id] = self.io_load(node)
        return loads

    def thresholds(self, loads: dict, node) -> dict:
        """Eq. 5.6: each node's share of the cluster's I/O load `loads`, by its disk's performance."""
        power = {p: node.index[p]["disk_power"] for p in loads if p != node.id}
        power[node.id] = disk_power(node.disk, self.request_size)
        total, whole = sum(loads.values()), sum(power.values())
        return {p: total * d / whole for p, d in power.items()}

    def count(self, job, peer: int, node) -> None:
        sent = self.sent.of(node)
        sent[peer] = sent.get(peer, 0.0) + job.io_rate

    def target(self, job, node, here: int = 1) -> int:
        """Where `job` goes, `here` jobs like it counted on this node (a parallel job's tasks kept home so far
        and itself: policies/iocm_re_hetero.py)."""
        loads = self.loads(node)
        loads[node.id] += here * job.io_rate
        threshold = self.thresholds(loads, node)
        if loads[node.id] < threshold[node.id]:
            return node.id
        fits = [p for p in loads
                if p != node.id and loads[p] < threshold[p] and loads[node.id] - loads[p] > job.io_rate]
        return min(fits, key=lambda p: (loads[p], p)) if fits else node.id


POLICY = IORemoteExecution

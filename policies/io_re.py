"""IO-RE (paper 003, after Lee et al. 2000): I/O-based load balancing by remote execution, on the explicit I/O
load, the accesses per CPU-second that miss the buffer cache, summed over the node's jobs (Eqs. 3.2 and 3.4
without the paging term, as the thesis's IO-RE "is based only on explicit I/O load" in Ch. 3: spec 003a §7.4
item 18). Nothing moves afterwards; a job's computation and its I/O go together.

The rule is the one the thesis spells out in Ch. 5 (Sec. 5.2.2), in a homogeneous cluster: a new job, counted
on its home node, runs there while that node's I/O load is below its threshold (Eq. 5.6: its share of the
cluster's I/O load, here the mean); else it goes to the node of least I/O load if that node is not overloaded
itself and the two loads differ by more than the job's own ("to avoid useless migrations"), and stays home
otherwise. Ch. 3's one line ("greedily assigns ... to the node that has the least accumulated I/O load")
would move nearly every job, each with its initial data, which its Ch. 3 results (IO-RE "almost identical" to
WAL-RE, Fig. 3.4) do not fit.

Each node publishes its explicit I/O load in its load report (`explicit_io`); a node reads its own as of now and its
peers' from its view (up to one period old). Between two refreshes of the view it adds to each node the rates
of the jobs it has sent there (as if they all missed: their hits depend on the share of the cache they will
get), so that the jobs of one period do not all go to the same node. Ties go to the lowest id.
"""
from policies.base import Policy, SentSinceView
from policies.disk_view import misses


def explicit_io_load(node) -> float:
    """Eq. 3.2's explicit part on `node` now: sum of lam_j (1 - h(i, j)) over the jobs whose I/O its disk serves."""
    return sum(lam * (1.0 - h) for lam, h in misses(node, node.jobs.values()))


class IORemoteExecution(Policy):
    def __init__(self, **params):
        super().__init__(**params)
        self.sent = SentSinceView()           # node -> I/O rate

    def report(self, node) -> dict:
        return {"explicit_io": explicit_io_load(node)}

    def loads(self, node) -> dict:
        """Each node's explicit I/O load as this node sees it, with what it has sent there since its view
        changed."""
        sent = self.sent.of(node)
        loads = {peer: r["explicit_io"] + sent.get(peer, 0.0) for peer, r in node.index.items() if "explicit_io" in r}
        loads[node.id] = explicit_io_load(node)
        return loads

    def count(self, job, peer: int, node) -> None:
        sent = self.sent.of(node)
        sent[peer] = sent.get(peer, 0.0) + job.io_rate

    def place(self, job, node):
        if not job.migratable:
            return node.id
        loads = self.loads(node)
        loads[node.id] += job.io_rate
        threshold = sum(loads.values()) / len(loads)
        peers = [p for p in loads if p != node.id]
        if loads[node.id] < threshold or not peers:
            return node.id
        best = min(peers, key=lambda p: (loads[p], p))
        if loads[best] >= threshold or loads[node.id] - loads[best] <= job.io_rate:
            return node.id
        self.count(job, best, node)
        return best


POLICY = IORemoteExecution

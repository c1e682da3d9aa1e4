"""IO-RE (paper 003, Sec. 3.4, after Lee et al. 2000): I/O-based load balancing by remote execution. A new job
goes to the node of least explicit I/O load: the accesses per CPU-second that miss the buffer cache, summed over
the node's jobs (Eqs. 3.2 and 3.4 without the paging term, as the thesis's IO-RE "is based only on explicit I/O
load": spec 003a §7.4 item 18). Nothing moves afterwards; a job's computation and its I/O go together.

Each node publishes its explicit I/O load in its load report (`explicit_io`); a node reads its own as of now and its
peers' from its view (up to one period old). Between two refreshes of the view it adds to each node the rates
of the jobs it has sent there (as if they all missed: their hits depend on the share of the cache they will
get), so that the jobs of one period do not all go to the same node. Ties go to the home node, then to the
lowest id.
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
        best = min(loads, key=lambda p: (loads[p], p != node.id, p))
        if best != node.id:
            self.count(job, best, node)
        return best


POLICY = IORemoteExecution

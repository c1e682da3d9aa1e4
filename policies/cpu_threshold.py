"""CPU-based load sharing (shortest queue with a CPU threshold, as in spec 002 §2.3's CPU-based policy):
a job runs at home while the node holds fewer than `threshold` jobs; otherwise it goes by remote execution to
the peer with the fewest jobs in this node's (possibly stale) view, if that peer is below the threshold, and
waits in the pending pool if none is. With `migrate = true`, each time the view is refreshed an overloaded
node (more than `threshold` jobs) preemptively migrates its smallest-memory ready job to the least-loaded
peer, when that peer has at least two jobs fewer (so that the move helps)."""
from policies.base import Policy, least_loaded


class CPUThreshold(Policy):
    PARAMS = {
        "threshold": ("int", 2, "jobs a node takes before sending new ones away (the CPU threshold)"),
        "migrate": ("bool", False, "also migrate running jobs off overloaded nodes"),
        "hold": ("bool", False, "keep a job pending rather than overload its home when no peer is below the threshold"),
    }

    def place(self, job, node):
        if len(node.jobs) < self.threshold or not job.migratable:     # a pinned job may not even be sent
            return node.id
        peer = least_loaded(node)
        if peer is not None and node.index[peer]["jobs"] < self.threshold:
            return peer
        return None if self.hold else node.id

    def migrations(self, node):
        if not self.migrate or len(node.jobs) <= self.threshold:
            return []
        peer = least_loaded(node)
        if peer is None or node.index[peer]["jobs"] > len(node.jobs) - 2:
            return []
        movable = [j for j in node.jobs.values() if j.migratable and j.state != "blocked"]
        if not movable:
            return []
        return [(min(movable, key=lambda j: (j.demand(), j.id)), peer)]


POLICY = CPUThreshold

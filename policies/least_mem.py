"""Paper 001's static mapping (spec 001 §2.2): a parallel job's tasks go, one per node, to the nodes of least
memory demand N_k.mem (eq. 4: the virtual memory of their resident tasks), so as to keep the memory load
even; a local task runs where it was born. Nothing moves afterwards.

The job arrives at its home node (the front end that submits it, drawn uniformly), which maps all its tasks
at once from its load index (each peer's last report, so up to one period old) and sends them there by
remote execution (policies/task_mapping.py). Between two refreshes of its view the node adds what it has itself
sent to each node, so that the jobs it maps in one period do not all land on the same nodes. Ties go to the
lower node id.
"""
from policies.base import SentSinceView
from policies.task_mapping import TaskMapping


class LeastMemory(TaskMapping):
    def __init__(self, **params):
        super().__init__(**params)
        self.sent = SentSinceView()           # node -> demand

    def map_tasks(self, job, node) -> list:
        sent = self.sent.of(node)
        demand = {peer: r["demand"] for peer, r in node.index.items()}
        demand[node.id] = node.pager.demand
        loads = sorted((demand.get(p, 0.0) + sent.get(p, 0.0), p) for p in node.peers())
        nodes = [p for _, p in loads[:job.tasks]]
        for p in nodes:
            sent[p] = sent.get(p, 0.0) + job.demand()
        return nodes


POLICY = LeastMemory

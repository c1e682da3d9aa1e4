"""CM-RE (paper 003's CPU-memory baseline, Sec. 3.4, after Zhang, Qu and Xiao 2000): remote execution by CPU
load while memory suffices, by memory load once it does not. With the new job counted on its home node: if the
node's memory demand (load_MEM, Eq. 3.1) exceeds the memory its jobs have (where Eq. 3.3's paging begins: the
thesis's memory overload, spec 003a §7.4 item 3), the job goes to the node of least memory demand; else, if
the node is CPU-overloaded, to the node of fewest jobs (load_CPU); else it stays. This is IOCM's step 2
(Fig. 3.2) alone. The thesis defines no CPU overload: its own test for the other indices is used (the load
the cluster's highest and above 1.25 times the mean), as one code for all its schemes suggests. Ties: this
node, then the lowest id. Nothing moves afterwards.

Papers 000 and 002's G-Loadsharing / LS_RE (policies/ls_re.py), of the same lineage, admit by a fixed job-slot
threshold and keep jobs waiting in a pending pool: neither is in the thesis's description of CM.
"""
from policies.base import Policy, SentSinceView
from policies.io_load import overloaded
from policies.wal_re import RATIO


class CMRemoteExecution(Policy):
    PARAMS = {"ratio": ("number", RATIO, "a node is CPU-overloaded when its job count is the highest and above "
                                         "this multiple of the mean (Sec. 3.2.1's test)")}

    def __init__(self, **params):
        super().__init__(**params)
        self.sent = SentSinceView()           # node -> [jobs, demand]

    def target(self, job, node):
        """Where `job` should run by the CM rule (None: here)."""
        sent = self.sent.of(node)
        view = {p: (r["jobs"], r["demand"], r["memory"]) for p, r in node.index.items()}
        view[node.id] = (len(node.jobs) + 1, node.pager.demand + job.demand(), node.pager.user_memory)
        for p, (jobs, demand) in sent.items():
            if p in view:
                view[p] = (view[p][0] + jobs, view[p][1] + demand, view[p][2])
        ids = sorted(view)
        if view[node.id][1] > view[node.id][2]:
            index = 1
        elif overloaded([view[p][0] for p in ids], ids.index(node.id), self.ratio):
            index = 0
        else:
            return None
        return min(ids, key=lambda p: (view[p][index], p != node.id, p))

    def count(self, job, peer: int, node) -> None:
        added = self.sent.of(node).setdefault(peer, [0, 0.0])
        added[0] += 1
        added[1] += job.demand()

    def place(self, job, node):
        best = self.target(job, node) if job.migratable else None
        if best is None or best == node.id:
            return node.id
        self.count(job, best, node)
        return best


POLICY = CMRemoteExecution

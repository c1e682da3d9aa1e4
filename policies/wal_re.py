"""WAL-RE (paper 003, Sec. 3.4, after Surdeanu et al. 2002): remote execution by the weighted average load
(Eq. 3.16). A new job is first counted on its home node (Fig. 3.3's step 1: one more job, its memory demand, its
I/O load); if the home node is then not overloaded (its WAL load the cluster's highest and above 1.25 times
the mean, Sec. 3.2.1's test) the job runs there, else it goes to the node of least WAL load. Nothing moves
afterwards.

Each node publishes Sec. 3.2.2's indices in its load report: CPU (`ready`, its CPU queue, Eq. 3.16's "length of
the CPU waiting queue", as CM reads it: policies/cm_re.py; `jobs` with `cpu_load = "jobs"`), memory (`demand`)
and I/O (`io_load`, Eq. 3.2: every job's paging at the node's rate, Eq. 3.3, plus the accesses that miss the
buffer), and `cpu_time`, `page_time`, `io_time`, the seconds its resident jobs have had of each so far. The
weights are those shares summed over the cluster's reports, "the percentage of time spent on CPU, paging, and
I/O accessing" measured by the load monitor (cluster-wide, spec 003a §7.4 item 21's open choice, as Eq. 3.16's
weights carry no node index; equal weights before any job has run), or with `weights = "node"` each node's loads
weighed by its own shares (item 21's other reading). A node reads its own loads as of now and its peers' from
its view (up to one period old), plus what it has itself sent to each since the view was refreshed
(`SentSinceView`).
"""
from policies.base import RemoteExecution, SentSinceView
from policies.cm_re import CMRemoteExecution, cpu_load
from policies.disk_view import misses
from policies.io_load import implicit_io_load, io_load, least_if_overloaded, weighted_average_load

RATIO = 1.25        # Sec. 3.2.1: the thesis's best threshold ratio after a sweep over 1.0-2.0, also WAL-PM's
TIMES = ("cpu", "page", "io")       # what the weights measure: the jobs' time on CPU, paging, I/O


def node_loads(node, extra=None) -> dict:
    """Sec. 3.2.2's indices on `node` now (with `extra`, a job counted as if resident), and its jobs' time so far
    on CPU, paging and I/O."""
    jobs = list(node.jobs.values()) + ([extra] if extra is not None else [])
    pager = node.pager
    demand = pager.demand + (extra.demand() if extra is not None else 0.0)
    page = implicit_io_load(pager.fault_rate, demand, pager.user_memory)
    doing = misses(node, jobs)
    return {"jobs": len(jobs), "demand": demand,
            "io_load": io_load(page, len(jobs), [lam for lam, _ in doing], [h for _, h in doing]),
            **{f"{x}_time": sum(getattr(j, x) for j in jobs) for x in TIMES}}


def weights(reports) -> tuple[float, float, float]:
    """The WAL weights: the cluster's shares of time on CPU, paging and I/O (equal before any)."""
    total = [sum(r[f"{x}_time"] for r in reports) for x in TIMES]
    whole = sum(total)
    return tuple(t / whole for t in total) if whole > 0 else (1 / 3, 1 / 3, 1 / 3)


class WALRemoteExecution(RemoteExecution):
    PARAMS = {"ratio": ("number", RATIO, "a node is overloaded when its WAL load is the highest and above this "
                                         "multiple of the mean (Sec. 3.2.1)"),
              "cpu_load": CMRemoteExecution.PARAMS["cpu_load"],
              "weights": (("cluster", "node"), "cluster", "whose shares of time weigh a node's loads (Eq. 3.16): "
                                                         "the cluster's, or the node's own")}

    def __init__(self, **params):
        super().__init__(**params)
        self.sent = SentSinceView()           # node -> [demand, I/O load] (the job count: in the index)

    def report(self, node) -> dict:
        loads = node_loads(node)
        return {k: loads[k] for k in ("io_load", *(f"{x}_time" for x in TIMES))}     # jobs, demand: every report's

    def loads(self, job, node) -> dict:
        """The nodes' WAL loads (Eq. 3.16) as this node sees them, with `job` counted on this node."""
        sent = self.sent.of(node)
        view = {p: r for p, r in node.index.items() if "io_load" in r}
        view[node.id] = here = node_loads(node, job)
        here[self.cpu_load] = cpu_load(node, self.cpu_load) + 1
        ids = sorted(view)
        loads = [(r[self.cpu_load], r["demand"] + s[0], r["io_load"] + s[1])
                 for r, s in ((view[p], sent.get(p, (0.0, 0.0))) for p in ids)]
        shares = [weights([view[p]]) for p in ids] if self.weights == "node" else [weights(view.values())] * len(ids)
        return dict(zip(ids, weighted_average_load(loads, shares)))

    def target(self, job, node):
        """The node of least WAL load if this node, `job` counted on it, is overloaded (Sec. 3.2.1's test: its
        load the cluster's highest and above `ratio` times the mean); else None. Ties: this node, the lowest id."""
        return least_if_overloaded(self.loads(job, node), node.id, self.ratio)

    def count(self, job, peer: int, node) -> None:
        added = self.sent.of(node).setdefault(peer, [0.0, 0.0])
        added[0] += job.demand()
        added[1] += job.io_rate


POLICY = WALRemoteExecution

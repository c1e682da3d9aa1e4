"""CM-RE (paper 003's CPU-memory baseline, Sec. 3.4, after Zhang, Qu and Xiao 2000): remote execution by CPU
load while memory suffices, by memory load once it does not. With the new job counted on its home node: if the
node's memory demand (load_MEM, Eq. 3.1) exceeds the memory its jobs have (where Eq. 3.3's paging begins: the
thesis's memory overload, spec 003a §7.4 item 3), the job goes to the node of least memory demand; else, if
the node is CPU-overloaded, to the node of least CPU load (load_CPU, below); else it stays. This is IOCM's step 2
(Fig. 3.2) alone. Ties: this node, then the lowest id. Nothing moves afterwards.

load_CPU: Sec. 3.2.2 calls it "the number of jobs running on the node" (after Zhang et al. 2000 and Xiao et al.
2002), and Eq. 3.16 "the length of the CPU waiting queue": the jobs ready or running on the CPU, not those blocked
on I/O (`cpu_load = "ready"`, the default: each node's `ready` in its load report, its CPU queue now at home).
The lineage's job slots, every resident job, are `cpu_load = "jobs"`. The two differ where jobs block on I/O:
under the thesis's I/O-intensive load most of a node's jobs wait on its disk, its CPU queue stays short, and CM
"degrades to no-load-balancing" (Sec. 3.4.5), as the thesis says it does. Counting every resident job (nowemu's
reading until 2026-11-30), io.toml's nodes often held more than the threshold, and CM-PM migrated as often as
WAL-PM and did as well (docs/p003.md). A job this node sends is counted in its view of the receiver at once,
in `jobs` and in `ready` (actors/migration.py), so one period does not herd jobs onto a node whose report is old.

CPU overload: the thesis defines none. Its CM comes from Zhang et al. 2000, whose nodes take jobs up to a CPU
threshold (papers 000 and 002's G-Loadsharing, the same lineage; no value is printed anywhere on the shelf). The
default, 4, is the middle of the range spec 000 proposes to sweep (2-6). (The thesis's own 1.25 test, applied to
job counts, moves most jobs of an I/O-bound load by their count: not the CM it describes.)

In a heterogeneous cluster (Ch. 5) both rules weigh each node by its capability, as Xiao, Zhang and Qu 2000 do
(spec 003b's A11): the CPU threshold is a speed-1.0 node's, times a node's speed; the CPU rule sends a job to
the node of fewest jobs per unit of speed, the memory rule to the node of most idle memory (its memory less its
demand). On a homogeneous cluster these are the rules above, decision for decision.

Papers 000 and 002's LS_RE (policies/ls_re.py) also keep jobs waiting in a pending pool when no node has a
slot: not in the thesis's description of CM, whose jobs always run.
"""
from policies.base import RemoteExecution, SentSinceView


class CMRemoteExecution(RemoteExecution):
    PARAMS = {"threshold": ("int", 4, "the CPU threshold: a node whose load_CPU is above this is CPU-overloaded"),
              "cpu_load": (("ready", "jobs"), "ready", "load_CPU: the jobs in the CPU queue (ready or running, not "
                                                       "blocked on I/O: Eq. 3.16), or every resident job")}

    def __init__(self, **params):
        super().__init__(**params)
        self.sent = SentSinceView()           # node -> memory demand (the job count: in the index)

    def target(self, job, node, here: int = 1, planned: list = ()):
        """Where `job` should run by the CM rule (None: here), `here` jobs like it counted on this node and one on
        each peer `planned` (a parallel job's tasks mapped so far, not yet sent: policies/task_mapping.py)."""
        view = self.view(job, node, here, planned)
        index = self.overload(view, node.id)
        if index is None:
            return None
        if index == 1:
            return min(sorted(view), key=lambda p: (view[p][1] - view[p][2], p != node.id, p))
        return min(sorted(view), key=lambda p: (view[p][0] / view[p][3], p != node.id, p))

    def view(self, job, node, here: int = 1, planned: list = ()) -> dict:
        """Node -> (jobs, memory demand, memory, speed) as this node sees them, `here` jobs like `job` counted
        here, one on each peer `planned`, and what it has sent since the view was refreshed counted there (a
        peer that has not reported yet: idle, as the cluster starts, with this node's memory and speed)."""
        sent = self.sent.of(node)
        idle = (0, 0.0, node.pager.user_memory, node.speed)
        view = {p: idle for p in node.peers()}
        view.update((p, (r[self.cpu_load], r["demand"], r["memory"], r["speed"])) for p, r in node.index.items())
        view[node.id] = (cpu_load(node, self.cpu_load) + here, node.pager.demand + here * job.demand(),
                         node.pager.user_memory, node.speed)
        for p, demand in sent.items():
            if p in view:
                view[p] = (view[p][0], view[p][1] + demand, *view[p][2:])
        for p in planned:       # their demand is in `sent` already (`count`), their number in the index not yet
            if p != node.id:
                view[p] = (view[p][0] + 1, *view[p][1:])
        return view

    def overload(self, view: dict, i: int) -> int | None:
        """Which of node i's resources is overloaded, as the index of the `view` that balances it: 1 (memory) or
        0 (CPU); None if neither."""
        if view[i][1] > view[i][2]:
            return 1
        if view[i][0] > self.threshold * view[i][3]:
            return 0
        return None

    def count(self, job, peer: int, node) -> None:
        sent = self.sent.of(node)
        sent[peer] = sent.get(peer, 0.0) + job.demand()


def cpu_load(node, reading: str) -> int:
    """Node's own load_CPU now: its CPU queue (`reading` "ready") or its resident jobs ("jobs")."""
    return node.cpu.queue_length() if reading == "ready" else len(node.jobs)


POLICY = CMRemoteExecution

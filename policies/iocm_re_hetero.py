"""IOCM-RE for heterogeneous clusters (paper 003, Ch. 5, Sec. 5.2.2): "IOCM-RE leverages the I/O-RE policy ... in the
presence of explicit I/O load in a node. If the node exhibits implicit I/O load due to page faults, load-balancing
decisions are made by the memory-based policy. Otherwise, the CPU-based policy is used". So a new job (or task) at
its home node is placed by IO-RE (policies/io_re.py: Eq. 5.6's capability-proportional threshold, on Eq. 3.2's
whole I/O load, as Ch. 5 counts it), or by MEM-RE (policies/mem_re.py: memory by idle memory once the node's memory
is overloaded, else jobs per unit of CPU speed beyond the node's CPU threshold), whose memory rule is the
memory-based policy and whose CPU rule is the CPU-based one: a node not paging is never memory-overloaded.

Which load decides when a node has both: the text lists the cases and does not say. Under Ch. 5's memory-intensive
Trace 4 every node has a little explicit I/O (0.1 /MI), so taking the explicit case first would make IOCM-RE IO-RE,
where the thesis's Fig. 5.5 has it equal to MEM-RE and five times better than IO-RE. nowemu takes the larger of the
node's two I/O loads (Eq. 3.2's terms, the job counted: misses and page faults per CPU-second): explicit, IO-RE;
implicit, MEM-RE; neither, MEM-RE's CPU rule. Ch. 4's IOCM-RE (policies/iocm_re.py), for the homogeneous 32-node
cluster, chooses "a group of nodes" by expected response times instead; Ch. 5 describes this one.

The cost criterion (`criterion`, on by default): IO-RE's choice k stands only if the job expects to be done sooner
there by more than the cost of sending it, r(i, j) > r(k, j) + c_j(i, k) (Eq. 3.9 with k's CPU speed and disk, as
its load report gives them; Eq. 4.1's cost, e and the initial data through both disks and the link), else the job
stays. Sec. 5.2.2 introduces IOCM-RE as "similar to the one presented above", and the IOCM-RE presented before it,
Ch. 4's (Sec. 4.1, the thesis's Cluster 2003 scheme, which Ch. 7 names its I/O-aware baseline), moves a task only
so; IO-RE's own four steps, spelled out just before, have no such test, and IO-RE keeps none
(policies/io_re.py). Without it (`criterion = false`, nowemu's reading until 2026-11-30) IOCM-RE is IO-RE under
Traces 1-3 and sends 40-60 % of Trace 1's jobs away, each with its 50 MB (docs/p003b.md).

A parallel job's tasks (Fig. 5.7's applications) each so, as jobs of their own arriving at its home node, the tasks
kept home so far counted there (policies/task_mapping.py).
"""
from policies.disk_view import DiskView
from policies.io_load import implicit_io_load
from policies.io_re import IORemoteExecution, explicit_io_load
from policies.iocm_re import pays
from policies.mem_re import MemoryRemoteExecution
from policies.task_mapping import TaskMapping


class HeterogeneousIOCMRemoteExecution(TaskMapping):
    PARAMS = {"request_size": IORemoteExecution.PARAMS["request_size"], **MemoryRemoteExecution.PARAMS,
              "criterion": ("bool", True, "IO-RE's choice only if it pays, r(i, j) > r(k, j) + c_j(i, k) (Ch. 4's "
                                          "IOCM-RE), or IO-RE's rule alone")}

    def __init__(self, **params):
        super().__init__(**params)
        self.io = IORemoteExecution(implicit=True, request_size=self.request_size)      # Ch. 5's IO-RE
        self.mem = MemoryRemoteExecution(**{k: v for k, v in params.items() if k in MemoryRemoteExecution.PARAMS})
        self.disks = DiskView()

    def report(self, node) -> dict:
        if not self.criterion:
            return self.io.report(node)
        return {**self.io.report(node), **self.disks.report(node), **self.disks.timing(node)}

    def place_one(self, job, node):
        return self.place_task(job, node, []) if job.migratable else node.id

    def place_task(self, job, node, nodes: list) -> int:
        pager, here = node.pager, nodes.count(node.id) + 1
        paging = implicit_io_load(pager.fault_rate, pager.demand + here * job.demand(), pager.user_memory)
        if explicit_io_load(node) + here * job.io_rate > (len(node.jobs) + here) * paging:
            k = self.io.target(job, node, here)
            if k != node.id and self.criterion:
                everyone = list(node.jobs.values()) + [job] * here      # the job's tasks kept home so far, itself
                if not pays(self.disks, job, node, everyone, k):
                    return node.id
                self.disks.add(node, k, job)
            return self.io.sent_to(job, k, node)
        return self.mem.sent_to(job, self.mem.target(job, node, here, nodes), node)


POLICY = HeterogeneousIOCMRemoteExecution

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

A parallel job's tasks (Fig. 5.7's applications) each so, as jobs of their own arriving at its home node, the tasks
kept home so far counted there (policies/task_mapping.py).
"""
from policies.io_load import implicit_io_load
from policies.io_re import IORemoteExecution, explicit_io_load
from policies.mem_re import MemoryRemoteExecution
from policies.task_mapping import TaskMapping


class HeterogeneousIOCMRemoteExecution(TaskMapping):
    PARAMS = {"request_size": IORemoteExecution.PARAMS["request_size"], **MemoryRemoteExecution.PARAMS}

    def __init__(self, **params):
        super().__init__(**params)
        self.io = IORemoteExecution(implicit=True, request_size=self.request_size)      # Ch. 5's IO-RE
        self.mem = MemoryRemoteExecution(**{k: v for k, v in params.items() if k in MemoryRemoteExecution.PARAMS})

    def report(self, node) -> dict:
        return self.io.report(node)

    def place_one(self, job, node):
        return self.place_task(job, node, []) if job.migratable else node.id

    def place_task(self, job, node, nodes: list) -> int:
        pager, here = node.pager, nodes.count(node.id) + 1
        paging = implicit_io_load(pager.fault_rate, pager.demand + here * job.demand(), pager.user_memory)
        if explicit_io_load(node) + here * job.io_rate > (len(node.jobs) + here) * paging:
            return self.io.target(job, node, here)
        return self.mem.sent_to(job, self.mem.target(job, node, here, nodes), node)


POLICY = HeterogeneousIOCMRemoteExecution

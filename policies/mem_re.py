"""MEM-RE (paper 003's memory-based baseline: "MEM" in Ch. 4, MEM-RE in Ch. 5, after Zhang, Qu and Xiao 2000):
CPU-memory load sharing by remote execution, CM-RE's rule (policies/cm_re.py: by memory demand once the home
node's memory is overloaded, else by job count beyond the CPU threshold). A parallel job's tasks each by that
rule, as jobs of their own arriving at its home node (policies/task_mapping.py: the policy knows only
sequential jobs), the tasks mapped so far counted where they go. Nothing moves afterwards.
"""
from policies.cm_re import CMRemoteExecution
from policies.task_mapping import TaskMapping


class MemoryRemoteExecution(TaskMapping, CMRemoteExecution):
    def place_one(self, job, node):
        return CMRemoteExecution.place(self, job, node)

    def place_task(self, job, node, nodes: list) -> int:
        return self.sent_to(job, self.target(job, node, nodes.count(node.id) + 1, nodes), node)


POLICY = MemoryRemoteExecution

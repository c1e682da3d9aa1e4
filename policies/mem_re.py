"""MEM-RE (paper 003's memory-based baseline: "MEM" in Ch. 4, MEM-RE in Ch. 5, after Zhang, Qu and Xiao 2000):
CPU-memory load sharing by remote execution, CM-RE's rule (policies/cm_re.py: by memory demand once the home
node's memory is overloaded, else by job count beyond the CPU threshold). A parallel job's tasks each by that
rule, as jobs of their own arriving at its home node (policies/task_mapping.py: the policy knows only
sequential jobs), the tasks kept home so far counted there. Nothing moves afterwards.
"""
from policies.cm_re import CMRemoteExecution
from policies.task_mapping import TaskMapping


class MemoryRemoteExecution(TaskMapping, CMRemoteExecution):
    def place_one(self, job, node):
        return CMRemoteExecution.place(self, job, node)

    def place_task(self, job, node, home: int) -> int:
        return self.sent_to(job, self.target(job, node, home + 1), node)


POLICY = MemoryRemoteExecution

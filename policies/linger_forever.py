"""Linger-Forever (paper 004, spec §4.6): a foreign job never leaves its node. It runs at the strict lowest
priority and soaks up the owner's idle bursts; the owner's work preempts it at once. Placement takes an
idle node with no foreign job, else a nonidle one ("semi-available") with no foreign job and the lowest owner
utilization (spec A7); foreign jobs wait in their home node's queue while every node has one."""
from policies.base import Policy, free_node, free_node_here


class LingerForever(Policy):
    def place(self, job, node):
        return free_node(node, lingering=True) if job.cls == "foreign" else node.id

    def accept(self, job, node):
        return job.cls != "foreign" or free_node_here(node, lingering=True)


POLICY = LingerForever

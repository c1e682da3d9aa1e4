"""Mapping a parallel job's tasks (`parallel.mapping = "policy"`): they all arrive at the job's home node, which
maps them at once when the first asks (`map_tasks`: a node for each rank), sends each to its node by remote
execution and fills in every task's partners. A sequential job, or a task whose nodes were fixed by the
scenario, is placed by the scheme's own rule (`place_one`).

The default mapping is the one a policy for sequential jobs makes of a parallel job: each task a job of its own
arriving at the home node, in rank order (`place_task`, told where the job's earlier tasks go, since none of
them is resident or counted in the load index yet: they are sent once the whole job is mapped). Paper 003's
Ch. 4 baselines are such policies (CPU after Eager et al. and Harchol-Balter and Downey, MEM after Zhang et al.,
NLB), where IOCM-RE alone chooses "a group of nodes" for the job (policies/iocm_re.py); under no load balancing
every task runs at home.
"""
from policies.base import Policy


class TaskMapping(Policy):
    maps_tasks = True

    def __init__(self, **params):
        super().__init__(**params)
        self.groups: dict[int, list] = {}     # job being mapped -> [its nodes by rank, ranks not yet placed]

    def place(self, job, node):
        if job.group < 0 or not job.migratable or job.partners and job.partners[0][1] >= 0:
            return self.place_one(job, node)    # a task mapped before, refused and back: its partners stay
        mapping = self.groups.get(job.group)
        if mapping is None:
            mapping = self.groups[job.group] = [self.map_tasks(job, node), job.tasks]
        nodes = mapping[0]
        job.partners = [[rank, nodes[rank]] for rank, _ in job.partners]
        mapping[1] -= 1
        if not mapping[1]:
            del self.groups[job.group]
        return nodes[job.rank]

    def place_one(self, job, node):
        return node.id

    def map_tasks(self, job, node) -> list:
        """A node for each of the job's ranks (`job` is its first task to ask)."""
        nodes: list = []
        for _ in range(job.tasks):
            nodes.append(self.place_task(job, node, nodes))
        return nodes

    def place_task(self, job, node, nodes: list) -> int:
        """Where one more task like `job` goes, the job's earlier tasks going to `nodes`."""
        return node.id

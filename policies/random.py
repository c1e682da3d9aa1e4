"""Random placement (Eager, Lazowska and Zahorjan's "random" with a threshold): a job arriving at a node that
already runs `threshold` or more jobs is sent by remote execution to a peer drawn uniformly at random."""
from policies.base import Policy


class Random(Policy):
    PARAMS = {"threshold": ("int", 2, "resident jobs at or above which an arriving job is sent away")}

    def place(self, job, node):
        if len(node.jobs) < self.threshold or node.workstations < 2 or not job.migratable:
            return node.id
        return node.rng.choice([p for p in node.peers() if p != node.id])


POLICY = Random

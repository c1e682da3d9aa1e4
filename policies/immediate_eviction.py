"""Immediate-Eviction (paper 004 §2, spec §4.3): the social contract of Condor-like systems. A foreign job
runs only on an idle workstation with no other foreign job; the moment the owner comes back (the node turns
nonidle) it stops, and it migrates to a free idle node if there is one. If there is none it stays suspended
(spec A9) until its node turns idle again (it resumes in place) or a free idle node appears (it migrates).
Foreign jobs wait in their home node's queue until a free idle node takes them. Owner (local) jobs are not
its concern: they run at home."""
from policies.base import Policy, free_node

ON_CPU = ("ready", "running", "blocked")


class ImmediateEviction(Policy):
    def place(self, job, node):
        return free_node(node, lingering=False) if job.cls == "foreign" else node.id

    def accept(self, job, node):
        return job.cls != "foreign" or free_node_here(node, lingering=False)

    def runnable(self, job, node):
        """Only on an idle node, and only one foreign job at a time: a job sent back to the node it ran on (its
        migration was refused) waits there suspended, for a free idle node or its turn, rather than share the
        CPU with the foreign job that took its place."""
        if job.cls != "foreign":
            return True
        return not (node.owner and node.owner.nonidle) and not any(
            j is not job and j.cls == "foreign" and j.state in ON_CPU for j in node.jobs.values())

    def migrations(self, node):
        held = [j for j in node.jobs.values() if j.state == "suspended" and self.leaves(node)]
        moves = []
        for job in held:
            dest = free_node(node, lingering=False, others_only=True)
            if dest is None:
                break
            moves.append((job, dest))
        return moves

    def leaves(self, node) -> bool:
        """A suspended job leaves as soon as it can (Pause-and-Migrate waits first)."""
        return True


def free_node_here(node, lingering: bool) -> bool:
    """Whether this node can take a foreign job arriving now: no foreign job here, and idle unless lingering."""
    return not any(j.cls == "foreign" for j in node.jobs.values()) and (
        lingering or not (node.owner and node.owner.nonidle))


POLICY = ImmediateEviction

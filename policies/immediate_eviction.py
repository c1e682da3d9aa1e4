"""Immediate-Eviction (paper 004 §2, spec §4.3): the social contract of Condor-like systems. A foreign job
runs only on an idle workstation with no other foreign job; the moment the owner comes back (the node turns
nonidle) it stops, and it migrates to a free idle node when one takes it (the hand-off of `policies.handoff`:
evicted jobs before queued ones, spec A8). Until then it stays suspended (spec A9), and resumes in place if its
node turns idle first. Foreign jobs wait in their home node's queue until a free idle node takes them. Owner
(local) jobs are not its concern: they run at home."""
from policies.base import Policy
from policies.handoff import Handoff

ON_CPU = ("ready", "running", "blocked")


class ImmediateEviction(Handoff, Policy):
    def runnable(self, job, node):
        """Only on an idle node, and only one foreign job at a time: a job sent back to the node it ran on (its
        migration was refused) waits there suspended, for a free idle node or its turn, rather than share the
        CPU with the foreign job that took its place."""
        if job.cls != "foreign":
            return True
        return not (node.owner and node.owner.nonidle) and not any(
            j is not job and j.cls == "foreign" and j.state in ON_CPU for j in node.jobs.values())

    def migrations(self, node):
        self.offer(node)
        moves, waiting = [], []
        for job in [j for j in node.jobs.values() if j.state == "suspended" and self.leaves(node)]:
            dest = self.destination(node, job)
            if dest is None:
                waiting.append(job)
            else:
                moves.append((job, dest))
        self.announce(node, waiting)
        return moves

    def leaves(self, node) -> bool:
        """A suspended job leaves as soon as it can (Pause-and-Migrate waits first)."""
        return True


POLICY = ImmediateEviction

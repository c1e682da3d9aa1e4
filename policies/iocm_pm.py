"""IOCM-PM (paper 003, Sec. 4.3.1): IOCM-RE with preemptive migration. On a job's arrival IOCM-RE places it
(policies/iocm_re.py: a parallel job's tasks on a group of nodes of light I/O load); then, "if the home node is
still overloaded", the eligible jobs EM(i, k) of the home node i (Eq. 3.18, expected remaining response time at
home above that on k plus the migration cost, Eqs. 3.17 and 3.19) are preempted and migrated to the node k of
lighter load: the mechanism of the Ch. 3 PM schemes (policies/preemptive.py), sequential jobs and parallel tasks
alike (a task waiting for its partners cannot move; one that moves takes its messages along).

Where the thesis is silent (spec 003a §4.9): "overloaded" is the spec's default, Sec. 3.2.1's ratio on the I/O
load (Eq. 3.2): above 1.25 times the cluster's mean, without Ch. 3's second condition, that it be the highest
(on 32 nodes an arrival's home is the highest about once in 32, and preemption then all but never happens),
k the node of least I/O load; its plural ("the eligible processes are preempted and migrated") is read as the
spec's default: the eligible job of largest MCE moves, the loads and views are updated, and the next is chosen
the same way, until home is no longer overloaded or none is eligible. The arriving job, placed already, is not
among the candidates. A parallel job asks once, at its mapping.
"""
from policies.iocm_re import IOCMRemoteExecution
from policies.preemptive import PreemptiveMigration
from policies.wal_re import RATIO


class IOCMPreemptiveMigration(PreemptiveMigration, IOCMRemoteExecution):
    report = IOCMRemoteExecution.report

    def place(self, job, node):
        first = job.group >= 0 and job.migratable and job.group not in self.groups
        dest = IOCMRemoteExecution.place(self, job, node)
        if job.group < 0 or first:
            self.relieve(job, node)
        return dest

    def relieve(self, job, node) -> None:
        """Step 2: while this node is overloaded, its eligible job of largest MCE to the node of least I/O load."""
        moved: dict = {}            # job id -> its I/O rate, off this node's load once it leaves
        while True:
            loads = self.io.of(node)
            loads[node.id] -= sum(moved.values())
            if not loads[node.id] > RATIO * sum(loads.values()) / len(loads):
                return
            k = min(sorted(loads), key=lambda p: (loads[p], p))
            q = self.migrant(job, node, k, arriving=False, leaving=moved)
            if q is None:
                return
            moved[q.id] = q.io_rate
            self.sent_away(q, k, node)
            node.log("preempt", job=q.id, dest=k)
            self.moves.append((q, k))


POLICY = IOCMPreemptiveMigration

"""IOCM-PM (paper 003, Sec. 4.3.1): IOCM-RE with preemptive migration. On a job's arrival IOCM-RE places it
(policies/iocm_re.py: a parallel job's tasks on a group of nodes of light I/O load); then, "if the home node is
still overloaded", the eligible jobs EM(i, k) of the home node i (Eq. 3.18, expected remaining response time at
home above that on k plus the migration cost, Eqs. 3.17 and 3.19) are preempted and migrated to the node k of
lighter load: the mechanism of the Ch. 3 PM schemes (policies/preemptive.py), sequential jobs and parallel tasks
alike (a task waiting for its partners cannot move; one that moves takes its messages along).

Where the thesis is silent (spec 003a §4.9): "overloaded" is the spec's default, Sec. 3.2.1's ratio on the I/O
load (Eq. 3.2): above 1.25 times the cluster's mean, without Ch. 3's second condition, that it be the highest
(on 32 nodes an arrival's home is the highest about once in 32, and preemption then all but never happens),
k the node of least I/O load; its plural ("the eligible
processes") is read as WAL-PM's one job per arrival, the one of largest MCE, since every arrival asks again;
the arriving job, placed already, is not among the candidates. A parallel job asks once, at its mapping.
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
        """Step 2: one eligible job of this node to the node of least I/O load, if this node is overloaded."""
        loads = self.io.of(node)
        mean = sum(loads.values()) / len(loads)
        if not loads[node.id] > RATIO * mean:
            return
        k = min(sorted(loads), key=lambda p: (loads[p], p))
        q = self.migrant(job, node, k, arriving=False)
        if q is None:
            return
        self.sent_away(q, k, node)
        node.log("preempt", job=q.id, dest=k)
        self.moves.append((q, k))


POLICY = IOCMPreemptiveMigration

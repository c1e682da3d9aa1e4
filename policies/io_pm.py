"""IO-PM (paper 003, Sec. 3.4): I/O-based load balancing with preemptive migration, which the thesis adds "for
comparison purposes" without a rule of its own; as spec 003a §4.7 proposes, WAL-PM's machinery on the I/O load
alone (W_IO = 1), and that the explicit I/O load of IO-RE (the accesses that miss the buffer; paging is not
counted, §7.4 item 18). On a job's arrival (its rate counted on its home node, as if it all missed), a node
whose explicit I/O load is the cluster's highest and above 1.25 times the mean moves the eligible job of
largest migration cost-effectiveness (policies/preemptive.py) to the node of least explicit I/O load.
"""
from policies.io_load import least_if_overloaded
from policies.io_re import IORemoteExecution
from policies.preemptive import PreemptiveMigration
from policies.wal_re import RATIO


class IOPreemptiveMigration(PreemptiveMigration, IORemoteExecution):
    PARAMS = {**IORemoteExecution.PARAMS,
              "ratio": ("number", RATIO, "a node is overloaded when its I/O load is the highest and above this "
                                         "multiple of the mean (Sec. 3.2.1)")}

    def report(self, node) -> dict:
        return {**PreemptiveMigration.report(self, node), **IORemoteExecution.report(self, node)}

    def target(self, job, node):
        loads = self.loads(node)
        loads[node.id] += job.io_rate
        return least_if_overloaded(loads, node.id, self.ratio)


POLICY = IOPreemptiveMigration

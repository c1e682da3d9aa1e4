"""WAL-PM (paper 003, Secs. 3.2.5-3.2.6, Fig. 3.3): the weighted average load of WAL-RE (Eq. 3.16, its weights
the cluster's shares of time on CPU, paging and I/O) finds an overloaded node on a job's arrival (the job
counted there: its load the cluster's highest and above 1.25 times the mean) and its candidate, the node of
least load; preemptive migration (policies/preemptive.py) then moves the eligible job of largest migration
cost-effectiveness there, the new one or a running one. Computation and data move together.
"""
from policies.preemptive import PreemptiveMigration
from policies.wal_re import WALRemoteExecution


class WALPreemptiveMigration(PreemptiveMigration, WALRemoteExecution):
    def report(self, node) -> dict:
        return {**PreemptiveMigration.report(self, node), **WALRemoteExecution.report(self, node)}


POLICY = WALPreemptiveMigration

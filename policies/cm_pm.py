"""CM-PM (paper 003's CPU-memory baseline with preemptive migration, Sec. 3.4, after Zhang, Qu and Xiao 2000):
CM-RE's rule (policies/cm_re.py) finds an overloaded node on a job's arrival, and its candidate; the thesis's
preemptive migration (policies/preemptive.py) moves the eligible job of largest migration cost-effectiveness
there. The thesis implemented all its schemes in one simulator and says no more of CM-PM's selection; its
cost-effectiveness favours jobs that have done I/O, and among jobs without I/O the largest expected gain.
"""
from policies.cm_re import CMRemoteExecution
from policies.preemptive import PreemptiveMigration


class CMPreemptiveMigration(PreemptiveMigration, CMRemoteExecution):
    pass


POLICY = CMPreemptiveMigration

"""No sharing: every job runs on its home workstation (the papers' "Base", paper 003's NLB), every task of a
parallel job too (policies/task_mapping.py)."""
from policies.task_mapping import TaskMapping


class Local(TaskMapping):
    reads_index = False


POLICY = Local

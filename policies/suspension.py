"""Job suspension: the baseline paper 002 discusses and rejects (spec 002 §1, §4.0: "temporarily suspend large
jobs so submissions are not blocked ... large jobs may starve if job submissions continue to flow"). Not
evaluated in the paper; its rule here is nowemu's.

LS_RE (`policies/ls_re.py`), plus: a node whose resident demand overflows its memory while more than one job
runs there suspends its running job of largest demand. The job is swapped out (`releases_memory`: written to
disk, its memory and its job slot freed for other jobs, so submissions go on) and resumes, after reading its
memory back, once the node's idle memory would hold it again. While jobs keep arriving that may be never
until the arrivals stop: the starvation the paper warns of shows in the largest jobs' slowdowns.
"""
from policies.ls_re import LoadSharing


class JobSuspension(LoadSharing):
    releases_memory = True

    @staticmethod
    def active(node) -> list:
        return [j for j in node.jobs.values() if j.state != "suspended"]

    def runnable(self, job, node) -> bool:
        if job.state == "suspended":
            return node.pager.idle >= job.demand()
        active = [j for j in self.active(node) if j.state in ("ready", "running")]
        if node.pager.overflow() <= 0 or len(active) < 2 or job not in active:
            return True
        return job is not max(active, key=lambda j: (j.demand(), -j.id))

    def here(self, node) -> dict:
        return {**super().here(node), "jobs": len(self.active(node))}

    def report(self, node) -> dict:
        return {**super().report(node), "jobs": len(self.active(node))}     # a suspended job holds no slot


POLICY = JobSuspension

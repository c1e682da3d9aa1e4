"""CSM, Coscheduling under Memory constraints (paper 001's Algorithm 1, whole). The node's memory decides
the mode at each insertion: while N_k.mem <= M (eq. 4), the predictive mode (as PRED); above it, a
distributed task with a message waiting goes to the top (the dynamic mode), and any other goes up the run
queue past every task of a higher estimated page-fault probability (eq. 3), within the starvation bounds:
under memory pressure the tasks whose working sets fit run first, finish sooner and free memory for the
rest (an implicit Small-Job-First).

Eq. (3) as printed (`pg_fault = "literal"`: res/wrk once wrk >= res, else 0) rises as the resident set
grows and jumps from 0 to 1 where it reaches the working set, against the paper's own reading of it; the
default is the spec's correction, 1 - res/wrk (or 0), the miss probability of a uniform reference.

The dynamic mode as printed (line 5, the default) jumps to the top past every task, counting no overtakes and
bounded by nothing. `dynamic = "bounded"` reads the paper's Fig. 12 text instead ("both coscheduling
techniques (PRED and CSM) introduce the same overhead for local tasks, as both use the same mechanism to avoid
local task starvation"): the jump passes only tasks within their starvation bounds, each counting it.
"""
from policies.base import Insertion


class CSM(Insertion):
    PARAMS = {**Insertion.PARAMS,
              "pg_fault": (("corrected", "literal"), "corrected", "eq. (3): corrected (1 - res/wrk) or literal (res/wrk)"),
              "dynamic": (("top", "bounded"), "top", "line 5's jump: to the top (as printed) or within the starvation bounds")}

    def fault_probability(self, job, node) -> float:
        res, wrk = node.pages.resident(job), node.pages.working_set(job)
        if self.pg_fault == "literal":
            return 0.0 if wrk < res else res / wrk
        return 0.0 if res >= wrk else 1.0 - res / wrk

    def insert(self, queue, job, reason, node) -> int:
        self.entered(job, node)
        if job.mes == 0:
            return len(queue)
        over = node.pages.over()
        if over and node.queues.rec(job):                           # dynamic mode
            return self.top() if self.dynamic == "top" else self.behind(queue, lambda x: True)
        if not queue:
            return 0
        if not over:                                                # predictive mode
            mes = job.mes
            return self.behind(queue, lambda x: x.mes < mes)
        key, estimate = self.fault_probability(job, node), self.fault_probability
        return self.behind(queue, lambda x: estimate(x, node) > key)     # CSM mode


INSERTION = CSM

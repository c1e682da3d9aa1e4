"""DYN (paper 001, after Sobalvarro et al. [15]): dynamic coscheduling, Algorithm 1's dynamic mode without
its memory condition. A distributed task with a message waiting for it goes to the top of the run queue (the
next to run: no preemption, the spec's default reading of RQ[0]; not bounded by the starvation counters);
every other task to the bottom."""
from policies.base import Insertion


class Dynamic(Insertion):
    def insert(self, queue, job, reason, node) -> int:
        self.entered(job, node)
        if job.mes != 0 and node.queues.rec(job):
            return self.top()
        return len(queue)


INSERTION = Dynamic

"""PRED (paper 001, after Sobalvarro and Weihl [14] and Solsona et al. [23]): predictive coscheduling, the
predictive mode of Algorithm 1 at all times. A distributed task goes up the run queue past every task of a
smaller smoothed message count (eq. 2), within the starvation bounds: tasks that communicate more run
sooner, so that partners on other nodes tend to run at the same time. A local task (mes 0) goes to the
bottom."""
from policies.base import Insertion


class Predictive(Insertion):
    def insert(self, queue, job, reason, node) -> int:
        self.entered(job, node)
        mes = job.mes
        if not queue or mes == 0:
            return len(queue)
        return self.behind(queue, lambda x: x.mes < mes)


INSERTION = Predictive

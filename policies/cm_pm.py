"""CM-PM (paper 003's CPU-memory baseline with preemptive migration, Sec. 3.4, after Zhang, Qu and Xiao 2000):
CM-RE's rule (policies/cm_re.py) finds an overloaded node on a job's arrival, and its candidate k; then one job
of the node, the new one among them, moves there by the thesis's mechanism (policies/preemptive.py: at arrivals
only, the new job by remote execution, a running one by preemptive migration, Eq. 3.19's costs).

Which job: the thesis says no more of CM-PM than that it is Zhang et al.'s, and that under I/O-intensive load it
"degrades to no-load-balancing" (Sec. 3.4.5), so its choice does not see I/O (the I/O-aware cost-effectiveness
of WAL-PM and IO-PM is not for it). The lineage's (papers 000 and 002, the same group's G-Loadsharing):
- memory overloaded: the job of largest memory demand ("find_most_memory_intensive_job") that fits in k's
  memory, where it stops paging;
- CPU overloaded: the oldest job (most CPU time had: by Harchol-Balter and Downey 1997, cited there, the one
  expected to run longest) whose expected CPU-time gain, its remaining time times the difference in jobs
  sharing the CPU (here, the job counted; there, with it), exceeds its migration cost.
Ties: the lower job id. No eligible job: nothing moves.
"""
from policies.cm_re import CMRemoteExecution
from policies.preemptive import PreemptiveMigration, move_cost, movable


class CMPreemptiveMigration(PreemptiveMigration, CMRemoteExecution):
    def migrant(self, job, node, k: int):
        view = self.view(job, node)
        index = self.overload(view, node.id)
        jobs, demand, memory, _ = view[k]
        best, best_key = None, None
        for q in list(node.jobs.values()) + [job]:
            if not movable(q, node):
                continue
            if index == 1:
                if demand + q.demand() > memory:
                    continue
                key = (q.demand(), -q.id)
            else:
                gain = (q.work - q.done) / node.speed * (view[node.id][0] - (jobs + 1))
                if not gain > move_cost(q, job, node):
                    continue
                key = (q.done, -q.id)
            if best_key is None or key > best_key:
                best, best_key = q, key
        return best


POLICY = CMPreemptiveMigration

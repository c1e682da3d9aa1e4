"""Linger-Longer (paper 004 §3, spec §4.5): as Linger-Forever, but a foreign job on a nonidle node migrates
to a free idle node once it has lingered T_lingr = ((1 - l) / (h - l)) T_migr (Eq. 4) into the owner's
episode: h the owner's mean utilization since the node turned nonidle, l the destination's last reported
utilization (A4), T_migr this node's cost to move the job: r + image / bandwidth (Eq. 5, with r the
scenario's `network.remote_exec_cost` standing for suspend and resume). Re-evaluated at every load-index
refresh (A5). Guard (A6, `guard`): it does not move a job whose remaining work, at the 1 - h it gets here, takes no
longer than T_lingr: it would be done before moving paid off. Without it, a job always moves at T_lingr (the
rent-or-buy shape of spec §9's Fig. 8 oracle)."""
from policies.base import free_node
from policies.linger_cost import linger_time, migration_time
from policies.linger_forever import LingerForever


class LingerLonger(LingerForever):
    PARAMS = {"guard": ("bool", True, "do not move a job that would be done, lingering, before moving paid off (A6)")}

    def migrations(self, node):
        owner = node.owner
        if owner is None or not owner.nonidle:
            return []
        h, lingered = owner.episode_utilization(), node.now - owner.since
        moves = []
        for job in [j for j in node.jobs.values() if j.cls == "foreign" and j.state != "blocked"]:
            dest = free_node(node, lingering=False, others_only=True)
            if dest is None:
                break
            l = node.index[dest].get("owner_util", 0.0)
            t_lingr = linger_time(h, l, migration_time(job.demand(), node.nic.bandwidth, node.remote_cost))
            finishes_first = self.guard and h < 1 and job.remaining / node.speed / (1 - h) <= t_lingr
            if lingered >= t_lingr and not finishes_first:
                moves.append((job, dest))
        return moves


POLICY = LingerLonger

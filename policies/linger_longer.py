"""Linger-Longer (paper 004 §3, spec §4.5): as Linger-Forever, but a foreign job on a nonidle node migrates
to a free idle node once it has lingered T_lingr = ((1 - l) / (h - l)) T_migr (Eq. 4) into the owner's
episode: h the owner's mean utilization since the node turned nonidle, l the destination's last reported
utilization (A4), T_migr this node's cost to move the job: r + image / bandwidth (Eq. 5, with r the
scenario's `network.remote_exec_cost` standing for suspend and resume). Re-evaluated at every load-index
refresh (A5). Guard (A6, `guard`): it does not move a job whose remaining work, at the 1 - h it gets here, takes no
longer than T_lingr: it would be done before moving paid off. Without it, a job always moves at T_lingr (the
rent-or-buy shape of spec §9's Fig. 8 oracle).

Who gets a node that falls free and idle (spec A8), a job queued or a job due to leave a nonidle node?
With `lingering_first` (the default) the due job, handed over as `policies.handoff` says: Table 1's
throughput, LL 52.2 against LF 55.5 with 128 jobs always in the system, means the paper's lingering jobs did
migrate although a queued job was always waiting (spec §10.3 A8's note); with queued jobs first (the spec's
default, `lingering_first = false`) no node is ever free for them and LL is LF. Without it a due job goes to
any free idle node it sees.
"""
from policies.handoff import Handoff
from policies.linger_cost import linger_time, migration_time
from policies.linger_forever import LingerForever


class LingerLonger(Handoff, LingerForever):
    PARAMS = {
        "guard": ("bool", True, "do not move a job that would be done, lingering, before moving paid off (A6)"),
        "lingering_first": ("bool", True, "a node falling free and idle takes a job due to leave a nonidle node "
                                          "before a queued one (A8)"),
    }

    lingering = True

    @property
    def handing_off(self) -> bool:
        return self.lingering_first

    def migrations(self, node):
        self.offer(node)
        owner = node.owner
        moves, waiting = [], []
        if owner is not None and owner.nonidle:
            h, lingered = owner.episode_utilization(), node.now - owner.since
            for job in [j for j in node.jobs.values() if j.cls == "foreign" and j.state != "blocked"]:
                dest = self.destination(node, job)
                l = node.index[dest].get("owner_util", 0.0) if dest is not None else 0.0
                t_lingr = linger_time(h, l, migration_time(job.demand(), node.nic.bandwidth, node.remote_cost))
                finishes_first = self.guard and h < 1 and job.remaining / node.speed / (1 - h) <= t_lingr
                if lingered < t_lingr or finishes_first:
                    continue
                if dest is not None:
                    moves.append((job, dest))
                else:
                    waiting.append(job)
        self.announce(node, waiting)
        return moves


POLICY = LingerLonger

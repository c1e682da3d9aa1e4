"""Linger-Longer (paper 004 §3, spec §4.5): as Linger-Forever, but a foreign job on a nonidle node migrates
to a free idle node once it has lingered T_lingr = ((1 - l) / (h - l)) T_migr (Eq. 4) into the owner's
episode: h the owner's mean utilization since the node turned nonidle, l the destination's last reported
utilization (A4), T_migr this node's cost to move the job: r + image / bandwidth (Eq. 5, with r the
scenario's `network.remote_exec_cost` standing for suspend and resume). Re-evaluated at every load-index
refresh (A5). Guard (A6, `guard`): it does not move a job whose remaining work, at the 1 - h it gets here, takes no
longer than T_lingr: it would be done before moving paid off. Without it, a job always moves at T_lingr (the
rent-or-buy shape of spec §9's Fig. 8 oracle).

Who gets a node that falls free and idle (spec A8), a job queued or a job due to leave a nonidle node?
With `lingering_first` (the default) the due job: Table 1's throughput, LL 52.2 against LF 55.5 with 128 jobs
always in the system, means the paper's lingering jobs did migrate although a queued job was always waiting
(spec §10.3 A8's note); with queued jobs first no node is ever free for them and LL is LF. Decentralized, it
is a handshake: a node whose job is due to leave and has nowhere to go says so in its load report
(`due_since`, `due_job`, `due_bytes`); a free idle node names in its reports the due job waiting longest
(`host_for`, `host_job`; one no other node has named) and keeps itself for it (its own queue waits, and peers
do not send it theirs) until the job arrives or its transfer's time and two load-index periods have passed.
Only that job is sent there.
"""
from policies.base import free_node
from policies.immediate_eviction import free_node_here
from policies.linger_cost import linger_time, migration_time
from policies.linger_forever import LingerForever


class LingerLonger(LingerForever):
    PARAMS = {
        "guard": ("bool", True, "do not move a job that would be done, lingering, before moving paid off (A6)"),
        "lingering_first": ("bool", True, "a node falling free and idle takes a job due to leave a nonidle node "
                                          "before a queued one (A8)"),
    }

    def __init__(self, **params):
        super().__init__(**params)
        self.due = (-1.0, -1, 0.0)          # (since, job, bytes): this node's job due to leave, with nowhere to go
        self.host_for, self.host_job, self.expect_until = -1, -1, 0.0     # the due job this node waits for

    def report(self, node) -> dict:
        since, job, size = self.due
        return {"due_since": since, "due_job": job, "due_bytes": size, "host_for": self.host_for,
                "host_job": self.host_job}

    def place(self, job, node):
        if job.cls != "foreign":
            return node.id
        self._offer(node)
        return free_node(node, lingering=True, held=self.host_for >= 0)

    def accept(self, job, node):
        if job.cls == "foreign" and self.host_for >= 0:
            if job.id != self.host_job:
                return False
            self.host_for, self.host_job = -1, -1
        return super().accept(job, node)

    def finished(self, job, node) -> None:
        self._offer(node)       # before this node's queue takes the place

    def migrations(self, node):
        self._offer(node)
        owner = node.owner
        due, moves = (-1.0, -1, 0.0), []
        if owner is not None and owner.nonidle:
            h, lingered = owner.episode_utilization(), node.now - owner.since
            hosts = {r["host_job"]: p for p, r in node.index.items() if r.get("host_for") == node.id}
            for job in [j for j in node.jobs.values() if j.cls == "foreign" and j.state != "blocked"]:
                dest = hosts.get(job.id)
                if dest is None:
                    dest = free_node(node, lingering=False, others_only=True)
                l = node.index[dest].get("owner_util", 0.0) if dest is not None else 0.0
                t_lingr = linger_time(h, l, migration_time(job.demand(), node.nic.bandwidth, node.remote_cost))
                finishes_first = self.guard and h < 1 and job.remaining / node.speed / (1 - h) <= t_lingr
                if lingered < t_lingr or finishes_first:
                    continue
                if dest is not None:
                    moves.append((job, dest))
                elif self.lingering_first:
                    due = (self.due[0] if self.due[1] == job.id else node.now, job.id, job.demand())
        self.due = due
        return moves

    def _offer(self, node) -> None:
        """A8, lingering first: a node free and idle names the due job it will take."""
        if not self.lingering_first:
            return
        if not free_node_here(node, lingering=False):
            self.host_for, self.host_job = -1, -1
            return
        if self.host_for >= 0 and node.now <= self.expect_until:
            return
        taken = {r.get("host_job") for r in node.index.values()}
        due = [(r["due_since"], p) for p, r in node.index.items()
               if r.get("due_since", -1.0) >= 0 and r["due_job"] not in taken]
        self.host_for, self.host_job = -1, -1
        if due:
            self.host_for = min(due)[1]
            r = node.index[self.host_for]
            self.host_job = r["due_job"]
            self.expect_until = (node.now + migration_time(r["due_bytes"], node.nic.bandwidth, node.remote_cost)
                                 + 2 * node.period)

POLICY = LingerLonger

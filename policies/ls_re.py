"""CPU-memory-based load sharing by remote execution: paper 002's LS_RE, paper 000's G-Loadsharing (spec 000
§4.1, spec 002 §4.2; the specs take them for one scheme, as the papers' identical results suggest).

A node takes a job (a new one, or one sent by a peer) only if it has idle memory for the job's demand now and
fewer running jobs than the CPU threshold (spec 000 §1's admission rule). Memory demands are not known in
advance: a job is judged by its demand at the moment, and jobs that grow later overcommit their node, which
then page-faults. On arrival:

- the home node takes the job if it can;
- else, if the home node's memory would hold the job (only its CPU is full), the job goes by remote
  execution (cost r) to the peer with the shortest queue among those that would take it (the CPU-based
  branch of spec 002 §2.3);
- else to the peer with the most idle memory among those that would take it (ties: shortest queue;
  spec 002 §4.2's default for "suitable");
- in both cases the better of two such peers drawn at random (`policies.base.two_choices`): every node reads
  the same index, one period old, and would otherwise send all of that period's jobs to the same node;
- and if no peer would take it, it waits in its home's pending pool (A12), retried at every load-index
  refresh and every completion there; so does a nonmigratable job (paper 002's type-1 traces) that its home
  cannot take yet.

Running jobs are not migrated (spec 002 §4.2: "this paper uses remote execution only"), unless `migrate` is
set: paper 000's G-Loadsharing also moves "one or more jobs already executing" off an overloaded node "if
possible" (spec 000 §4.1). Then a page-faulting node migrates, at each load-index refresh, one job to a peer that
would take it: the smallest job whose leaving ends the overflow, else the largest (A13's victim), or failing a
taker for those, the next in that order that has one; to the peer of most idle memory (A13's destination; the
better of two, as for placement).

Blocking (spec 000 §4.1): a node is *blocked* when it is page-faulting (its resident demand exceeds its user
memory: in the overflow model it then faults, A3) and no peer in its view would take any of its migratable
jobs. The node publishes it in its load report (`blocked`), with its resident jobs' demands, so that the
memory-reservation policy can act on it and the results can show it.
"""
from policies.base import Policy, two_choices


class LoadSharing(Policy):
    PARAMS = {
        "threshold": ("int", 2, "the CPU threshold: job slots a node offers (unsourced: spec 000 A1, 002 §9.3)"),
        "migrate": ("bool", False, "a page-faulting node migrates a running job to a peer that takes it "
                                   "(paper 000's G-Loadsharing, spec 000 §4.1 and A13)"),
    }

    reservation = "normal"      # paper 000's reservation state of this node; see policies/m_reservation.py
    _open = (-1, [])            # (view version, [(peer, report)] of the peers with a job slot)

    # -- who takes a job ---------------------------------------------------------------------------------
    def takes(self, report: dict, demand: float, state: str = "normal") -> bool:
        """Whether the node of this load report would take a job of this demand: it is in this reservation
        state (ordinary jobs go to normal nodes only), has the idle memory and a job slot."""
        return (report["jobs"] < self.threshold and report["idle"] >= demand
                and report.get("reservation", "normal") == state)

    def here(self, node) -> dict:
        """This node's state now, in the fields of its load report that `takes` (and reservation) read."""
        return {"reservation": self.reservation, "idle": node.pager.idle, "jobs": len(node.jobs),
                "memory": node.pager.user_memory}

    def open_peers(self, node) -> list:
        """[(peer, report)] of the peers with a job slot in this node's view, worked out once per view: under
        load the pending pool is retried at every refresh, mostly in vain."""
        if self._open[0] != node.view_version:
            self._open = (node.view_version,
                          [(p, r) for p, r in node.index.items() if p != node.id and self.takes(r, 0.0)])
        return self._open[1]

    def takers(self, node, demand: float) -> list:
        """The peers that would take a job of this demand, in this node's view."""
        return [peer for peer, r in self.open_peers(node) if r["idle"] >= demand]

    def no_room(self, node) -> bool:
        """No job slot here nor anywhere in view: under load, the common case. Slots are counted as `here`
        counts them (a policy that swaps jobs out frees theirs)."""
        return self.here(node)["jobs"] >= self.threshold and not self.open_peers(node)

    def place(self, job, node):
        if self.no_room(node):
            return None
        demand = job.demand()
        if self.takes(self.here(node), demand):
            return node.id
        if not job.migratable:                      # it may not even be remote-executed (spec 002 §3.5)
            return None
        peers = self.takers(node, demand)
        if not peers:
            return None
        if node.pager.idle >= demand:               # only the CPU is full here: the shortest queue
            return two_choices(node, peers, lambda p: (node.index[p]["jobs"], -node.index[p]["idle"], p))
        return self.roomiest(node, peers)

    @staticmethod
    def roomiest(node, peers: list):
        """The peer of most idle memory (ties: shortest queue), the better of two drawn at random."""
        return two_choices(node, peers, lambda p: (-node.index[p]["idle"], node.index[p]["jobs"], p))

    def accept(self, job, node) -> bool:
        return self.takes(self.here(node), job.demand())

    def migrations(self, node) -> list:
        if not self.migrate or node.pager.overflow() <= 0:
            return []
        excess = node.pager.demand - node.pager.user_memory
        jobs = self.movable(node)
        ends = sorted([j for j in jobs if j.demand() >= excess], key=lambda j: (j.demand(), j.id))
        rest = sorted([j for j in jobs if j.demand() < excess], key=lambda j: (-j.demand(), j.id))
        for job in ends + rest:
            peers = self.takers(node, job.demand())
            if peers:
                return [(job, self.roomiest(node, peers))]
        return []

    # -- blocking ------------------------------------------------------------------------------------------
    @staticmethod
    def movable(node) -> list:
        """The resident jobs a migration may take: a page-faulting job spends most of its time waiting for the
        disk, and goes as soon as its pages are in (`Migration.migrate`)."""
        return [j for j in node.jobs.values() if j.migratable and j.state != "suspended"]

    def blocked(self, node) -> bool:
        """Page-faulting, and no peer would take even the smallest of its migratable jobs."""
        if node.pager.overflow() <= 0:
            return False
        jobs = self.movable(node)
        if not jobs:
            return False
        return not self.takers(node, min(j.demand() for j in jobs))

    def report(self, node) -> dict:
        return {"blocked": self.blocked(node)}


POLICY = LoadSharing

"""Memory reservation: paper 000's V-Reconfiguration, paper 002's M-Reservation (spec 000 §4.2, 002 §4.5), on
top of LS_RE (`policies/ls_re.py`).

When load sharing blocks (a node page-faults and no peer would take any of its jobs) while the cluster's idle
memory, added up, exceeds one workstation's average user memory, a lightly loaded node is *reserved*: it takes
no new submissions or migrations until the jobs it holds have finished (the reserving period); then the blocked
node migrates its job of largest memory demand to it (preemptive, r + D/B). The node stays reserved until the
jobs migrated to it are done, then rejoins normal load sharing. Reserved nodes with room for another large job
(memory and a job slot) are used before a new one is reserved.

Each node runs this policy on its own, from the load index the collector broadcasts to all (the papers'
"global load index"): every node sees the same reports, so every node computes the same choice, and only the
node chosen reserves itself (no extra messages; a node's reservation state travels in its load report). With
`load_index.exchange = "gossip"` views differ and two nodes may reserve themselves at once.

Defaults where the papers are silent (each a parameter):
- the node to reserve (A14, spec 002 §4.5 "several workstations with comparably largest idle memory space,
  and then ... the smallest number of jobs"): the node of fewest jobs among the `candidates` normal, unblocked
  nodes of most idle memory;
- the reserving period ends when the node is empty (A15's full drain), or with `early_end` as soon as the
  node's idle memory and a job slot would take a blocked node's largest job (A15's alternative, the paper's
  "as soon as the available memory ... is sufficiently large"); its own jobs then run on beside the guest;
- it is cancelled if no node is blocked any more (A16), or after `timeout` (A17: "a pre-determined time
  interval"; unsourced); a reserved node that receives no job within `timeout` is released too;
- at most `max_reserving` reserving periods run at once (spec 002 §4.5 question 3: "a small set");
- the job to move is the blocked node's own job of largest demand among those on the CPU or ready (A18);
- a reserved or reserving node never counts as blocked: a large job paging on its own node harms no one
  (spec 000 §2.3);
- with `queue` (A21's default, spec 002 §4.5 question 4), a reserved node hosts any job its memory would hold
  and runs its guests FIFO: as many at a time as its memory and job slots allow beside its own jobs (the first
  always), the others waiting swapped out for their turn (a guest that started runs to its end), the queue of
  the papers' analytic model (spec 000 §6, g(Q_r(k))). Without it (the default: docs/calibration/p000-queue.md
  finds that the queue holds the large jobs back on a few nodes long after the rest of the cluster has emptied,
  and the totals grow) it hosts a job only when it has the memory and a slot for it now. Either way a new node
  is reserved only when no reserved node has the memory and a slot now (rule 7). A queued guest's turn is
  checked at each load-index refresh, so it may start up to one period after its predecessor ends;
- the guard (rule 2) is `guard` times one node's memory: 1, the paper's; 0 turns it off, for studies;
- a normal node that is not blocked migrates as LS_RE does (`migrate`, paper 000's G-Loadsharing; off by
  default).

A migration at 10 Mbps takes minutes (r + D/B), during which the reserved node's reports still show it empty.
So that two blocked nodes do not both send it a job (one would be refused and travel back), the host chooses:
it names in its reports the blocked node whose largest job it will take next (`host_for`: the largest that fits
and that no other host has named) and waits for it as long as the transfer takes; only that node sends. A node
sends nothing more to a host until the host's reports show the job arrived (`hosted`).
"""
from policies.ls_re import LoadSharing


class MemoryReservation(LoadSharing):
    PARAMS = {
        **LoadSharing.PARAMS,
        "candidates": ("int", 3, "nodes of most idle memory among which the one of fewest jobs is reserved (A14)", 1),
        "timeout": ("time", "1200 s", "a reserving period that has not drained by then is given up (A17)"),
        "max_reserving": ("int", 1, "reserving periods under way at once", 1),
        "early_end": ("bool", False, "end the reserving period once a blocked node's largest job fits (A15)"),
        "queue": ("bool", False, "a reserved node queues the guests its memory and slots cannot run yet (A21)"),
        "guard": ("number", 1.0, "reserve only if the cluster's idle memory exceeds this many nodes' average "
                                 "memory (rule 2: 1; 0 turns the guard off, for studies)"),
    }
    releases_memory = True      # a queued guest waits swapped out (no other job of this policy is held off)

    def __init__(self, **params):
        super().__init__(**params)
        self.since = 0.0
        self.guests: dict = {}          # jobs migrated here while reserved, not yet finished, in arrival order
        self.hosted = 0                 # jobs migrated here during this reservation
        self.host_for = -1              # the blocked node whose largest job this node will host next
        self.expect_until = 0.0         # ... if it arrives by then
        self.sent: dict = {}            # host -> its `hosted` count when this node last sent it a job

    def report(self, node) -> dict:
        jobs = self.movable(node)
        return {"blocked": self.blocked(node), "reservation": self.reservation, "host_for": self.host_for,
                "hosted": self.hosted, "largest": max((j.demand() for j in jobs), default=0.0)}

    def blocked(self, node) -> bool:
        return self.reservation == "normal" and super().blocked(node)

    def hosts(self, report: dict, demand: float) -> bool:
        """Whether the node of this report would host a blocked node's job of this demand: it is reserved and
        has the memory and a job slot for it now or, with `queue`, memory that would hold it at all."""
        if self.queue:
            return report.get("reservation") == "reserved" and demand <= report["memory"]
        return self.takes(report, demand, "reserved")

    def accept(self, job, node) -> bool:
        if self.reservation != "reserved":
            return super().accept(job, node)
        if job.start < 0 or not self.hosts(self.here(node), job.demand()):
            return False
        self.guests[job.id] = True
        self.hosted += 1
        self.host_for, self.expect_until = -1, node.now
        return True

    def runnable(self, job, node) -> bool:
        return not self.queue or job.id not in self.guests or job.id in self._turn(node)

    def _turn(self, node) -> set:
        """The guests whose turn it is: those that have had it (a guest that started is never held off again),
        then the waiting ones in arrival order while the node's memory and job slots hold them beside its own
        jobs; the first always, on a node with nothing else to run."""
        own = [j for j in node.jobs.values() if j.id not in self.guests]
        guests = [node.jobs[i] for i in self.guests if i in node.jobs]
        turn = {j.id for j in guests if j.state not in ("suspended", "in_transit")}
        taken = own + [j for j in guests if j.id in turn]
        idle = node.pager.user_memory - sum([j.demand() for j in taken])
        slots = self.threshold - len(taken)
        for job in (j for j in guests if j.id not in turn):
            if taken and (job.demand() > idle or slots < 1):
                break
            turn.add(job.id)
            taken.append(job)
            idle, slots = idle - job.demand(), slots - 1
        return turn

    def finished(self, job, node) -> None:
        self.guests.pop(job.id, None)
        if self.reservation == "reserved" and self.hosted and not self.guests:
            self._end(node, "release")

    def migrations(self, node) -> list:
        view = [*node.index.values(), node.reported or node.load()]     # what every node sees
        blocked = [r for r in view if r.get("blocked")]
        waited = node.now - self.since
        if self.reservation == "reserving":
            if not blocked:
                self._end(node, "cancel")
            elif not node.jobs or (self.early_end and self._room_for(node, blocked)):
                self.reservation, self.since = "reserved", node.now
                self._designate(node, view, blocked)
                node.log("reserved", host_for=self.host_for)
            elif waited > self.timeout:
                self._end(node, "timeout")
        elif self.reservation == "reserved":
            if not self.hosted and waited > self.timeout:
                self._end(node, "release")
            elif node.now > self.expect_until:
                self._designate(node, view, blocked)
        elif blocked and self._activate(view, blocked) and self._chosen(view) == node.id:
            self.reservation, self.since, self.hosted = "reserving", node.now, 0
            self._designate(node, view, blocked)
            node.log("reserve", blocked=[r["node"] for r in blocked], host_for=self.host_for)
        self.sent = {p: c for p, c in self.sent.items() if node.index.get(p, {}).get("reservation") == "reserved"}
        if self.reservation != "normal":
            return []
        if not self.blocked(node):
            return super().migrations(node)         # G-Loadsharing's own, with `migrate`
        job = max(self.movable(node), key=lambda j: (j.demand(), -j.id))
        hosts = [p for p, r in node.index.items() if r.get("host_for") == node.id
                 and self.hosts(r, job.demand()) and r["hosted"] > self.sent.get(p, -1)]
        if not hosts:
            return []
        host = min(hosts)
        self.sent[host] = node.index[host]["hosted"]
        return [(job, host)]

    def _designate(self, node, view: list, blocked: list) -> None:
        """Name the blocked node whose largest job this node will host next (none, if none fits): the largest
        job not already promised to another host; wait for it for as long as its transfer takes (r + D/B)
        and two load-index periods more, then name another."""
        taken = {r.get("host_for") for r in view if r["node"] != node.id}
        room = self.here(node)
        if self.reservation == "reserving":             # as it will be, once drained
            room = {**room, "reservation": "reserved", "idle": node.pager.user_memory, "jobs": 0}
        fits = [b for b in blocked if b["node"] not in taken and self.hosts(room, b["largest"])]
        self.host_for, self.expect_until = -1, node.now
        if fits:
            b = min(fits, key=lambda r: (-r["largest"], r["node"]))
            self.host_for = b["node"]
            self.expect_until = node.now + node.remote_cost + b["largest"] / node.nic.bandwidth + 2 * node.period

    def _room_for(self, node, blocked: list) -> bool:
        """Whether this node, reserved now, would take some blocked node's largest job."""
        room = {**self.here(node), "reservation": "reserved"}
        return any(self.takes(room, b["largest"], "reserved") for b in blocked)

    def _activate(self, view: list, blocked: list) -> bool:
        """Spec 000 §4.2.2 rules 2 and 7: some blocked node is neither promised a host nor has a reserved node
        with room for its largest job, the cluster's idle memory exceeds its average user memory (`guard`
        times it), and fewer than `max_reserving` nodes are being reserved."""
        states = [r.get("reservation") for r in view]
        if states.count("reserving") >= self.max_reserving:
            return False
        if sum([r["idle"] for r in view]) <= self.guard * sum([r["memory"] for r in view]) / len(view):
            return False
        promised = {r.get("host_for") for r in view}
        hosts = [r for r, state in zip(view, states) if state == "reserved"]
        return any(b["node"] not in promised and not any(self.takes(r, b["largest"], "reserved") for r in hosts)
                   for b in blocked)

    def _chosen(self, view: list) -> int | None:
        free = [r for r in view if r.get("reservation", "normal") == "normal" and not r.get("blocked")]
        top = sorted(free, key=lambda r: (-r["idle"], r["node"]))[:self.candidates]
        return min(top, key=lambda r: (r["jobs"], -r["idle"], r["node"]))["node"] if top else None

    def _end(self, node, why: str) -> None:
        self.reservation, self.since, self.host_for = "normal", node.now, -1
        self.guests.clear()
        node.log("unreserve", why=why)


POLICY = MemoryReservation

"""What every participant of an emulated cluster shares (a workstation, the load collector): its own event
queue in virtual time, an outgoing link, and the transport-free contract every runtime drives:

    advance(until) -> outgoing envelopes     process every event before `until`
    deliver(envelopes)                       accept messages; each is processed at its deliver_at
    next_event_time()                        when the next local event or message is due
    snapshot() / final()                     what the live view and the results need

A participant never reads the wall clock, never sleeps and never imports Ray. A message that arrives after
its deliver_at (possible only in the paced runtime) is processed at once and its lateness recorded.

The network is either one outgoing link per participant (`network.medium = "links"`, a switched network) or
one shared medium for the whole cluster (`"bus"`, spec 002 §2.4's shared Ethernet, whose contention grows with
the number of nodes): every message then goes to the `Bus` participant, which carries them one at a time at
the bus bandwidth, in the order they reach it.
"""
from __future__ import annotations

from actors.job import Job
from actors.nic import NetworkInterface
from emu.engine.envelope import ALL, Envelope, MessageError, packed
from emu.engine.kernel import MESSAGE, EventQueue

HEADER_BYTES = 40     # the envelope's own fields on the wire
_new = tuple.__new__  # an Envelope from its fields, without NamedTuple's Python-level __new__ (a message's hot path)


class Participant:
    def __init__(self, node_id: int, workstations: int, bandwidth: float, latency: float, heap=None,
                 bus: int | None = None):
        self.id = node_id
        self.bus = bus                      # the shared medium's participant id, or None (own link)
        self.workstations = workstations    # the cluster's size: ids 0..workstations-1; a broadcast reaches all
        self.q = EventQueue(heap, owner=self)
        self.finished: list = []            # jobs completed here (none, for the collector)
        self.nic = NetworkInterface(bandwidth, latency)
        self.outbox: list[Envelope] = []
        self.seq = 0
        self.events: list[dict] = []
        self.lateness: dict[str, list] = {}  # per message kind: virtual seconds by which late ones were late

    @property
    def now(self) -> float:
        return self.q.now

    # -- the contract ----------------------------------------------------------------------------------------
    def advance(self, until: float) -> list[Envelope]:
        self.q.run_until(until)
        out, self.outbox = self.outbox, []
        return out

    def next_event_time(self) -> float:
        return self.q.next_time()

    def deliver(self, envelopes, trusted: bool = False) -> None:
        """`trusted`: envelopes made in this process (the inline runtime's hand-off) are well-formed already:
        they are parsed (a job's state becomes a Job) without their checks."""
        if trusted:
            checked = [(env, self.parse(env)) for env in envelopes]
        else:
            checked = []                                             # all checked before any is applied
            for i, env in enumerate(envelopes):
                try:
                    checked.append((env, self.check(env)))
                except MessageError as exc:
                    raise MessageError(f"envelope #{i} ({env.kind} from node {env.sender}): {exc}") from None
        now = self.q.now
        for env, parsed in checked:
            at = env.deliver_at
            if at < now:
                self.lateness.setdefault(env.kind, []).append(now - at)
                at = now
            self._accept(env, parsed, at)

    def _accept(self, env: Envelope, parsed, at: float) -> None:
        """A checked message, to be received at `at`: an event in the queue, in envelope order."""
        self.q.at(at, self._receive, (env, parsed), MESSAGE, (env.sender, env.seq))

    def check(self, env: Envelope):
        """Validate a message's payload before anything is applied; return what `_receive` needs."""
        return Job.from_state(env.payload["job"]) if "job" in env.payload else None

    def parse(self, env: Envelope):
        """What `_receive` needs of a well-formed message."""
        return Job(**env.payload["job"]) if "job" in env.payload else None

    # -- sending ---------------------------------------------------------------------------------------------
    def send(self, dest: int, kind: str, payload: dict, extra: float = 0.0, fixed: float = 0.0) -> float | None:
        """Send one message: its encoded size plus `extra` modelled bytes (a memory image) go over the link,
        and the fixed cost `fixed` is added on delivery. Returns the delivery time (None on a shared bus, where
        only the bus knows when the medium will be free)."""
        size = len(packed(payload)) + HEADER_BYTES + extra
        if self.bus is not None:
            self.post(self.bus, "relay", {"dest": dest, "kind": kind, "payload": payload, "size": size,
                                          "fixed": fixed}, self.q.now + self.nic.latency)
            return None
        at = self.nic.transmit(self.q.now, size, fixed)
        self.post(dest, kind, payload, at)
        return at

    def post(self, dest: int, kind: str, payload: dict, deliver_at: float, sender: int | None = None) -> None:
        self.seq += 1
        self.outbox.append(_new(Envelope, (deliver_at, self.id if sender is None else sender, self.seq, kind,
                                           payload, dest)))

    def log(self, kind: str, **fields) -> None:
        self.events.append({"time": self.q.now, "event": kind, "node": self.id, **fields})

    def progress(self, t: float) -> tuple | None:
        """The stall guard's look at `t` (`emu.engine.stall`), every event before `t` processed: the lazy
        observations due before it made, as its next event would make them, and its `figures`."""
        self.q.catch_up(t)
        return self.figures(t)

    def figures(self, t: float) -> tuple | None:
        """What shows progress as of `t`, read without changing anything (a workstation's; a participant that
        holds no jobs shows none)."""
        return None

    def snapshot(self, recent: int = 8) -> dict:
        """What the live view shows (see `emu.tools.view` for every key). Read without changing anything, so that a
        run watched is the run unwatched; small, as paced actors post it over Ray several times a second: the
        count of events and only the last `recent`, late messages as a count per kind."""
        return {"node": self.id, "now": self.q.now, "events": len(self.events), "recent": self.events[-recent:],
                "late": {kind: len(v) for kind, v in self.lateness.items()}}

    def in_transit(self) -> list[Job]:
        """Jobs in messages received but not yet due (they are still on the wire); not the copy that tells a
        job's I/O node of it (`io_data`: the job itself waits at its sender)."""
        return [parsed for _, fn, (env, parsed) in
                ((t, fn, arg) for t, fn, arg in self.q.pending() if fn == self._receive)
                if parsed is not None and env.kind != "io_data"]

    def _receive(self, item) -> None:
        raise NotImplementedError


class Collector(Participant):
    """The papers' "global load index ... periodically collected and distributed": every workstation reports
    its load here each period; half a period later the collector broadcasts every report it holds. A broadcast
    is one frame on the collector's link (an Ethernet broadcast), delivered to all at once."""

    def __init__(self, node_id: int, n_nodes: int, period: float, bandwidth: float, latency: float, heap=None,
                 bus: int | None = None):
        super().__init__(node_id, n_nodes, bandwidth, latency, heap, bus)
        self.period = period
        self.reports: dict[int, dict] = {}
        self.incoming: list[tuple] = []     # (at, sender, seq, report): received, not yet in `reports`
        self.q.at(period / 2, self._broadcast)

    def _accept(self, env: Envelope, parsed, at: float) -> None:
        """A report only matters at the next broadcast: it waits here, not as an event of its own, and the
        broadcast takes every report due by then in envelope order (a message due at the broadcast's instant
        comes first, as messages do before local events), which is the index events would have built."""
        self.incoming.append((at, env.sender, env.seq, env.payload["report"]))

    def _broadcast(self, _=None) -> None:
        now = self.q.now
        due = sorted(r for r in self.incoming if r[0] <= now)
        if due:
            self.incoming = [r for r in self.incoming if r[0] > now]
            for _, _, _, report in due:
                self.reports[report["node"]] = report
        if self.reports:
            self.send(ALL, "load_index", {"reports": list(self.reports.values())})
        self.q.at(self.q.now + self.period, self._broadcast)

    def snapshot(self) -> dict:
        return {**super().snapshot(), "role": "collector", "reports": len(self.reports)}

    def final(self) -> dict:
        return {"node": self.id, "role": "collector", "jobs": [], "samples": [], "events": self.events,
                "stats": {"lateness": self.lateness, "bytes_sent": self.nic.bytes_sent,
                          "messages": self.nic.messages}}


class Bus(Participant):
    """The shared medium (`network.medium = "bus"`): every participant hands its messages here (one latency
    away); the bus carries them one at a time at its bandwidth, FIFO in the order they reach it, and delivers
    each (a broadcast to all at once) as if from its sender. Its link is the cluster's only one, so remote
    paging, migrations and load reports all contend for it."""

    def parse(self, env: Envelope):
        return None

    def check(self, env: Envelope):
        """The envelope's own check covers the relay's size and cost; here: it is a relay, and to whom."""
        dest = env.payload["dest"]
        if env.kind != "relay":
            raise MessageError(f"field 'kind': the bus relays only 'relay' messages, got {env.kind!r}")
        if not isinstance(dest, int) or isinstance(dest, bool) or dest < ALL:
            raise MessageError(f"field 'payload.dest': expected a node id or -1 (broadcast), got {dest!r}")
        return None

    def _receive(self, item) -> None:
        env, _ = item
        p = env.payload
        at = self.nic.transmit(self.q.now, p["size"], p["fixed"])
        self.post(p["dest"], p["kind"], p["payload"], at, sender=env.sender)

    def snapshot(self) -> dict:
        return {**super().snapshot(), "role": "bus"}

    def final(self) -> dict:
        return {"node": self.id, "role": "bus", "jobs": [], "samples": [], "events": self.events,
                "stats": {"lateness": self.lateness, "bytes_sent": self.nic.bytes_sent,
                          "messages": self.nic.messages, "busy": self.nic.busy}}

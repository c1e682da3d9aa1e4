"""The Ray actors of the two Ray runtimes. All the model lives in the participants; an actor only moves
encoded message batches and, in the paced runtime, maps wall time to virtual time.

A `Host` holds a group of participants on one shared event heap, as the inline runtime holds them all
(`emu.engine.inline`): one participant per host by default (a workstation is an actor), or several (`nowemu run
--actors K`) when there are more workstations than CPUs and Ray calls, not the model, would take the time.
Messages between participants of one host go straight into the heap (through the codec, as inline); only
those between hosts go through Ray: one call per destination host per turn, a broadcast's batch once per host.

Stepped: the driver calls `step(until, batches)` once per window (one participant per host; `emu.engine.conservative`).
Paced: `run_paced(epoch, speed, stop_time, board, phase)` loops on its own: virtual now = (wall - epoch) *
speed; it processes what is due, sends what its participants sent (at most MAX_IN_FLIGHT calls outstanding),
and sleeps until its next event or until a message arrives; a host that has fallen behind still yields to
its event loop each turn, so that messages and the driver get in. It sleeps in asyncio only, whose timers
have a ~1 ms floor, so an event may be processed up to a millisecond late: well under the fidelity bar, where
late job messages are what fails a fast run. Blocking sleeps of a fraction of a millisecond before each event
(as hosts once took, for exact wakes) made Ray calls to the host wait longer (commit f8cf2bc gives its probe).
A turn processes due events for at most TURN of wall time, then the host looks at its inbox again: a message
that arrives while a host works through a burst is applied before the host moves past its deliver_at (commit
47c6b88). Every POST_EVERY wall seconds, at its own phase so that hosts take turns, a host posts its
participants' snapshots to the board in one call.

Lateness, the fidelity figure: every local event is recorded with the wall time at which it was processed
minus the wall time it was due (epoch + t / speed), whatever made it late: a slow wake-up, a host still busy
with earlier events, with messages or the driver, or waiting on backpressure. One record per event, not per
wake-up, so the percentiles are over events: a turn that catches up 50 events after a stall counts 50 late
events. Messages are not in it: they are the participants' own count. A participant's clock is the time of
the last event it processed (a host does not move it on to the wall clock's virtual now, as that would claim
events that did not happen); a message that arrives after its destination has processed an event past the
message's deliver_at is late (a straggler if it carries a job), is applied at once and changes the run. One
that arrives after its deliver_at but before any such event is applied at its deliver_at, exactly as in the
other runtimes: nothing the destination did could have depended on it.
"""
from __future__ import annotations

import asyncio
import heapq
import sys
import time
from array import array
from collections import defaultdict

import numpy as np
import ray

from emu.engine.cluster import make
from emu.engine.conservative import step
from emu.engine.envelope import decode_batch, destinations, encode_batch
from emu.engine.kernel import FN, LOCAL, Heap

SWITCH = 0.0001           # seconds: the GIL's switch interval in a paced host (see run_paced)
MAX_IN_FLIGHT = 256       # sends a host may have outstanding before it waits for the oldest
# wall seconds between a host's posts: the view redraws up to 4 times a second but its rows need not change
# that often; every post costs the host ~0.5 ms and the board ~0.9 ms of CPU
POST_EVERY = 0.5
TURN = 0.0005             # wall seconds of events a host processes before it lets waiting messages in


@ray.remote(num_cpus=0)
class Board:
    """Where paced hosts post their snapshots. The driver and the live view read this one place: polling every
    actor instead woke each of them several times a second, and those wake-ups made them late."""

    def __init__(self):
        self.snapshots: dict[int, dict] = {}

    def post(self, snapshots: list[dict]) -> None:
        for s in snapshots:
            self.snapshots[s["node"]] = s

    def read(self) -> list[dict]:
        return list(self.snapshots.values())


class Host:
    """A group of participants on one heap; `HostActor` is it as a Ray actor (tests drive it in-process)."""

    def __init__(self, blueprints: list[dict]):
        self.heap = Heap()
        self.parts = {bp["id"]: make(bp, self.heap) for bp in blueprints}
        self.hosts, self.host_of, self.me = {}, {}, None
        self.inbox: list = []                                   # (envelopes, destinations), decoded on arrival
        self.outgoing: dict[int, dict] = defaultdict(dict)      # host -> {id(batch): (batch, destinations)}
        self.sends = []
        self.wake = None
        self.running = False
        self.lateness = array("d")          # wall seconds, one per local event processed (paced)
        self.transit = array("d")           # wall seconds, one per call received from another host (paced)
        self.reported = 0                   # how many of them the last post summarized

    def where(self) -> str:
        return ray.get_runtime_context().get_node_id()

    def next_time(self) -> float:
        return self.heap.top_time()

    def now(self) -> float:
        return max(p.now for p in self.parts.values())

    def step(self, until: float, batches: list):
        (p,) = self.parts.values()          # stepped: one participant per host (its windows need its own heap)
        return step(p, until, batches)

    def snapshots(self) -> list[dict]:
        return [p.snapshot() for p in self.parts.values()]

    def final(self) -> dict:
        self._deliver()                 # messages that landed after the stop are still on the wire
        return {"finals": [p.final() for p in self.parts.values()], "lateness": self.lateness.tobytes(),
                "transit": self.transit.tobytes()}

    # -- paced -----------------------------------------------------------------------------------------------
    def connect(self, hosts: dict, host_of: dict, me: int) -> None:
        """`hosts`: host index -> handle; `host_of`: participant id -> host index; `me`: this host's index."""
        self.hosts, self.host_of, self.me = hosts, host_of, me

    async def ping(self) -> bool:
        return True

    async def warm(self) -> int:
        """Make the first call to every peer before the clock starts (a first call can take 100 ms)."""
        await asyncio.gather(*[h.ping.remote() for i, h in self.hosts.items() if i != self.me])
        return len(self.hosts)

    @ray.method(enable_task_events=False)       # no task event per message: its bookkeeping lengthens the tail
    async def receive(self, batches: list, sent: float) -> None:
        """Batches from another host, sent at wall time `sent` (its transit: the fidelity figure that says how
        long a job message's window must be; one machine's clock, or clocks as closely synchronised as the
        cluster's)."""
        self.transit.append(time.time() - sent)
        for batch, dests in batches:
            self.inbox.append((decode_batch(batch), dests))      # checked whole here, applied by the loop
        if self.wake is not None:
            self.wake.set()

    async def stop(self) -> None:
        self.running = False
        if self.wake is not None:
            self.wake.set()

    def _deliver(self) -> None:
        for envs, dests in self.inbox:
            for dest in dests:
                self.parts[dest].deliver(envs)
        self.inbox = []

    def _route(self, p) -> None:
        """What `p` sent: to a participant of this host at once and as it is, as inline does; to another host,
        encoded and kept for one call per host at the end of the turn (a broadcast's one encoding listed with
        all its destinations)."""
        out, p.outbox = p.outbox, []
        encoded: dict[tuple, bytes] = {}
        for dest, members in destinations(out, p.workstations).items():
            envs = [out[i] for i in members]
            if dest in self.parts:
                self.parts[dest].deliver(envs, trusted=True)
                continue
            key = tuple(members)
            if key not in encoded:
                encoded[key] = encode_batch(envs)
            batch = encoded[key]
            self.outgoing[self.host_of[dest]].setdefault(id(batch), (batch, []))[1].append(dest)

    async def _flush(self) -> None:
        for host, batches in self.outgoing.items():
            self.sends.append(self.hosts[host].receive.remote(list(batches.values()), time.time()))
        self.outgoing.clear()
        if len(self.sends) > MAX_IN_FLIGHT:
            _, self.sends = ray.wait(self.sends, num_returns=len(self.sends), timeout=0)
        if len(self.sends) > MAX_IN_FLIGHT:          # backpressure: let the oldest land first
            await asyncio.gather(*self.sends[:MAX_IN_FLIGHT // 2], return_exceptions=True)
            self.sends = self.sends[MAX_IN_FLIGHT // 2:]

    def _post(self, board):
        """Post every participant's snapshot, with the p99 of this host's event lateness since its last post."""
        recent = self.lateness[self.reported:]
        self.reported = len(self.lateness)
        p99 = float(np.percentile(recent, 99)) if len(recent) else 0.0
        return board.post.remote([{**p.snapshot(), "lateness_p99": p99} for p in self.parts.values()])

    def _advance(self, vnow: float, epoch: float, speed: float) -> bool:
        """Process the events before `vnow` in order, on the shared heap (emu.engine.inline's loop), recording each
        local event's wall lateness as it starts, for at most TURN of wall time; True if none is left."""
        entries, late, clock = self.heap.entries, self.lateness.append, time.time
        for p in self.parts.values():      # a model that ends several steps in one event stays below it
            p.q.horizon = vnow
        until = None
        while entries and entries[0][0] < vnow:
            entry = heapq.heappop(entries)
            fn = entry[FN]
            if fn is None:
                continue
            if entry[1] == LOCAL:
                wall = clock()
                if until is None:
                    until = wall + TURN         # a turn takes at least one event
                elif wall > until:              # the rest after a look at the inbox
                    heapq.heappush(entries, entry)
                    return False
                late(wall - epoch - entry[0] / speed)
            q = entry[6]
            q.now = entry[0]
            fn(entry[5])
            if q.owner.outbox:
                self._route(q.owner)
        return True

    async def run_paced(self, epoch: float, speed: float, stop_time: float, board, phase: float = 0.0) -> float:
        # Ray hands each incoming call to this loop from its own thread, which needs the GIL: with Python's
        # 5 ms switch interval a host busy with events held calls back for a long time (commit 7796165 says by
        # how much in its probe); at SWITCH, for milliseconds
        interval = sys.getswitchinterval()
        sys.setswitchinterval(SWITCH)
        try:
            return await self._run_paced(epoch, speed, stop_time, board, phase)
        finally:
            sys.setswitchinterval(interval)

    async def _run_paced(self, epoch: float, speed: float, stop_time: float, board, phase: float) -> float:
        self.wake = asyncio.Event()
        self.running = True
        vnow = 0.0
        posted = time.time() - (1.0 - phase) * POST_EVERY        # hosts post in turn, `phase` in [0, 1)
        while self.running:
            if time.time() - posted >= POST_EVERY:
                posted = time.time()
                self._post(board)
            vnow = min((time.time() - epoch) * speed, stop_time)
            self._deliver()
            done = self._advance(vnow, epoch, speed)
            await self._flush()
            if vnow >= stop_time and done:
                break
            target_wall = epoch + min(self.heap.top_time(), stop_time) / speed
            self.wake.clear()
            delay = target_wall - time.time()
            if delay <= 0:
                await asyncio.sleep(0)                # behind: still let messages and the driver in
                continue
            if not self.inbox:
                try:
                    await asyncio.wait_for(self.wake.wait(), timeout=delay)
                except asyncio.TimeoutError:
                    pass
        for p in self.parts.values():         # all have run to the end, as inline leaves them
            p.q.now = max(p.q.now, vnow)
        # everything sent has landed before we report (a send to a peer that died is lost with it)
        await asyncio.gather(*self.sends, return_exceptions=True)
        self.sends = []
        await self._post(board)
        return self.now()


HostActor = ray.remote(num_cpus=0)(Host)

"""The Ray actors of the two Ray runtimes. All the model lives in the participants; an actor only moves
encoded message batches and, in the paced runtime, maps wall time to virtual time.

A `Host` holds a group of participants on one shared event heap, as the inline runtime holds them all
(`emu.engine.inline`): one participant per host by default (a workstation is an actor), or several (`nowemu run
--actors K`) when there are more workstations than CPUs and Ray calls, not the model, would take the time.
Messages between participants of one host go straight into the heap (through the codec, as inline); only
those between hosts go through Ray: one call per destination host per turn, a broadcast's batch once per host.

Stepped: the driver calls `step(until, batches)` once per window (one participant per host; `emu.engine.conservative`).
Paced: `run_paced(epoch, speed, stop_time, board, phase)` loops on its own: virtual now = (wall - epoch) *
speed; it processes what is due, sends what its participants sent, and sleeps until its next event or until a
message arrives. Paced hosts send each other their batches over TCP streams of their own, not as Ray calls: a
Ray call between two actors costs about a millisecond of CPU and its tail on a loaded machine is longer than a
fast run's job window, where a frame on an open stream costs tens of microseconds (docs/performance.md gives
the probe and its figures). Each host listens on the address Ray knows its node by (loopback for an embedded Ray), and a stream
counts only after it presents the run's token, which the driver hands out through Ray; a frame is a length
and the msgpack of [wall time sent, batches], checked whole on arrival as a Ray call's were. When a host
stops it sends an empty frame on each stream and waits (a few seconds at most, in case a peer died) for the
empty frames of its peers, so that everything sent has arrived before the results are gathered; a host that has fallen behind still yields to
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

import msgpack
import numpy as np
import ray

from emu.engine.cluster import in_process
from emu.engine.conservative import step
from emu.engine.envelope import decode_batch, destinations, encode_batch
from emu.engine.kernel import FN, LOCAL

SWITCH = 0.0001           # seconds: the GIL's switch interval in a paced host (see run_paced)
BUFFERED = 1 << 20        # bytes a stream to a peer may hold unsent before the host waits for it to drain
CLOSING = 5.0             # wall seconds a stopping host waits for its peers' last frames
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
        self.parts, self.heap, _ = in_process(blueprints)
        self.host_of, self.me = {}, None
        self.inbox: list = []                                   # (envelopes, destinations), decoded on arrival
        self.outgoing: dict[int, dict] = defaultdict(dict)      # host -> {id(batch): (batch, destinations)}
        self.token, self.server, self.ports = b"", None, {}
        self.streams: dict[int, asyncio.StreamWriter] = {}      # paced: host -> the stream to it
        self.closed = 0                                         # peers whose last frame has come
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

    def progress(self, t: float):
        (p,) = self.parts.values()          # stepped (see `step`)
        return p.progress(t)

    def snapshots(self) -> list[dict]:
        return [p.snapshot() for p in self.parts.values()]

    def final(self) -> dict:
        self._deliver()                 # messages that landed after the stop are still on the wire
        return {"finals": [p.final() for p in self.parts.values()], "lateness": self.lateness.tobytes(),
                "transit": self.transit.tobytes()}

    # -- paced -----------------------------------------------------------------------------------------------
    async def listen(self, local: bool, token: bytes) -> tuple[str, int]:
        """Paced: open this host's port for its peers' streams; its address."""
        self.token = token
        address = "127.0.0.1" if local else ray.util.get_node_ip_address()
        self.server = await asyncio.start_server(self._serve, address, 0)
        return address, self.server.sockets[0].getsockname()[1]

    def connect(self, host_of: dict, me: int, ports: dict) -> None:
        """`host_of`: participant id -> host index; `me`: this host's index; `ports`: host index -> (address,
        port) of its stream port."""
        self.host_of, self.me, self.ports = host_of, me, ports

    async def warm(self) -> int:
        """Open the stream to every peer before the clock starts."""
        for i, (address, port) in self.ports.items():
            if i != self.me:
                _, writer = await asyncio.open_connection(address, port)
                writer.write(self.token)
                self.streams[i] = writer
        return len(self.streams)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """A peer's stream: its token, then frames until an empty one (its last)."""
        try:
            if await reader.readexactly(len(self.token)) != self.token:
                return
            while size := int.from_bytes(await reader.readexactly(4), "big"):
                sent, batches = msgpack.unpackb(await reader.readexactly(size))
                self.transit.append(time.time() - sent)
                for batch, dests in batches:
                    self.inbox.append((decode_batch(batch), dests))      # checked whole here, applied by the loop
                if self.wake is not None:
                    self.wake.set()
            self.closed += 1
            if self.wake is not None:
                self.wake.set()
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

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
            frame = msgpack.packb([time.time(), list(batches.values())])
            stream = self.streams[host]
            stream.write(len(frame).to_bytes(4, "big") + frame)
            if stream.transport.get_write_buffer_size() > BUFFERED:      # backpressure: a peer that falls behind
                try:
                    await stream.drain()
                except ConnectionError:         # a peer that died: what it was sent is lost with it
                    pass
        self.outgoing.clear()

    async def _close(self) -> None:
        """Send every peer our last frame, and wait for theirs: what was sent has then arrived."""
        for stream in self.streams.values():
            stream.write(bytes(4))
            try:
                await stream.drain()
            except ConnectionError:          # a peer that died
                pass
        until = time.time() + CLOSING
        while self.closed < len(self.streams) and time.time() < until:
            self.wake.clear()
            try:
                await asyncio.wait_for(self.wake.wait(), timeout=until - time.time())
            except asyncio.TimeoutError:
                break

    def _post(self, board, vnow: float):
        """Post every participant's snapshot, with the p99 of this host's event lateness since its last post and
        its figures for the stall guard as of `vnow` (`emu.engine.stall`)."""
        recent = self.lateness[self.reported:]
        self.reported = len(self.lateness)
        p99 = float(np.percentile(recent, 99)) if len(recent) else 0.0
        return board.post.remote([{**p.snapshot(), "lateness_p99": p99, "figures": p.figures(vnow)}
                                  for p in self.parts.values()])

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
            if entry[0] > q.due:
                q.catch_up(entry[0])
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
                self._post(board, vnow)
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
        await self._close()         # everything sent has landed before we report (what went to a dead peer is lost)
        await self._post(board, vnow)
        return self.now()


HostActor = ray.remote(num_cpus=0)(Host)

"""The thin Ray actor that hosts one participant (a workstation or the load collector). All the model lives
in the participant; this wrapper only moves encoded message batches and, in the paced runtime, maps wall
time to virtual time.

Stepped: the driver calls `step(until, batches)` once per window (see `emu.conservative`).
Paced: `run_paced(epoch, speed, stop_time, board)` loops on its own: virtual now = (wall - epoch) * speed; it
processes what is due, sends what its participant sent (one call per destination per wake-up, carrying
every envelope due there, with at most MAX_IN_FLIGHT calls outstanding), and sleeps until its next event or
until a message arrives; it posts its snapshot to the board every POST_EVERY wall seconds; an actor that has fallen behind still yields to its event loop each turn, so that
messages and the driver get in. Sleeping is hybrid:
asyncio until 1.5 ms before the target (asyncio has a ~1 ms floor), then a short busy sleep, which keeps wake
lateness near 0.1 ms. Wake lateness (wall) and late messages (virtual) are recorded for the summary.
"""
from __future__ import annotations

import asyncio
import time

import ray

from emu.cluster import make
from emu.conservative import step
from emu.envelope import by_destination, decode_batch

SPIN = 0.0015
MAX_IN_FLIGHT = 256       # sends an actor may have outstanding before it waits for the oldest
POST_EVERY = 0.25         # wall seconds between an actor's snapshots to the board


@ray.remote(num_cpus=0)
class Board:
    """Where paced actors post their snapshots a few times a second. The driver and the live view read this
    one place: polling every actor instead woke each of them several times a second, and those wake-ups were
    the largest part of the actors' lateness."""

    def __init__(self):
        self.snapshots: dict[int, dict] = {}

    def post(self, node: int, snapshot: dict) -> None:
        self.snapshots[node] = snapshot

    def read(self) -> list[dict]:
        return list(self.snapshots.values())



@ray.remote(num_cpus=0)
class ParticipantActor:
    def __init__(self, blueprint: dict):
        self.p = make(blueprint)
        self.peers = {}
        self.inbox: list = []
        self.wake = None
        self.running = False
        self.sends = []
        self.wake_lateness: list[float] = []

    def where(self) -> str:
        return ray.get_runtime_context().get_node_id()

    def next_time(self) -> float:
        return self.p.next_event_time()

    def now(self) -> float:
        return self.p.now

    def step(self, until: float, batches: list):
        return step(self.p, until, batches)

    def snapshot(self) -> dict:
        return self.p.snapshot()

    def final(self) -> dict:
        for envs in self.inbox:          # messages that landed after the stop are still on the wire
            self.p.deliver(envs)
        self.inbox = []
        out = self.p.final()
        out["stats"]["wake_lateness"] = self.wake_lateness
        return out

    # -- paced -----------------------------------------------------------------------------------------------
    def connect(self, handles: dict) -> None:
        self.peers = handles

    async def ping(self) -> bool:
        return True

    async def warm(self) -> int:
        """Make the first call to every peer before the clock starts (a first call can take 100 ms)."""
        await asyncio.gather(*[h.ping.remote() for i, h in self.peers.items() if i != self.p.id])
        return len(self.peers)

    async def receive(self, batch: bytes) -> None:
        self.inbox.append(decode_batch(batch))      # checked whole here, applied by the loop
        if self.wake is not None:
            self.wake.set()

    async def stop(self) -> None:
        self.running = False
        if self.wake is not None:
            self.wake.set()

    def _posted(self) -> dict:
        """The snapshot posted to the board, with this actor's recent wake lateness p99 (the 5th largest of its
        last 500 wake-ups)."""
        return {**self.p.snapshot(), "wake_p99": (sorted(self.wake_lateness[-500:])[-5:] or [0.0])[0]}

    async def run_paced(self, epoch: float, speed: float, stop_time: float, board) -> float:
        self.wake = asyncio.Event()
        self.running = True
        p = self.p
        posted = 0.0
        while self.running:
            if time.time() - posted >= POST_EVERY:
                posted = time.time()
                board.post.remote(p.id, self._posted())
            now = (time.time() - epoch) * speed
            for envs in self.inbox:
                p.deliver(envs)
            self.inbox = []
            out = p.advance(min(now, stop_time))
            if out:
                for dest, (batch, _) in by_destination(out, p.workstations).items():
                    self.sends.append(self.peers[dest].receive.remote(batch))
                if len(self.sends) > MAX_IN_FLIGHT:
                    _, self.sends = ray.wait(self.sends, num_returns=len(self.sends), timeout=0)
                if len(self.sends) > MAX_IN_FLIGHT:      # backpressure: let the oldest land first
                    await asyncio.gather(*self.sends[:MAX_IN_FLIGHT // 2], return_exceptions=True)
                    self.sends = self.sends[MAX_IN_FLIGHT // 2:]
            if now >= stop_time:
                break
            target = min(p.next_event_time(), stop_time)
            target_wall = epoch + target / speed
            self.wake.clear()
            delay = target_wall - time.time()
            if delay <= 0:
                await asyncio.sleep(0)                # behind: still let messages and the driver in
                continue
            if delay > SPIN and not self.inbox:
                try:
                    await asyncio.wait_for(self.wake.wait(), timeout=delay - SPIN)
                except asyncio.TimeoutError:
                    pass
            if self.inbox or not self.running:
                continue
            delay = target_wall - time.time()
            if delay > 0:
                time.sleep(delay)
            self.wake_lateness.append(max(0.0, time.time() - target_wall))
        # everything sent has landed before we report (a send to a peer that died is lost with it)
        await asyncio.gather(*self.sends, return_exceptions=True)
        self.sends = []
        await board.post.remote(p.id, self._posted())
        return p.now


"""The disk of one workstation: a FIFO queue with seek + rotation + size / bandwidth service, fed by page
faults and explicit job I/O, behind a buffer cache whose size can change while running (paper 003 controls
it through `Workstation.set_buffer_cache`).

With `queueing = False` every request is served independently, with no contention: spec 000 (§2.3) offers it
as a switch, since that paper gives only "10 ms per page fault". A single request can also skip the queue
(`queued = False`: the workstation's page faults under `memory.fault_service = "fixed"`); it is still counted
in the disk's requests, waiting and busy time, which the load reports read as implicit I/O.
"""
from __future__ import annotations

from typing import Callable

from emu.engine.kernel import EventQueue


class Disk:
    def __init__(self, queue: EventQueue, seek: float, rotation: float, bandwidth: float, queueing: bool = True):
        self.q = queue
        self.seek, self.rotation, self.bandwidth, self.queueing = seek, rotation, bandwidth, queueing
        self.free_at = 0.0
        self.waiting = 0          # requests submitted and not yet complete
        self.requests = 0
        self.busy = 0.0           # seconds of service given (completed or under way)

    def service_time(self, size: float, accesses: int = 1) -> float:
        return accesses * (self.seek + self.rotation) + size / self.bandwidth

    def submit(self, size: float, done: Callable, arg=None, accesses: int = 1, queued: bool = True) -> float:
        """Queue a request of `size` bytes in `accesses` separate reads (a batch of page faults: one seek and
        rotation each), or serve it at once beside the queue (`queued = False`); `done(arg)` is called when it
        completes. Returns that time."""
        now = self.q.now
        service = accesses * (self.seek + self.rotation) + size / self.bandwidth      # service_time, inline
        queued = queued and self.queueing
        start = self.free_at if queued and self.free_at > now else now
        finish = start + service
        if queued:
            self.free_at = finish
        self.waiting += 1
        self.requests += 1
        self.busy += service
        self.complete_at(finish, done, arg)
        return finish

    def complete_at(self, finish: float, done: Callable, arg=None) -> None:
        """The completion of a request under way (counted in `waiting`): `done(arg)` at `finish`."""
        self.q.at(finish, self._complete, (done, arg))

    def _complete(self, item) -> None:
        self.waiting -= 1
        done, arg = item
        done(arg)

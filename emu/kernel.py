"""The event queue at the heart of every participant: SimPy's idea, trimmed to what a workstation needs.

Entries are ordered by `(time, rank, key, seq)`. Messages (rank 0) come before local events (rank 1) at the
same instant, and among themselves by `(sender, seq)` as the envelope order says; local events keep their
scheduling order. The order never depends on which runtime delivered a message or when, which is what makes
the inline and stepped runtimes give identical results.

A scheduled event is cancelled by bumping a token that the event's handler checks (see `Timer`); that keeps
the heap simple and cancellation O(1).
"""
from __future__ import annotations

import heapq
from typing import Callable

MESSAGE, LOCAL = 0, 1


class EventQueue:
    __slots__ = ("_heap", "_seq", "now")

    def __init__(self):
        self._heap: list = []
        self._seq = 0
        self.now = 0.0

    def at(self, time: float, fn: Callable, arg=None, rank: int = LOCAL, key: tuple = ()) -> None:
        self._seq += 1
        heapq.heappush(self._heap, (time, rank, key, self._seq, fn, arg))

    def next_time(self) -> float:
        return self._heap[0][0] if self._heap else float("inf")

    def run_until(self, until: float, inclusive: bool = False) -> None:
        """Process every event before `until` (or at it, if inclusive), in order."""
        heap = self._heap
        while heap and (heap[0][0] < until or (inclusive and heap[0][0] == until)):
            time, _, _, _, fn, arg = heapq.heappop(heap)
            if time > self.now:
                self.now = time
            fn(arg)
        if until > self.now and until != float("inf"):
            self.now = until

    def pending(self):
        """Entries not yet processed (for end-of-run accounting)."""
        return [(e[0], e[4], e[5]) for e in self._heap]


class Timer:
    """A single re-armable event: arming it again cancels the previous arming."""
    __slots__ = ("queue", "fn", "token", "time")

    def __init__(self, queue: EventQueue, fn: Callable):
        self.queue, self.fn, self.token, self.time = queue, fn, 0, float("inf")

    def arm(self, time: float) -> None:
        self.token += 1
        self.time = time
        if time != float("inf"):
            self.queue.at(time, self._fire, self.token)

    def cancel(self) -> None:
        self.token += 1
        self.time = float("inf")

    def _fire(self, token: int) -> None:
        if token == self.token:
            self.time = float("inf")
            self.fn()

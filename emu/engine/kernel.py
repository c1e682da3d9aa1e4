"""The event queue at the heart of every participant: SimPy's idea, trimmed to what a workstation needs.

Entries are ordered by `(time, rank, key, seq)`. Messages (rank 0) come before local events (rank 1) at the
same instant, and among themselves by `(sender, seq)` as the envelope order says; local events keep their
scheduling order. That order never depends on which runtime delivered a message or when, which is what makes
the inline and stepped runtimes give identical results.

Several participants' queues can share one heap (`Heap`): the inline runtime then runs them all as one event
loop in virtual time. Each entry remembers its queue, whose `now` is set when the entry is processed; the
relative order of any one participant's entries is the same as in a heap of its own.

A scheduled entry can be cancelled (`Timer`): it is marked dead and skipped, never processed.
"""
from __future__ import annotations

import heapq
import itertools
from collections import deque
from heapq import heappush
from itertools import islice
from typing import Callable

INF = float("inf")      # a name, not a call: Timer uses it several times per event

MESSAGE, LOCAL = 0, 1
FN = 4                     # index of the callable in an entry; None marks a cancelled entry


class Heap:
    """An ordered heap of entries `[time, rank, key, seq, fn, arg, queue]`, possibly shared."""
    __slots__ = ("entries", "counter")

    def __init__(self):
        self.entries: list = []
        self.counter = itertools.count()

    def top_time(self) -> float:
        entries = self.entries
        while entries and entries[0][FN] is None:
            heapq.heappop(entries)
        return entries[0][0] if entries else INF


class EventQueue:
    __slots__ = ("heap", "now", "owner", "entries", "counter", "horizon", "due", "looks", "observe", "lazy")

    def __init__(self, heap: Heap | None = None, owner=None):
        self.heap = heap if heap is not None else Heap()
        self.entries, self.counter = self.heap.entries, self.heap.counter    # the heap's, looked up once
        self.now = 0.0
        self.owner = owner
        # how far the runtime lets this queue's time go now (run_until's `until`, the inline run's stop): a
        # model that handles several of its own steps in one event (QuantumCPU's slices) stays below it
        self.horizon = INF
        # lazy work, done before the next event after `due` (`catch_up`): a periodic observer's (`observe_lazily`:
        # its next instant and the call that observes), and a model's steps held until its next event (`defer`)
        self.due = self.looks = INF
        self.observe: Callable[[float], float] | None = None
        self.lazy = None

    def observe_lazily(self, first: float, observe: Callable[[float], float]) -> None:
        """Call `observe(t)` for each instant t of a periodic observation (first, then what each call returns),
        not as events of its own but in a batch before the first event after t, with `now` set to t: between
        its events a participant's state changes only with time, so the observation is the same as an event's
        and costs no pass through the heap. Every runtime's loop calls `catch_up` when an event is due after
        `due`, and a participant's end calls it up to the end."""
        self.due = self.looks = first
        self.observe = observe

    def defer(self, lazy) -> None:
        """Hold a model's steps (`lazy`: actors/lone_io.py's burst) until this queue's next event: `catch_up`
        brings them up to each lazy observation (`lazy.advance(t)`) and ends them at the event (`lazy.end(t)`).
        `due` is then at once: every runtime's loop calls `catch_up` before the next event."""
        self.lazy, self.due = lazy, -INF

    def catch_up(self, until: float) -> None:
        """Make every lazy observation due before `until`, and end the deferred steps at `until` (then `now` is
        `until`)."""
        t, observe, lazy = self.looks, self.observe, self.lazy
        while t < until:
            self.now = t
            if lazy is not None:
                lazy.advance(t)
            t = observe(t)
        self.due = self.looks = t
        self.now = until
        if lazy is not None:
            self.lazy = None
            lazy.end(until)

    def at(self, time: float, fn: Callable, arg=None, rank: int = LOCAL, key: tuple = (), seq: int | None = None) -> list:
        """Schedule `fn(arg)` at `time`; `seq`, one of the places `reserve` gave, orders it as if scheduled then."""
        entry = [time, rank, key, next(self.counter) if seq is None else seq, fn, arg, self]
        heappush(self.entries, entry)
        return entry

    def reserve(self, n: int) -> range:
        """n consecutive places in the scheduling order, as if n events were scheduled now: a long sequence
        known in advance (a node's arrivals) can then enter the heap one at a time, each in its place, instead
        of making the heap deep from the start."""
        first = next(self.counter)
        deque(islice(self.counter, n - 1), maxlen=0)
        return range(first, first + n)

    def next_time(self) -> float:
        return self.heap.top_time()

    def run_until(self, until: float) -> None:
        """Process every event before `until`, in order (this queue's own heap only)."""
        self.horizon = until
        entries = self.heap.entries
        while entries and entries[0][0] < until:
            time, _, _, _, fn, arg, _ = heapq.heappop(entries)
            if fn is None:
                continue
            if time > self.due:
                self.catch_up(time)
            if time > self.now:
                self.now = time
            fn(arg)
        if until > self.now and until != INF:
            self.now = until

    def pending(self):
        """Entries not yet processed (for end-of-run accounting)."""
        return [(e[0], e[FN], e[5]) for e in self.heap.entries if e[FN] is not None and e[6] is self]


class Timer:
    """A single re-armable event: arming it again cancels the previous arming."""
    __slots__ = ("queue", "fn", "entry", "time")

    def __init__(self, queue: EventQueue, fn: Callable):
        self.queue, self.fn, self.entry, self.time = queue, fn, None, INF

    def arm(self, time: float) -> None:
        if time == self.time:       # armed for that instant already (a replan that changed nothing)
            return
        if self.entry is not None:  # `cancel`, inline: twice per I/O miss of an I/O-bound run
            self.entry[FN] = None
        self.time = time
        self.entry = self.queue.at(time, self._fire) if time != INF else None

    def cancel(self) -> None:
        if self.entry is not None:
            self.entry[FN] = None
            self.entry = None
        self.time = INF

    def _fire(self, _) -> None:
        self.entry = None
        self.time = INF
        self.fn()

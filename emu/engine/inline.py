"""The inline runtime: every participant in this process, all their events in one shared heap, processed in
virtual time order as fast as possible (SimPy's single ordered event queue).

A message a participant sends is handed to its destination's queue at once, as the envelopes it is (no
encoding: nothing crosses a process boundary, and a delivered payload is read-only); it is due at least one
link latency later, so it is always in place before its time comes. Each participant therefore sees exactly
the sequence of events it sees under the stepped runtime's windows, and the two runtimes give byte-identical
results. So that they also end alike, the inline run keeps track of the window the stepped runtime would be in
(from the earliest event not yet in one, one link latency long) and, once every job is done, finishes that
window and ends at its end, as the stepped runtime does. `route_encoded` is the way through the msgpack codec
and its checks, as between Ray actors: tests/test_fast_core.py runs scenarios both ways and holds them to
identical results.
"""
from __future__ import annotations

import heapq

from emu.engine.envelope import ALL, by_destination, decode_batch, destinations
from emu.engine.kernel import FN, MESSAGE, Heap
from emu.engine.stall import StallWatch


def run_inline(parts: dict, heap: Heap, total: int, stop: dict, lookahead: float, progress=None,
               watch: StallWatch | None = None) -> float:
    """Run until every job is done (or the stop time, or `watch` finds a stall); returns the end time."""
    watch = watch or StallWatch(stop)
    entries, pop = heap.entries, heapq.heappop
    stop_time, all_done = stop["time"], stop["when"] == "all_done"
    done = 0
    counted = {p: 0 for p in parts.values()}       # jobs each has finished, as last seen
    snapshots = lambda: [p.snapshot() for p in parts.values()]   # noqa: E731
    every = 4096 if progress is not None else -1  # events between progress calls
    events = 0
    now = window_end = 0.0          # the stepped runtime's window: [its first event, + lookahead)
    over = False                    # every job is done: the run ends with its window
    for p in parts.values():
        p.q.horizon = stop_time
    while entries:
        entry = pop(entries)
        fn = entry[FN]
        if fn is None:
            continue
        now = entry[0]
        if now >= window_end:
            if over or now >= stop_time or now >= watch.next and watch.stalled(
                    now, [p.progress(now) for p in parts.values()]):
                heapq.heappush(entries, entry)
                break
            # min(now + lookahead, stop_time) without the call: with a link latency's lookahead, nearly every
            # event opens a window
            window_end = now + lookahead
            if window_end > stop_time:
                window_end = stop_time
        q, arg = entry[6], entry[5]
        if q is None:               # a broadcast to every workstation (`route`): each receiver in turn
            receivers, arg = arg
            for p in receivers[:-1]:
                if now > p.q.due:
                    p.q.catch_up(now)
                p.q.now = now
                p._receive(arg)
                if p.outbox:
                    route(p, parts)
                done += len(p.finished) - counted[p]      # none: a load index finishes no job
                counted[p] = len(p.finished)
            q = receivers[-1].q                          # and `fn` is its _receive
        if now > q.due:
            q.catch_up(now)
        q.now = now
        fn(arg)
        p = q.owner
        if p.outbox:
            route(p, parts)
        if len(p.finished) != counted[p]:
            done += len(p.finished) - counted[p]
            counted[p] = len(p.finished)
            if all_done and done >= total and not over:
                over = True
                for x in parts.values():    # no slice runs past the window's end (a stepped actor's horizon)
                    x.q.horizon = window_end
        events += 1
        if events == every:
            events = 0
            progress(now, done, snapshots)
    end = watch.at if watch.at is not None else stop_time if now >= stop_time and not over else window_end
    for p in parts.values():
        p.q.now = max(p.q.now, end)
    if progress is not None:
        progress(end, done, snapshots)
    return end


def route(p, parts: dict) -> None:
    """Hand what `p` sent to its destinations, batched per destination in the order the codec's batches have.
    A lone broadcast (a load index) is one entry of the heap for all its receivers, not one each: their
    entries would share its time and key (the envelope's) and so follow each other, as nothing a receiver does
    can come between them (a message is at least a link latency away, and local events come after messages
    of the same time); `run_inline` takes them in turn, in workstation order, as it would have."""
    out, p.outbox = p.outbox, []
    if len(out) == 1:
        env = out[0]
        if env.dest != ALL:         # `deliver`'s steps for one: it is never late (a link latency ahead)
            dest = parts[env.dest]
            dest._accept(env, dest.parse(env), env.deliver_at)
            return
        if "job" not in env.payload:
            receivers, q = [parts[d] for d in range(p.workstations)], p.q
            heapq.heappush(q.entries, [env.deliver_at, MESSAGE, (env.sender, env.seq), next(q.counter),
                                       receivers[-1]._receive, (receivers, (env, None)), None])
            return
    for dest, members in destinations(out, p.workstations).items():
        parts[dest].deliver([out[i] for i in members], trusted=True)


def route_encoded(p, parts: dict) -> None:
    """Deliver what `p` sent through the codec, as between Ray actors. A broadcast is decoded once and shared
    by its receivers, as delivered payloads are read-only."""
    decoded = {}
    for dest, (batch, _) in by_destination(p.outbox, p.workstations).items():
        if id(batch) not in decoded:
            decoded[id(batch)] = decode_batch(batch)
        parts[dest].deliver(decoded[id(batch)])
    p.outbox = []

"""Conservative time windows: how the `stepped` runtime advances workstations in parallel.

Every message takes at least `lookahead` (the link latency) to arrive. So if T is the earliest pending event
anywhere, every participant can process all its events before T + lookahead without any message from another
reaching it in that window. The driver repeats: find T, advance every participant that has something to do
before T + lookahead, and route what they sent, batched per destination, to be delivered with their next
advance. The hosts are Ray actors (stepped) or, for tests of the driver itself, objects in this process.
Each participant processes its events in the same order as in the inline runtime's single event loop (see
`emu.engine.inline`), so the two give byte-identical results.
"""
from __future__ import annotations

import heapq
from collections import defaultdict

from emu.engine.envelope import by_destination, decode_batch
from emu.engine.stall import StallWatch

INF = float("inf")


def step(participant, until: float, batches: list[bytes]):
    """One participant's share of a window: take its messages, advance, return what it sent, encoded and
    batched per destination with each batch's earliest deliver_at. Shared by the inline and Ray hosts."""
    for batch in batches:
        participant.deliver(decode_batch(batch))
    out = by_destination(participant.advance(until), participant.workstations)
    return out, participant.next_event_time(), len(participant.finished)


class InlineHosts:
    """Participants in this process."""

    def __init__(self, participants):
        self.parts = {p.id: p for p in participants}

    def ids(self):
        return list(self.parts)

    def next_times(self) -> dict:
        return {i: p.next_event_time() for i, p in self.parts.items()}

    def advance(self, calls: dict) -> dict:
        return {i: step(self.parts[i], until, batches) for i, (until, batches) in calls.items()}

    def progress(self, t: float) -> list:
        return [self.parts[i].progress(t) for i in sorted(self.parts)]

    def finals(self) -> list[dict]:
        return [p.final() for p in self.parts.values()]

    def snapshots(self) -> list[dict]:
        return [p.snapshot() for p in self.parts.values()]


def run_windows(hosts, lookahead: float, total_jobs: int, stop: dict, progress=None,
                watch: StallWatch | None = None) -> float:
    """Advance all participants until every job is done (or the stop time, or `watch` finds a stall). Returns
    the end time."""
    watch = watch or StallWatch(stop)
    nexts = hosts.next_times()
    heap = [(t, i) for i, t in nexts.items()]
    heapq.heapify(heap)
    inbox: dict[int, list] = defaultdict(list)       # encoded batches waiting for their participant
    finished = defaultdict(int)
    stop_time = stop["time"]
    windows = 0
    end = 0.0
    while heap:
        t, i = heap[0]
        if t != nexts[i]:
            heapq.heappop(heap)                      # a stale entry
            continue
        if stop["when"] == "all_done" and sum(finished.values()) >= total_jobs:
            break                                    # (at the end of the window its last job ended in)
        if t >= stop_time:
            end = stop_time
            break
        if t >= watch.next and watch.stalled(t, hosts.progress(t)):
            end = t
            break
        until = min(t + lookahead, stop_time)
        due = []
        while heap and heap[0][0] < until:
            t_i, i = heapq.heappop(heap)
            if t_i == nexts[i] and t_i < until:
                due.append(i)
                nexts[i] = INF
        calls = {i: (until, inbox.pop(i, [])) for i in sorted(due)}
        results = hosts.advance(calls)
        arrivals: dict[int, float] = {}
        for i in sorted(results):
            out, nxt, done = results[i]
            finished[i] = done
            nexts[i] = nxt
            heapq.heappush(heap, (nxt, i))
            for dest, (batch, first) in out.items():
                inbox[dest].append(batch)
                arrivals[dest] = min(arrivals.get(dest, INF), first)
        for dest, first in arrivals.items():
            if first < nexts[dest]:
                nexts[dest] = first
                heapq.heappush(heap, (first, dest))
        end = until
        windows += 1
        if progress is not None and windows % 256 == 0:
            progress(until, sum(finished.values()), hosts.snapshots)
    # every participant to the end (those with nothing due in the last window are behind), with the messages
    # still on their way in its queue: the state the inline runtime ends in
    hosts.advance({i: (end, inbox.pop(i, [])) for i in sorted(nexts)})
    if progress is not None:
        progress(end, sum(finished.values()), hosts.snapshots)
    return end

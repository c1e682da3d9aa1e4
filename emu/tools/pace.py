"""The machine's pace: how long this machine takes for a fixed piece of pure Python, measured as a reproduction
starts and as it ends, so that its wall time can be read beside the state the machine was in. The machines here
are shared and their speed varies by day and hour: `nowemu reproduce p003b` took 39 minutes on 2026-11-28 and
111 (over four invocations) on 2026-11-29 at the same code speed (docs/benchmarks.md).

The piece is the event loop of an M/M/1 FCFS queue on `heapq` and `random` (`JOBS` jobs, seed 1), frozen and
apart from the emulator's code, so that no change to nowemu changes what it measures. `pace()` times it alone
and in two processes at once (a reproduction runs two runs at once, and this machine's second core has been
slower than its first when both are busy), best of `REPEATS` each.
"""
from __future__ import annotations

import heapq
import multiprocessing
import random
import time
from concurrent.futures import ProcessPoolExecutor

JOBS, REPEATS = 100_000, 3


def reference(jobs: int = JOBS) -> float:
    """Seconds of wall time for the loop: jobs arrive at rate 0.5 and are served at rate 1, first come first
    served."""
    start = time.perf_counter()
    rng = random.Random(1)
    heap, free_at, arrived, done = [(rng.expovariate(0.5), 0)], 0.0, 0, 0
    while done < jobs:
        t, departure = heapq.heappop(heap)
        if departure:
            done += 1
            continue
        arrived += 1
        free_at = max(t, free_at) + rng.expovariate(1.0)
        heapq.heappush(heap, (free_at, 1))
        if arrived < jobs:
            heapq.heappush(heap, (t + rng.expovariate(0.5), 0))
    return time.perf_counter() - start


def best(_=None) -> float:
    return min(reference() for _ in range(REPEATS))


def pace() -> dict:
    """The loop's best time alone, and the slower of two processes running it at once (s)."""
    alone = best()
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        pair = max(pool.map(best, range(2)))
    return {"alone": alone, "pair": pair}


def words(start: dict, end: dict, made: int | None = None) -> str:
    """A report's sentence on the pace at the start and end of its invocation, or (`made`) of the earlier one
    that made that many of its runs."""
    which = "this invocation" if made is None else f"the invocation that made {made} of the runs"
    return (f"The machine's pace (`emu/tools/pace.py`'s fixed loop, best of {REPEATS}): {start['alone']:.3f} s "
            f"alone and {start['pair']:.3f} s two at once as {which} started, {end['alone']:.3f} s and "
            f"{end['pair']:.3f} s as it ended.")

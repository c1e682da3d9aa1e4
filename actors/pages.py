"""Page-level memory (paper 001 §3.2, `memory.fault_model = "pages"`): which pages of each resident task are in
the node's frames, replaced by global LRU across the node's tasks.

The paper's node model, as its spec reads it (spec 001 §3.4, §5.4, ambiguity register rows 1-3, 15, 16, 25):

- A task has `vir` pages of virtual memory. Its life is a sequence of working-set phases, each of an
  exponential length (mean `phase` x its work, in its own CPU time) with a working set of `wrk` pages: a
  normal draw of mean `ws` x vir and deviation `ws_sd` x vir, rounded and kept in [1, vir], a contiguous
  window at a uniform offset. A new phase begins at the first dispatch after the last one ended.
- At every dispatch the task references one page, uniform over its working set. A resident page is a hit; a
  missing one is a page fault: the task leaves the CPU at once for the paging delay, after which the page is
  loaded (evicting the least recently used page of the node, whoever owns it) and the task is ready again.
- Recency is task-granular by default (`lru = "task"`): a dispatch stamps all of the task's resident
  working-set pages, since one reference per dispatch would leave most pages' own stamps at their load time
  and replacement would not follow how often a task is scheduled, which is the paper's mechanism. `lru =
  "page"` stamps the referenced page only (the spec's sensitivity check).
- On admission (eq. 7) a task gets `vir` pages if the node's demand with it, N_k.mem (eq. 4, the sum of the
  resident tasks' `vir`), is below the frames M, else vir x M / N_k.mem; they are its first working set (and
  the pages after it if there are more), taken from LRU victims as needed. A finished task frees its pages.

Per task, two numpy arrays over its virtual pages (resident or not; each page's stamp, inf while out): no
per-page Python objects. A stamp is not a time but the count of the node's page uses (references and loads) so
far: uses at one instant keep their order (a task dispatched just after another faulted, at the same time, is
the more recently used), and no two uses tie. A task-granular dispatch costs O(1): it records its stamp
(`last`), and a page of the current window counts as stamped max(its own stamp, last); the window's stamps are
written once, when its phase ends. Pages stamped together (a window, an admission) go lowest first.

A fault on a full node takes the oldest page of all its tasks, so each task keeps its oldest page at hand
rather than search its pages at every fault (`_oldest`): an eviction queue, its first 64 pages in order, found
by one pass over its stamps. A resident page's stamp only ever rises, so pages outside the queue stay newer
than those in it, and an entry used since it was queued is skipped. Once a task is dispatched in its phase,
every page outside its window is older than every page in it, and none enters memory outside it until the
phase ends: the queue holds those outside pages only, and after them a cursor walks the window in page order
(the pages the last dispatch stamped tie), starting over at each dispatch.
"""
from __future__ import annotations

import math

import numpy as np

INF = float("inf")
QUEUE = 64          # pages a task's eviction queue holds: at most one pass over its stamps per 64 evictions


class TaskPages:
    __slots__ = ("vir", "ws", "ws_sd", "phase", "wrk", "off", "phase_end", "res", "resident", "stamp", "last",
                 "queue", "queued", "pos", "cold", "hot", "hot_last")

    def __init__(self, vir: int, ws: float, ws_sd: float, phase: float):
        self.vir, self.ws, self.ws_sd, self.phase = vir, ws, ws_sd, phase
        self.wrk = self.off = self.res = 0
        self.phase_end = 0.0
        self.resident = np.zeros(vir, dtype=bool)
        self.stamp = np.full(vir, INF)
        self.last = -INF                        # its last dispatch in this phase (task-granular stamps)
        self.queue: list[int] = []              # its oldest resident pages, oldest first (`PageMemory._oldest`)
        self.queued: list[float] = []           # their stamps when queued
        self.pos = 0                            # the queue's head
        self.cold = True                        # pages outside the window may be resident (this phase)
        self.hot, self.hot_last = 0, -INF       # the window's oldest page as of the dispatch stamped hot_last

    def stamps(self) -> np.ndarray:
        """Every page's stamp as of now: the current window's raised to the last dispatch."""
        if self.last == -INF:
            return self.stamp
        out = self.stamp.copy()
        np.maximum(out[self.off:self.off + self.wrk], self.last, out=out[self.off:self.off + self.wrk])
        return out


class PageMemory:
    __slots__ = ("frames", "rng", "per_page", "used", "demand", "tasks", "uses")

    def __init__(self, frames: int, rng, lru: str = "task"):
        self.frames, self.rng = frames, rng
        self.per_page = lru == "page"
        self.used = 0               # frames holding a page
        self.demand = 0             # N_k.mem: the resident tasks' virtual pages (eq. 4)
        self.tasks: dict[int, TaskPages] = {}
        self.uses = 0               # page uses (references, loads) so far: the LRU's clock

    # -- what the scheduler reads ---------------------------------------------------------------------------
    def over(self) -> bool:
        """The node's memory is over-committed: N_k.mem > M (strict)."""
        return self.demand > self.frames

    def resident(self, job) -> int:
        """res_mem: the task's pages in memory."""
        return self.tasks[job.id].res

    def working_set(self, job) -> int:
        """|wrk|: the size of the task's current working set."""
        return self.tasks[job.id].wrk

    # -- a task's life ---------------------------------------------------------------------------------------
    def admit(self, job, vir: int, ws: float, ws_sd: float, phase: float) -> None:
        """Eq. (7): load the new task's first pages, evicting the oldest pages of the node as needed."""
        t = TaskPages(vir, ws, ws_sd, phase * job.work)
        self.demand += vir
        self._new_phase(t, job.done)
        res = vir if self.demand < self.frames else int(vir * self.frames / self.demand)
        if res <= 0:
            self.tasks[job.id] = t
            return
        self._evict(self.used + res - self.frames)
        pages = (t.off + np.arange(res)) % vir
        self.uses += 1
        t.resident[pages] = True
        t.stamp[pages] = self.uses
        t.res = res
        self.used += res
        self.tasks[job.id] = t

    def release(self, job) -> None:
        t = self.tasks.pop(job.id)
        self.used -= t.res
        self.demand -= t.vir

    def reference(self, job) -> int:
        """A dispatch of `job`: its one page reference. -1 on a hit; else the page that faulted (not loaded:
        see `load`). A phase that ended while it ran gives way to a new working set first."""
        t = self.tasks[job.id]
        if job.done >= t.phase_end:
            self._new_phase(t, job.done)
        off, wrk = t.off, t.wrk
        page = off + (self.rng.randrange(wrk) if wrk > 1 else 0)
        self.uses += 1
        if self.per_page:
            if not t.resident[page]:
                return page
            t.stamp[page] = self.uses
            return -1
        t.last = self.uses
        return -1 if t.resident[page] else page

    def load(self, job, page: int) -> None:
        """The faulted page is in (after the paging delay), in the frame of the node's oldest page if none is
        free."""
        t = self.tasks[job.id]
        if t.resident[page]:
            return
        if self.used >= self.frames:
            self._evict(1)
        self.uses += 1
        t.resident[page] = True
        t.stamp[page] = self.uses           # the newest page: after every page of its queue
        t.res += 1
        self.used += 1

    # -- the model -------------------------------------------------------------------------------------------
    def _new_phase(self, t: TaskPages, done: float) -> None:
        if t.last != -INF:          # the old window's stamps, written down
            t.stamp = t.stamps()
            t.last = -INF
        t.cold = True
        rng, vir = self.rng, t.vir
        wrk = int(round(rng.gauss(t.ws * vir, t.ws_sd * vir)))
        t.wrk = min(max(wrk, 1), vir)
        t.off = rng.randrange(vir - t.wrk + 1)
        t.phase_end = done + rng.expovariate(1.0 / t.phase) if t.phase > 0 else INF

    def _oldest(self, t: TaskPages) -> tuple[float, int]:
        """(stamp, page) of `t`'s oldest resident page."""
        queue, queued = t.queue, t.queued
        while t.pos < len(queue):
            page = queue[t.pos]
            stamp = t.stamp[page]
            if t.last > stamp and t.off <= page < t.off + t.wrk:
                stamp = t.last
            if stamp == queued[t.pos]:
                return stamp, page
            t.pos += 1                      # used (or evicted) since it was queued: newer than the rest
        if t.last == -INF:
            return self._queue(t, t.stamp)
        # dispatched in this phase (task-granular): every page outside the window is older than all in it, and
        # no page leaves the window or enters memory outside it until the phase ends
        if t.cold:
            outside = t.stamp.copy()
            outside[t.off:t.off + t.wrk] = INF
            head = self._queue(t, outside)
            if head:
                return head
            t.cold = False
        return self._window(t)

    @staticmethod
    def _queue(t: TaskPages, stamps: np.ndarray) -> tuple | None:
        """Queue the first QUEUE resident pages in the order of `stamps` (inf: none), equal stamps lowest page
        first; the head, if any."""
        k = min(QUEUE, t.res)
        kth = np.partition(stamps, k - 1)[k - 1]
        older = np.flatnonzero(stamps < kth)
        pages = older[np.argsort(stamps[older], kind="stable")]
        if kth < INF:
            pages = np.concatenate((pages, np.flatnonzero(stamps == kth)[:k - len(older)]))
        t.queue, t.queued, t.pos = pages.tolist(), stamps[pages].tolist(), 0
        return (t.queued[0], t.queue[0]) if t.queue else None

    @staticmethod
    def _window(t: TaskPages) -> tuple[float, int]:
        """The oldest page of a window dispatched in this phase: the pages its last dispatch stamped tie, lowest
        first (found by a cursor that only moves on until the next dispatch), then those loaded since."""
        stamp, last, end = t.stamp, t.last, t.off + t.wrk
        if t.hot_last != last:
            t.hot, t.hot_last = t.off, last
        while t.hot < end:
            if stamp[t.hot] < last:
                return last, t.hot
            ahead = np.flatnonzero(stamp[t.hot:min(t.hot + QUEUE, end)] < last)
            t.hot += int(ahead[0]) if len(ahead) else QUEUE
        window = stamp[t.off:end]
        page = int(window.argmin())
        return float(window[page]), t.off + page

    def _evict(self, n: int) -> None:
        """Free `n` frames: the oldest resident pages of the node, whoever owns them."""
        if n <= 0:
            return
        if n == 1:
            victim, best, page = None, INF, -1
            for t in self.tasks.values():
                if t.res:
                    stamp, oldest = self._oldest(t)
                    if stamp < best or victim is None:
                        victim, best, page = t, stamp, oldest
            victim.resident[page] = False
            victim.stamp[page] = INF
            victim.res -= 1
            self.used -= 1
            return
        owners = [t for t in self.tasks.values() if t.res]
        stamps = np.concatenate([t.stamps() for t in owners])
        order = np.argsort(stamps, kind="stable")[:n]
        bounds = np.cumsum([0] + [t.vir for t in owners])
        for i, t in enumerate(owners):
            mine = order[(order >= bounds[i]) & (order < bounds[i + 1])] - bounds[i]
            if len(mine):
                t.resident[mine] = False
                t.stamp[mine] = INF
                t.res -= len(mine)
        self.used -= n


def pages_of(size: float, page_size: float) -> int:
    """Virtual pages of a task of `size` bytes (at least one)."""
    return max(1, math.ceil(size / page_size - 1e-9))

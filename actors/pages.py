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
  the pages after it if there are more), taken from LRU victims as needed (`admission = "evict"`). Or
  (`admission = "free"`) eq. (7)'s count is a ceiling on what the free frames give: a task arriving at a full
  node takes no resident page from the others, and the rest of its working set comes by faults (paper 001's
  Fig. 4 text: J1's "initial memory resources requirements" are "satisfied" and J2, arriving after it, "cannot
  fit its working set in its resident set"). A finished task frees its pages.

Per task, two numpy arrays over its virtual pages (resident or not; each page's stamp, inf while out) and the
oldest resident page found so far (recomputed only when that page may have changed): no per-page Python
objects. Finding the oldest is where a node short of memory spends its time (a fifth of Fig. 4's run, py-spy,
2026-11-29), so it uses what the model guarantees: within a phase the pages outside the window are never
stamped again (references and loads fall in the window) and only leave, so their order by stamp is sorted
once per phase and read with a cursor; and once the task has run in its phase they are all older than any page
of its window (stamped before the phase began), so the window is looked at only when none of them is left.
A stamp is not a time but the count of the node's page uses (references and loads) so far: uses at one
instant keep their order (a task dispatched just after another faulted, at the same time, is the more
recently used), and no two uses tie. A task-granular dispatch costs O(1): it records its stamp (`last`),
and a page of the current window counts as stamped max(its own stamp, last); the window's stamps are written
once, when its phase ends. Pages stamped together (a window, an admission) go lowest first.
"""
from __future__ import annotations

import math

import numpy as np

INF = float("inf")


class TaskPages:
    __slots__ = ("vir", "ws", "ws_sd", "phase", "wrk", "off", "phase_end", "res", "resident", "stamp", "last",
                 "oldest", "outside", "cursor", "scanned")

    def __init__(self, vir: int, ws: float, ws_sd: float, phase: float):
        self.vir, self.ws, self.ws_sd, self.phase = vir, ws, ws_sd, phase
        self.wrk = self.off = self.res = 0
        self.phase_end = 0.0
        self.resident = np.zeros(vir, dtype=bool)
        self.stamp = np.full(vir, INF)
        self.last = -INF                        # its last dispatch in this phase (task-granular stamps)
        self.oldest: tuple | None = None        # (stamp, page) of its oldest resident page; None: not known
        self.outside: list | None = None        # the pages outside the window, oldest first; None: not sorted yet
        self.cursor = 0                         # outside[cursor:]: those not yet seen gone
        self.scanned = 0                        # no page of the window below this one is in

    def stamps(self) -> np.ndarray:
        """Every page's stamp as of now: the current window's raised to the last dispatch."""
        if self.last == -INF:
            return self.stamp
        out = self.stamp.copy()
        np.maximum(out[self.off:self.off + self.wrk], self.last, out=out[self.off:self.off + self.wrk])
        return out


class PageMemory:
    __slots__ = ("frames", "rng", "per_page", "from_free", "used", "demand", "tasks", "uses")

    def __init__(self, frames: int, rng, lru: str = "task", admission: str = "evict"):
        self.frames, self.rng = frames, rng
        self.per_page = lru == "page"
        self.from_free = admission == "free"
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
        """Eq. (7): load the new task's first pages, evicting the oldest pages of the node as needed (or only
        into free frames)."""
        t = TaskPages(vir, ws, ws_sd, phase * job.work)
        self.demand += vir
        self._new_phase(t, job.done)
        res = vir if self.demand < self.frames else int(vir * self.frames / self.demand)
        if self.from_free:
            res = min(res, self.frames - self.used)
        if res <= 0:
            self.tasks[job.id] = t
            return
        self._evict(self.used + res - self.frames)
        pages = (t.off + np.arange(res)) % vir
        self.uses += 1
        t.resident[pages] = True
        t.stamp[pages] = self.uses
        t.res = res
        t.oldest = (float(self.uses), int(pages.min()))
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
            if t.oldest is not None and t.oldest[1] == page:
                t.oldest = None
            return -1
        t.last = self.uses
        if t.oldest is not None and off <= t.oldest[1] < off + wrk:
            t.oldest = None
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
        t.stamp[page] = self.uses           # the newest page: never the task's oldest
        if page < t.scanned:
            t.scanned = page
        t.res += 1
        self.used += 1

    # -- the model -------------------------------------------------------------------------------------------
    def _new_phase(self, t: TaskPages, done: float) -> None:
        if t.last != -INF:          # the old window's stamps, written down
            t.stamp = t.stamps()
            t.last = -INF
            t.oldest = None
        t.outside = None
        rng, vir = self.rng, t.vir
        wrk = int(round(rng.gauss(t.ws * vir, t.ws_sd * vir)))
        t.wrk = min(max(wrk, 1), vir)
        t.off = rng.randrange(vir - t.wrk + 1)
        t.scanned = t.off
        t.phase_end = done + rng.expovariate(1.0 / t.phase) if t.phase > 0 else INF

    def _oldest(self, t: TaskPages) -> tuple:
        """(stamp, page) of the task's oldest resident page, equal stamps lowest page first."""
        if t.oldest is None:
            if t.last == -INF:          # not run in this phase yet (or per-page stamps): read them all
                page = int(t.stamp.argmin())
                t.oldest = (float(t.stamp[page]), page)
            else:
                t.oldest = self._outside(t) or self._window(t)
        return t.oldest

    @staticmethod
    def _outside(t: TaskPages) -> tuple | None:
        """The oldest resident page outside the window, if any is left."""
        if t.outside is None:
            pages = np.flatnonzero(t.resident)
            pages = pages[(pages < t.off) | (pages >= t.off + t.wrk)]
            t.outside, t.cursor = pages[np.lexsort((pages, t.stamp[pages]))].tolist(), 0
        outside, resident, i = t.outside, t.resident, t.cursor
        while i < len(outside) and not resident[outside[i]]:
            i += 1
        t.cursor = i
        return (float(t.stamp[outside[i]]), outside[i]) if i < len(outside) else None

    @staticmethod
    def _window(t: TaskPages) -> tuple:
        """The oldest resident page of the window: its lowest page in, stamped `last` unless it came in since the
        task last ran (then the window is read whole). Pages leave the window from its low end (the oldest of
        equal stamps go first), so the look starts at the lowest page that may be in (`scanned`, lowered by a
        load below it) and goes up in growing steps."""
        resident, end = t.resident, t.off + t.wrk
        i, step = t.scanned, 64
        while i < end:
            k = int(resident[i:i + step].argmax())
            if resident[i + k]:
                i += k
                break
            i, step = i + step, step * 2
        t.scanned = i
        if i < end and t.stamp[i] <= t.last:
            return float(t.last), i
        window = t.stamp[t.off:end]
        if window.min() <= t.last:
            return float(t.last), t.off + int((window <= t.last).argmax())
        page = int(window.argmin())
        return float(window[page]), t.off + page

    def _evict(self, n: int) -> None:
        """Free `n` frames: the oldest resident pages of the node, whoever owns them."""
        if n <= 0:
            return
        if n == 1:
            victim, best = None, INF
            for t in self.tasks.values():
                if t.res:
                    stamp = self._oldest(t)[0]
                    if stamp < best or victim is None:
                        victim, best = t, stamp
            page = victim.oldest[1]
            victim.resident[page] = False
            victim.stamp[page] = INF
            victim.res -= 1
            victim.oldest = None
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
                t.oldest = None
        self.used -= n


def pages_of(size: float, page_size: float) -> int:
    """Virtual pages of a task of `size` bytes (at least one)."""
    return max(1, math.ceil(size / page_size - 1e-9))

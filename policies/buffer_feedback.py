"""Paper 003's buffer feedback controller, BFC (Ch. 6, Sec. 6.2): a node's I/O buffer cache resized, at each job
completion, by the change the last resize made to the mean slowdown (Eq. 6.2):

    delta_u = G_b (s_{u-1} - s_u) delta_{u-1} / |delta_{u-1}|,    bufsize_u = bufsize_{u-1} + delta_u

so a resize that lowered the mean slowdown is followed by another in the same direction, one that raised it by
one in the other, each in proportion to the change. The buffer comes out of the memory the node's jobs have: a
larger one raises the hit rate of explicit I/O (Eqs. 3.5-3.8), a smaller one leaves more memory and so fewer
page faults (Eq. 3.3). A mix-in: CM-FC, IO-FC and WAL-FC are their policies with it (policies/cm_fc.py, ...).

What the thesis leaves open, and what nowemu does:
- Where: one controller per node (Fig. 6.1 is "the architecture for one node"), fed by the jobs that complete on
  it; the thesis's nodes' buffers are "identical", as they start.
- s_u: "the slowdown of a newly completed job and the history slowdowns are fed back": the mean slowdown of the
  jobs completed on the node so far, after the u-th (or of the latest `history` of them).
- G_b: 0.5 (the thesis's "tuned to be 0.5"), in MB of buffer per unit of change in the mean slowdown: the
  thesis gives buffer sizes in MB throughout. The mean of u slowdowns changes at the u-th by (s - mean) / u, so
  over n completions the buffer travels about G_b x a slowdown's deviation from the mean x ln n MB in all: a
  few MB where slowdowns are a few units, tens where they are tens, never the hundreds the thesis's hit rates
  "approaching 100 %" (Sec. 6.3.3) ask. A shorter memory of the slowdowns (`history`: the latest k) moves it
  more, but at random: with the last job's alone the buffers walk tens of MB each way and the slowdowns do not
  fall (docs/p003b.md); the thesis prints neither. (Read as a share of the node's memory, 0.5 moves it by
  hundreds of MB at a run's first completions, where the mean swings by units: to its bounds, and the jobs then
  page for good, partly because the buffer gives memory back to arriving jobs only when the controller shrinks
  it.)
- The first resize (at the second completion): as if the one before had grown the buffer (+1).
- A change of 0 keeps the direction of the last non-zero one (Eq. 6.2 would divide by 0).
- Bounds: "no need to determine the optimal bounds": none but what memory holds. The buffer may shrink to
  nothing, and grows only into memory the node's jobs do not demand now (Linux's cache keeps "small for
  circumstances under which programs need more memory", Sec. 6.1), leaving them a page at least.
The slowdown of a job is its response over its time alone on its home node (Eq. 3.22, as results.py computes it).
Each resize is logged (`buffer`: the node's new size in bytes), the buffer's time series.
"""
from __future__ import annotations

from collections import deque

MB = 2**20


class BufferFeedback:
    PARAMS = {"gain": ("number", 0.5, "G_b of Eq. 6.2: MB the buffer moves by per unit of change in the mean "
                                      "slowdown"),
              "history": ("int", 0, "the completions s_u averages: the latest k (1: the newly completed job's "
                                    "slowdown alone), or 0: every one so far")}

    def __init__(self, **params):
        super().__init__(**params)
        self.slowdowns = deque(maxlen=self.history or None)     # the completions s_u averages
        self.total = 0.0                          # their sum
        self.last: float | None = None            # s_{u-1}
        self.direction = 1.0                      # delta_{u-1} / |delta_{u-1}|

    def finished(self, job, node) -> None:
        super().finished(job, node)
        home = node.index.get(job.home, {}).get("speed", node.speed) if job.home != node.id else node.speed
        slowdown = (node.now - job.arrival) / job.dedicated(home)
        if len(self.slowdowns) == self.slowdowns.maxlen:
            self.total -= self.slowdowns[0]
        self.slowdowns.append(slowdown)
        self.total += slowdown
        now = self.total / len(self.slowdowns)
        if self.last is not None:
            pager = node.pager
            delta = self.gain * MB * (self.last - now) * self.direction
            if delta:
                self.direction = 1.0 if delta > 0 else -1.0
                room = min(max(pager.memory - pager.demand, pager.buffer_cache), pager.memory - pager.page_size)
                size = min(max(pager.buffer_cache + delta, 0.0), room)
                if size != pager.buffer_cache:
                    node.set_buffer_cache(size)
                    node.log("buffer", size=size)
        self.last = now

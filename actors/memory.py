"""The memory pager of one workstation: user memory shared by the resident jobs, a buffer cache carved out
of it, swap, and the page-fault model.

Page faults (spec 000 §4.5 default (a), spec 002 §4.6): while the resident jobs' demand D fits in user
memory M there are none (cold misses are part of a job's dedicated lifetime). Above it, every job faults at
    rate = fault_rate * (1 - M / D)   faults per second of CPU time on this node,
i.e. in proportion to the share of the demand that cannot be resident. `fault_rate` (the spec's kappa) is a
calibration constant named in each scenario. Each fault reads one page through the disk queue. Faults are a
Poisson process in CPU time, so when D changes every job's next fault is simply redrawn.

`fault_model = "demand_ratio"` is the other model the specs name (spec 000 §4.5 (b), spec 003 Eq. 3.3, from the
papers' own lineage, Zhang et al. 2000): rate = fault_rate * D / M as soon as D > M, so a node that overflows by
a few pages already faults at the full rate (a cliff; `fault_rate` is then page faults per million instructions
times the CPU's MIPS: a scenario may write it so, "1 /MI" with `cpu.mips`). docs/p000.md reports what each model
does to papers 000/002.

With `fault_batch` = b > 1 faults come in bursts of b pages (the papers' "transitions": a job reloads part
of its working set), one event and one disk request of b page reads each, at 1/b of the rate: the same
pages per CPU-second and the same disk time, with b times fewer events. Cluster-scale runs of papers 000/002
page hundreds of thousands of seconds, which page-by-page events would make too slow to sweep.

Swap bounds what may be admitted: demand beyond M + swap is reported (`over_swap`) for admission policies.

Network RAM (paper 002): a node may hold pages for its peers (`lent`: peer -> bytes, out of its idle memory;
`guest` is their sum) and may keep part of its own overflow on peers (`remote`: host -> bytes). Local memory has priority: guest pages never
push the node's own jobs out (the workstation evicts them first), so the overflow and the fault rate are those
of the node's own demand, and a share `remote_share()` of its faults is served by its hosts over the network
instead of by its disk.
"""
from __future__ import annotations

SLACK = 1.0     # bytes: network RAM amounts this small are rounding, not memory


class Pager:
    def __init__(self, memory: float, swap: float, page_size: float, fault_rate: float, buffer_cache: float = 0.0,
                 fault_batch: int = 1, fault_model: str = "overflow"):
        self.memory, self.swap, self.page_size, self.fault_rate = memory, swap, page_size, fault_rate
        self.fault_model = fault_model
        self.fault_batch = fault_batch
        self.buffer_cache = buffer_cache     # and user_memory, what is left of memory to the jobs
        self.demand = 0.0          # sum of the resident jobs' current demands
        # network RAM, by peer: bytes of this node's overflow held there, asked of it and not yet answered, and
        # bytes of this node's memory holding its pages (`guest`: their sum)
        self.remote: dict[int, float] = {}
        self.asked: dict[int, float] = {}
        self.lent: dict[int, float] = {}
        self.guest = 0           # (an int while nothing is lent, as the sum of no amounts is)

    @property
    def buffer_cache(self) -> float:
        return self._buffer_cache

    @buffer_cache.setter
    def buffer_cache(self, size: float) -> None:
        self._buffer_cache = size
        self.user_memory = self.memory - size

    @property
    def idle(self) -> float:
        return max(0.0, self.user_memory - self.demand - self.guest)

    def shortfall(self) -> float:
        """Overflow neither held by network RAM nor already asked for (the paper's MD_j - RAM_j left after the
        remote grants): what a policy may still borrow."""
        return max(0.0, self.demand - self.user_memory - sum(self.remote.values()) - sum(self.asked.values()))

    def add(self, table: dict, peer: int, delta: float) -> None:
        """Change one peer's amount in a network RAM table; amounts down to `SLACK` drop out."""
        new = table.get(peer, 0.0) + delta
        if new > SLACK:
            table[peer] = new
        else:
            table.pop(peer, None)
        if table is self.lent:
            self.guest = sum(self.lent.values())

    def remote_share(self) -> float:
        """The share of the overflow (and so of the faults) that network RAM holds."""
        over = self.demand - self.user_memory
        return min(1.0, sum(self.remote.values()) / over) if over > 0 else 0.0

    def overflow(self) -> float:
        """The share of demand that cannot be resident: 1 - M/D, or 0."""
        return 0.0 if self.demand <= self.user_memory else 1.0 - self.user_memory / self.demand

    def fault_rate_now(self) -> float:
        """Fault events (bursts of `fault_batch` pages) per CPU-second for a running job under the current demand."""
        if self.demand <= self.user_memory or self.fault_model == "pages":     # pages: actors.pages faults
            return 0.0
        pressure = self.overflow() if self.fault_model == "overflow" else self.demand / self.user_memory
        return self.fault_rate * pressure / self.fault_batch

    def fits(self, extra: float) -> bool:
        return self.demand + extra <= self.user_memory + self.swap

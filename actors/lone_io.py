"""A lone I/O-bound job's cycles taken in one step: a speed-up that changes no result, to the bit.

Under paper 003's I/O-intensive loads about half of a run's I/O misses come from a job alone on its node: no
other job ready for the CPU, the disk idle. Such a job computes to its next miss, waits for that miss's disk
service, computes to the next: two events a miss, and nothing else happens on the node in between unless an
event comes (a message, a report, an arrival). At a miss where the job is found so, `Burst` works out a run of
those cycles at once, with the arithmetic the CPU, disk and workstation would apply event by event (FluidCPU's
settle and plan, Disk.submit, Workstation._on_stop and unblock, in the same order, on the same floats) and one
entry in the heap, at the burst's last stop. The node's state is then lazy (`EventQueue.defer`): brought up to
each lazy observation's instant (`advance`: a load sample), and, before any event of the node, up to that
event's instant, where the burst ends (`end`): the cycles before it stand as if processed one by one, the one
under way is left as the real disk completion or CPU stop, and the random numbers drawn for the cycles after
it are given back (the node's generator is set back to the burst's start and the kept cycles' draws made
again). So the node sees the events it would have seen, in the same order, and a run gives the same jobs and
samples with bursts as without (tests/test_fast_core.py). What differs is the heap's entries, and with them
the inline runtime's tracking of the stepped runtime's windows: a run's last window, and so its end, can move
by less than a link latency (both runtimes see the same entries, and stay identical to each other).

A burst begins (`start`, called at a local I/O miss once its draws are made) on a fluid CPU with no owner, under
a policy that holds no job off the CPU, when the job is the node's only one (none other to wake), no guest's I/O
is served here (its requests would come at any time), the disk is idle, the node does not page, and the job has
a flat memory demand and no migration waiting for it. It stops at the node's next event as far as the node can
tell (its next local event; the next load index, a period after the last), before any stop of the job's that is
not an I/O miss (its end, a parallel task's end of phase: real events of the run), and after `CYCLES` misses.
"""
from __future__ import annotations

from actors.cpu import EPS, FluidCPU
from emu.engine.kernel import FN, INF, LOCAL
from policies.base import Policy

CYCLES = 256        # misses a burst takes at most: its draws are made ahead, and given back if it ends early


def suits(node) -> bool:
    """Whether bursts can ever run on `node` (fixed for a run): a fluid CPU, no owner, a policy that holds no
    job off the CPU."""
    return type(node.cpu) is FluidCPU and node.owner is None and type(node.policy).runnable is Policy.runnable


class Burst:
    """Cycle k is the miss at `misses[k]`, with the state right after it (`after`: the job blocked on the disk),
    the disk's completion at `completions[k]`, then the job back on the CPU until the next miss, `misses[k + 1]`;
    the last cycle's CPU run ends at `last`, the heap entry (`entry`), where the burst ends as the stop's event
    is processed."""
    __slots__ = ("node", "job", "misses", "completions", "after", "last", "entry", "at", "saved", "base",
                 "miss_rate")

    @classmethod
    def start(cls, node, job, size: float) -> bool:
        """At `job`'s local I/O miss (its next miss and this request's size drawn): True if a burst takes it
        on from here, else the caller blocks it on the disk as usual."""
        cpu, disk = node.cpu, node.disk
        if (len(node.jobs) != 1 or node.remote_io.guests or cpu.held or disk.waiting or disk.free_at > node.q.now
                or node._fault_rate
                or job.fault_at != INF or len(job.memory) != 1 or job.memory[0][0] > 0.0 or job.id in node.leaving):
            return False
        cls(node, job, size)
        return True

    def __init__(self, node, job, size: float):
        q, cpu, disk = node.q, node.cpu, node.disk
        self.node, self.job = node, job
        self.saved = node.rng.getstate()
        self.base = (job.io_requests, node.io_misses, disk.requests)      # miss 0's counted, but its request
        # the miss rate of `Workstation._next_miss` (the hit ratio is cached until an event changes it)
        self.miss_rate = miss_rate = job.io_rate * (1.0 - node.cache.ratio(job, node.jobs.values()))
        seek, bandwidth = disk.seek + disk.rotation, disk.bandwidth
        share, speed, work_total, sync = cpu.capacity, cpu.speed, job.work, job.next_sync()   # alone: all of it
        # settle's rate and its capacity - eff + overhead, eff the one job's share
        rate, gap = share * speed, cpu.capacity - share + cpu.overhead
        mean, sd = job.io_size, job.io_size_sd
        m, done, io_at, io, ran_cpu, queue = q.now, job.done, job.io_at, job.io, job.cpu, job.queue
        busy, done_work, switching, disk_busy = cpu.busy, cpu.work, cpu.switching, disk.busy
        misses, completions, after = [], [], []
        # its last stop at or after the node's next event as far as it can tell, where the burst would end
        # anyway: its next local event (a report, an arrival, a timer of the policy's) or the next load index,
        # a period after the last (the same in every runtime: not the messages in the heap now)
        bound = min([e[0] for e in q.entries if e[6] is q and e[1] == LOCAL and e[FN] is not None], default=INF)
        index = node.reports.index_at + node.period
        if m < index < bound:
            bound = index
        while True:
            service = seek + size / bandwidth               # Disk.submit, the disk idle: served at once
            c = m + service
            disk_busy += service
            misses.append(m)
            completions.append(c)
            after.append((done, io_at, io, ran_cpu, queue, busy, done_work, switching, disk_busy))
            io += c - m                                     # unblock: its I/O time, then set_stop and plan
            stop = io_at if io_at < work_total else work_total
            stop = sync if sync < stop else stop
            m = c + (stop - done) / rate
            # the stop is a miss (as `_on_stop` tells them: its end first, then a miss) and before the bound
            if stop >= work_total or stop < io_at or m >= bound or len(misses) == CYCLES:
                break
            dt = m - c                                      # FluidCPU.settle at the stop, then _reached
            ran, progress = dt * share, dt * share * speed
            d = done + progress
            d = d if d < stop else stop
            if d < stop - EPS * (stop if stop > 1.0 else 1.0):     # actors/cpu.py's _reached
                break                                       # not quite there: the CPU's own event decides
            queue += dt
            done = stop
            ran_cpu += ran
            queue -= ran
            busy += dt
            done_work += dt * share * speed
            switching += dt * gap
            io_at = node.miss_after(done, miss_rate)
            size = node.gamma(mean, sd)
        self.misses, self.completions, self.after, self.last = misses, completions, after, m
        self.entry = q.at(m, _nothing)      # the burst's last stop: its event ends the burst (catch_up)
        self.at = -1            # the state written so far: -1, none; 2k, cycle k's miss; 2k + 1, its completion
        self._write(0)
        q.defer(self)

    def advance(self, t: float) -> None:
        """The state as of a lazy observation at `t`: every step at or before `t` (as the heap would have
        processed them before the observation)."""
        self._write(self._step(t, True))

    def end(self, t: float) -> None:
        """An event of the node comes at `t`: every step before it, and the rest given back: the step under
        way as a real event (the disk's completion or the CPU's stop), the draws made for later cycles."""
        step = self._step(t, False)
        self._write(step)
        node, job = self.node, self.job
        self.entry[FN] = None
        k = step // 2
        if step % 2 == 0:
            node.disk.complete_at(self.completions[k], node.unblock, (job, "io", self.misses[k]))
        else:
            node.cpu.timer.arm(self.misses[k + 1] if k + 1 < len(self.misses) else self.last)
        if k + 1 < len(self.misses):            # the draws of the misses after cycle k's, given back
            node.rng.setstate(self.saved)
            for _ in range(k):
                node.miss_after(0.0, self.miss_rate)
                node.gamma(job.io_size, job.io_size_sd)

    def _step(self, t: float, inclusive: bool) -> int:
        """The last step at `t` (`inclusive`) or before it: 2k for cycle k's miss, 2k + 1 for its completion."""
        misses, completions, step = self.misses, self.completions, max(self.at, 0)
        n = 2 * len(misses) - 1
        while step < n:
            k, odd = divmod(step + 1, 2)
            at = completions[k] if odd else misses[k]
            if at > t or at == t and not inclusive:
                break
            step += 1
        return step

    def _write(self, step: int) -> None:
        """Put the state after `step` into the job, CPU and disk."""
        if step == self.at:
            return
        self.at = step
        node, job, k = self.node, self.job, step // 2
        cpu, disk = node.cpu, node.disk
        done, io_at, io, ran_cpu, queue, busy, done_work, switching, disk_busy = self.after[k]
        requests, misses, disk_requests = self.base
        job.done, job.io_at, job.cpu, job.queue = done, io_at, ran_cpu, queue
        job.io_requests, node.io_misses = requests + k, misses + k
        cpu.busy, cpu.work, cpu.switching = busy, done_work, switching
        disk.busy, disk.requests, disk.free_at = disk_busy, disk_requests + k + 1, self.completions[k]
        m, c = self.misses[k], self.completions[k]
        if step % 2 == 0:                       # blocked on the disk since its miss
            job.io, job.state = io, "blocked"
            if k:
                job.stop_at, job.mark = done, self.completions[k - 1]
            cpu.last, cpu.ready, cpu.active, cpu.share = m, [], [], 0.0
            disk.waiting = 1
        else:                                   # back on the CPU since the completion
            job.io, job.state, job.mark = io + (c - m), "running", c
            node.set_stop(job)
            cpu.last, cpu.ready, cpu.active, cpu.share = c, [job], [job], cpu.capacity
            disk.waiting = 0


def _nothing(_) -> None:
    """The event of a burst's last stop: `catch_up` has ended the burst by then, and armed the CPU's own stop."""

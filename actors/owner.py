"""A workstation's owner: the local activity that foreign jobs steal cycles around (paper 004's two-level
workload, spec 004 §2-3).

Coarse level: one sample every `period` (2 s in the paper) of the owner's CPU utilization u and whether the
node is *nonidle* (the owner is about, by the paper's recruitment threshold; `emu.inputs.owners` applies that rule
or reads the flag from a trace). The samples repeat from the start if the run outlives them.

Fine level: within a sample, the owner alternates *run bursts* (some local process wants the CPU) and *idle
bursts* (all local processes are blocked), each drawn from a two-stage hyper-exponential (H2) fitted by
moments to the burst table's mean and variance at u, interpolated linearly between the table's levels. A burst
takes its parameters from the sample in which it starts (spec A14).

Two fidelities, as for the CPU:

- fine (`QuantumCPU`): the owner is one pseudo-process of the local class. Each run burst is a stop of it, so
  it preempts a foreign job at once and waits the effective context switch c to get the CPU back (its delay:
  the paper's LDR); the foreign job pays c again when it resumes (cache reload: FCSR < 1), and gains nothing
  from an idle gap shorter than c. The local timeline is closed-loop: a delayed burst pushes back the idle
  burst after it (spec §3.2 defaults, A10).
- fluid (`FluidCPU`): the owner takes the expected share fine mode gives it. While jobs are ready, each cycle
  of c + r + i gives the owner r, the jobs E[(i - c)+] and context switching the rest; with no job ready the
  owner simply runs at u. No burst is an event: only the coarse samples are.

`tests/test_owner.py` holds the two fidelities to each other.
"""
from __future__ import annotations

import bisect
import math

from actors.job import Job

LOW, HIGH = 1e-3, 1 - 1e-3      # below, the owner never runs in a sample; above, it never idles


def h2(mean: float, var: float) -> tuple[float, float, float]:
    """Balanced-means two-moment H2 fit (spec 004 §2.2, A13): (p1, rate1, rate2). For a squared coefficient
    of variation under 1 no H2 exists: it falls back to the exponential of that mean (p1 = 1)."""
    scv = var / (mean * mean)
    if scv <= 1:
        return 1.0, 1 / mean, 1 / mean
    p1 = 0.5 * (1 + math.sqrt((scv - 1) / (scv + 1)))
    return p1, 2 * p1 / mean, 2 * (1 - p1) / mean


def h2_draw(rng, fit: tuple[float, float, float]) -> float:
    p1, rate1, rate2 = fit
    return rng.expovariate(rate1 if rng.random() < p1 else rate2)


def h2_excess(fit: tuple[float, float, float], c: float) -> float:
    """E[(X - c)+] for X ~ H2: the part of an idle burst left to a foreign job after switching in."""
    p1, rate1, rate2 = fit
    return p1 * math.exp(-rate1 * c) / rate1 + (1 - p1) * math.exp(-rate2 * c) / rate2


class BurstTable:
    """The fine-grained burst model: rows `(u, run mean, run variance, idle mean, idle variance)` (seconds,
    s^2) at utilization levels strictly between 0 and 1. Interpolated linearly in u; outside the levels the
    nearest level's run moments and idle shape are kept and the idle mean follows u = r / (r + i), so that
    every sample's realized utilization is the one asked for."""

    def __init__(self, rows):
        self.rows = sorted(tuple(map(float, r)) for r in rows)
        self.levels = [r[0] for r in self.rows]
        self._cache: dict[float, tuple] = {}

    def moments(self, u: float) -> tuple[float, float, float, float]:
        rows, levels = self.rows, self.levels
        if u <= levels[0] or u >= levels[-1]:
            lv, rm, rv, im, iv = rows[0] if u <= levels[0] else rows[-1]
            scv = iv / (im * im)
            im = rm * (1 - u) / u
            return rm, rv, im, scv * im * im
        k = bisect.bisect_right(levels, u)
        a, b = rows[k - 1], rows[k]
        w = (u - a[0]) / (b[0] - a[0])
        return tuple(x + w * (y - x) for x, y in zip(a[1:], b[1:]))

    def fits(self, u: float) -> tuple[tuple, tuple, float, float]:
        """(run H2, idle H2, run mean, idle mean) at u, cached per distinct u (a trace repeats its values)."""
        got = self._cache.get(u)
        if got is None:
            rm, rv, im, iv = self.moments(u)
            got = self._cache[u] = (h2(rm, rv), h2(im, iv), rm, im)
        return got

    def shares(self, u: float, c: float) -> tuple[float, float, float]:
        """Fluid mode, while jobs are ready: the fractions of the CPU that go to the owner, to the jobs and to
        context switching, cycle by cycle (c + r + i: owner delayed c, runs r; the jobs get (i - c)+)."""
        if u < LOW:
            return 0.0, 1.0, 0.0
        if u > HIGH:
            return 1.0, 0.0, 0.0
        _, idle_fit, rm, im = self.fits(u)
        cycle = c + rm + im
        owner, jobs = rm / cycle, h2_excess(idle_fit, c) / cycle
        return owner, jobs, 1 - owner - jobs


class Owner:
    """One workstation's owner, driving its CPU from the coarse samples (see the module docstring).
    `on_state(nonidle)` is called when the owner comes or goes (the workstation tells its policy)."""

    def __init__(self, node, samples: list, nonidle: list, period: float, table: BurstTable,
                 context_switch: float, rng, fine: bool):
        self.node, self.q, self.cpu, self.speed = node, node.q, node.cpu, node.speed
        self.utilization, self.flags, self.period = samples, nonidle, period
        self.table, self.c, self.rng, self.fine = table, context_switch, rng, fine
        self.u, self.nonidle = 0.0, False
        self.since = 0.0                # when the node last turned idle or nonidle
        self._episode = [0.0, 0]        # sum and count of the samples since then (h: spec 004 A4)
        self.nonidle_time = 0.0         # seconds the node has been nonidle
        self.cpu_time = 0.0             # fluid: owner run time accounted so far (fine: the process's own)
        self.delay = 0.0                # fluid: owner delay accounted so far (fine: the process's queue time)
        self.solo = 0.0                 # fluid: owner run time with no job ready (the fluid CPU does not see it)
        self.bursts = 0                 # run bursts begun (fine) or expected (fluid)
        self._at, self._busy = 0.0, 0.0
        # fine: the owner's processes as one pseudo-job of the local class, never a job of the workload
        self.process = Job(id=-1 - node.id, home=node.id, arrival=0.0, work=math.inf, cls="local",
                           migratable=False) if fine else None
        self._k = -1
        self.q.at(0.0, self._sample)

    # -- coarse level ----------------------------------------------------------------------------------------
    def _sample(self, _=None) -> None:
        self._account()
        self._k += 1
        n = len(self.utilization)
        self.u = self.utilization[self._k % n]
        nonidle = bool(self.flags[self._k % n])
        if self.fine:
            if self._k == 0:
                self._idle_burst_over()
        else:
            owner, jobs, switching = self.table.shares(self.u, self.c)
            self.cpu.set_owner(jobs, switching)
        changed = nonidle != self.nonidle or self._k == 0
        if changed:
            self.nonidle, self.since, self._episode = nonidle, self.q.now, [0.0, 0]
        self._episode[0] += self.u
        self._episode[1] += 1
        if changed:
            self.node.owner_changed(nonidle)
        self.q.at(self.q.now + self.period, self._sample)

    def _account(self) -> None:
        """Bring the nonidle time (and, in fluid mode, the owner's CPU time and delay) up to now."""
        now = self.q.now
        dt = now - self._at
        if dt <= 0:
            return
        if self.nonidle:
            self.nonidle_time += dt
        if not self.fine:
            busy = self.cpu.busy_time()
            with_jobs = min(dt, busy - self._busy)     # time in this stretch with jobs ready
            self._busy = busy
            u, c = self.u, self.c
            owner, _, _ = self.table.shares(u, c)
            self.cpu_time += with_jobs * owner + (dt - with_jobs) * u
            self.solo += (dt - with_jobs) * u
            if LOW <= u <= HIGH:
                _, _, rm, im = self.table.fits(u)
                self.delay += with_jobs * c / (c + rm + im)
                self.bursts += with_jobs / (c + rm + im) + (dt - with_jobs) / (rm + im)
        self._at = now

    # -- fine level: the owner's process on the CPU ----------------------------------------------------------
    def _idle_burst_over(self, _=None) -> None:
        u = self.u
        if u < LOW:                                   # nobody runs: look again at the next sample
            self.q.at(self._next_sample(), self._idle_burst_over)
            return
        run_fit, _, _, _ = self.table.fits(u)
        length = self._next_sample() - self.q.now if u > HIGH else h2_draw(self.rng, run_fit)
        p = self.process
        p.stop_at = p.done + length * self.speed
        p.since = self.q.now
        self.bursts += 1
        self.cpu.add(p, "owner")

    def run_burst_over(self) -> None:
        """The CPU brought the owner's process to the end of its run burst: it blocks for an idle burst."""
        u = self.u
        if u > HIGH:
            self._idle_burst_over()
            return
        _, idle_fit, _, _ = self.table.fits(u)
        self.q.at(self.q.now + h2_draw(self.rng, idle_fit), self._idle_burst_over)

    def _next_sample(self) -> float:
        return (self._k + 1) * self.period

    # -- what policies, results and views read ---------------------------------------------------------------
    def episode_utilization(self) -> float:
        """The owner's mean utilization since the node last turned idle or nonidle (h or l: spec 004 A4)."""
        total, count = self._episode
        return total / count

    def report(self) -> dict:
        """What this node's load report says of its owner (spec 004 §4.7's node selection reads it)."""
        return {"nonidle": self.nonidle, "owner_util": self.u, "owner_since": self.since}

    def stats(self) -> dict:
        """Owner CPU time, its delay by foreign jobs (LDR = delay / cpu, a ratio of sums: spec A11), bursts,
        the time the node was nonidle, and (fluid mode; None in fine mode, whose CPU does not split it) the
        owner's CPU time with jobs ready, the only time they can delay it."""
        self._account()
        if self.fine:
            self.cpu.replan()
            p = self.process
            waiting = self.q.now - p.since if p.state == "ready" else 0.0
            cpu, delay, with_jobs = p.cpu, p.queue + waiting, None
        else:
            cpu, delay, with_jobs = self.cpu_time, self.delay, self.cpu_time - self.solo
        return {"cpu": cpu, "delay": delay, "ldr": delay / cpu if cpu > 0 else 0.0, "bursts": self.bursts,
                "nonidle_time": self.nonidle_time, "solo": self.solo, "cpu_with_jobs": with_jobs}

"""The CPU of one workstation, at two levels of fidelity behind one interface.

Both serve the jobs in the ready set with strict priority between classes (a lower `priority` number runs
first; a local/owner job preempts a foreign one at once) and share the CPU among the jobs of the top class:

- `QuantumCPU`: round-robin time slices with a context-switch cost. A job runs for at most one slice, then is
  put back in the run queue where the insertion policy says (the coscheduling paper changes exactly that).
  Needed where individual slices matter (coscheduling, cycle stealing at node level). Slices are of one
  length, or drawn per dispatch (paper 001: exponential); a job may leave the CPU as it is picked, before it
  runs (`on_dispatch`: paper 001's page reference, which may fault).
- `FluidCPU`: processor sharing, exact between events and far cheaper: events only when a job reaches a stop.
  With n > 1 jobs sharing, the switch overhead of round-robin is charged as an efficiency q / (q + c), so
  that the two levels agree on means (tests/test_cpu.py checks it).

The CPU knows nothing of why a job stops. Each job carries `stop_at` (progress, in ops, where it must leave
the CPU: a page fault, an I/O, a change of memory demand, its end); when a job reaches it the CPU calls
`on_stop(job)`, which returns True if the job goes on running (a mere change of demand) or False if it left
(blocked, finished). Each job in the ready set accrues `cpu` time while it runs and `queue` time otherwise.
"""
from __future__ import annotations

from typing import Callable

from actors.job import CLASSES, Job
from emu.engine.kernel import EventQueue, Timer

EPS = 1e-9


def _reached(job: Job) -> bool:
    stop = job.stop_at
    return job.done >= stop - EPS * (stop if stop > 1.0 else 1.0)


class FluidCPU:
    __slots__ = ("q", "speed", "on_stop", "efficiency", "ready", "active", "share", "capacity", "overhead", "timer",
                 "last", "busy", "work", "switching", "held")

    def __init__(self, queue: EventQueue, speed: float, on_stop: Callable[[Job], bool],
                 time_slice: float, context_switch: float, insertion=None):
        self.q, self.speed, self.on_stop = queue, speed, on_stop
        self.efficiency = time_slice / (time_slice + context_switch) if time_slice > 0 else 1.0
        self.ready: list[Job] = []
        self.active: list[Job] = []     # the ready jobs of the top class, which share the CPU
        self.share = 0.0                # each active job's share of the CPU
        self.capacity = 1.0             # the fraction of the CPU left to jobs while they are ready ...
        self.overhead = 0.0             # ... and the owner's context switches (actors.owner, fluid mode)
        self.timer = Timer(queue, self._stop_due)
        self.last = 0.0
        self.busy = self.work = self.switching = 0.0   # seconds busy, ops delivered, seconds switching
        self.held = 0           # jobs holding the CPU while they wait (`hold`): none of the ready ones runs

    # -- the interface ---------------------------------------------------------------------------------------
    def add(self, job: Job, reason: str = "arrival") -> None:
        self.settle()
        self.ready.append(job)
        self._enter(job)
        self._reshare()
        self._plan()

    def remove(self, job: Job) -> None:
        self.settle()
        self.ready.remove(job)
        self._leave(job)
        self._reshare()
        self._plan()

    def replan(self) -> None:
        self.settle()
        self._plan()

    def set_owner(self, capacity: float, overhead: float) -> None:
        """A workstation owner now leaves `capacity` of the CPU to jobs and takes `overhead` in switching."""
        self.settle()
        self.capacity, self.overhead = capacity, overhead
        self._regroup()
        self._plan()

    def hold(self, by: int = 1) -> None:
        """A job that left the ready set holds the CPU while it waits (paper 002's synchronous remote fault): no
        ready job runs until it lets go (`by = -1`). The held time is busy time, neither work nor switching."""
        self.settle()
        self.held += by
        self._regroup()
        self._plan()

    def queue_length(self) -> int:
        return len(self.ready)

    def busy_time(self, at: float | None = None) -> float:
        """Seconds busy as of now (or of `at`, not before the last event), read without settling: a look (a load
        sample) leaves the jobs' accounting as it was, so that how often a run is sampled does not change its
        numbers."""
        dt = (self.q.now if at is None else at) - self.last
        return self.busy + dt if dt > 0 and (self.ready or self.held) else self.busy

    # -- the model -------------------------------------------------------------------------------------------
    # Between calls, `active` is the ready jobs of the top class in the ready set's order (none while held), each
    # "running", the others "ready". `_regroup` makes it so from scratch; a job that enters or leaves the ready set
    # in or below the top class changes no other job (`_enter`, `_leave`): on a crowded node that spares a pass
    # over them all.
    def _enter(self, job: Job) -> None:
        """`job` is now last in the ready set."""
        active = self.active
        if active and job.priority == active[0].priority:
            job.state = "running"
            active.append(job)
        elif active and job.priority > active[0].priority:
            job.state = "ready"
        else:                           # a new top class, or the first job, or the CPU held
            self._regroup()

    def _leave(self, job: Job) -> None:
        """`job` has left the ready set."""
        active = self.active
        if active and job.priority == active[0].priority:
            active.remove(job)
            if not active:              # the top class is gone: the next one runs
                self._regroup()

    def _reshare(self) -> None:
        """Each active job's share after a job entered or left, as `_regroup` computes it."""
        if self.active:
            self.share = (self.efficiency if len(self.ready) > 1 else 1.0) * self.capacity / len(self.active)

    def _regroup(self) -> None:
        if not self.ready or self.held:
            for j in self.ready:
                j.state = "ready"
            self.active, self.share = [], 0.0
            return
        ready = self.ready
        if len(ready) == 1:                             # alone: the whole capacity, no switching
            job = ready[0]
            job.state = "running"
            self.active, self.share = [job], self.capacity
            return
        classes = {j.priority for j in ready}
        if len(classes) == 1:                           # one class (the common case): all of them share
            self.active = ready[:]
            for j in ready:
                j.state = "running"
        else:
            top = min(classes)
            self.active = [j for j in ready if j.priority == top]
            for j in ready:
                j.state = "running" if j.priority == top else "ready"
        self._reshare()

    def settle(self) -> None:
        """Bring every job's progress and accounting up to now."""
        now = self.q.now
        dt = now - self.last
        self.last = now
        if dt <= 0 or not self.ready or self.held:
            if dt > 0 and self.held:        # busy, held: the ready jobs wait
                self.busy += dt
                for j in self.ready:
                    j.queue += dt
            return
        share, active = self.share, self.active
        ran, progress = dt * share, dt * share * self.speed
        waited = dt             # a running job's queue time: + dt - ran; one class (all run): in the one pass
        if len(active) != len(self.ready):
            for j in self.ready:
                j.queue += dt
            waited = 0.0        # (q + dt) + 0.0 - ran: the same float
        for j in active:
            done = j.done + progress
            j.done = done if done < j.stop_at else j.stop_at
            j.cpu += ran
            j.queue = j.queue + waited - ran
        eff = share * len(active)
        self.busy += dt                 # the owner's own share of it is busy, neither work nor switching
        self.work += dt * eff * self.speed
        self.switching += dt * (self.capacity - eff + self.overhead)

    def _plan(self) -> None:
        rate = self.share * self.speed
        if not self.ready or rate <= 0:             # an owner may take the whole CPU for a while
            self.timer.cancel()
            return
        active = self.active
        left = active[0].stop_at - active[0].done if len(active) == 1 else min([j.stop_at - j.done for j in active])
        self.timer.arm(self.q.now + left / rate)

    def _stop_due(self) -> None:
        self.settle()
        active = self.active
        # _reached, inline for the many jobs of a crowded node
        for job in [j for j in active if j.done >= j.stop_at - EPS * (j.stop_at if j.stop_at > 1.0 else 1.0)] \
                if len(active) > 1 else active[:]:
            if not _reached(job):       # an earlier stop in this loop moved its stop (its faults were redrawn)
                continue
            job.done = job.stop_at
            self.ready.remove(job)          # out while the workstation decides (it may admit others)
            self._leave(job)
            if self.on_stop(job):
                self.ready.append(job)
                self._enter(job)
        self._reshare()
        self._plan()


class QuantumCPU:
    __slots__ = ("q", "speed", "on_stop", "slice", "draw_slice", "on_dispatch", "switch_cost", "insertion", "queues",
                 "current", "last_ran", "run_start", "slice_end", "_switch_start", "switch_cost_now", "_holding", "timer",
                 "busy", "work", "switching", "dispatches")

    def __init__(self, queue: EventQueue, speed: float, on_stop: Callable[[Job], bool],
                 time_slice: float, context_switch: float, insertion=None, draw_slice=None, on_dispatch=None):
        self.q, self.speed, self.on_stop = queue, speed, on_stop
        self.slice, self.switch_cost = time_slice, context_switch
        self.insertion = insertion          # where a ready job goes: insertion(queue, job, reason) -> its place
        self.draw_slice = draw_slice        # each slice's length (paper 001: exponential), or None: `slice`
        # called as a job is picked, before it runs: False if it left at once (paper 001's page reference)
        self.on_dispatch = on_dispatch
        # run queue per priority class, highest first (a dict keeps that order)
        self.queues: dict[int, list[Job]] = {prio: [] for prio in sorted(set(CLASSES.values()))}
        self.current: Job | None = None
        self.last_ran: Job | None = None
        self.run_start = 0.0                           # when `current` starts (or started) executing
        self.slice_end = 0.0                           # when its slice runs out
        self._switch_start = self.switch_cost_now = 0.0
        self._holding = False                          # no dispatch while on_stop decides
        self.timer = Timer(queue, self._slice_over)
        self.busy = self.work = self.switching = 0.0
        self.dispatches = 0                            # slices begun (a job switched in, or the same one again)

    # -- the interface ---------------------------------------------------------------------------------------
    def add(self, job: Job, reason: str = "arrival") -> None:
        job.since = self.q.now
        job.state = "ready"
        ahead = self._enqueue(job, reason)
        cur = self.current
        if cur is not None and (job.priority < cur.priority or ahead and job.priority == cur.priority):
            self._preempt(ahead)
        self._dispatch()

    def remove(self, job: Job) -> None:
        if job is self.current:
            self._settle_current()
            self.current = None
            self.timer.cancel()
            self._dispatch()
        else:
            self.queues[job.priority].remove(job)
            job.queue += self.q.now - job.since

    def replan(self) -> None:
        if self.current is not None:
            self._settle_current()
            self._arm()

    # Bring progress up to now. Settling a job still switching in ends its switch (`_settle_current`), which moves
    # its slice's end: here settling is planning again.
    settle = replan

    def queue_length(self) -> int:
        return sum(map(len, self.queues.values())) + (self.current is not None)

    def busy_time(self, at: float | None = None) -> float:
        return self.busy + (0.0 if self.current is None else (self.q.now if at is None else at) - self._switch_start)

    # -- the model -------------------------------------------------------------------------------------------
    def _enqueue(self, job: Job, reason: str) -> bool:
        """Put a ready job in its run queue; True if the insertion policy put it ahead of the running job (a
        place of -1: it preempts)."""
        rq = self.queues[job.priority]
        if self.insertion is None:
            rq.append(job)
            return False
        at = self.insertion(rq, job, reason)
        rq.insert(max(at, 0), job)
        return at < 0

    def _dispatch(self, arm: bool = True) -> bool:
        """Switch to the first job of the highest class, if the CPU is free; True if one was dispatched."""
        if self.current is not None or self._holding:
            return False
        now = self.q.now
        while True:
            for rq in self.queues.values():
                if rq:
                    job = rq.pop(0)
                    break
            else:
                return False
            self.dispatches += 1
            if self.on_dispatch is None:
                break
            job.queue += now - job.since        # (so that a job that leaves at once has its wait counted)
            job.since = now
            self._holding = True
            try:
                if self.on_dispatch(job):
                    break
            finally:
                self._holding = False
        cost = 0.0 if job is self.last_ran else self.switch_cost
        self.current = self.last_ran = job
        self._switch_start, self.switch_cost_now = now, cost
        self.run_start = start = now + cost
        self.slice_end = start + (self.slice if self.draw_slice is None else self.draw_slice())
        job.queue += start - job.since      # the wait includes the switch into it
        job.state = "running"
        if arm:
            self._arm()
        return True

    def _arm(self) -> None:
        """Arm the end of the current slice: its quantum, or its job's next stop if that comes first."""
        job = self.current
        start = max(self.run_start, self.q.now)
        self.timer.arm(min(self.slice_end, start + (job.stop_at - job.done) / self.speed))

    def _settle_current(self) -> None:
        """Account the current job's execution up to now (it may still be switching in)."""
        job, now = self.current, self.q.now
        if now >= self.run_start:
            ran = now - self.run_start
            job.done = min(job.done + ran * self.speed, job.stop_at)
            job.cpu += ran
            self.busy += ran + self.switch_cost_now
            self.work += ran * self.speed
            self.switching += self.switch_cost_now
            self.run_start, self._switch_start, self.switch_cost_now = now, now, 0.0
        else:   # interrupted while switching in: the switch done so far is lost overhead
            spent = now - self._switch_start
            self.busy += spent
            self.switching += spent
            job.queue -= self.run_start - now        # it had been charged the whole switch
            self.run_start, self._switch_start, self.switch_cost_now = now, now, 0.0
            self.last_ran = None

    def _preempt(self, by_insertion: bool = False) -> None:
        job = self.current
        self._settle_current()
        self.current = None
        self.timer.cancel()
        job.since = self.q.now
        job.state = "ready"
        rq = self.queues[job.priority]
        if not by_insertion:
            rq.insert(0, job)           # a preempted job resumes first in its class
            return
        at = self.insertion(rq, job, "preempted")   # where its policy puts it, behind the job that preempted it
        rq.insert(max(at, 1), job)

    def _slice_over(self) -> None:
        """The current slice ended: its job reached a stop, or its quantum ran out (a bare expiry: it goes to
        the back of the run queue). Fine slices mostly end bare: while the next one also will, before anything
        else can happen (an event anywhere in the heap, a lazy sample, or the runtime's horizon), it is ended
        here at once, with the same steps in the same order as through the heap, without the heap's cost. A
        bare expiry schedules nothing (an insertion policy only orders the run queue), so what comes first is
        known before the loop; only a dispatch's page reference may (a fault), and the bound is then taken
        again."""
        job, q, speed = self.current, self.q, self.speed
        self._settle_current()
        self.current = None
        self.timer.cancel()
        if _reached(job):
            self._stop(job)
            return
        limit = min(q.horizon, q.heap.top_time(), q.due)      # q.due: lazy work, a sample (kernel)
        enqueue, dispatch, queues, insertion = self._enqueue, self._dispatch, self.queues, self.insertion
        busy, work, switching = self.busy, self.work, self.switching     # kept here in the loop, added alike
        try:
            while True:
                job.since, job.state = q.now, "ready"          # back to the run queue, the CPU to the next
                if insertion is None:
                    queues[job.priority].append(job)            # `_enqueue` without an insertion policy
                else:
                    enqueue(job, "quantum")
                if not dispatch(False):
                    return
                if self.on_dispatch is not None:     # a page fault at the dispatch put an event in the heap
                    limit = min(limit, q.heap.top_time())
                job, start, end = self.current, self.run_start, self.slice_end
                stop_at = job.stop_at
                t = start + (stop_at - job.done) / speed       # when it would reach its stop
                ran = end - start
                done = job.done + ran * speed
                if done > stop_at:      # min() and max() as `_settle_current` and `_reached` use them, inline
                    done = stop_at
                if t <= end or end >= limit or done >= stop_at - EPS * (stop_at if stop_at > 1.0 else 1.0):
                    self.timer.arm(min(t, end))     # a stop (or too near one to tell), or something else first
                    return
                # a bare expiry at `end`: `_settle_current`'s steps, for a job past its switch
                q.now = end
                job.done = done
                job.cpu += ran
                cost = self.switch_cost_now
                busy += ran + cost
                work += ran * speed
                switching += cost
                self.current = None     # (its run_start and switch are set anew by the dispatch that follows)
        finally:
            self.busy, self.work, self.switching = busy, work, switching

    def _stop(self, job: Job) -> None:
        """The current job reached its stop: the workstation decides whether it goes on (see `on_stop`)."""
        now = self.q.now
        job.done = job.stop_at
        self._holding = True
        try:
            goes_on = self.on_stop(job)
        finally:
            self._holding = False
        if not goes_on:
            self._dispatch()
            return
        outranked = job.priority > 0 and any(q for p, q in self.queues.items() if p < job.priority)
        if now < self.slice_end - EPS and not outranked:
            self.current = job                    # goes on within its slice, no switch
            self._arm()
            return
        job.since, job.state = now, "ready"
        self._enqueue(job, "quantum")
        self._dispatch()

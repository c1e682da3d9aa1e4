"""One workstation: a local discrete-event model with a CPU, a memory pager, a disk queue and a network
interface, driven by its policy. Everything inside it (a slice ending, a fault served, a disk request done,
a job arriving from its trace) is an event in its own queue; everything that crosses workstations (load
reports, remote execution, migration) is a message. See `actors.participant` for the contract.

A job's life here: it arrives at its home node (from the workload) and waits in the pending pool while the
policy places it: here, on another node (remote execution), or not yet. Admitted, it joins the resident jobs,
whose memory demands load the pager, and the CPU's ready set. It leaves the CPU at each stop: a page fault
or an I/O miss (blocked on the disk), a change in its memory demand (it goes on), its end. It may be migrated
while resident and ready. Time is charged to exactly one of cpu, queue, page, io, net, sync at every instant.

This file holds a job's stay: admission, the CPU's stops (faults, I/O, the end of a parallel task's phase), memory and
the end; and the messages, each handed to where it is handled. The rest are rooms of their own, each a small
class holding the node:

    actors.placement     arrivals and the pending pool: the policy's placement, the swap bound
    actors.migration     jobs leaving: remote execution, preemptive migration, refused jobs sent back
    actors.suspension    jobs the policy holds off the CPU, and swapped out if it `releases_memory`
    actors.load_report   the periodic load report and sample (a row of nodes.csv)
    actors.network_ram   paper 002's borrowing and lending of memory, when the policy asks for it
    actors.phases        a parallel task's ends of phases: its messages to its partners, and its wait for theirs
"""
from __future__ import annotations

import random
from functools import partial
from math import log

from actors.buffer_cache import BufferCache
from actors.cpu import FluidCPU, QuantumCPU
from actors.disk import Disk
from actors.job import Job
from actors.load_report import VIEWS, LoadReports
from actors.lone_io import Burst, suits
from actors.message_queues import MessageQueues
from actors.memory import Pager
from actors.migration import Migration
from actors.network_ram import NETWORK_RAM, NetworkRAM
from actors.owner import BurstTable, Owner
from actors.pages import PageMemory, pages_of
from actors.participant import Participant
from actors.phases import Phases
from actors.placement import Placement
from actors.remote_io import REMOTE_IO, RemoteIO
from actors.suspension import Suspension

INF = float("inf")


class Workstation(Participant):
    def __init__(self, node_id: int, spec: dict, policy, seed: int, peers: int, collector: int | None,
                 arrivals=(), insertion=None, heap=None, owner: dict | None = None):
        net, disk, cpu, mem = spec["network"], spec["disk"], spec["cpu"], spec["memory"]
        super().__init__(node_id, peers, net["bandwidth"], net["latency"], heap, spec.get("bus"))
        self.spec, self.policy, self.collector = spec, policy, collector
        self.speed = spec["speed"]
        self.rng = random.Random(seed)
        # paper 001's page-level memory: a page reference at every dispatch (see actors.pages)
        self.pages = None if mem["fault_model"] != "pages" else PageMemory(
            int((spec["memory_size"] - disk["buffer_cache"]) // mem["page_size"]), self.rng, mem["lru"],
            mem["admission"])
        self.insertion, self.fault_delay = insertion, mem["fault_delay"]
        self.holds_cpu = mem["remote_fault"] == "holds_cpu"     # through a fault network RAM serves (paper 002)
        self.faults_queue = mem["fault_service"] == "disk"        # a fault burst waits in the disk's queue
        if cpu["mode"] == "quantum":
            self.cpu = QuantumCPU(
                self.q, self.speed, self._on_stop, cpu["time_slice"], cpu["context_switch"],
                None if insertion is None else partial(insertion.insert, node=self),
                partial(self.rng.expovariate, 1.0 / cpu["time_slice"]) if cpu["slices"] == "exponential" else None,
                None if self.pages is None and insertion is None else self._dispatched)
        else:
            self.cpu = FluidCPU(self.q, self.speed, self._on_stop, cpu["time_slice"], cpu["context_switch"])
        # a rate per MI (`faults_per_mi`) is per instruction: a faster CPU faults more often per CPU-second
        fault_rate = mem["fault_rate"] * (self.speed if mem["faults_per_mi"] is not None else 1.0)
        self.pager = Pager(spec["memory_size"], spec["swap"], mem["page_size"], fault_rate, disk["buffer_cache"],
                           mem["fault_batch"], mem["fault_model"])
        self.disk = Disk(self.q, disk["seek"], disk["rotation"], disk["bandwidth"], disk["queueing"])
        self.cache = BufferCache(self.pager, disk["cache_model"])
        self.remote_io = RemoteIO(self)     # jobs computing here whose I/O is elsewhere, and the reverse
        self.moving: dict[int, Job] = {}    # jobs held here while their data is read or written (paper 003)
        self.remote_cost = net["remote_exec_cost"]
        self.period = spec["report_period"]
        self.jobs: dict[int, Job] = {}
        self.foreign = 0                    # how many of them are foreign jobs (the load report's field)
        self.io_jobs = 0                    # how many do explicit I/O (memory_changed redraws their misses)
        self.pending: list[Job] = []
        self.index: dict[int, dict] = {}
        self.view_version = 0               # counts changes to `index`, so that policies may cache what they read
        self.view_refreshes = 0             # counts the reports received (not this node's own counting of a send)
        self.reported: dict | None = None   # this node's own report as the collector last broadcast it
        self.area = 0.0                 # integral over time of the jobs present here (resident + pending)
        self._area_at = 0.0
        self.faults = self.io_misses = 0
        self.queues = MessageQueues(self.q)     # parallel tasks' messages in (and paper 001's send queues)
        self.phases = Phases(self)              # parallel tasks' ends of phases, waiting for their partners
        self._fault_rate = 0.0          # faults per op under the resident demand (set by memory_changed)
        self.ram = NetworkRAM(self)             # network RAM: what this node borrows and lends (paper 002)
        self.leaving: dict[int, int] = {}       # job id -> destination: migrates once its pages are in
        self.migration = Migration(self)        # jobs leaving: remote execution, migration, refusals
        self.suspension = Suspension(self)      # jobs held off the CPU (and swapped out) by the policy
        self.owner = None if owner is None else Owner(
            self, owner["utilization"], owner["nonidle"], owner["period"], BurstTable(owner["bursts"]),
            cpu["context_switch"], random.Random(owner["seed"]), fine=cpu["mode"] == "quantum")
        self.bursts = suits(self)               # a lone I/O-bound job's cycles may be taken at once (actors/lone_io)
        self.reports = LoadReports(self, spec)  # the periodic load report and sample (after the owner: it adds)
        self.placement = Placement(self, arrivals)      # arrivals and the pending pool; schedules the first
        self.reports.start(spec["report_phase"])     # at 0, or staggered (load_index.stagger)

    # -- what policies read --------------------------------------------------------------------------------
    def peers(self) -> range:
        return range(self.workstations)

    def load(self) -> dict:
        """This node's load report (the papers' load index entry), with the policy's own fields."""
        return self.reports.load()

    # -- population accounting (Little's law) ----------------------------------------------------------------
    def count_population(self) -> None:
        now = self.q.now
        self.area += (len(self.jobs) + len(self.pending)) * (now - self._area_at)
        self._area_at = now

    # -- job life --------------------------------------------------------------------------------------------
    def admit(self, job: Job) -> None:
        """Make `job` resident here (every caller has just brought the population count up to now)."""
        job.node = self.id
        if job.start < 0:
            job.start = self.q.now
            job.io_at = INF             # its first miss: drawn by memory_changed, below
            if job.burst > 0:
                job.sync_at = job.burst_length(0)
        if not job.nodes or job.nodes[-1] != self.id:
            job.nodes.append(self.id)
        job.mark = self.q.now
        self.cpu.settle()       # progress up to now before demand changes (the CPU plans anew as the job joins)
        self.jobs[job.id] = job
        if self.pages is not None:
            self.pages.admit(job, pages_of(job.demand(), self.pager.page_size), job.working_set, job.working_set_sd,
                             job.ws_phase)
        self.foreign += job.cls == "foreign"
        self.io_jobs += job.io_rate > 0
        job.fault_at = INF
        self.memory_changed()
        self.set_stop(job)
        self.wants_cpu(job, "arrival")

    def unseat(self, job: Job) -> None:
        """`job` is no longer resident here (it finished or leaves): out of the counts `admit` made."""
        del self.jobs[job.id]
        self.foreign -= job.cls == "foreign"
        self.io_jobs -= job.io_rate > 0

    def wants_cpu(self, job: Job, reason: str) -> None:
        """A resident job wants the CPU: it gets in line, unless its policy holds it off (suspended)."""
        self.owner_time(job)
        if self.policy.runnable(job, self):
            self.cpu.add(job, reason)
        else:
            self.suspension.suspend(job)

    def owner_time(self, job: Job, nonidle: bool | None = None) -> None:
        """Bring a resident job's lingering and suspended time (paper 004's Fig. 10) up to now; `nonidle` is
        the node's state since the last account (default: as it is now)."""
        dt, job.mark = self.q.now - job.mark, self.q.now
        if job.state == "suspended":
            job.suspended += dt
        elif self.owner is not None and (self.owner.nonidle if nonidle is None else nonidle):
            job.lingering += dt

    def memory_changed(self) -> None:
        """Resident demand or the buffer cache's shares changed: every job's next fault is redrawn (faults are
        memoryless in CPU time), and its next I/O miss (so are they: `_next_miss`). While nothing overflows,
        before and after, there is no fault to redraw."""
        pager, jobs = self.pager, self.jobs.values()
        self.cache.forget()             # called whenever the resident jobs or the buffer's size change, too
        if self.policy.releases_memory:
            pager.demand = sum([j.demand() for j in jobs if j.state != "suspended"])
        else:
            pager.demand = sum(map(Job.demand, jobs))
        if pager.lent or pager.remote:
            self.ram.settle()
        faults = pager.demand > pager.user_memory or self._fault_rate != 0
        if faults:
            rate = pager.fault_rate_now() / self.speed        # per op
            faults = rate != 0 or self._fault_rate != 0
            self._fault_rate = rate
        if not faults and not self.io_jobs:
            return
        self.cpu.replan()
        for job in jobs:
            if faults:
                self._next_fault(job)
            if job.io_rate > 0:
                self._next_miss(job)
            self.set_stop(job)
        self.cpu.replan()

    def _next_miss(self, job: Job) -> None:
        """Where `job`'s next I/O miss is. Its accesses are Poisson in its work, and the buffer cache serves each
        with the job's hit ratio of now, independently: its misses are then Poisson at its rate x (1 - the
        ratio), drawn again whenever the ratio may change (`memory_changed`), and a hit, which costs nothing,
        needs no stop of its own."""
        job.io_at = self.miss_after(job.done, job.io_rate * (1.0 - self.cache.ratio(job, self.jobs.values())))

    def miss_after(self, done: float, rate: float) -> float:
        """The progress of a job's next miss after `done`, its misses at `rate` per op (one draw if rate > 0)."""
        return done - log(1.0 - self.rng.random()) / rate if rate > 0 else INF     # random.expovariate, inline

    def _next_fault(self, job: Job) -> None:
        """Draw the job's next fault under the node's current fault rate."""
        rate = self._fault_rate * job.fault_scale
        job.fault_at = job.done + self.rng.expovariate(rate) if rate > 0 else INF

    @staticmethod
    def set_stop(job: Job) -> None:
        """The nearest of the job's end, next I/O miss, next fault, next change of memory demand and next end of
        a compute phase; compared one by one (`min` of the five took 4 % of an I/O-bound run). A flat memory
        profile (most jobs) has no breakpoint: no call to look for one at every I/O miss."""
        stop = job.work
        if job.io_at < stop:
            stop = job.io_at
        if job.fault_at < stop:
            stop = job.fault_at
        memory = job.memory
        if len(memory) != 1 or memory[0][0] > 0.0:
            breakpoint = job.next_breakpoint()
            if breakpoint < stop:
                stop = breakpoint
        sync = job.next_sync()
        job.stop_at = sync if sync < stop else stop

    def _on_stop(self, job: Job) -> bool:
        """The CPU brought `job` to its stop; True if it goes on running."""
        if job.id < 0:                  # the owner's processes (fine mode) end a run burst
            self.owner.run_burst_over()
            return False
        if job.done >= job.work:
            self._finish(job)
            return False
        if job.done >= job.io_at:          # an I/O miss (first: the common stop of an I/O-bound load)
            job.io_requests += 1
            self._next_miss(job)
            self.io_misses += 1
            if job.io_node >= 0 and job.io_node != self.id:     # its I/O node's disk serves it (paper 003)
                self.remote_io.access(job, self.gamma(job.io_size, job.io_size_sd))
            else:
                size = self.gamma(job.io_size, job.io_size_sd)
                if not (self.bursts and Burst.start(self, job, size)):     # alone: its cycles in one step
                    self._block(job, "io", size)
            return False
        if job.done >= job.fault_at:
            batch = self.pager.fault_batch
            job.faults += batch
            self.faults += batch
            if not self.ram.page_in(job, batch):
                self._block(job, "page", batch * self.pager.page_size, batch)
            return False
        if job.done >= job.next_sync():
            job.iteration += 1
            return self.phases.end(job)
        self.memory_changed()      # a step in its memory demand
        self.set_stop(job)
        return True

    def gamma(self, size: float, sd: float) -> float:
        """An I/O access's or a message's size: a Gamma of mean `size` and deviation `sd` (paper 003), or the
        mean. A Gamma of whole shape k (the thesis's is 4) is a sum of k exponentials: -scale x the log of a
        product of k uniforms, cheaper than `random.gammavariate`'s rejection loop."""
        if sd <= 0 or size <= 0:
            return size
        k, scale = (size / sd) ** 2, sd * sd / size
        uniform = self.rng.random
        if k == 4.0:        # the thesis's shape, the product unrolled: one draw per I/O miss of an I/O-bound run
            return -scale * log((1.0 - uniform()) * (1.0 - uniform()) * (1.0 - uniform()) * (1.0 - uniform()))
        if k != int(k) or k > 16:
            return self.rng.gammavariate(k, scale)
        product = 1.0
        for _ in range(int(k)):
            product *= 1.0 - uniform()
        return -scale * log(product)

    def _block(self, job: Job, why: str, size: float, accesses: int = 1) -> None:
        job.state = "blocked"
        self.disk.submit(size, self.unblock, (job, why, self.q.now), accesses, why == "io" or self.faults_queue)

    def unblock(self, item) -> None:
        """A blocked job's pages or data came (`why`: page or io): it wants the CPU."""
        job, why, since = item
        if why == "io":
            job.io += self.q.now - since
        else:
            job.page += self.q.now - since
        if job.id in self.leaving:          # a migration asked for while it waited
            self.migration.depart(job, self.leaving.pop(job.id))
            return
        if self._fault_rate:            # else its fault_at is inf already (memory_changed, admit)
            self._next_fault(job)
        self.set_stop(job)
        self.wants_cpu(job, "unblock")

    def _dispatched(self, job: Job) -> bool:
        """Paper 001: the CPU picked `job`; its one page reference (actors.pages). True if it runs (and reads
        the messages that woke it); on a fault it sleeps for the paging delay, a pure delay (the paper's
        constant 20 ms: faults do not queue), and the page is loaded as it wakes."""
        if self.insertion is not None:
            self.insertion.dispatched(job, self)
        page = -1 if self.pages is None else self.pages.reference(job)
        if page < 0:
            self.queues.runs(job)
            return True
        job.faults += 1
        self.faults += 1
        job.state = "blocked"
        self.q.at(self.q.now + self.fault_delay, self._paged, (job, page, self.q.now))
        return False

    def _paged(self, item) -> None:
        job, page, since = item
        self.pages.load(job, page)
        job.page += self.q.now - since
        self.wants_cpu(job, "unblock")

    def _finish(self, job: Job) -> None:
        self.count_population()
        self.owner_time(job)
        job.state, job.finish = "done", self.q.now
        self.unseat(job)
        if self.pages is not None:
            self.pages.release(job)
        self.queues.finished(job)
        if job.io_node >= 0:
            self.remote_io.finished(job)
        self.finished.append(job)
        self.memory_changed()
        self.policy.finished(job, self)
        if job.closed:
            self.placement.replace(job)
        self.placement.retry()

    def set_buffer_cache(self, size: float) -> None:
        """Resize the buffer cache while running (it comes out of user memory)."""
        self.cpu.replan()
        self.pager.buffer_cache = size
        self.memory_changed()

    # -- messages --------------------------------------------------------------------------------------------
    def _receive(self, item) -> None:
        env, job = item
        kind = env.kind
        if kind == "sync":               # a parallel task's partner ended a compute phase (first: the most common)
            self.phases.synced(env.payload)
        elif kind in VIEWS:
            self.reports.received(env)
            self._view_refreshed()
        elif kind in NETWORK_RAM:
            self.ram.receive(env)
        elif kind in REMOTE_IO:
            self.remote_io.receive(env, job)
        elif kind in self.policy.MESSAGES:      # the policy's own (the batch system's central queue)
            self.policy.receive(env, self)
            self.placement.retry()
        else:
            self.migration.arrive(env, job)

    def owner_changed(self, nonidle: bool) -> None:
        """The owner came back (the node turned nonidle) or left (idle, by the recruitment threshold)."""
        self.log("nonidle" if nonidle else "idle")
        for job in self.jobs.values():          # their time so far was in the state the owner just left
            self.owner_time(job, not nonidle)
        self.suspension.hold()
        self._view_refreshed()

    def _view_refreshed(self) -> None:
        self.suspension.hold()
        self.placement.retry()
        if not self.policy.migrates_on_arrival:
            for job, dest in self.policy.migrations(self):
                self.migration.migrate(job, dest)
        self.ram.borrow()

    # -- views -----------------------------------------------------------------------------------------------
    def figures(self, t: float) -> tuple:
        """As of `t`: jobs finished here, arrivals to come, CPU busy time, jobs held (resident, pending, leaving)."""
        return (len(self.finished), len(self.placement.upcoming), self.cpu.busy_time(t),
                len(self.jobs) + len(self.pending) + len(self.moving))

    def snapshot(self) -> dict:
        """Counts as of now; CPU utilization and fault rate over the last load-report period, as reading them
        now would settle the CPU, and its rounding would make a watched run differ from an unwatched one."""
        samples = self.reports.samples
        cpu_util, fault_rate = samples[-1][9:11] if samples else (0.0, 0.0)     # REPORT's places
        return {**super().snapshot(), "role": "workstation", "jobs": len(self.jobs), "ready": self.cpu.queue_length(),
                "pending": len(self.pending), "memory": self.pager.user_memory, "demand": self.pager.demand,
                "cpu_util": cpu_util, "fault_rate": fault_rate, "disk_queue": self.disk.waiting,
                "finished": len(self.finished), **({} if self.owner is None else {"owner_active": self.owner.nonidle})}

    def final(self) -> dict:
        self.q.catch_up(self.q.now)     # the samples due before the end
        self.count_population()
        self.cpu.replan()           # bring progress and CPU accounting up to the end
        for job in self.jobs.values():
            self.owner_time(job)
            if job.state == "suspended":
                job.queue += self.q.now - job.since
                job.since = self.q.now
        in_transit = self.in_transit() + list(self.moving.values())
        for job in in_transit:
            job.state = "in_transit"
        jobs = self.finished + list(self.jobs.values()) + self.pending + in_transit
        owner = None if self.owner is None else self.owner.stats()
        owner_work = self.owner.process.done if self.owner is not None and self.owner.fine else 0.0
        return {"node": self.id, "role": "workstation", "jobs": [j.record() for j in jobs],
                "samples": self.reports.final(),
                "events": self.events,
                "stats": {"busy": self.cpu.busy_time() + (owner["solo"] if owner else 0.0),
                          "work": self.cpu.work - owner_work,
                          "switching": self.cpu.switching, "owner": owner,
                          "area": self.area, "faults": self.faults, "io_misses": self.io_misses,
                          "disk_busy": self.disk.busy, "bytes_sent": self.nic.bytes_sent,
                          "messages": self.nic.messages, "lateness": self.lateness, "speed": self.speed,
                          "not_arrived": [job.id for _, job in self.placement.upcoming],
                          "replaced": self.placement.replaced,
                          "done_on_unfinished": sum(j.done for j in self.jobs.values())}}

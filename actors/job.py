"""A job: its demands, where it is in its life, and its accounting. All of it serializes to a plain map
(msgpack) so that a running job can stop on one workstation and resume on another.

Work is in operations (see `emu.inputs.units`); a job with `work` ops runs `work / speed` seconds on a CPU of
`speed` op/s. Memory demand changes over the job's life: `memory` is a step profile of
`(fraction of work done, bytes)` points, the demand at progress f being that of the last point at or before f.
Explicit I/O is `io_rate` requests per op of work, each of `io_size` bytes (a Gamma of that mean and deviation
`io_size_sd` when it is above 0), a share `io_read` of them reads; `io_reaccess` is how many times the job
accesses each datum again (paper 003's r, for the buffer cache's "reaccess" model); `io_requests` counts those
that missed the buffer cache (the workstation draws only the misses). Its distinct data written so far
(`written`, the thesis's Eq. 3.20) goes with it when it moves, as its initial data does.

The response time of a finished job splits exactly into the time it spent on a CPU (`cpu`), waiting for
one (`queue`: ready-queue waits, context switches, the pending pool), blocked on page faults (`page`) or
explicit I/O (`io`), on the network (`net`: remote execution and migration), or, for a task of a parallel
job, waiting for its partners at a synchronization (`sync`). Tests hold the emulator to that identity.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

import numpy as np

from emu.engine.envelope import MessageError

# The states a job can be in when a run ends (`summary.json` counts them; none may be missing).
# "suspended": resident but kept off the CPU by its policy (an owner came back: paper 004's eviction rules).
# "lost": the job was on a workstation whose Ray node died (or on its way there); see emu.engine.results.lost_jobs.
STATES = ("pending", "ready", "running", "blocked", "suspended", "in_transit", "done", "lost")
# Priority classes: a lower number runs first (strict priority). Owner/local work preempts foreign work.
CLASSES = {"local": 0, "foreign": 1}


def dedicated_time(work: float, speed: float, dedicated_io: float, dedicated_com: float) -> float:
    """A job's time alone on a node of `speed` (a slowdown's denominator): its work, the I/O it would do alone
    there (`dedicated_io`) and its job's communication alone (`dedicated_com`). `Job.dedicated`, and
    emu.engine.results on a jobs.csv row."""
    return work / speed + dedicated_io + dedicated_com


@dataclass(slots=True, eq=False)     # a job is itself, not its field values: lists of jobs find it by identity
class Job:
    id: int
    home: int
    arrival: float
    work: float
    memory: list = field(default_factory=lambda: [[0.0, 0.0]])
    io_rate: float = 0.0
    io_size: float = 0.0
    io_read: float = 1.0
    io_size_sd: float = 0.0
    io_reaccess: float = 0.0
    dedicated_io: float = 0.0       # seconds of I/O alone on its home node (set on arrival; see slowdown)
    fault_scale: float = 1.0        # it page-faults at this multiple of its node's rate (a workload variant's)
    initial_data: float = 0.0       # bytes it takes along when placed or moved (paper 003; actors/migration.py)
    io_node: int = -1               # the node holding its data and serving its I/O; -1: where it runs
    program: str = ""
    cls: str = "local"
    migratable: bool = True
    closed: bool = False            # replaced by a copy when it finishes (a constant population)
    # a task of a bulk-synchronous parallel job (paper 004 §7): after every `phase` ops of work it tells its
    # partners (the ranks it synchronizes with, as [rank, node] pairs) with a `message`-byte message, and
    # waits for theirs of the same iteration
    group: int = -1
    rank: int = 0
    phase: float = 0.0
    partners: list = field(default_factory=list)
    message: float = 0.0
    message_sd: float = 0.0         # its messages' sizes a Gamma of mean `message` and this deviation (paper 003)
    dedicated_com: float = 0.0      # seconds its job spends communicating alone (paper 003's Eq. 7.2; see slowdown)
    iteration: int = 0
    # a task of paper 001's communicating jobs: after CPU bursts of mean `burst` ops (exponential, the same
    # sequence for every task of the job: see `burst_length`) it sends to its partners and waits for a message
    burst: float = 0.0
    burst_seed: int = 0
    tasks: int = 0                  # its job's task count (a policy that maps the job's tasks reads it)
    # paper 001's page-level memory (actors.pages): working sets of mean `working_set` x its virtual size
    # (deviation `working_set_sd` x it), phases of mean `ws_phase` x its work
    working_set: float = 1.0
    working_set_sd: float = 0.0
    ws_phase: float = 0.0
    # where it is in its life
    done: float = 0.0
    state: str = "pending"
    node: int = -1
    start: float = -1.0
    finish: float = -1.0
    io_at: float = 0.0
    # accounting (seconds, except counts)
    cpu: float = 0.0
    queue: float = 0.0
    page: float = 0.0
    io: float = 0.0
    net: float = 0.0
    sync: float = 0.0
    # paper 004's time per state (Fig. 10), inside the split above: resident on a nonidle node and not
    # suspended (lingering), and suspended by its policy (Pause-and-Migrate's pause included)
    lingering: float = 0.0
    suspended: float = 0.0
    # paper 002's remote paging: time blocked on pages from network RAM, inside `page` (the rest of `page` is
    # the local disk's)
    remote_paging: float = 0.0
    faults: int = 0
    io_requests: int = 0
    migrations: int = 0
    remote_execs: int = 0
    nodes: list = field(default_factory=list)
    # local, not carried: the next point (in ops done) where the job must stop running, and why
    stop_at: float = 0.0
    fault_at: float = float("inf")
    since: float = 0.0
    mark: float = 0.0               # lingering and suspended time are accounted up to here
    priority: int = field(init=False, default=0)    # CLASSES[cls], read at every CPU decision
    sync_at: float = float("inf")   # progress (ops) at which a task of `burst` ends its compute burst
    mes: float = 0.0                # paper 001's smoothed message count (eq. 2) and overtakes (`de`), read by
    de: int = 0                     # the run-queue insertion policies
    bursts: tuple | None = None     # (block, its uniforms): `burst_length`'s current block of draws

    _LOCAL = ("stop_at", "fault_at", "since", "mark", "priority", "sync_at", "mes", "de", "bursts")
    # carried only when set, so that the other papers' job messages keep their size
    _OPTIONAL = {"burst": 0.0, "burst_seed": 0, "tasks": 0, "working_set": 1.0, "working_set_sd": 0.0,
                 "ws_phase": 0.0, "io_size_sd": 0.0, "io_reaccess": 0.0, "dedicated_io": 0.0,
                 "fault_scale": 1.0, "initial_data": 0.0, "message_sd": 0.0, "dedicated_com": 0.0,
                 "io_node": -1}

    def __post_init__(self):
        self.priority = CLASSES[self.cls]

    @property
    def remaining(self) -> float:
        return self.work - self.done

    @property
    def written(self) -> float:
        """Bytes of its own it has written so far, taken along when it moves (Eq. 3.20's d^W): io_rate x done
        accesses, each writing (1 - io_read) x io_size / (r + 1) new bytes, in expectation."""
        return self.io_rate * self.done * (1.0 - self.io_read) * self.io_size / (self.io_reaccess + 1.0)

    def dedicated(self, speed: float) -> float:
        return dedicated_time(self.work, speed, self.dedicated_io, self.dedicated_com)

    def demand(self) -> float:
        """Memory demand (bytes) at the current progress. Points are compared in ops, exactly as stops are."""
        if len(self.memory) == 1:       # a flat profile (most jobs)
            return self.memory[0][1]
        current = self.memory[0][1]
        for frac, size in self.memory:
            if frac * self.work <= self.done:
                current = size
            else:
                break
        return current

    def next_breakpoint(self) -> float:
        """Progress (ops) at which the memory demand next changes, or inf."""
        for frac, _ in self.memory:
            if frac * self.work > self.done:
                return frac * self.work
        return float("inf")

    def next_sync(self) -> float:
        """Progress (ops) at which a parallel task ends its compute phase, or inf."""
        return (self.iteration + 1) * self.phase if self.phase > 0 else self.sync_at

    def burst_length(self, iteration: int) -> float:
        """The job's `iteration`-th CPU burst (ops): exponential of mean `burst`, from a counter-based hash
        (splitmix64) of the job's seed, so that every task of the job, on any node, draws the same sequence:
        they communicate at the same points of their work, and none waits for a partner that has finished.
        Drawn a block at a time (`_burst_uniforms`): one at a time, in Python's integers, took a twentieth of a
        ring run (py-spy on p001's medium workload at 25-ms bursts, 2026-11-29)."""
        block, index = self.bursts, iteration >> _BLOCK_BITS
        if block is None or block[0] != index:
            block = self.bursts = (index, _burst_uniforms(self.burst_seed, index))
        return -self.burst * math.log(block[1][iteration & _BLOCK_MASK])

    def peak_demand(self) -> float:
        return self.memory[0][1] if len(self.memory) == 1 else max(size for _, size in self.memory)

    def to_state(self) -> dict:
        state = {name: getattr(self, name) for name in _STATE_FIELDS}
        for name, default in Job._OPTIONAL.items():
            if state[name] == default:
                del state[name]
        return state

    @classmethod
    def from_state(cls, state) -> "Job":
        """Rebuild a job from a received map, checking every field before anything is applied."""
        if not isinstance(state, dict):
            raise MessageError(f"payload.job: expected a map, got {type(state).__name__}")
        known = _KNOWN
        for name in ("id", "home", "arrival", "work"):
            if name not in state:
                raise MessageError(f"payload.job.{name}: missing")
        for name, value in state.items():
            if name not in known:
                raise MessageError(f"payload.job.{name}: unknown field")
            expected = {"str": str, "bool": bool, "list": list, "int": int}.get(known[name].type, (int, float))
            if not isinstance(value, expected) or (expected != bool and isinstance(value, bool)):
                raise MessageError(f"payload.job.{name}: expected {known[name].type}, got {value!r}")
            if isinstance(value, float) and math.isnan(value):
                raise MessageError(f"payload.job.{name}: expected a number, got nan")
        if state.get("cls", "local") not in CLASSES:
            raise MessageError(f"payload.job.cls: expected one of {sorted(CLASSES)}, got {state['cls']!r}")
        if state.get("state", "pending") not in STATES:
            raise MessageError(f"payload.job.state: expected one of {STATES}, got {state['state']!r}")
        if not 0 < state["work"] < float("inf"):
            raise MessageError(f"payload.job.work: expected a positive amount of work, got {state['work']!r}")
        return cls(**state)

    def record(self) -> dict:
        """One row of jobs.csv."""
        response = (self.finish if self.finish >= 0 else float("nan")) - self.arrival
        return {
            "job": self.id, "program": self.program, "class": self.cls, "home": self.home,
            "state": self.state, "node": self.node, "arrival": self.arrival, "start": self.start,
            "finish": self.finish, "work": self.work, "done": self.done, "response": response,
            "cpu": self.cpu, "queue": self.queue, "page": self.page, "io": self.io, "net": self.net,
            "sync": self.sync, "lingering": self.lingering, "suspended": self.suspended,
            "remote_paging": self.remote_paging,
            "faults": self.faults, "io_requests": self.io_requests, "io_accesses": self.io_rate * self.done,
            "migrations": self.migrations,
            "remote_execs": self.remote_execs,
            "nodes": str(self.nodes[0]) if len(self.nodes) == 1 else " ".join(map(str, self.nodes)),
            "peak_memory": self.peak_demand(), "group": self.group, "dedicated_io": self.dedicated_io,
            "dedicated_com": self.dedicated_com,
        }


_BLOCK_BITS = 10
_BLOCK_MASK = (1 << _BLOCK_BITS) - 1


def _burst_uniforms(seed: int, block: int) -> list[float]:
    """1 - u for the draws `block` x 1024 .. + 1023 of splitmix64 from `seed`: z = seed + (i + 1) x golden
    gamma, mixed, and u = its top 53 bits / 2^53. numpy's uint64 arithmetic wraps modulo 2^64 as the hash
    does, and the float steps are exact: the very values of one draw at a time."""
    u64 = np.uint64
    z = np.arange(block << _BLOCK_BITS, (block + 1) << _BLOCK_BITS, dtype=u64) + u64(1)
    z = z * u64(0x9E3779B97F4A7C15) + u64(seed)
    z = (z ^ (z >> u64(30))) * u64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> u64(27))) * u64(0x94D049BB133111EB)
    z ^= z >> u64(31)
    return (1.0 - (z >> u64(11)) / 9007199254740992.0).tolist()


_STATE_FIELDS = tuple(f.name for f in fields(Job) if f.name not in Job._LOCAL)
_KNOWN = {f.name: f for f in fields(Job) if f.name not in Job._LOCAL}       # what a received job may carry

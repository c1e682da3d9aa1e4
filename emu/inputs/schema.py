"""The scenario schema: every field a scenario may hold, with its kind (a unit kind, or int/number/bool/str/
list/table), its default and its bounds; and how a table read from TOML is checked against it (`check_table`):
values parsed once into SI, unknown fields refused (a typo must not silently fall back to a default), one line
per error naming the file and the field.

The defaults below are the core's; each paper's scenarios name the values they rely on, with their source.
docs/scenarios.md documents every field. What the schema cannot say, a field's need of another, is checked in
`emu.inputs.checks`; reading the file, with what it extends and the `--set` overrides, in `emu.inputs.scenario`.
"""
from __future__ import annotations

import math

from emu.inputs import units
from emu.inputs.errors import ScenarioError


class F:
    """A field: its kind (a unit kind, or int/number/bool/str/list/table), default, and constraints (a bound of
    a unit kind is written with its unit, as in a scenario)."""

    def __init__(self, kind, default=None, required=False, choices=None, minimum=None, positive=False, schema=None,
                 maximum=None):
        self.kind, self.default, self.required = kind, default, required
        self.choices, self.minimum, self.positive, self.schema = choices, minimum, positive, schema
        self.maximum = maximum


# Limits that keep a run finite and within memory (docs/scenarios.md): a cluster of a few thousand workstations,
# a million jobs a stream; no scheduler slices or reports more often than every millisecond (Linux's tick at
# HZ = 1000), and a stream's memory changes in at most a thousand steps
MAX_NODES = 4096
MAX_JOBS = 1_000_000
MAX_STEPS = 1000
SHORTEST_TICK = "1 ms"


NODE = {
    "speed": F("speed", 1.0, positive=True),
    "memory": F("size", "1 GB", positive=True),
    "swap": F("size", "1 GB", minimum=0),
}
# a kind's own disk (paper 003 Ch. 5's aged disks); a field left out is the cluster's (`disk.*`)
KIND_DISK = {"seek": F("time", None, minimum=0), "rotation": F("time", None, minimum=0),
             "bandwidth": F("bandwidth", None, positive=True)}
KIND = {"count": F("int", required=True, minimum=1, maximum=MAX_NODES), "name": F("str", ""), **NODE,
        "disk": F("table", schema=KIND_DISK)}
PROGRAM = {
    "name": F("str", required=True),
    "work": F("work", required=True, positive=True),
    "memory": F("size", 0, minimum=0),
    "min_memory": F("size", None, minimum=0),
    "weight": F("number", 1.0, positive=True),
    "io_rate": F("rate", 0.0, minimum=0),
    "io_size": F("size", "64 KB", minimum=0),
    "migratable": F("bool", True),
}
# a share of a stream's jobs, drawn at random, changed so (paper 003's mixes, Secs. 3.4.1-3.4.2: "10 % of jobs
# randomly chosen to be non-I/O-intensive", half with ten times the work, half paging at 10 /MI)
VARIANT = {
    "share": F("number", required=True, minimum=0),
    "work_scale": F("number", 1.0, positive=True),
    "io_rate": F("access_rate", None, minimum=0),        # None: the stream's
    "fault_rate": F("fault_rate", None, minimum=0),      # None: the node's (memory.fault_rate)
}
WORKLOAD = {
    "name": F("str", ""),
    # 0: a stream left empty (a sweep over the shares of two streams reaches its ends)
    "jobs": F("int", required=True, minimum=0, maximum=MAX_JOBS),
    "class": F("str", "local", choices=("local", "foreign")),
    "home": F("str", "uniform", choices=("uniform", "round_robin", "trace")),
    "arrival": F("table", schema={
        "process": F("str", "poisson", choices=("poisson", "lognormal", "trace", "batch")),
        "mean_interarrival": F("time", None, positive=True),
        "sigma": F("number", 1.0, positive=True),
        "span": F("time", None, positive=True),
        "start": F("time", 0.0, minimum=0),
        "file": F("str", None),
    }),
    "lifetime": F("table", schema={
        "distribution": F("str", "exponential", choices=("exponential", "pareto", "fixed", "programs")),
        "mean": F("work", None, positive=True),
        "alpha": F("number", 1.0, positive=True),
        "min": F("work", None, positive=True),
        "max": F("work", None, positive=True),
    }),
    "memory": F("table", schema={
        "demand": F("size", 0, minimum=0),
        "max": F("size", None, minimum=0),
        "ramp": F("number", 0.0, minimum=0),
        "ramp_steps": F("int", 4, minimum=1, maximum=MAX_STEPS),
        "phases": F("int", 1, minimum=1, maximum=MAX_STEPS),
        # page-level memory (memory.fault_model = "pages", paper 001): working sets of mean `working_set` x
        # the job's demand (normal, deviation `working_set_sd` x it), phases of mean `phase_length` x its work
        "working_set": F("number", 1.0, positive=True),
        "working_set_sd": F("number", 0.0, minimum=0),
        "phase_length": F("number", 0.0, minimum=0),
    }),
    "io": F("table", schema={
        "rate": F("access_rate", 0.0, minimum=0),
        # paper 003: each job's rate drawn uniform in [0, rate_max] (the thesis's AR) instead, when above 0
        "rate_max": F("access_rate", 0.0, minimum=0),
        "size": F("size", "64 KB", minimum=0),
        # each request's size a Gamma of mean `size` and this deviation (0: every request of `size`)
        "size_sd": F("size", 0, minimum=0),
        "read_fraction": F("number", 1.0, minimum=0),
        # r: how many times a job accesses each datum again (disk.cache_model = "reaccess", paper 003 Eq. 3.5)
        "reaccess": F("number", 0.0, minimum=0),
        # paper 003's initial data: each job's an exponential of this mean, moved with it (actors/migration.py)
        "initial_data": F("size", 0, minimum=0),
    }),
    "programs": F("list", [], schema=PROGRAM),
    "variants": F("list", [], schema=VARIANT),
    "closed": F("bool", False),
    # a share of the stream's jobs that may not leave their home node, not even by remote execution (paper
    # 002's "type 1" traces); drawn per job from the scenario seed on a stream of its own, so a type-1 and a
    # type-2 trace hold the same jobs
    "nonmigratable": F("number", 0.0, minimum=0),
    "parallel": F("table", schema={       # bulk-synchronous parallel jobs (paper 004 §7); see emu/inputs/workload.py
        "tasks": F("int", 0, minimum=0),
        "granularity": F("work", "100 ms", positive=True),
        "iterations": F("int", 100, minimum=1),
        # each task's work: `iterations` x `granularity` (paper 004), or the job's drawn lifetime, synchronizing
        # every `granularity` of it (paper 003 Ch. 4: trace-like jobs, a barrier every 100 ms)
        "work": F("str", "iterations", choices=("iterations", "lifetime")),
        "barrier": F("bool", True),
        "message": F("size", "1 KB", minimum=0),
        "nodes": F("list", None),
        # paper 001: "ring" tasks compute exponential bursts of mean `burst` (the same for all the job's
        # tasks), then send to the next rank and wait for the previous one's message; the job's lifetime is
        # each task's work; `sizes`: its task count, a uniform choice among them; `mapping = "policy"`: the
        # tasks arrive at the job's home node, whose policy maps them (else task r runs on nodes[r])
        "pattern": F("str", "bsp", choices=("bsp", "ring", "master")),
        "burst": F("work", "100 ms", positive=True),
        # paper 003 Ch. 7: "master" tasks (rank 0 the master, exchanging a message each way with every slave at
        # the end of each burst) whose messages are a Poisson process of this rate per unit of work (bursts of
        # mean 1 / rate: it replaces `burst` when above 0), each message a Gamma of mean `message` and
        # deviation `message_sd` (0: all of `message`)
        "message_rate": F("access_rate", 0.0, minimum=0),
        "message_sd": F("size", 0, minimum=0),
        "sizes": F("list", None),
        "mapping": F("str", "fixed", choices=("fixed", "policy")),
    }),
}
SCHEMA = {
    "name": F("str", required=True),
    "description": F("str", ""),
    "seed": F("int", 1, minimum=0),
    "seeds": F("list", None),
    "runtime": F("str", "paced", choices=("paced", "stepped", "inline")),
    "speed": F("number", 10.0, positive=True),
    "cluster": F("table", schema={"nodes": F("int", None, minimum=1, maximum=MAX_NODES), "kinds": F("list", [], schema=KIND),
                                  **NODE}),
    "cpu": F("table", schema={
        "mode": F("str", "fluid", choices=("fluid", "quantum")),
        "time_slice": F("time", "10 ms", minimum=SHORTEST_TICK),
        "context_switch": F("time", "0.1 ms", minimum=0),
        # each slice time_slice long, or drawn exponential of that mean at every dispatch (paper 001)
        "slices": F("str", "fixed", choices=("fixed", "exponential")),
        "insertion": F("table", None),          # a run-queue insertion policy and its parameters (paper 001)
        # millions of instructions a speed-1.0 CPU executes per second: what a rate per MI is in CPU time
        "mips": F("number", None, positive=True),
    }),
    "memory": F("table", schema={
        "page_size": F("size", "4 KB", positive=True),
        "fault_model": F("str", "overflow", choices=("overflow", "demand_ratio", "pages")),
        "fault_rate": F("fault_rate", 0.0, minimum=0),
        "fault_batch": F("int", 1, minimum=1),
        # a fault burst at the node's disk: a request in its queue, behind explicit I/O and other faults
        # ("disk"), or its service time with no queue ("fixed": a constant cost per fault, paper 003's Table 3.2
        # "page fault service time" read as its simulator's fixed charge)
        "fault_service": F("str", "disk", choices=("disk", "fixed")),
        # a fault burst served by network RAM (paper 002): the job sleeps while its pages come and the CPU goes to
        # the node's other jobs, as for a disk fault; or it holds the CPU (a synchronous remote fetch, the
        # others wait too: the reading under which the network's speed reaches every job on the node)
        "remote_fault": F("str", "sleeps", choices=("sleeps", "holds_cpu")),
        # "pages" (paper 001, actors/pages.py): a fault's delay and the LRU's stamps ("task": all of a
        # dispatched task's working set; "page": the referenced page)
        "fault_delay": F("time", "20 ms", positive=True),
        "lru": F("str", "task", choices=("task", "page")),
        # eq. (7)'s first pages of an arriving task: taken from LRU victims as needed, or from free frames only
        "admission": F("str", "evict", choices=("evict", "free")),
        # log every resident task's res_mem and CPU time at each load-report period (paper 001's Fig. 4)
        "trace": F("bool", False),
    }),
    "disk": F("table", schema={
        "seek": F("time", "8 ms", minimum=0),
        "rotation": F("time", "4 ms", minimum=0),
        "bandwidth": F("bandwidth", "40 MB/s", positive=True),
        "buffer_cache": F("size", 0, minimum=0),
        # which accesses the buffer cache serves (actors/buffer_cache.py): "footprint", reads in proportion to
        # its size against the I/O jobs' request sizes; "reaccess", paper 003's Eqs. 3.5-3.8
        "cache_model": F("str", "footprint", choices=("footprint", "reaccess")),
        "queueing": F("bool", True),
    }),
    "network": F("table", schema={
        "bandwidth": F("bandwidth", "100 Mbps", positive=True),
        "latency": F("time", "0.1 ms", positive=True),
        "remote_exec_cost": F("time", "0.1 s", minimum=0),
        # "links": one outgoing link per node (switched); "bus": one shared medium for all (spec 002 §2.4)
        "medium": F("str", "links", choices=("links", "bus")),
    }),
    "load_index": F("table", schema={
        "period": F("time", "1 s", minimum=SHORTEST_TICK),
        "exchange": F("str", "collector", choices=("collector", "gossip")),
        "fanout": F("int", 3, minimum=1),
        # each node reports at its own phase within the period (node i at i/N of it) instead of all at once:
        # for paced runs, where N reports in one instant queue N actors' sends on the cores
        "stagger": F("bool", False),
    }),
    "owner": F("table", schema={          # owners' activity (paper 004); see emu/inputs/owners.py
        "activity": F("str", "none", choices=("none", "constant", "synthetic", "trace")),
        "sample": F("time", "2 s", positive=True),
        "bursts": F("str", None),
        "idle_cpu": F("number", 0.1, minimum=0),
        "keyboard_idle": F("time", "60 s", minimum=0),
        "utilization": F("number", 0.0, minimum=0),
        "nonidle": F("bool", True),
        "nodes": F("int", None, minimum=0),
        "start": F("time", 0.0, minimum=0),
        "duration": F("time", None, minimum=0),
        "trace": F("str", None),
        "span": F("time", "4 h", positive=True),
        "nonidle_fraction": F("number", 0.46, positive=True),
        "nonidle_spread": F("number", 0.0, minimum=0),
        "nonidle_median": F("time", "4 min", positive=True),
        "episode_sigma": F("number", 1.5, positive=True),
        # Fig. 5a's overall shares (82 % of all time under 10 %, 13 : 7 above): emu.inputs.owners.synthetic says why
        "low_share": F("number", 0.609, minimum=0),
        "high_share": F("number", 0.137, minimum=0),
        "idle_utilization": F("number", 0.02, minimum=0),
        "segment": F("time", "20 s", positive=True),
        "keyboard_active": F("number", 0.5, minimum=0),
    }),
    "policy": F("table", None, required=True),
    "workload": F("list", required=True, schema=WORKLOAD),
    "stop": F("table", schema={
        "when": F("str", "all_done", choices=("all_done", "time")),
        "time": F("time", "1e7 s", positive=True),
        "stall": F("time", "1e5 s", positive=True),       # emu.engine.stall
    }),
}


def defaults(schema: dict = SCHEMA) -> dict:
    """Every field's default, nested as in a scenario (for a list of tables, the defaults of one item)."""
    return {key: defaults(f.schema) if f.schema and f.kind in ("table", "list")
            else None if f.default is None else _value(f"default of '{key}'", f, f.default)
            for key, f in schema.items()}


def _value(where: str, f: F, raw):
    kind = f.kind
    if kind == "str":
        ok = isinstance(raw, str)
        value, expected = raw, "a string"
    elif kind == "int":
        ok = isinstance(raw, int) and not isinstance(raw, bool)
        value, expected = raw, "a whole number"
    elif kind == "number":
        ok = isinstance(raw, (int, float)) and not isinstance(raw, bool)
        value, expected = float(raw) if ok else raw, "a number"
    elif kind == "bool":
        ok = isinstance(raw, bool)
        value, expected = raw, "true or false"
    else:
        try:
            value = units.parse(raw, kind)
        except units.UnitError as exc:
            raise ScenarioError(f"{where}: {exc}") from None
        ok, expected = True, ""
    if not ok:
        raise ScenarioError(f"{where}: expected {expected}, got {raw!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise ScenarioError(f"{where}: expected a finite value, got {raw!r}")
    if f.choices and value not in f.choices:
        raise ScenarioError(f"{where}: expected one of {', '.join(map(repr, f.choices))}, got {raw!r}")
    if f.positive and not value > 0:
        raise ScenarioError(f"{where}: expected a positive value, got {raw!r}")
    if f.minimum is not None and value < _bound(f, f.minimum):
        raise ScenarioError(f"{where}: expected at least {f.minimum}, got {raw!r}")
    if f.maximum is not None and value > _bound(f, f.maximum):
        shown = f"{f.maximum:,}" if isinstance(f.maximum, int) else f.maximum
        raise ScenarioError(f"{where}: expected at most {shown}, got {raw!r}")
    return value


def _bound(f: F, bound):
    return units.parse(bound, f.kind) if isinstance(bound, str) else bound


def check_table(path: str, prefix: str, schema: dict, raw) -> dict:
    if not isinstance(raw, dict):
        raise ScenarioError(f"{path}: field '{prefix.rstrip('.') or '(top)'}': expected a table, got {raw!r}")
    for key in raw:
        if key not in schema:
            raise ScenarioError(f"{path}: field '{prefix}{key}': unknown field; expected one of "
                                f"{', '.join(sorted(schema))}")
    out = {}
    for key, f in schema.items():
        where = f"{path}: field '{prefix}{key}'"
        if key not in raw:
            if f.required:
                raise ScenarioError(f"{where}: missing")
            if f.kind == "table" and f.schema:
                out[key] = check_table(path, f"{prefix}{key}.", f.schema, {})
            elif f.kind == "list" and f.schema:
                out[key] = []
            else:
                out[key] = None if f.default is None else _value(where, f, f.default)
            continue
        value = raw[key]
        if f.kind == "table":
            out[key] = check_table(path, f"{prefix}{key}.", f.schema, value) if f.schema else value
            if not isinstance(value, dict):
                raise ScenarioError(f"{where}: expected a table, got {value!r}")
        elif f.kind == "list":
            items = [value] if isinstance(value, dict) and f.schema else value
            if not isinstance(items, list):
                raise ScenarioError(f"{where}: expected a list, got {value!r}")
            out[key] = [check_table(path, f"{prefix}{key}[{i}].", f.schema, v) for i, v in enumerate(items)] \
                if f.schema else items
        else:
            out[key] = _value(where, f, value)
    return out

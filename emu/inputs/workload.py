"""Workload generation: the jobs of a scenario, drawn once from the scenario seed before the run starts.

A scenario has one or more workload streams (`[[workload]]`: say, owners' local jobs and foreign batch jobs),
each with an arrival process, a lifetime (CPU work) distribution or a program table, memory and I/O demands,
and a rule for home nodes. Every job is known up front and handed to its home workstation, whose own event
queue releases it at its arrival time: arrivals cost no messages.

Arrival processes:
- `poisson`: exponential gaps with `mean_interarrival` (cluster-wide).
- `lognormal`: gaps drawn lognormal with shape `sigma`, then rescaled so that the `jobs` arrivals span
  exactly `span` seconds. This is the calibration specs 000 §3.4 and 002 §3.3 propose, because the papers'
  printed lognormal rate function cannot produce their stated job counts.
- `trace`: a CSV file (see `read_trace`).
- `batch`: all of them at `start` (a static workload: paper 001's Fig. 4).
Lifetimes: `exponential` (mean), `fixed` (mean), `pareto` (bounded Pareto with `alpha`, `min`, `max`; alpha = 1
is Harchol-Balter and Downey's "1/T" lifetime distribution), or `programs` (uniform, or weighted, choice in
the program table; each program has its work and working set).
Memory: a job's peak demand is `demand` (or uniform in [demand, max]; or the program's working set). With
`ramp` > 0 the demand climbs to the peak in `ramp_steps` steps over that fraction of the job's life (spec 000
A11: "ramp-and-hold"); with `phases` > 1 (or a program's `min_memory`) the rest of its life is split into
phases of demand drawn uniformly between the minimum (0 without a program) and the peak; in a program table
only the programs with a `min_memory` vary so.
I/O: `io.rate` accesses per CPU-second (or per MI), or each job's rate drawn uniform in [0, `io.rate_max`] on a
stream of its own (paper 003's "uniformly distributed between 0 and AR"), so the stream's other draws stay;
on that stream too, each job's initial data, exponential of mean `io.initial_data` (the thesis gives the mean
only, spec 003a §7.4 item 12).
Variants: a `share` of the stream's jobs each, drawn at random on a stream of their own, with their work scaled
(`work_scale`), another I/O rate or their own page fault rate (paper 003's mixes: "10 % of jobs randomly chosen
to be non-I/O-intensive", half of them with ten times the work, half paging at 10 /MI).
With `parallel.tasks` = k > 0 each job of the stream is a bulk-synchronous parallel job (paper 004 §7, after
Dusseau et al.): k tasks, task r on node `parallel.nodes[r]` (default r), each computing `iterations` phases
of `granularity` work and, after each, exchanging a `message` with its partners and waiting for theirs: every
other task when `barrier` is on (the spec's default: a barrier closes each iteration), else its NEWS
neighbours on a 2-D torus (rows x cols, rows the largest power of two up to sqrt(k); 8 tasks: 2 x 4).
With `work = "lifetime"` each task's work is instead the job's drawn lifetime, a barrier every `granularity`
of it (paper 003 Ch. 4's trace-like parallel jobs). The job's memory and I/O settings apply to each task (a
task is a process with its own demands, as the thesis describes them), but for its initial data: the job's,
split evenly among its tasks (a data set partitioned over them; the thesis does not say). Its completion is its
last task's.
With `parallel.pattern = "master"` (paper 003 Ch. 7) a job is a master (rank 0) and its slaves, each task running
the job's lifetime in bursts of the job's one sequence (mean 1 / `message_rate`: its messages a Poisson process
per unit of work), at each burst's end every slave sending the master a message and the master one to each
slave, each a Gamma of mean `message` and deviation `message_sd`; its tasks' `dedicated_com` is Eq. 7.2's
communication (see `tasks`). A stream may hold no jobs (`jobs = 0`), so that a sweep over two streams' shares
reaches its ends.
With `closed = true` the stream is a constant population: each job, when it finishes, is replaced at once by
a copy arriving at the node where it finished (its queue), as in paper 004's throughput runs (spec 004 §6).
"""
from __future__ import annotations

import csv
import math
from operator import attrgetter

import numpy as np

from actors.job import Job
from emu.inputs import streams, units
from emu.inputs.errors import found
from emu.inputs.scenario import ScenarioError, node_specs


def generate(scenario: dict, n_nodes: int) -> list[Job]:
    jobs = []
    for i, stream in enumerate(scenario["workload"]):
        rng = streams.generator(scenario["seed"], streams.WORKLOAD, i)
        jobs += _stream(stream, rng, n_nodes, scenario["file"], i, scenario["seed"],
                        scenario["memory"]["fault_rate"], scenario["network"]["bandwidth"])
    jobs.sort(key=attrgetter("arrival", "home"))
    groups: dict[int, int] = {}
    for new_id, job in enumerate(jobs):
        job.id = new_id
        if job.group >= 0:                  # a parallel job is named by its first task's id
            job.group = groups.setdefault(job.group, new_id)
    return jobs


def offered_load(scenario: dict) -> float:
    """The CPU work a scenario's jobs bring over what its cluster can do while they are submitted (spec 000
    Appendix B): their dedicated CPU time, summed, over the nodes' capacity during the submission span. Above 1
    the jobs must queue however they are placed, and a sum of response times follows the backlog. It depends
    on the scenario and seed only (the jobs are drawn, not run), so a report can give it for runs read back."""
    specs = node_specs(scenario)
    jobs = generate(scenario, len(specs))
    span = max(j.arrival for j in jobs) - min(j.arrival for j in jobs)
    return sum(j.work for j in jobs) / (sum(s["speed"] for s in specs) * span) if span > 0 else float("nan")


def _stream(w: dict, rng, n_nodes: int, file: str, index: int, seed: int, fault_rate: float,
            bandwidth: float) -> list[Job]:
    n = w["jobs"]
    arrival = w["arrival"]
    if arrival["process"] == "trace":
        return read_trace(arrival["file"], n_nodes, w)[:n]
    if arrival["process"] == "batch":
        times = np.zeros(n)
    elif arrival["process"] == "poisson":
        times = np.cumsum(rng.exponential(arrival["mean_interarrival"], n))
    else:
        gaps = rng.lognormal(0.0, arrival["sigma"], n)
        times = np.cumsum(gaps)
        times = (times - times[0]) * (arrival["span"] / (times[-1] - times[0])) if n > 1 else times * 0
    times = times + arrival["start"]
    homes = rng.integers(0, n_nodes, n) if w["home"] == "uniform" else np.arange(n) % n_nodes
    life, mem, io, par = w["lifetime"], w["memory"], w["io"], w["parallel"]
    pinned = (streams.generator(seed, streams.NONMIGRATABLE, index).random(n) < w["nonmigratable"]).tolist()
    bursts = par["pattern"] != "bsp"           # a ring's or a master's: bursts of the job's one sequence
    if bursts or par["sizes"]:
        extra = streams.generator(seed, streams.PARALLEL, index)
        sizes = extra.choice(par["sizes"], n).tolist() if par["sizes"] else [par["tasks"]] * n
        burst_seeds = extra.integers(0, 1 << 63, n).tolist()
    works, peaks = _bulk(w, rng, n)
    draws = streams.generator(seed, streams.IO, index) if io["rate_max"] > 0 or io["initial_data"] > 0 else None
    rates = draws.uniform(0.0, io["rate_max"], n).tolist() if io["rate_max"] > 0 else [io["rate"]] * n
    data = draws.exponential(io["initial_data"], n).tolist() if io["initial_data"] > 0 else [0.0] * n
    chosen = _variants(w["variants"], seed, index, n)
    paper_003 = io["size_sd"] or io["reaccess"] or io["initial_data"] or w["variants"]
    times, homes = times.tolist(), homes.tolist()
    # the stream's own fields, looked up once (a paper-scale stream draws tens of thousands of jobs)
    demand, size, read, cls, closed = mem["demand"], io["size"], io["read_fraction"], w["class"], w["closed"]
    working_set, working_set_sd, ws_phase = mem["working_set"], mem["working_set_sd"], mem["phase_length"]
    ramp, ramp_steps, phases = mem["ramp"], mem["ramp_steps"], mem["phases"]
    split = bursts or par["sizes"]
    jobs = []
    for k in range(n):
        program = ""
        peak = demand
        low = None
        io_rate, io_size, migratable = rates[k], size, True
        if works is not None:
            work = works[k]
            if peaks is not None:
                peak = peaks[k]
        elif par["tasks"] and not bursts and par["work"] == "iterations":
            work = par["granularity"] * par["iterations"]
        elif life["distribution"] == "programs":
            weights = np.array([p["weight"] for p in w["programs"]])
            p = w["programs"][rng.choice(len(weights), p=weights / weights.sum())]
            program, work, peak, low = p["name"], p["work"], p["memory"], p["min_memory"]
            io_rate, io_size, migratable = p["io_rate"] or io_rate, p["io_size"], p["migratable"]
        elif life["distribution"] == "exponential":
            work = rng.exponential(life["mean"])
        elif life["distribution"] == "fixed":
            work = life["mean"]
        else:
            work = bounded_pareto(rng, life["alpha"], life["min"], life["max"])
        if life["distribution"] != "programs" and works is None:
            if mem["max"] is not None:
                peak = rng.uniform(peak, mem["max"])
            if phases > 1:
                low = 0.0
        memory = memory_profile(rng, peak, low, ramp, ramp_steps, phases)
        v = chosen[k]
        if v is not None:
            work *= v["work_scale"]
            io_rate = io_rate if v["io_rate"] is None else v["io_rate"]
        job = Job(id=k, home=homes[k], arrival=times[k], work=float(max(work, 1e-9)),
                  memory=memory, io_rate=io_rate, io_size=io_size, io_read=read, program=program, cls=cls,
                  migratable=migratable and not pinned[k], closed=closed, working_set=working_set,
                  working_set_sd=working_set_sd, ws_phase=ws_phase)
        if paper_003:           # set only when used: a paper-scale trace draws tens of thousands of jobs
            job.io_size_sd, job.io_reaccess, job.initial_data = io["size_sd"], io["reaccess"], data[k]
            # a variant's job faults at its rate's multiple of the node's, whatever the node's overflow
            job.fault_scale = 1.0 if v is None or v["fault_rate"] is None else v["fault_rate"] / fault_rate
        if split:                               # named by its stream (paper 001's classes: small, large)
            job.program = job.program or w["name"]
            jobs += tasks(job, par, index * 1_000_000 + k, sizes[k], burst_seeds[k], bandwidth)
        elif par["tasks"]:
            jobs += tasks(job, par, index * 1_000_000 + k, par["tasks"], 0, bandwidth)
        else:
            jobs.append(job)
    return jobs


def _variants(variants: list[dict], seed: int, index: int, n: int) -> list:
    """Each job's variant, or None for the stream's own: a share of the jobs each, drawn at random."""
    if not variants:
        return [None] * n
    draws = streams.generator(seed, streams.VARIANTS, index).random(n)
    picks = np.searchsorted(np.cumsum([v["share"] for v in variants]), draws, side="right").tolist()
    return [variants[i] if i < len(variants) else None for i in picks]


def _bulk(w: dict, rng, n: int) -> tuple[list | None, list | None]:
    """The jobs' works and peak memory demands drawn all at once, where that draws the very numbers drawn one
    job at a time (None where it does not): a lone exponential per job, or a bounded Pareto work and a uniform
    peak, both from the generator's doubles (its uniform is low + (high - low) x double)."""
    life, mem = w["lifetime"], w["memory"]
    if w["parallel"]["tasks"] or mem["phases"] > 1:
        return None, None
    if life["distribution"] == "exponential" and mem["max"] is None:
        return rng.exponential(life["mean"], n).tolist(), None
    if life["distribution"] != "pareto":
        return None, None
    alpha, low, high = life["alpha"], life["min"], life["max"]
    if mem["max"] is None:
        return [_pareto(u, alpha, low, high) for u in rng.random(n).tolist()], None
    demand, top = mem["demand"], mem["max"]
    pairs = rng.random((n, 2)).tolist()
    return [_pareto(u, alpha, low, high) for u, _ in pairs], [demand + (top - demand) * v for _, v in pairs]


def tasks(job: Job, par: dict, group: int, k: int, burst_seed: int, bandwidth: float) -> list[Job]:
    """The k tasks of one parallel job (see the module docstring): bulk-synchronous, a ring (paper 001) or a
    master and its slaves (paper 003 Ch. 7), the last two each doing the job's work in bursts of the job's one
    sequence. Tasks mapped by the policy all arrive at the job's home node; their partners' nodes are the
    policy's to fill in (-1 until). A master's job communicates alone, at each burst's end, the master's k - 1
    messages one after another on its link (Eq. 7.2's T_COM: the slowest process's, every slave waiting for
    its own): that time, in expectation, is each task's `dedicated_com`."""
    if par["mapping"] == "policy":
        nodes = [job.home] * k
    else:
        nodes = par["nodes"] if par["nodes"] is not None else list(range(k))
    pattern = par["pattern"]
    rows = 1 << int(math.log2(math.isqrt(k))) if k > 1 else 1
    cols = k // rows

    def partners(r: int) -> list[int]:
        if pattern == "ring":
            return [(r + 1) % k] if k > 1 else []
        if pattern == "master":
            return list(range(1, k)) if r == 0 else [0]
        if par["barrier"]:
            return [p for p in range(k) if p != r]
        i, j = divmod(r, cols)
        near = {((i + di) % rows) * cols + (j + dj) % cols for di, dj in ((-1, 0), (1, 0), (0, -1), (0, 1))}
        return sorted(p for p in near if p != r and p < k)

    known = par["mapping"] != "policy"
    bursts = pattern != "bsp"
    work = job.work if bursts or par["work"] == "lifetime" else par["granularity"] * par["iterations"]
    burst = (1.0 / par["message_rate"] if par["message_rate"] > 0 else par["burst"]) if bursts else 0.0
    alone = work / burst * (k - 1) * par["message"] / bandwidth if pattern == "master" else 0.0
    return [Job(id=job.id, home=nodes[r], arrival=job.arrival, work=work, memory=job.memory,
                io_rate=job.io_rate, io_size=job.io_size, io_read=job.io_read, io_size_sd=job.io_size_sd,
                io_reaccess=job.io_reaccess, fault_scale=job.fault_scale, initial_data=job.initial_data / k,
                program=job.program or pattern, cls=job.cls, migratable=not known,
                group=group, rank=r, phase=0.0 if bursts else par["granularity"],
                partners=[[p, nodes[p] if known else -1] for p in partners(r)], message=par["message"],
                message_sd=par["message_sd"], dedicated_com=alone,
                burst=burst, burst_seed=burst_seed, tasks=k,
                working_set=job.working_set, working_set_sd=job.working_set_sd, ws_phase=job.ws_phase)
            for r in range(k)]


def bounded_pareto(rng, alpha: float, low: float, high: float) -> float:
    """Inverse-CDF draw from the Pareto distribution with shape alpha truncated to [low, high]."""
    return _pareto(rng.random(), alpha, low, high)


def _pareto(u: float, alpha: float, low: float, high: float) -> float:
    la, ha = low ** alpha, high ** alpha
    return (-(u * ha - u * la - ha) / (ha * la)) ** (-1.0 / alpha)


def memory_profile(rng, peak: float, low, ramp: float, steps: int, phases: int) -> list:
    """A step profile [(fraction of work, bytes)]: ramp up to `peak`, then hold (or vary in phases)."""
    if ramp <= 0 and low is None:
        return [[0.0, float(peak)]]
    points = []
    if ramp > 0:
        points += [[ramp * i / steps, peak * (i + 1) / steps] for i in range(steps)]
    else:
        points.append([0.0, peak])
    if low is not None:
        phases = max(phases, 2)
        start = ramp
        for i in range(phases):
            frac = start + (1 - start) * i / phases
            size = float(rng.uniform(low, peak))
            if points and points[-1][0] == frac:
                points[-1][1] = size
            else:
                points.append([frac, size])
    return [[float(f), float(s)] for f, s in points]


TRACE_COLUMNS = {"arrival": "time", "work": "work", "memory": "size", "home": "int", "program": "str",
                 "class": "str", "io_rate": "rate", "io_size": "size"}


def read_trace(path: str, n_nodes: int, w: dict) -> list[Job]:
    """Read a job trace: a CSV file with a header naming some of the columns
    arrival (required), work (required), memory, home, program, class, io_rate, io_size;
    values may carry units ("12 s", "64 MB"). Missing homes are drawn round-robin."""
    try:
        fh = open(path, newline="", encoding="utf-8-sig")      # a byte-order mark (spreadsheets write one) is not a column
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read the trace ({exc.strerror})") from None
    with fh:
        try:
            return _trace_rows(path, fh, n_nodes, w)
        except UnicodeDecodeError:
            raise ScenarioError(f"{path}: not a UTF-8 text file") from None


def _trace_rows(path: str, fh, n_nodes: int, w: dict) -> list[Job]:
    jobs = []
    reader = csv.DictReader(fh)
    header = reader.fieldnames or []
    for col in ("arrival", "work"):
        if col not in header:
            raise ScenarioError(f"{path}: line 1: missing column '{col}' ({found(header)})")
    twice = [c for c in header if header.count(c) > 1]
    if twice:
        raise ScenarioError(f"{path}: line 1: column '{twice[0]}' appears twice")
    unknown = [c for c in header if c not in TRACE_COLUMNS]
    if unknown:
        raise ScenarioError(f"{path}: line 1: unknown column '{unknown[0]}'; expected some of "
                            f"{', '.join(TRACE_COLUMNS)}")
    for line, row in enumerate(reader, start=2):
        values = {}
        for col, text in row.items():
            if text is None or col is None:
                raise ScenarioError(f"{path}: line {line}: expected {len(header)} columns")
            kind = TRACE_COLUMNS[col]
            try:
                if kind == "str":
                    values[col] = text
                elif kind == "int":
                    values[col] = int(text)
                else:
                    values[col] = units.parse(float(text) if _is_number(text) else text, kind)
            except (ValueError, units.UnitError) as exc:
                raise ScenarioError(f"{path}: line {line}: column '{col}': {exc}") from None
        if not (values["work"] > 0 and values["arrival"] >= 0) or not all(
                math.isfinite(v) for v in values.values() if isinstance(v, float)):
            raise ScenarioError(f"{path}: line {line}: expected finite values, arrival >= 0 and work > 0")
        if jobs and values["arrival"] < jobs[-1].arrival:       # a job's id is its row: the rows keep their order
            raise ScenarioError(f"{path}: line {line}: column 'arrival': {values['arrival']:g} s is before the row "
                                f"above's {jobs[-1].arrival:g} s; expected the jobs in order of arrival")
        home = values.get("home", len(jobs) % n_nodes)
        if not 0 <= home < n_nodes:
            raise ScenarioError(f"{path}: line {line}: column 'home': expected a node from 0 to {n_nodes - 1}, got {home}")
        cls = values.get("class") or w["class"]
        if cls not in ("local", "foreign"):
            raise ScenarioError(f"{path}: line {line}: column 'class': expected local or foreign, got {cls!r}")
        jobs.append(Job(id=len(jobs), home=home, arrival=values["arrival"], work=values["work"],
                        memory=[[0.0, values.get("memory", w["memory"]["demand"])]],
                        io_rate=values.get("io_rate", w["io"]["rate"]), io_size=values.get("io_size", w["io"]["size"]),
                        io_read=w["io"]["read_fraction"], program=values.get("program", ""), cls=cls,
                        closed=w["closed"]))
    if not jobs:
        raise ScenarioError(f"{path}: the trace has no jobs")
    return jobs


def _is_number(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False

"""Results of one run: what every participant reported at the end, gathered into a results folder.

    jobs.csv      one row per submitted job, finished or not (its state says which): arrival, start, finish,
                  home, nodes visited, migrations, and the split of its response time into cpu, queue, page,
                  io, net and sync; slowdown; and paper 004's lingering and suspended time
    nodes.csv     per-workstation samples at the load-report period (nodes.csv.gz in a sweep's runs: a 32-node
                  paper run samples 760,000 rows, 86 MB as text, 11 MB compressed)
    events.jsonl  migrations (departures and arrivals), remote executions, refusals, warnings, in time order
    summary.json  scenario, seed, version, runtime, metrics, accounting checks and fidelity figures

Slowdown (specs 000 §5, 002 §5) is a job's wall-clock time from submission to completion divided by its
execution time in a dedicated environment: its work on its home node's CPU (`work / speed(home)`), plus, for a
job doing explicit I/O, the I/O time it would take alone there (`dedicated_io`: its accesses that would miss
with the whole buffer cache, each a mean request's disk service with no queue), as paper 003's Eq. 3.22
extends it, and for a task of paper 003 Ch. 7's communicating jobs the time its job spends communicating alone
(`dedicated_com`, Eq. 7.2's T_COM terms). Papers with another definition compute theirs from the raw columns.
"""
from __future__ import annotations

import csv
import gzip
import json
import math
from collections import Counter, defaultdict
from itertools import chain
from operator import itemgetter
from pathlib import Path

import numpy as np

from actors.job import STATES, dedicated_time
from emu.engine import coscheduling
from emu.engine.samples import ClusterSeries, Samples
from emu.inputs.scenario import node_specs

# Messages that carry a job: one of these arriving after its deliver_at changes what happens (a straggler).
# A late load report only makes a view that is stale by up to a period a little staler.
JOB_KINDS = ("remote_exec", "migrate", "job_return")


def _mean(values) -> float:
    return float(np.mean(values)) if len(values) else float("nan")


def lost_jobs(blueprints: list[dict], finals: list[dict], end: float) -> tuple[list[dict], int]:
    """The jobs no surviving participant reported: they were on a workstation whose Ray node died, or on
    their way to it. Those that had arrived by `end` (the virtual time the run stopped at, just after the loss
    was noticed) are returned as jobs.csv rows in state "lost"; what is known of them is what the workload
    drew (the blueprints' jobs: only a Ray actor's copy of them ran). Those due after `end` never arrived,
    as on every other workstation: only their number is returned, for `jobs_not_arrived`."""
    seen = {j["job"] for f in finals for j in f["jobs"]}
    seen.update(i for f in finals if f["role"] == "workstation" for i in f["stats"]["not_arrived"])
    rows, never = [], 0
    for job in (job for bp in blueprints for job in bp.get("arrivals", ())):
        if job.id in seen:
            continue
        if job.arrival > end:
            never += 1
        else:
            job.state = "lost"
            rows.append(job.record())
    return rows, never


def assemble(finals: list[dict], scenario: dict, end: float, extra: dict, lost: tuple = ((), 0)) -> dict:
    """Merge participants' finals (and `lost`: lost_jobs' rows and count of jobs that never arrived) into one
    result (jobs, samples, events, summary). After a loss (`extra["lost"]`) the work and Little checks cannot
    balance (the dead node's counters died with it), so they are reported as null."""
    speeds = {i: spec["speed"] for i, spec in enumerate(node_specs(scenario))}
    rows, never = lost
    jobs = sorted([j for f in finals for j in f["jobs"]] + list(rows), key=itemgetter("job"))
    for j in jobs:
        j["slowdown"] = j["response"] / dedicated(j, speeds) if j["state"] == "done" else float("nan")
    samples = Samples.merge(f["samples"] for f in finals if f["role"] == "workstation")
    events = sorted((e for f in finals for e in f["events"]), key=itemgetter("time", "node"))
    stats = [f["stats"] for f in finals if f["role"] == "workstation"]
    table = _JobTable(jobs)
    late: dict[str, list] = {}
    for f in finals:
        for kind, values in f["stats"]["lateness"].items():
            late.setdefault(kind, []).extend(values)
    lateness = [x for values in late.values() for x in values]
    stragglers = sum(len(v) for k, v in late.items() if k in JOB_KINDS)
    summary = {
        "scenario": scenario["name"], "file": scenario["file"], "seed": scenario["seed"],
        "end": end,                                          # the virtual time the run stopped at
        "metrics": {**metrics(jobs, table, samples, stats, end, scenario, events, never),
                    **job_slowdowns(jobs, speeds)},
        "checks": checks(jobs, table, stats, end, complete="lost" not in extra),
        "fidelity": {"stragglers": stragglers, "late_messages": len(lateness),
                     "late_by_kind": {k: len(v) for k, v in sorted(late.items())},
                     "lateness_p50": float(np.percentile(lateness, 50)) if lateness else 0.0,
                     "lateness_p99": float(np.percentile(lateness, 99)) if lateness else 0.0,
                     "lateness_max": max(lateness, default=0.0)},
        **extra,
        "config": scenario,
    }
    if scenario["memory"]["fault_model"] == "pages":         # paper 001's model: its own metrics
        summary["coscheduling"] = coscheduling.metrics(jobs, speeds, samples)
    return {"jobs": jobs, "samples": samples, "events": events, "summary": summary}


# the numeric fields of a job's row that the metrics and checks read, as one table (`_JobTable`)
_NUMBERS = ("response", "slowdown", "queue", "cpu", "page", "io", "net", "sync", "remote_paging", "lingering",
            "suspended", "arrival", "start", "finish", "done", "migrations", "remote_execs")


class _JobTable:
    """Every job's `_NUMBERS` as float columns (one C-level pass over the rows, not one per figure), and which
    jobs are done. Sums add in job order, as Python's `sum` over the rows did (`total`), so a figure does not
    move in its last digit with the way it is computed."""

    def __init__(self, jobs: list[dict]):
        table = np.fromiter(chain.from_iterable(map(itemgetter(*_NUMBERS), jobs)), float,
                            len(jobs) * len(_NUMBERS)).reshape(len(jobs), len(_NUMBERS))
        self.all = dict(zip(_NUMBERS, table.T))
        self.is_done = np.array([j["state"] == "done" for j in jobs], dtype=bool)
        self.done = {k: v[self.is_done] for k, v in self.all.items()}

    @staticmethod
    def total(column) -> float:
        return float(sum(column.tolist()))


def metrics(jobs, table: _JobTable, samples, stats, end, scenario, events=(), never_arrived: int = 0) -> dict:
    col, total_of = table.done, table.total
    n_done = len(col["response"])
    counts = Counter(map(itemgetter("state"), jobs))
    states = {s: counts[s] for s in STATES}
    makespan = float(col["finish"].max()) if n_done else 0.0
    horizon = max(end, makespan) if scenario["stop"]["when"] == "time" else makespan
    series = ClusterSeries(samples)
    idle, memory, remote = series.total("idle"), series.total("memory"), series.total("remote")
    demand = series.total("demand", cap="memory")
    skew = series.skews()
    blocked = series.any("blocked")
    blocked_idle = [total for total, b in zip(idle, blocked) if b]
    busy = sum(s["busy"] - s["switching"] for s in stats)
    total = total_of(col["response"])
    execution = col["finish"] - col["start"]
    return {
        "jobs_submitted": len(jobs), "jobs_done": n_done, "states": states,
        # arrival after the run stopped (on a lost workstation too: `never_arrived`)
        "jobs_not_arrived": sum(len(s["not_arrived"]) for s in stats) + never_arrived,
        "jobs_replaced": sum(s["replaced"] for s in stats),       # copies in a constant population
        "makespan": makespan,
        "mean_response": _mean(col["response"]),
        "mean_slowdown": _mean(col["slowdown"]),
        "max_slowdown": float(col["slowdown"].max()) if n_done else float("nan"),
        "total_execution_time": total,
        "mean_queue_time": _mean(col["queue"]),
        # execution time: first start to finish (paper 004's "variation" is its coefficient of variation)
        "mean_execution_time": _mean(execution),
        "execution_time_cv": float(np.std(execution) / np.mean(execution)) if n_done > 1 else float("nan"),
        # paper 004's time per state (Fig. 10): waiting to start, lingering, suspended, on the network
        "mean_wait_to_start": _mean(col["start"] - col["arrival"]),
        "mean_lingering_time": _mean(col["lingering"]),
        "mean_suspended_time": _mean(col["suspended"]),
        "mean_net_time": _mean(col["net"]),
        **{f"total_{k}_time": total_of(col[k]) for k in ("queue", "cpu", "page", "io", "net", "remote_paging")},
        # paper 002's networking time: on the wire between nodes plus remote paging, over the execution time
        "network_share": total_of(col["net"] + col["remote_paging"]) / total if total > 0 else 0.0,
        "throughput": n_done / makespan if makespan > 0 else 0.0,
        "cpu_utilization": busy / (len(stats) * horizon) if horizon > 0 else 0.0,
        "memory_utilization": float(np.mean(np.divide(demand, memory))) if len(memory) else 0.0,
        "mean_idle_memory": _mean(idle),
        "mean_network_ram": _mean(remote),
        "mean_balance_skew": _mean(skew),
        "blocked_time_fraction": _mean(blocked),        # share of samples in which some node is blocked
        "blocked_idle_memory": _mean(blocked_idle),     # the cluster's idle memory in those samples
        "reservations": sum(e["event"] == "reserve" for e in events),
        "page_faults": int(sum(s["faults"] for s in stats)),
        "buffer_hit_ratio": buffer_hit_ratio(jobs),
        "migrations": int(total_of(table.all["migrations"])),
        "remote_executions": int(total_of(table.all["remote_execs"])),
        "bytes_sent": float(sum(s["bytes_sent"] for s in stats)),
        **owner_metrics(jobs, stats, horizon),
    }


def buffer_hit_ratio(jobs) -> float:
    """The share of the jobs' explicit I/O accesses the buffer caches served (paper 003's hit rate, Fig. 5.6):
    one less their misses (`io_requests`) over their accesses. The hits are not drawn one by one (a job's
    misses are a thinned Poisson process of its accesses: actors/workstation.py), so the accesses are their
    expected count, the job's rate times its work done (`io_accesses`). NaN without explicit I/O."""
    accesses = sum(map(itemgetter("io_accesses"), jobs))
    return 1.0 - sum(map(itemgetter("io_requests"), jobs)) / accesses if accesses > 0 else float("nan")


def dedicated(j: dict, speeds: dict) -> float:
    """A job's row's dedicated time on its home node (runs read back from before `dedicated_com`: none)."""
    return dedicated_time(j["work"], speeds[j["home"]], j["dedicated_io"], j.get("dedicated_com", 0.0))


def job_slowdowns(jobs, speeds: dict) -> dict:
    """With parallel jobs (tasks of a group): the mean slowdown over jobs, each parallel job once (paper 003's
    Eq. 3.22 for a job: from its arrival to its last task's end, over its dedicated time, the longest of its
    tasks', Eq. 7.2), of all, the parallel and the sequential ones, and their mean turn-around times (Ch. 7's
    other metric: arrival to last task's end); finished jobs only. No keys without parallel jobs."""
    groups = defaultdict(list)
    for j in jobs:
        if j["group"] >= 0:
            groups[j["group"]].append(j)
    if not groups:
        return {}
    done = [j for j in jobs if j["group"] < 0 and j["state"] == "done"]
    sequential, alone = [j["slowdown"] for j in done], [j["response"] for j in done]
    finished = [tasks for tasks in groups.values() if all(t["state"] == "done" for t in tasks)]
    turnaround = [max(t["finish"] for t in tasks) - tasks[0]["arrival"] for tasks in finished]
    parallel = [t / max(dedicated(task, speeds) for task in tasks) for t, tasks in zip(turnaround, finished)]

    def means(one: list, other: list) -> dict:
        return {"all": _mean(np.array(one + other)), "parallel": _mean(np.array(other)),
                "sequential": _mean(np.array(one))}
    return {"job_slowdown": means(sequential, parallel), "job_turnaround": means(alone, turnaround)}


def owner_metrics(jobs, stats, horizon) -> dict:
    """Paper 004's node-level figures, over the workstations that have an owner (none: no keys):
    - owner_ldr: the owners' delay by foreign jobs over their CPU time (LDR, a ratio of sums: spec 004 A11);
    - fcsr: foreign CPU time over the owners' idle time (the time neither running nor waiting); it is the
      paper's FCSR where a foreign job is always ready on every such node (Fig. 7);
    - owner_cpu_with_jobs: the share of the owners' CPU time during which a foreign job was ready, the only time
      one can delay them (so owner_ldr / owner_cpu_with_jobs is the LDR beside jobs, Fig. 7's figure); fluid
      mode only (fine mode's CPU does not split the owner's time by what waits);
    - owner_utilization, nonidle_fraction: means over those nodes and the run;
    - owner_burst_rate: the owners' run bursts (context switches to the owner) per second and node, counted in
      fine mode, expected in fluid mode (Fig. 3);
    - foreign_cpu_rate: foreign CPU-seconds per second, cluster-wide (Table 1's throughput, in processors)."""
    owners = [s["owner"] for s in stats if s.get("owner")]
    if not owners or horizon <= 0:
        return {}
    cpu, delay = sum(o["cpu"] for o in owners), sum(o["delay"] for o in owners)
    foreign = sum(j["cpu"] for j in jobs if j["class"] == "foreign")
    idle = len(owners) * horizon - cpu - delay
    return {"owner_ldr": delay / cpu if cpu > 0 else 0.0, "fcsr": foreign / idle if idle > 0 else 0.0,
            **({"owner_cpu_with_jobs": sum(o["cpu_with_jobs"] for o in owners) / cpu}
               if cpu > 0 and all(o["cpu_with_jobs"] is not None for o in owners) else {}),
            "owner_utilization": cpu / (len(owners) * horizon),
            "owner_burst_rate": sum(o["bursts"] for o in owners) / (len(owners) * horizon),
            "nonidle_fraction": sum(o["nonidle_time"] for o in owners) / (len(owners) * horizon),
            "foreign_cpu_rate": foreign / horizon}


def checks(jobs, table: _JobTable, stats, end, complete: bool = True) -> dict:
    """Accounting that must balance on every run (the tests hold every scenario to these):
    - every job accounted: each submitted job appears once, in a known state;
    - time split: for each finished job, response == cpu + queue + page + io + net + sync;
    - work conservation: ops delivered by the CPUs == work of finished jobs + work done on unfinished ones;
    - Little's law: the jobs present, integrated over time on the nodes, plus time on the wire, equals the
      jobs' time in the system (L = lambda W, measured two independent ways).
    Work and Little need every node's counters: without them (`complete` false, a node was lost) they are null."""
    d, every, total_of = table.done, table.all, table.total
    parts = d["cpu"] + d["queue"] + d["page"] + d["io"] + d["net"] + d["sync"]   # added in the rows' order
    split = float((np.abs(d["response"] - parts) / np.maximum(d["response"], 1e-12)).max()) if len(parts) else 0.0
    delivered = sum(s["work"] for s in stats)
    accounted = total_of(every["done"])
    in_system = total_of(np.where(table.is_done, every["finish"], end) - every["arrival"])
    wire = total_of(every["net"])
    area = sum(s["area"] for s in stats)
    unfinished_net = [j for j in jobs if j["state"] == "in_transit"]
    return {
        "jobs_accounted": len(set(map(itemgetter("job"), jobs))) == len(jobs),
        "time_split_error": split,
        "work_conservation_error": abs(delivered - accounted) / max(accounted, 1e-12) if complete else None,
        "little_error": abs(area + wire - in_system) / max(in_system, 1e-12)
        if complete and not unfinished_net else None,
        "little_L": (area + wire) / end if end > 0 else 0.0,     # mean jobs in the system, nodes and wire
    }


def write(result: dict, out: Path, compress_samples: bool = False, samples: bool = True) -> Path:
    """A results folder; without `samples`, no nodes.csv (their figures are in the summary all the same)."""
    out.mkdir(parents=True, exist_ok=True)
    _csv(out / "jobs.csv", result["jobs"])
    if samples:
        _csv(out / ("nodes.csv.gz" if compress_samples else "nodes.csv"), result["samples"])
    with open(out / "events.jsonl", "w") as fh:
        for e in result["events"]:
            fh.write(json.dumps(e) + "\n")
    with open(out / "summary.json", "w") as fh:
        json.dump(json_safe(result["summary"]), fh, indent=2)
    return out


def samples_file(folder: Path) -> Path:
    """A results folder's per-workstation samples: nodes.csv, or nodes.csv.gz as a sweep writes them."""
    plain, compressed = folder / "nodes.csv", folder / "nodes.csv.gz"
    return compressed if compressed.exists() and not plain.exists() else plain


def open_text(path: Path, mode: str = "r"):
    """A text file, through gzip (its fastest level: the samples are mostly digits) if its name ends in .gz."""
    if path.suffix == ".gz":
        return gzip.open(path, mode + "t", compresslevel=1, newline="")
    return open(path, mode, newline="")


def _csv(path: Path, rows: list[dict] | Samples) -> None:
    """Rows (dicts, with the first one's keys as the columns; or a table) as CSV."""
    with open_text(path, "w") as fh:
        if not rows:
            return
        keys = rows.keys if isinstance(rows, Samples) else list(rows[0])
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(keys)
        # the csv module writes a float as its repr (round-trips exactly) and a missing field (None) as empty
        writer.writerows(rows.rows if isinstance(rows, Samples) else (map(row.get, keys) for row in rows))


def json_safe(obj):
    """JSON has no NaN: write null."""
    if isinstance(obj, float) and (math.isnan(obj) or math.isinf(obj)):
        return None
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    return obj

"""Paper 001's metrics (its §5.1), from the rows of jobs.csv of a run of its page-level model, by class:
local tasks (no group), and the parallel jobs of each workload stream (named by it: "small", "large").

- Page faults per task (eq. 8): per node, the mean faults of the tasks that ran there; then the mean over
  nodes.
- Correlation (eq. 9): 100 - the mean over parallel jobs of (slowest task's response - fastest's) / tc, in %:
  100 when a job's tasks finish together. Printed as (fast - slow), a sign error (spec 001 §6); unclipped.
  A job of one task is left out: it has no partner to be coordinated with, and the paper counts "a local task
  [as] a job with Job.size = 1" while K' counts parallel jobs (a 100 for each would flatten the policies' gaps).
- Slowdown (eq. 10): a ratio of sums, sum of responses / sum of tc, a job's response from its arrival to its
  last task's end and its tc one task's CPU demand (each task of a job does the job's work).
Only finished jobs count (a job with a task unfinished has no response).

Beside them, the load the run reached, as the paper reports it: tasks per node and N_k.mem / M (eq. 4: the
virtual memory of a node's tasks over its frames), time-averaged over every node's samples from the start to
the last arrival (the drain after it has no arrivals to balance).
"""
from __future__ import annotations

from collections import defaultdict


def metrics(jobs: list[dict], speeds: dict, samples) -> dict:
    done = [j for j in jobs if j["state"] == "done"]
    per_node = defaultdict(list)
    for j in done:
        per_node[j["node"]].append(j["faults"])
    groups = defaultdict(list)
    for j in jobs:
        if j["group"] >= 0:
            groups[j["group"]].append(j)
    response, tc, spread = defaultdict(float), defaultdict(float), defaultdict(list)
    for j in done:
        if j["group"] < 0:
            response["local"] += j["response"]
            tc["local"] += j["work"] / speeds[j["node"]]
    for tasks in groups.values():
        if any(t["state"] != "done" for t in tasks):
            continue
        first = tasks[0]
        demand = first["work"] / speeds[first["node"]]
        finish = [t["finish"] for t in tasks]
        for cls in (first["program"], "parallel"):
            response[cls] += max(finish) - first["arrival"]
            tc[cls] += demand
            if len(tasks) > 1:
                spread[cls].append((max(finish) - min(finish)) / demand)
    return {
        "mean_page_faults": sum(sum(v) / len(v) for v in per_node.values()) / len(per_node) if per_node else 0.0,
        "slowdown": {cls: response[cls] / tc[cls] for cls in sorted(tc) if tc[cls] > 0},
        "correlation": {cls: 100.0 - 100.0 * sum(v) / len(v) for cls, v in sorted(spread.items())},
        "jobs": {cls: len(v) for cls, v in sorted(spread.items())},     # the jobs eq. (9) counts
        **load(jobs, samples),
    }


def load(jobs: list[dict], samples) -> dict:
    last = max((j["arrival"] for j in jobs), default=0.0)
    time, tasks, demand, memory = (samples.keys.index(k) for k in ("time", "jobs", "demand", "memory"))
    rows = [r for r in samples.rows if r[time] <= last]
    if not rows:
        return {"tasks_per_node": float("nan"), "memory_load": float("nan")}
    return {"tasks_per_node": sum(r[tasks] for r in rows) / len(rows),
            "memory_load": sum(r[demand] for r in rows) / sum(r[memory] for r in rows)}

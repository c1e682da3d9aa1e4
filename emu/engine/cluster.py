"""From a scenario to the participants of a run: one blueprint per workstation (its spec, policy, seed and
the jobs whose home it is) plus the load collector and, on a shared medium, the bus. A blueprint is plain data
(its jobs are `Job` objects, built once by the workload), so a runtime can build the participant in this
process (`make`: the inline runtime's participants run the blueprint's own jobs) or inside a Ray actor (from
a copy), and both get the same object."""
from __future__ import annotations

import policies
from actors.participant import Bus, Collector
from actors.workstation import Workstation
from emu.engine.kernel import Heap
from emu.inputs import streams
from emu.inputs.owners import owners
from emu.inputs.scenario import node_specs
from emu.inputs.workload import generate


def node_seed(seed: int, node: int) -> int:
    """Each workstation's own random stream, derived from (scenario seed, workstation id) only."""
    return streams.integer_seed(seed, streams.NODE, node)


def blueprints(scenario: dict) -> list[dict]:
    specs = node_specs(scenario)
    n = len(specs)
    jobs = generate(scenario, n)
    owner = owners(scenario, n)
    by_home = [[] for _ in range(n)]
    for job in jobs:
        by_home[job.home].append(job)
    # a policy that reads no load index runs on a cluster that exchanges none (policies.base.Policy.reads_index)
    reads = policies.load(scenario["policy"]["name"]).reads_index
    exchange = scenario["load_index"]["exchange"] if reads else "none"
    collector = n if exchange == "collector" else None
    bus = n + (collector is not None) if scenario["network"]["medium"] == "bus" else None
    for spec in specs:
        spec["job_ids"] = len(jobs)     # where the ids of a constant population's replacements start
        spec["bus"] = bus
        spec["exchange"] = exchange
    out = [{"role": "workstation", "id": i, "spec": specs[i], "policy": scenario["policy"],
            "insertion": scenario["cpu"]["insertion"], "seed": node_seed(scenario["seed"], i), "peers": n,
            "collector": collector, "arrivals": by_home[i], "owner": owner[i]} for i in range(n)]
    if collector is not None:
        out.append({"role": "collector", "id": n, "peers": n, "period": scenario["load_index"]["period"],
                    "network": scenario["network"], "bus": bus})
    if bus is not None:
        out.append({"role": "bus", "id": bus, "peers": n, "network": scenario["network"]})
    return out


def make(bp: dict, heap=None):
    """Build the participant a blueprint describes (sharing `heap`, the inline runtime's one event loop)."""
    if bp["role"] == "collector":
        return Collector(bp["id"], bp["peers"], bp["period"], bp["network"]["bandwidth"], bp["network"]["latency"],
                         heap, bp["bus"])
    if bp["role"] == "bus":
        return Bus(bp["id"], bp["peers"], bp["network"]["bandwidth"], bp["network"]["latency"], heap)
    policy = _policy(bp["policy"], "POLICY")
    insertion = _policy(bp["insertion"], "INSERTION") if bp["insertion"] else None
    return Workstation(bp["id"], bp["spec"], policy, bp["seed"], bp["peers"], bp["collector"],
                       bp["arrivals"], insertion, heap, bp["owner"])


def in_process(bps: list[dict]) -> tuple[dict, Heap, int]:
    """Every participant of `bps` built in this process on one shared heap (the inline runtime's one event loop),
    by id, with the heap and the number of jobs the workload brings."""
    heap = Heap()
    return {bp["id"]: make(bp, heap) for bp in bps}, heap, sum(len(bp.get("arrivals", ())) for bp in bps)


def _policy(table: dict, kind: str):
    return policies.load(table["name"], kind)(**{k: v for k, v in table.items() if k != "name"})


def lookahead(scenario: dict) -> float:
    """No message arrives sooner than the link latency after it is sent."""
    return scenario["network"]["latency"]

"""The checks of a scenario that its schema cannot say, made once each field has been read on its own
(`emu.inputs.schema.check_table`): the policy's own parameters (its `PARAMS`), what a workload stream's
arrival process and lifetime distribution need, the owners' fractions, and the files they name (a workload
trace must exist; the owners' burst table and activity trace are read and checked here, so that a bad one
stops the scenario before anything starts). Each error is one line naming the file and the field.
"""
from __future__ import annotations

import math
import re
from pathlib import Path

from emu.inputs import SCENARIOS
from emu.inputs.errors import ScenarioError
from emu.inputs.owner_data import read_activity, read_bursts
from emu.inputs.schema import F, check_table


# `owner.bursts` when a scenario with owners names none: the owners' fine level (paper 004)
BURSTS = SCENARIOS / "data" / "bursts.csv"


# A scenario's name names its results folder (results/NAME-...): a plain name, so that it stays there
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


def check_name(path: str, name: str) -> None:
    if not NAME.fullmatch(name):
        raise ScenarioError(f"{path}: field 'name': expected a plain name of 1 to 100 letters, digits, '.', '_' or "
                            f"'-', starting with a letter or digit (it names the results folder), got {name!r}")


def check_policy(path: str, raw: dict, section: str = "policy", kind: str = "POLICY") -> dict:
    """A policy's table (`kind` POLICY) or a run-queue insertion policy's (INSERTION): its name and PARAMS."""
    import policies
    name = raw.get("name")
    if not isinstance(name, str):
        raise ScenarioError(f"{path}: field '{section}.name': expected the name of a policy "
                            f"({', '.join(policies.available(kind))}), got {name!r}")
    try:
        cls = policies.load(name, kind)
    except KeyError as exc:
        raise ScenarioError(f"{path}: field '{section}.name': {exc.args[0]}") from None
    schema = {"name": F("str")}
    for param, (kind, default, _, *least) in cls.PARAMS.items():
        if isinstance(kind, tuple):                                 # the strings it may be
            schema[param] = F("str", default, choices=kind)
        else:
            schema[param] = F(kind, default, minimum=None if kind in ("bool", "str") else least[0] if least else 0)
    return check_table(path, f"{section}.", schema, raw)


def check_workload(path: str, base: Path, i: int, w: dict, nodes: int) -> None:
    where = f"{path}: field 'workload[{i}]."
    arrival, life = w["arrival"], w["lifetime"]
    needs = {"poisson": ["mean_interarrival"], "lognormal": ["span"], "trace": ["file"], "batch": []}[
        arrival["process"]]
    for name in needs:
        if arrival[name] is None:
            raise ScenarioError(f"{where}arrival.{name}': missing (needed by process = {arrival['process']!r})")
    if arrival["process"] == "trace":
        file = (base / arrival["file"]).resolve()
        if not file.is_file():
            raise ScenarioError(f"{where}arrival.file': cannot read trace file {str(file)!r}")
        arrival["file"] = str(file)
        if w["parallel"]["tasks"] or w["parallel"]["sizes"]:
            raise ScenarioError(f"{where}parallel.tasks': parallel jobs need a drawn arrival process, not a trace")
        return
    dist = life["distribution"]
    needs = {"exponential": ["mean"], "fixed": ["mean"], "pareto": ["min", "max"], "programs": []}[dist]
    par = w["parallel"]
    if (par["tasks"] or par["sizes"]) and par["pattern"] == "bsp":
        needs = []                      # a bulk-synchronous task's work is its iterations' granularity
    for name in needs:
        if life[name] is None:
            raise ScenarioError(f"{where}lifetime.{name}': missing (needed by distribution = {dist!r})")
    if dist == "pareto" and life["max"] <= life["min"]:
        raise ScenarioError(f"{where}lifetime.max': expected more than lifetime.min")
    if dist == "programs" and not w["programs"]:
        raise ScenarioError(f"{where}programs': missing (needed by distribution = 'programs')")
    if sum(v["share"] for v in w["variants"]) > 1:
        raise ScenarioError(f"{where}variants': expected shares summing to at most 1, got "
                            f"{sum(v['share'] for v in w['variants']):g}")
    if w["io"]["read_fraction"] > 1:
        raise ScenarioError(f"{where}io.read_fraction': expected a fraction from 0 to 1")
    if w["memory"]["max"] is not None and w["memory"]["max"] < w["memory"]["demand"]:
        raise ScenarioError(f"{where}memory.max': expected at least memory.demand ({w['memory']['demand']:,.0f} "
                            f"bytes), got {w['memory']['max']:,.0f} bytes")
    for name in ("working_set", "working_set_sd"):
        if w["memory"][name] > 1:
            raise ScenarioError(f"{where}memory.{name}': expected a fraction of the job's memory, at most 1")
    sizes = par["sizes"]
    if sizes is not None and (not isinstance(sizes, list) or not sizes or not all(
            isinstance(k, int) and not isinstance(k, bool) and 1 <= k <= nodes for k in sizes)):
        raise ScenarioError(f"{where}parallel.sizes': expected a list of task counts from 1 to {nodes} (the "
                            f"nodes), got {sizes!r}")
    if sizes is not None and par["nodes"] is not None:
        raise ScenarioError(f"{where}parallel.nodes': the tasks of jobs of several sizes (parallel.sizes) run on "
                            f"nodes 0..k-1 or where the policy maps them, not on a list")
    if par["pattern"] != "bsp" and not (par["tasks"] or sizes):
        raise ScenarioError(f"{where}parallel.pattern': {par['pattern']!r} needs parallel.tasks or parallel.sizes")
    if (par["message_rate"] or par["message_sd"]) and par["pattern"] != "master":
        raise ScenarioError(f"{where}parallel.message_rate': Poisson messages of Gamma sizes need parallel.pattern "
                            f"= 'master' (this stream's is {par['pattern']!r})")
    if par["nodes"] is None and par["tasks"] > nodes:
        raise ScenarioError(f"{where}parallel.tasks': expected at most {nodes} (one task per node), got "
                            f"{par['tasks']}")
    if par["nodes"] is not None and (len(par["nodes"]) != par["tasks"] or not all(
            isinstance(x, int) and not isinstance(x, bool) and 0 <= x < nodes for x in par["nodes"])):
        raise ScenarioError(f"{where}parallel.nodes': expected {par['tasks']} node ids from 0 to {nodes - 1} "
                            f"(one per task), got {par['nodes']!r}")


def check_owner(path: str, base: Path, o: dict, nodes: int) -> None:
    if o["nodes"] is not None and o["nodes"] > nodes:
        raise ScenarioError(f"{path}: field 'owner.nodes': expected at most the cluster's {nodes} workstations, "
                            f"got {o['nodes']}")
    for name in ("utilization", "idle_cpu", "idle_utilization", "keyboard_active", "low_share", "high_share",
                 "nonidle_fraction"):
        if o[name] > 1:
            raise ScenarioError(f"{path}: field 'owner.{name}': expected a fraction from 0 to 1, got {o[name]}")
    if o["low_share"] + o["high_share"] > 1:
        raise ScenarioError(f"{path}: field 'owner.high_share': expected low_share + high_share <= 1")
    if o["nonidle_fraction"] >= 1:
        raise ScenarioError(f"{path}: field 'owner.nonidle_fraction': expected less than 1")
    f = o["nonidle_fraction"]
    if o["nonidle_spread"] ** 2 >= f * (1 - f):
        raise ScenarioError(f"{path}: field 'owner.nonidle_spread': expected a standard deviation under "
                            f"sqrt(f (1 - f)) = {math.sqrt(f * (1 - f)):.3f} for nonidle_fraction f = {f:g}, "
                            f"got {o['nonidle_spread']:g}")
    if o["activity"] == "none":
        return
    if o["activity"] == "trace" and o["trace"] is None:
        raise ScenarioError(f"{path}: field 'owner.trace': missing (needed by activity = 'trace')")
    for name in ("bursts", "trace"):
        if o[name] is not None:
            file = (base / o[name]).resolve()
            if not file.is_file():
                raise ScenarioError(f"{path}: field 'owner.{name}': cannot read file {str(file)!r}")
            o[name] = str(file)
    if o["bursts"] is None:
        o["bursts"] = str(BURSTS)
    read_bursts(o["bursts"])                               # the data files are checked before anything starts
    if o["activity"] == "trace":
        read_activity(o["trace"])



def check_pieces(path: str, scenario: dict) -> None:
    """Pieces that need each other: a buffer cache needs memory left beside it, paper 001's page-level memory and
    run-queue insertion policy need the quantum CPU (they act at each dispatch), a CPU held through remote faults
    (paper 002) the fluid one, and tasks that the policy maps need a policy that maps them."""
    import policies
    maps_tasks = policies.load(scenario["policy"]["name"]).maps_tasks
    quantum = scenario["cpu"]["mode"] == "quantum"
    if scenario["memory"]["remote_fault"] == "holds_cpu" and quantum:
        raise ScenarioError(f"{path}: field 'memory.remote_fault': 'holds_cpu' needs cpu.mode = 'fluid' (the "
                            "quantum CPU has no held state)")
    if scenario["memory"]["fault_model"] == "pages" and not quantum:
        raise ScenarioError(f"{path}: field 'memory.fault_model': 'pages' needs cpu.mode = 'quantum' (a page "
                            f"reference at each dispatch)")
    if scenario["cpu"]["insertion"] is not None and not quantum:
        raise ScenarioError(f"{path}: field 'cpu.insertion': needs cpu.mode = 'quantum' (a run queue)")
    buffer, kinds = scenario["disk"]["buffer_cache"], scenario["cluster"]["kinds"] or [scenario["cluster"]]
    smallest = min(kind["memory"] for kind in kinds)
    if buffer >= smallest:      # it comes out of the node's memory: none would be left to the jobs
        raise ScenarioError(f"{path}: field 'disk.buffer_cache': expected less than the smallest node's memory "
                            f"({smallest:,.0f} bytes), got {buffer:,.0f}")
    if not any(w["jobs"] for w in scenario["workload"]):
        raise ScenarioError(f"{path}: field 'workload.jobs': expected at least one job in some stream, got none")
    for i, w in enumerate(scenario["workload"]):
        if w["parallel"]["mapping"] == "policy" and not maps_tasks:
            raise ScenarioError(f"{path}: field 'workload[{i}].parallel.mapping': 'policy' needs a policy that "
                                f"maps a parallel job's tasks (such as least_mem), not {scenario['policy']['name']!r}")

"""Scenario files: TOML (read with the standard library), checked whole before anything starts.

A scenario describes the platform (cluster, CPU, memory, disk, network, load index), the workload, the policy
and the run (runtime, speed, seeds, stop condition). Quantities may be written as the papers write them
("10 ms", "384 MB", "10 Mbps") and are parsed once into SI. Every error is one line naming the file, the field
and what was expected.

Here a scenario is read: the file with the files it `extends`, the `--set` overrides, then its fields against
the schema (`emu.inputs.schema`) and what the schema cannot say (`emu.inputs.checks`; the cluster's, the CPU's
and the seeds' few such checks are in `load`); and each workstation's spec is taken from it (`node_specs`).
`load()` returns a plain nested dict (JSON-able: it is sent to actors and written to summary.json). See
docs/scenarios.md for the full reference.
"""
from __future__ import annotations

import tomllib
from pathlib import Path

from emu.inputs import SCENARIOS
from emu.inputs.checks import check_name, check_owner, check_pieces, check_policy, check_workload
from emu.inputs.errors import ScenarioError
from emu.inputs.schema import MAX_NODES, NODE, SCHEMA, check_table


QUICKSTART = SCENARIOS / "quickstart.toml"


def _read(path: str, chain: tuple = ()) -> dict:
    """The raw TOML of a scenario file, with the files it `extends` (a path relative to it, or a list of them,
    merged in order) merged under it: tables merge key by key, any other value (arrays and arrays of tables
    included) replaces the base's, a table of indices (`[workload.1.io]`) merges into those tables of the base's
    array, and a policy table naming another policy replaces the base's whole. Relative data-file paths are read
    from the folder of the file that is loaded, not of the one extended. A file named `*.part.toml` is such a base only
    (a platform shared by several scenarios), not a scenario of its own."""
    try:
        with open(path, "rb") as fh:
            raw = tomllib.load(fh)
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read the scenario file ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(f"{path}: not valid TOML ({exc})") from None
    except UnicodeDecodeError:
        raise ScenarioError(f"{path}: not a UTF-8 text file") from None
    bases = raw.pop("extends", [])
    bases = [bases] if isinstance(bases, str) else bases
    if not isinstance(bases, list) or not all(isinstance(b, str) for b in bases):
        raise ScenarioError(f"{path}: field 'extends': expected the path of a scenario file or a list of them, "
                            f"got {bases!r}")
    merged: dict = {}
    for base in bases:
        full = str((Path(path).parent / base).resolve())
        if full in chain:
            raise ScenarioError(f"{path}: field 'extends': {base!r} extends this file again (a cycle)")
        if not Path(full).is_file():
            raise ScenarioError(f"{path}: field 'extends': cannot read file {full!r}")
        merged = _merge(path, merged, _read(full, chain + (str(Path(path).resolve()),)))
    return _merge(path, merged, raw)


def _merge(path: str, base: dict, top: dict, where: str = "") -> dict:
    out = dict(base)
    for key, value in top.items():
        old = out.get(key)
        if isinstance(old, dict) and isinstance(value, dict):
            renamed = key == "policy" and value.get("name", old.get("name")) != old.get("name")
            value = value if renamed else _merge(path, old, value, f"{where}{key}.")
        elif isinstance(old, list) and isinstance(value, dict) and value and all(k.isdigit() for k in value):
            # `[workload.1.io]` over a base's array of streams: that stream's fields, as `--set workload.1...`
            for k in value:
                if int(k) >= len(old) or not isinstance(old[int(k)], dict):
                    raise ScenarioError(f"{path}: field '{where}{key}.{k}': expected the index of one of the "
                                        f"{len(old)} tables of the extended file's '{where}{key}'")
            value = [_merge(path, item, value.get(str(i), {}), f"{where}{key}.{i}.") for i, item in enumerate(old)]
        out[key] = value
    return out


def load(source, overrides: list[str] = ()) -> dict:
    """Read (with the file it extends), override (`key.path=value`) and check a scenario file; return the
    normalized scenario."""
    path = str(source)
    raw = _read(path)
    for item in overrides:
        apply_override(path, raw, item)
    scenario = check_table(path, "", SCHEMA, raw)
    scenario["policy"] = check_policy(path, raw["policy"] if isinstance(raw["policy"], dict) else {})
    cluster = scenario["cluster"]
    counted = sum(k["count"] for k in cluster["kinds"])
    if cluster["nodes"] is None and not cluster["kinds"]:
        raise ScenarioError(f"{path}: field 'cluster.nodes': expected a node count or a list of [[cluster.kinds]]")
    if cluster["kinds"] and cluster["nodes"] not in (None, counted):     # both: the count, checked
        raise ScenarioError(f"{path}: field 'cluster.nodes': expected the kinds' {counted} workstations in all "
                            f"(or no count beside [[cluster.kinds]]), got {cluster['nodes']}")
    if counted > MAX_NODES:
        raise ScenarioError(f"{path}: field 'cluster.kinds': expected at most {MAX_NODES:,} workstations in all, "
                            f"got {counted:,}")
    check_name(path, scenario["name"])
    if scenario["cpu"]["insertion"] is not None:
        scenario["cpu"]["insertion"] = check_policy(path, scenario["cpu"]["insertion"], "cpu.insertion", "INSERTION")
    if scenario["seeds"] is None:
        scenario["seeds"] = [scenario["seed"]]
    elif not isinstance(scenario["seeds"], list) or not scenario["seeds"] or not all(
            isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in scenario["seeds"]):
        raise ScenarioError(f"{path}: field 'seeds': expected a list of non-negative whole numbers")
    n_nodes = len(node_specs(scenario))
    for i, w in enumerate(scenario["workload"]):
        check_workload(path, Path(path).parent, i, w, n_nodes)
        if w["closed"] and scenario["stop"]["when"] == "all_done":
            raise ScenarioError(f"{path}: field 'workload[{i}].closed': a closed stream never runs out of jobs; it "
                                f"needs stop.when = 'time'")
    check_owner(path, Path(path).parent, scenario["owner"], n_nodes)
    check_pieces(path, scenario)
    rates(path, raw, scenario)
    scenario["file"] = path
    return scenario


def rates(path: str, raw: dict, scenario: dict) -> None:
    """A fault, I/O or message rate given per million instructions ("1 /MI", the unit of paper 003's Eq. 3.3 and of the
    measurements it cites) becomes one per CPU-second of a speed-1.0 CPU with `cpu.mips`;
    `memory.faults_per_mi` keeps the fault rate as given (None: it was given per CPU-second). A workstation
    of another speed executes its CPU-seconds' instructions faster or slower, and so faults in proportion.
    A workload variant's fault rate is a multiple of the node's (`emu.inputs.workload`), which must not be 0."""
    memory = scenario["memory"]
    given = raw.get("memory", {}).get("fault_rate")
    memory["faults_per_mi"] = None
    if _per_mi(path, scenario, "memory.fault_rate", given):
        memory["faults_per_mi"] = memory["fault_rate"] * 1e6
        memory["fault_rate"] = memory["faults_per_mi"] * scenario["cpu"]["mips"]
    streams = raw.get("workload", [])
    for i, stream in enumerate([streams] if isinstance(streams, dict) else streams):
        w = scenario["workload"][i]
        for key in ("rate", "rate_max"):
            if _per_mi(path, scenario, f"workload[{i}].io.{key}", stream.get("io", {}).get(key)):
                w["io"][key] *= 1e6 * scenario["cpu"]["mips"]
        if _per_mi(path, scenario, f"workload[{i}].parallel.message_rate",
                   stream.get("parallel", {}).get("message_rate")):
            w["parallel"]["message_rate"] *= 1e6 * scenario["cpu"]["mips"]
        for k, (v, given) in enumerate(zip(w["variants"], stream.get("variants", []))):
            for key in ("io_rate", "fault_rate"):
                if _per_mi(path, scenario, f"workload[{i}].variants[{k}].{key}", given.get(key)):
                    v[key] *= 1e6 * scenario["cpu"]["mips"]
            if v["fault_rate"] is not None and not memory["fault_rate"] > 0:
                raise ScenarioError(f"{path}: field 'workload[{i}].variants[{k}].fault_rate': scales "
                                    f"memory.fault_rate, which is 0")


def _per_mi(path: str, scenario: dict, field: str, given) -> bool:
    """Whether `given` (as written) is a rate per MI; one that is needs cpu.mips."""
    if not (isinstance(given, str) and given.strip().endswith("/MI")):
        return False
    if scenario["cpu"]["mips"] is None:
        raise ScenarioError(f"{path}: field '{field}': a rate per MI ({given!r}) needs cpu.mips, the millions of "
                            f"instructions a speed-1.0 CPU executes per second")
    return True


def apply_override(path: str, raw: dict, item: str) -> None:
    """`--set cpu.mode=quantum`: the value is read as TOML when it can be (numbers, booleans, arrays) and
    as a plain string otherwise. `policy=name` replaces the whole policy table by that policy with its
    default parameters (set them after it: `policy=random policy.threshold=3`)."""
    key, sep, text = item.partition("=")
    if not sep or not key:
        raise ScenarioError(f"--set {item!r}: expected key=value, e.g. cpu.mode=quantum")
    try:
        value = tomllib.loads(f"v = {text}")["v"]
    except tomllib.TOMLDecodeError:
        value = text
    parts = key.split(".")
    if parts == ["policy"]:
        raw["policy"] = {"name": value}
        return
    node = raw
    for i, part in enumerate(parts[:-1]):
        if isinstance(node, list):                          # a stream named by its index: workload.1.jobs
            if not part.isdigit() or int(part) >= len(node):
                raise ScenarioError(f"{path}: --set {item!r}: expected a stream index from 0 to {len(node) - 1} "
                                    f"after '{parts[i - 1]}', got {part!r}")
            node = node[int(part)]
            continue
        child = node.setdefault(part, {})
        if isinstance(child, list) and not parts[i + 1].isdigit():
            if len(child) != 1:
                raise ScenarioError(f"{path}: --set {item!r}: field '{part}' holds {len(child)} streams: name one "
                                    f"by its index, as in {part}.0.{'.'.join(parts[i + 1:])}")
            child = child[0]                                # a single [[workload]] stream
        if not isinstance(child, (dict, list)):
            raise ScenarioError(f"{path}: --set {item!r}: field '{part}' is not a table")
        node = child
    if isinstance(node, list):
        raise ScenarioError(f"{path}: --set {item!r}: field '{parts[-2]}' is a list of streams, not a field")
    node[parts[-1]] = value


def node_specs(scenario: dict) -> list[dict]:
    """One spec per workstation: its kind's speed, memory, swap and disk, and the shared platform settings."""
    cluster = scenario["cluster"]
    kinds = cluster["kinds"] or [{"count": cluster["nodes"], "name": "", "disk": {}, **{k: cluster[k] for k in NODE}}]
    shared = {"cpu": scenario["cpu"], "memory": scenario["memory"],
              "network": scenario["network"], "report_period": scenario["load_index"]["period"],
              "gossip_fanout": scenario["load_index"]["fanout"]}
    specs = []
    for kind in kinds:
        own = {k: v for k, v in kind["disk"].items() if v is not None}
        disk = {**scenario["disk"], **own} if own else scenario["disk"]
        for _ in range(kind["count"]):
            specs.append({"speed": kind["speed"], "memory_size": kind["memory"], "swap": kind["swap"],
                          "kind": kind["name"], "report_phase": 0.0, "disk": disk, **shared})
    if scenario["load_index"]["stagger"]:
        for i, spec in enumerate(specs):
            spec["report_phase"] = i * shared["report_period"] / len(specs)
    return specs


def heterogeneity(specs: list[dict]) -> dict:
    """The heterogeneity level of each resource (paper 003, Eqs. 5.2-5.5): the population standard deviation
    of the nodes' weights, a weight being a node's capability over the best in the cluster: CPU speed, memory,
    and for the disk its bandwidth, the weight under which Eq. 5.3's values are Table 5.4's (Eq. 5.1's disk
    performance would put System C at 0.20, not the table's 0.25)."""
    def level(values: list[float]) -> float:
        weights = [v / max(values) for v in values]
        mean = sum(weights) / len(weights)
        return (sum((w - mean) ** 2 for w in weights) / len(weights)) ** 0.5
    return {"cpu": level([s["speed"] for s in specs]), "memory": level([s["memory_size"] for s in specs]),
            "disk": level([s["disk"]["bandwidth"] for s in specs])}

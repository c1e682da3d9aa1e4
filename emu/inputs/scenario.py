"""Scenario files: TOML (read with the standard library), checked whole before anything starts.

A scenario describes the platform (cluster, CPU, memory, disk, network, load index), the workload, the policy
and the run (runtime, speed, seeds, stop condition). Quantities may be written as the papers write them
("10 ms", "384 MB", "10 Mbps") and are parsed once here into SI. Unknown fields are errors (a typo must not
silently fall back to a default). Every error is one line naming the file, the field and what was expected.

`load()` returns a plain nested dict (JSON-able: it is sent to actors and written to summary.json). The
defaults below are the core's; each paper's scenarios name the values they rely on, with their source.
See docs/scenarios.md for the full reference.
"""
from __future__ import annotations

import math
import tomllib
from pathlib import Path

from emu.inputs import units
from emu.inputs.errors import ScenarioError
from emu.inputs.owner_data import read_activity, read_bursts


SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"    # the scenarios shipped with nowemu
QUICKSTART = SCENARIOS / "quickstart.toml"
BURSTS = SCENARIOS / "data" / "bursts.csv"                           # the owners' fine level (paper 004)


class F:
    """A field: its kind (a unit kind, or int/number/bool/str/list/table), default, and constraints."""

    def __init__(self, kind, default=None, required=False, choices=None, minimum=None, positive=False, schema=None):
        self.kind, self.default, self.required = kind, default, required
        self.choices, self.minimum, self.positive, self.schema = choices, minimum, positive, schema


NODE = {
    "speed": F("speed", 1.0, positive=True),
    "memory": F("size", "1 GB", positive=True),
    "swap": F("size", "1 GB", minimum=0),
}
KIND = {"count": F("int", required=True, minimum=1), "name": F("str", ""), **NODE}
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
WORKLOAD = {
    "name": F("str", ""),
    "jobs": F("int", required=True, minimum=1),
    "class": F("str", "local", choices=("local", "foreign")),
    "home": F("str", "uniform", choices=("uniform", "round_robin", "trace")),
    "arrival": F("table", schema={
        "process": F("str", "poisson", choices=("poisson", "lognormal", "trace")),
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
        "ramp_steps": F("int", 4, minimum=1),
        "phases": F("int", 1, minimum=1),
    }),
    "io": F("table", schema={
        "rate": F("rate", 0.0, minimum=0),
        "size": F("size", "64 KB", minimum=0),
        "read_fraction": F("number", 1.0, minimum=0),
    }),
    "programs": F("list", [], schema=PROGRAM),
    "closed": F("bool", False),
    # a share of the stream's jobs that may not leave their home node, not even by remote execution (paper
    # 002's "type 1" traces); drawn per job from the scenario seed on a stream of its own, so a type-1 and a
    # type-2 trace hold the same jobs
    "nonmigratable": F("number", 0.0, minimum=0),
    "parallel": F("table", schema={       # bulk-synchronous parallel jobs (paper 004 §7); see emu/inputs/workload.py
        "tasks": F("int", 0, minimum=0),
        "granularity": F("work", "100 ms", positive=True),
        "iterations": F("int", 100, minimum=1),
        "barrier": F("bool", True),
        "message": F("size", "1 KB", minimum=0),
        "nodes": F("list", None),
    }),
}
SCHEMA = {
    "name": F("str", required=True),
    "description": F("str", ""),
    "seed": F("int", 1, minimum=0),
    "seeds": F("list", None),
    "runtime": F("str", "paced", choices=("paced", "stepped", "inline")),
    "speed": F("number", 10.0, positive=True),
    "cluster": F("table", schema={"nodes": F("int", None, minimum=1), "kinds": F("list", [], schema=KIND), **NODE}),
    "cpu": F("table", schema={
        "mode": F("str", "fluid", choices=("fluid", "quantum")),
        "time_slice": F("time", "10 ms", positive=True),
        "context_switch": F("time", "0.1 ms", minimum=0),
        "insertion": F("str", None),
    }),
    "memory": F("table", schema={
        "page_size": F("size", "4 KB", positive=True),
        "fault_model": F("str", "overflow", choices=("overflow", "demand_ratio")),
        "fault_rate": F("rate", 0.0, minimum=0),
        "fault_batch": F("int", 1, minimum=1),
    }),
    "disk": F("table", schema={
        "seek": F("time", "8 ms", minimum=0),
        "rotation": F("time", "4 ms", minimum=0),
        "bandwidth": F("bandwidth", "40 MB/s", positive=True),
        "buffer_cache": F("size", 0, minimum=0),
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
        "period": F("time", "1 s", positive=True),
        "exchange": F("str", "collector", choices=("collector", "gossip")),
        "fanout": F("int", 3, minimum=1),
        # each node reports at its own phase within the period (node i at i/N of it) instead of all at once:
        # for paced runs, where N reports in one instant queue N Ray calls on the cores
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
    if f.minimum is not None and value < f.minimum:
        raise ScenarioError(f"{where}: expected at least {f.minimum}, got {raw!r}")
    return value


def _table(path: str, prefix: str, schema: dict, raw) -> dict:
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
                out[key] = _table(path, f"{prefix}{key}.", f.schema, {})
            elif f.kind == "list" and f.schema:
                out[key] = []
            else:
                out[key] = None if f.default is None else _value(where, f, f.default)
            continue
        value = raw[key]
        if f.kind == "table":
            out[key] = _table(path, f"{prefix}{key}.", f.schema, value) if f.schema else value
            if not isinstance(value, dict):
                raise ScenarioError(f"{where}: expected a table, got {value!r}")
        elif f.kind == "list":
            items = [value] if isinstance(value, dict) and f.schema else value
            if not isinstance(items, list):
                raise ScenarioError(f"{where}: expected a list, got {value!r}")
            out[key] = [_table(path, f"{prefix}{key}[{i}].", f.schema, v) for i, v in enumerate(items)] \
                if f.schema else items
        else:
            out[key] = _value(where, f, value)
    return out


def _policy(path: str, raw: dict, section: str = "policy") -> dict:
    import policies
    name = raw.get("name")
    if not isinstance(name, str):
        raise ScenarioError(f"{path}: field '{section}.name': expected the name of a policy "
                            f"({', '.join(policies.available())}), got {name!r}")
    try:
        cls = policies.load(name)
    except KeyError as exc:
        raise ScenarioError(f"{path}: field '{section}.name': {exc.args[0]}") from None
    schema = {"name": F("str")}
    for param, (kind, default, _) in cls.PARAMS.items():
        schema[param] = F(kind, default)
    return _table(path, f"{section}.", schema, raw)


def _check_workload(path: str, base: Path, i: int, w: dict, nodes: int) -> None:
    where = f"{path}: field 'workload[{i}]."
    arrival, life = w["arrival"], w["lifetime"]
    needs = {"poisson": ["mean_interarrival"], "lognormal": ["span"], "trace": ["file"]}[arrival["process"]]
    for name in needs:
        if arrival[name] is None:
            raise ScenarioError(f"{where}arrival.{name}': missing (needed by process = {arrival['process']!r})")
    if arrival["process"] == "trace":
        file = (base / arrival["file"]).resolve()
        if not file.is_file():
            raise ScenarioError(f"{where}arrival.file': cannot read trace file {str(file)!r}")
        arrival["file"] = str(file)
        if w["parallel"]["tasks"]:
            raise ScenarioError(f"{where}parallel.tasks': parallel jobs need a drawn arrival process, not a trace")
        return
    dist = life["distribution"]
    needs = {"exponential": ["mean"], "fixed": ["mean"], "pareto": ["min", "max"], "programs": []}[dist]
    if w["parallel"]["tasks"]:
        needs = []                      # a parallel task's work is its iterations' granularity
    for name in needs:
        if life[name] is None:
            raise ScenarioError(f"{where}lifetime.{name}': missing (needed by distribution = {dist!r})")
    if dist == "pareto" and life["max"] <= life["min"]:
        raise ScenarioError(f"{where}lifetime.max': expected more than lifetime.min")
    if dist == "programs" and not w["programs"]:
        raise ScenarioError(f"{where}programs': missing (needed by distribution = 'programs')")
    if w["io"]["read_fraction"] > 1:
        raise ScenarioError(f"{where}io.read_fraction': expected a fraction from 0 to 1")
    par = w["parallel"]
    if par["nodes"] is not None and (len(par["nodes"]) != par["tasks"] or not all(
            isinstance(x, int) and not isinstance(x, bool) and 0 <= x < nodes for x in par["nodes"])):
        raise ScenarioError(f"{where}parallel.nodes': expected {par['tasks']} node ids from 0 to {nodes - 1} "
                            f"(one per task), got {par['nodes']!r}")


def _check_owner(path: str, base: Path, o: dict) -> None:
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


def _read(path: str, chain: tuple = ()) -> dict:
    """The raw TOML of a scenario file, with the files it `extends` (a path relative to it, or a list of them,
    merged in order) merged under it: tables merge key by key, any other value (arrays and arrays of tables included) replaces the base's, and a
    policy table naming another policy replaces the base's whole. Relative data-file paths are read from the
    folder of the file that is loaded, not of the one extended. A file named `*.part.toml` is such a base only
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
        merged = _merge(merged, _read(full, chain + (str(Path(path).resolve()),)))
    return _merge(merged, raw)


def _merge(base: dict, top: dict) -> dict:
    out = dict(base)
    for key, value in top.items():
        old = out.get(key)
        if isinstance(old, dict) and isinstance(value, dict):
            renamed = key == "policy" and value.get("name", old.get("name")) != old.get("name")
            value = value if renamed else _merge(old, value)
        out[key] = value
    return out


def load(source, overrides: list[str] = ()) -> dict:
    """Read (with the file it extends), override (`key.path=value`) and check a scenario file; return the
    normalized scenario."""
    path = str(source)
    raw = _read(path)
    for item in overrides:
        apply_override(path, raw, item)
    scenario = _table(path, "", SCHEMA, raw)
    scenario["policy"] = _policy(path, raw["policy"] if isinstance(raw["policy"], dict) else {})
    cluster = scenario["cluster"]
    if (cluster["nodes"] is None) == (not cluster["kinds"]):
        raise ScenarioError(f"{path}: field 'cluster.nodes': expected either a node count or a list of "
                            f"[[cluster.kinds]], and not both")
    if scenario["cpu"]["insertion"] is not None:
        import policies
        try:
            policies.load(scenario["cpu"]["insertion"], "INSERTION")
        except KeyError as exc:
            raise ScenarioError(f"{path}: field 'cpu.insertion': {exc.args[0]}") from None
    if scenario["seeds"] is None:
        scenario["seeds"] = [scenario["seed"]]
    elif not isinstance(scenario["seeds"], list) or not scenario["seeds"] or not all(
            isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in scenario["seeds"]):
        raise ScenarioError(f"{path}: field 'seeds': expected a list of non-negative whole numbers")
    n_nodes = len(node_specs(scenario))
    for i, w in enumerate(scenario["workload"]):
        _check_workload(path, Path(path).parent, i, w, n_nodes)
    _check_owner(path, Path(path).parent, scenario["owner"])
    scenario["file"] = path
    return scenario


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
    for part in parts[:-1]:
        child = node.setdefault(part, {})
        if isinstance(child, list) and len(child) == 1:      # a single [[workload]] stream
            child = child[0]
        if not isinstance(child, dict):
            raise ScenarioError(f"{path}: --set {item!r}: field '{part}' is not a table")
        node = child
    node[parts[-1]] = value


def node_specs(scenario: dict) -> list[dict]:
    """One spec per workstation: its kind's speed, memory and swap, and the shared platform settings."""
    cluster = scenario["cluster"]
    kinds = cluster["kinds"] or [{"count": cluster["nodes"], "name": "", **{k: cluster[k] for k in NODE}}]
    shared = {"cpu": scenario["cpu"], "memory": scenario["memory"], "disk": scenario["disk"],
              "network": scenario["network"], "report_period": scenario["load_index"]["period"],
              "gossip_fanout": scenario["load_index"]["fanout"]}
    specs = []
    for kind in kinds:
        for _ in range(kind["count"]):
            specs.append({"speed": kind["speed"], "memory_size": kind["memory"], "swap": kind["swap"],
                          "kind": kind["name"], "report_phase": 0.0, **shared})
    if scenario["load_index"]["stagger"]:
        for i, spec in enumerate(specs):
            spec["report_phase"] = i * shared["report_period"] / len(specs)
    return specs

"""Bad input: a malformed scenario is refused with one line naming the file and the field, by the loader and
by `nowemu run` (exit status 2, no traceback, no results folder)."""
import subprocess
import sys

import policies
import pytest

from emu.engine import cluster
from emu.inputs import scenario
from emu.inputs.scenario import ScenarioError
from emu.tools import cli

# A minimal valid scenario, modelled on scenarios/quickstart.toml; each case below breaks one thing in it.
BASE = '''\
name = "mini"
description = "the smallest scenario the bad-input tests break"
runtime = "inline"
seed = 3

[cluster]
nodes = 2
memory = "512 MB"
swap = "512 MB"

[cpu]
mode = "fluid"
time_slice = "10 ms"

[disk]
bandwidth = "40 MB/s"

[network]
bandwidth = "100 Mbps"
latency = "0.1 ms"

[policy]
name = "cpu_threshold"
threshold = 2
migrate = true

[workload]
jobs = 5
home = "uniform"
arrival = { process = "poisson", mean_interarrival = "1 s" }
lifetime = { distribution = "pareto", alpha = 1.0, min = "1 s", max = "10 s" }
memory = { demand = "16 MB" }
'''

POLICY = '[policy]\nname = "cpu_threshold"\nthreshold = 2\nmigrate = true\n'
WORKLOAD = BASE[BASE.index("[workload]"):]
ARRIVAL = 'arrival = { process = "poisson", mean_interarrival = "1 s" }'
LIFETIME = 'lifetime = { distribution = "pareto", alpha = 1.0, min = "1 s", max = "10 s" }'
TRACE_ARRIVAL = 'arrival = { process = "trace", file = "jobs.csv" }'


class Case:
    """`edits`: (old, new) replacements in BASE; `trace`: the text of jobs.csv beside the scenario, if any;
    `fields`: what the message must name besides the file (the file named is the trace, with `in_trace`);
    `stage`: 'load' when emu.inputs.scenario.load itself must refuse the file, 'blueprints' when the error is in a
    trace's contents, which are read when the workload is drawn (emu.engine.cluster.blueprints), not by load."""

    def __init__(self, edits, fields, trace=None, in_trace=False, stage="load", raw=None, cli="run"):
        self.edits, self.fields, self.trace, self.in_trace = edits, fields, trace, in_trace
        self.stage, self.raw, self.cli = stage, raw, cli


CASES = {
    "missing policy": Case([(POLICY, "")], ["'policy'", "missing"]),
    "missing workload": Case([(WORKLOAD, "")], ["'workload'", "missing"]),
    "missing workload.jobs": Case([("jobs = 5\n", "")], ["'workload[0].jobs'", "missing"]),
    "missing name": Case([('name = "mini"\n', "")], ["'name'", "missing"]),
    "missing policy.name": Case([('name = "cpu_threshold"\n', "")], ["'policy.name'", "cpu_threshold"]),
    "wrong unit": Case([('memory = "512 MB"', 'memory = "384 parsecs"')], ["'cluster.memory'", "parsecs", "size"]),
    "fault rate per MI without cpu.mips": Case([('[disk]', '[memory]\nfault_rate = "1 /MI"\n\n[disk]')],
                                               ["'memory.fault_rate'", "cpu.mips"]),
    "variant shares above 1": Case([('memory = { demand = "16 MB" }', 'memory = { demand = "16 MB" }\n'
                                     'variants = [{ share = 0.7 }, { share = 0.5 }]')],
                                   ["'workload[0].variants'", "at most 1"]),
    "variant fault rate over no node rate": Case(
        [('[disk]', '[memory]\nfault_rate = "0 /s"\n\n[disk]'),
         ('memory = { demand = "16 MB" }', 'memory = { demand = "16 MB" }\nvariants = [{ share = 0.1, fault_rate = "9 /s" }]')],
        ["'workload[0].variants[0].fault_rate'", "memory.fault_rate"]),
    "unit of the wrong kind": Case([('time_slice = "10 ms"', 'time_slice = "10 MB"')], ["'cpu.time_slice'", "time"]),
    "negative size": Case([('swap = "512 MB"', 'swap = "-512 MB"')], ["'cluster.swap'", "at least 0"]),
    "negative memory": Case([('memory = "512 MB"', 'memory = "-1 GB"')], ["'cluster.memory'", "positive"]),
    "zero bandwidth": Case([('bandwidth = "100 Mbps"', 'bandwidth = "0 Mbps"')], ["'network.bandwidth'", "positive"]),
    "negative bandwidth": Case([('bandwidth = "40 MB/s"', 'bandwidth = "-40 MB/s"')],
                               ["'disk.bandwidth'", "positive"]),
    "unknown policy": Case([('name = "cpu_threshold"', 'name = "cpu_treshold"')],
                           ["'policy.name'", "cpu_treshold", *policies.available()]),
    "unknown policy parameter": Case([("threshold = 2\n", "threshold = 2\nthreshhold = 3\n")],
                                     ["'policy.threshhold'", "unknown field", "threshold"]),
    "wrong type for a policy parameter": Case([("threshold = 2", 'threshold = "2"')],
                                              ["'policy.threshold'", "whole number"]),
    "unknown top-level field": Case([("seed = 3", "sed = 3")], ["'sed'", "unknown field", "seed"]),
    "unknown field in a table": Case([('mode = "fluid"', 'mode = "fluid"\nslice = "10 ms"')],
                                     ["'cpu.slice'", "unknown field", "time_slice"]),
    "string for an int": Case([("jobs = 5", 'jobs = "5"')], ["'workload[0].jobs'", "whole number"]),
    "float for an int": Case([("nodes = 2", "nodes = 2.5")], ["'cluster.nodes'", "whole number"]),
    "choice not allowed": Case([('mode = "fluid"', 'mode = "turbo"')], ["'cpu.mode'", "turbo", "'fluid'", "'quantum'"]),
    "a table given as a string": Case([(ARRIVAL, 'arrival = "poisson"')], ["'workload[0].arrival'", "table"]),
    "poisson without mean_interarrival": Case([(ARRIVAL, 'arrival = { process = "poisson" }')],
                                              ["'workload[0].arrival.mean_interarrival'", "missing", "poisson"]),
    "pareto with max equal to min": Case([('max = "10 s"', 'max = "1 s"')], ["'workload[0].lifetime.max'"]),
    "pareto with max below min": Case([('max = "10 s"', 'max = "0.5 s"')], ["'workload[0].lifetime.max'"]),
    "pareto without max": Case([(', max = "10 s"', "")], ["'workload[0].lifetime.max'", "missing", "pareto"]),
    "trace file that does not exist": Case([(ARRIVAL, 'arrival = { process = "trace", file = "no_such.csv" }')],
                                           ["'workload[0].arrival.file'", "no_such.csv"]),
    "trace without a work column": Case([(ARRIVAL, TRACE_ARRIVAL)], ["jobs.csv", "line 1", "'work'"],
                                        trace="arrival,memory\n0,16 MB\n1,16 MB\n", in_trace=True, stage="blueprints"),
    "trace with a non-numeric arrival": Case([(ARRIVAL, TRACE_ARRIVAL)], ["jobs.csv", "line 3", "'arrival'", "soon"],
                                             trace="arrival,work\n0,2 s\nsoon,3 s\n", in_trace=True,
                                             stage="blueprints"),
    "trace with a short row": Case([(ARRIVAL, TRACE_ARRIVAL)], ["jobs.csv", "line 4", "columns"],
                                   trace="arrival,work\n0,2\n1,3\n2\n", in_trace=True, stage="blueprints"),
    "trace with a column twice": Case([(ARRIVAL, TRACE_ARRIVAL)], ["jobs.csv", "line 1", "'work'", "twice"],
                                      trace="arrival,work,work\n0,2,3\n", in_trace=True, stage="blueprints"),
    "trace out of arrival order": Case([(ARRIVAL, TRACE_ARRIVAL)], ["jobs.csv", "line 3", "'arrival'", "order"],
                                       trace="arrival,work\n5,2\n1,3\n", in_trace=True, stage="blueprints"),
    "invalid TOML": Case([("nodes = 2", "nodes = = 2")], ["not valid TOML", "line 7"]),
    "cluster.nodes not the kinds' count": Case([("\n[cpu]", '\n[[cluster.kinds]]\ncount = 3\n\n[cpu]')],
                                                ["'cluster.nodes'", "3 workstations", "got 2"]),
    "a cluster kind's disk field unknown": Case([("\n[cpu]", '\n[[cluster.kinds]]\ncount = 2\ndisk = { seeks = "5 ms" }\n\n[cpu]')],
                                                ["'cluster.kinds[0].disk.seeks'", "unknown field"]),
    "neither cluster.nodes nor cluster.kinds": Case([("nodes = 2\n", "")], ["'cluster.nodes'"]),
    "a cluster kind without its count": Case([("nodes = 2\n", ""), ("\n[cpu]", '\n[[cluster.kinds]]\nspeed = 2.0\n\n[cpu]')],
                                             ["'cluster.kinds[0].count'", "missing"]),
    "extends a file that does not exist": Case([("seed = 3\n", 'seed = 3\nextends = "no_such.toml"\n')],
                                               ["'extends'", "no_such.toml"]),
    "extends itself": Case([("seed = 3\n", 'seed = 3\nextends = "bad.toml"\n')], ["'extends'", "cycle"]),
    "extends something not a path": Case([("seed = 3\n", "seed = 3\nextends = 3\n")], ["'extends'", "path"]),
    "unknown network medium": Case([('latency = "0.1 ms"', 'latency = "0.1 ms"\nmedium = "ether"')],
                                   ["'network.medium'", "ether", "'bus'"]),
    # issue 24: a name stays a name (it names the results folder); limits that keep a run finite
    "a name that climbs out of results": Case([('name = "mini"', 'name = "../x"')], ["'name'", "plain name"]),
    "an absolute path for a name": Case([('name = "mini"', 'name = "/tmp/x"')], ["'name'", "plain name"]),
    "an empty name": Case([('name = "mini"', 'name = ""')], ["'name'", "plain name"]),
    "a name of 300 characters": Case([('name = "mini"', f'name = "{"n" * 300}"')], ["'name'", "1 to 100"]),
    "a billion workstations": Case([("nodes = 2", "nodes = 1_000_000_000")], ["'cluster.nodes'", "at most 4,096"]),
    "kinds of more workstations than the limit": Case(
        [("nodes = 2\n", ""), ("\n[cpu]", "\n[[cluster.kinds]]\ncount = 3000\n\n[[cluster.kinds]]\ncount = 3000\n\n[cpu]")],
        ["'cluster.kinds'", "at most 4,096"]),
    "ten million jobs": Case([("jobs = 5", "jobs = 10_000_000")], ["'workload[0].jobs'", "at most 1,000,000"]),
    "a hundred million memory steps": Case([('memory = { demand = "16 MB" }',
                                             'memory = { demand = "16 MB", ramp = 0.1, ramp_steps = 100_000_000 }')],
                                           ["'workload[0].memory.ramp_steps'", "at most 1,000"]),
    "a load-report period of a nanosecond": Case([("\n[policy]\n", '\n[load_index]\nperiod = "1 ns"\n\n[policy]\n')],
                                                 ["'load_index.period'", "at least 1 ms"]),
    "a time slice of a nanosecond": Case([('time_slice = "10 ms"', 'time_slice = "1 ns"')],
                                         ["'cpu.time_slice'", "at least 1 ms"]),
    "more parallel tasks than workstations": Case([('memory = { demand = "16 MB" }', 'memory = { demand = "16 MB" }\n'
                                                   'parallel = { tasks = 16 }')], ["'workload[0].parallel.tasks'", "at most 2"]),
    "a memory max below the demand": Case([('memory = { demand = "16 MB" }', 'memory = { demand = "640 MB", max = "1 MB" }')],
                                          ["'workload[0].memory.max'", "at least memory.demand"]),
    "owners on more workstations than the cluster has": Case(
        [("\n[policy]\n", '\n[owner]\nactivity = "constant"\nutilization = 0.5\nnodes = 5\n\n[policy]\n')],
        ["'owner.nodes'", "at most", "2 workstations"]),
    "a closed stream that stops when all are done": Case([("jobs = 5\n", "jobs = 5\nclosed = true\n")],
                                                         ["'workload[0].closed'", "stop.when = 'time'"]),
    "a negative threshold": Case([("threshold = 2", "threshold = -5")], ["'policy.threshold'", "at least 0"]),
    "a negative reservation timeout": Case([(POLICY, '[policy]\nname = "m_reservation"\ntimeout = "-5 s"\n')],
                                           ["'policy.timeout'", "at least 0"]),
    "reserving among no candidates": Case([(POLICY, '[policy]\nname = "m_reservation"\ncandidates = 0\n')],
                                          ["'policy.candidates'", "at least 1"]),
    "a buffer cache as large as memory": Case([('bandwidth = "40 MB/s"',
                                                'bandwidth = "40 MB/s"\nbuffer_cache = "512 MB"')],
                                              ["'disk.buffer_cache'", "memory"]),
    "a negative pause": Case([(POLICY, '[policy]\nname = "pause_and_migrate"\npause = "-60 s"\n')],
                             ["'policy.pause'", "at least 0"]),
    # bugs these tests found (now fixed)
    "scenario that is not UTF-8": Case([], [], raw=b'name = "mini" # caf\xe9\n'),
    "trace that is not UTF-8": Case([(ARRIVAL, TRACE_ARRIVAL)], ["jobs.csv"], trace=b"arrival,work\n0,2\n\xff\xfe,3\n",
                                    in_trace=True, stage="blueprints"),
    "NaN arrival start": Case([(ARRIVAL, 'arrival = { process = "poisson", mean_interarrival = "1 s", start = nan }')],
                              ["'workload[0].arrival.start'"], cli="validate"),
    "NaN work in a trace": Case([(ARRIVAL, TRACE_ARRIVAL)], ["jobs.csv", "line 2", "work"],
                                trace="arrival,work\n0,nan\n1,3\n", in_trace=True, stage="blueprints", cli="validate"),
}

def params(stage=None):
    out = []
    for name, case in CASES.items():
        if stage is not None and case.stage != stage:
            continue
        out.append(pytest.param(name, id=name.replace(" ", "-")))
    return out


def write(tmp_path, name: str):
    """Write the case's scenario (and trace) into tmp_path; return (scenario path, path the error must name)."""
    case = CASES[name]
    path = tmp_path / "bad.toml"
    if case.raw is not None:
        path.write_bytes(case.raw)
    else:
        text = BASE
        for old, new in case.edits:
            assert text.count(old) == 1, f"the edit {old!r} must match BASE exactly once"
            text = text.replace(old, new)
        path.write_text(text)
    named = path
    if case.trace is not None:
        named = tmp_path / "jobs.csv"
        (named.write_bytes if isinstance(case.trace, bytes) else named.write_text)(case.trace)
    return path, named


def check_message(message: str, named, fields) -> None:
    assert "\n" not in message.strip(), message
    assert str(named) in message, message
    for field in fields:
        assert field in message, f"{field!r} not in {message!r}"


def test_the_base_scenario_is_valid_and_runs(tmp_path):
    path = tmp_path / "ok.toml"
    path.write_text(BASE)
    s = scenario.load(path)
    assert s["name"] == "mini" and len(cluster.blueprints(s)) == 3           # 2 workstations and the collector
    out = tmp_path / "out"
    p = nowemu("run", str(path), "--runtime", "inline", "--no-view", "--out", str(out), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    assert (out / "summary.json").is_file() and "jobs done 5/5" in p.stdout


@pytest.mark.parametrize("name", params())
def test_load_refuses_with_one_line_naming_the_file_and_field(tmp_path, name):
    case = CASES[name]
    path, named = write(tmp_path, name)
    if case.stage == "load":
        with pytest.raises(ScenarioError) as info:
            scenario.load(path)
    else:
        s = scenario.load(path)                      # the trace's contents are read when the workload is drawn
        with pytest.raises(ScenarioError) as info:
            cluster.blueprints(s)
    check_message(str(info.value), named, case.fields)


def nowemu(*args, cwd):
    return subprocess.run([sys.executable, "-m", "emu", *args], capture_output=True, text=True, cwd=cwd, timeout=120)


@pytest.mark.parametrize("name", params())
def test_cli_refuses_with_one_line_and_status_2(tmp_path, monkeypatch, capsys, name):
    """`nowemu`'s own main, in this process (a new Python for each of these cases took most of their time; the
    program's whole path, from its entry, is the bad flags' test below): an exception other than the one line
    fails the test."""
    case = CASES[name]
    path, named = write(tmp_path, name)
    out = tmp_path / "out"
    monkeypatch.chdir(tmp_path)
    if case.cli == "run":
        status = cli.main(["run", str(path), "--runtime", "inline", "--no-view", "--out", str(out)])
    else:       # a case that `run` would accept and then never finish: `validate` makes the same checks, at once
        status = cli.main(["validate", str(path)])
    p = capsys.readouterr()
    assert status == 2, (status, p.out, p.err)
    lines = p.err.splitlines()
    assert len(lines) == 1, p.err
    assert lines[0].startswith("nowemu: error:"), lines[0]
    check_message(lines[0], named, case.fields)
    assert not out.exists()
    assert not (tmp_path / "results").exists()


def test_a_trace_with_a_byte_order_mark_is_read(tmp_path):
    """Spreadsheets save CSV with a UTF-8 byte-order mark: it is not part of the first column's name."""
    path = tmp_path / "bom.toml"
    path.write_text(BASE.replace(ARRIVAL, TRACE_ARRIVAL))
    (tmp_path / "jobs.csv").write_text("\ufeffarrival,work\n0,2 s\n1,3 s\n", encoding="utf-8")
    jobs = [j for bp in cluster.blueprints(scenario.load(path)) for j in bp.get("arrivals", ())]
    assert len(jobs) == 2


@pytest.mark.parametrize("flags, says", [
    (["--speed", "-1"], "--speed"), (["--speed", "0"], "--speed"), (["--speed", "nan"], "--speed"),
    (["--speed", "inf"], "--speed"), (["--out", "afile"], "--out"),
    (["--runtime", "stepped", "--address", "127.0.0.1:1"], "nothing answers"),
    (["--runtime", "stepped", "--address", "ray://127.0.0.1:1"], "nothing answers"),
    (["--runtime", "stepped", "--address", "garbage"], "HOST:PORT"),
], ids=["negative-speed", "zero-speed", "nan-speed", "infinite-speed", "out-is-a-file", "address-closed",
        "client-address-closed", "address-garbage"])
def test_cli_refuses_bad_flags_before_anything_starts(tmp_path, flags, says):
    path = tmp_path / "ok.toml"
    path.write_text(BASE)
    (tmp_path / "afile").write_text("not a folder")
    p = nowemu("run", str(path), "--no-view", *flags, cwd=tmp_path)
    assert p.returncode == 2 and "Traceback" not in p.stderr, p.stderr
    lines = p.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("nowemu: error:") and says in lines[0], p.stderr
    assert not (tmp_path / "results").exists() and (tmp_path / "afile").read_text() == "not a folder"



def test_a_file_that_is_not_a_csv_trace_is_not_printed(tmp_path):
    """A trace that is some other file (a system file named by mistake or on purpose): the error says so
    without printing the file's first line."""
    path = tmp_path / "sys.toml"
    path.write_text(BASE.replace(ARRIVAL, TRACE_ARRIVAL))
    (tmp_path / "jobs.csv").write_text("root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/bin/sh\n")
    with pytest.raises(ScenarioError) as err:
        cluster.blueprints(scenario.load(path))
    message = str(err.value)
    assert "jobs.csv" in message and "missing column 'arrival'" in message and "/bin/bash" not in message

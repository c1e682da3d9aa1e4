"""Quantities as the papers write them, parsed into SI (emu.inputs.units.parse)."""
import pytest

from emu.inputs import SCENARIOS
from emu.inputs.units import UnitError, parse

SCENARIO = SCENARIOS / "p000" / "spec.toml"


@pytest.mark.parametrize("text, seconds", [
    ("10 ms", 0.010),
    ("2.5 s", 2.5),
    ("1 min", 60.0),
    ("2 h", 7200.0),
    ("250 us", 250e-6),
    ("3 sec", 3.0),
    ("10ms", 0.010),             # no space
    ("  4 s  ", 4.0),            # surrounding blanks
    ("1e-3 s", 1e-3),            # exponent
    (".5 s", 0.5),
])
def test_times(text, seconds):
    assert parse(text, "time") == pytest.approx(seconds, rel=1e-15)


@pytest.mark.parametrize("value, expected", [
    (5, 5.0), (2.5, 2.5), (0, 0.0), ("7", 7.0), ("2.5e-3", 2.5e-3), ("-1", -1.0),
])
def test_bare_numbers_are_already_si(value, expected):
    result = parse(value, "time")
    assert result == expected and isinstance(result, float)


@pytest.mark.parametrize("text, size", [
    ("4 KB", 4096),
    ("384 MB", 384 * 2**20),
    ("1 GB", 2**30),
    ("2 TB", 2 * 2**40),
    ("64 KiB", 64 * 1024),
    ("16 B", 16),
    ("1.5 MB", 1.5 * 2**20),
])
def test_sizes_are_binary(text, size):
    assert parse(text, "size") == size


def test_sizes_in_pages_use_the_page_size():
    assert parse("10 pages", "size") == 10 * 4096
    assert parse("10 pages", "size", page_size=8192) == 10 * 8192


@pytest.mark.parametrize("text, bytes_per_second", [
    ("10 Mbps", 1.25e6),              # decimal bits, held in bytes/s
    ("1 Gbps", 1.25e8),
    ("100 Kbps", 12500.0),
    ("160 MB/s", 160 * 2**20),        # bytes/s: binary like sizes
    ("40 MBps", 40 * 2**20),
    ("512 B/s", 512.0),
])
def test_bandwidths(text, bytes_per_second):
    assert parse(text, "bandwidth") == pytest.approx(bytes_per_second, rel=1e-15)


def test_size_over_bandwidth_is_seconds():
    assert parse("10 MB", "size") / parse("160 MB/s", "bandwidth") == pytest.approx(1 / 16)


@pytest.mark.parametrize("value, ops", [("800 MIPS", 8e8), ("2 GIPS", 2e9), ("1.5", 1.5), (1.5, 1.5)])
def test_speeds(value, ops):
    assert parse(value, "speed") == ops


@pytest.mark.parametrize("text, ops", [("1000 MI", 1e9), ("600 s", 600.0), ("2 min", 120.0)])
def test_work(text, ops):
    assert parse(text, "work") == ops


@pytest.mark.parametrize("text, per_second", [("0.5 /s", 0.5), ("0.5/s", 0.5), ("3 Hz", 3.0), ("60 /min", 1.0)])
def test_rates(text, per_second):
    assert parse(text, "rate") == pytest.approx(per_second)


@pytest.mark.parametrize("value, kind, expected", [
    ("12 parsecs", "time", "a time"),
    ("12 parsecs", "size", "a size"),
    ("fast", "speed", "a CPU speed"),
    ("10 ms", "size", "a size"),          # a unit of the wrong kind
    ("4 KB", "time", "a time"),
    ("10 Mbps", "rate", "a rate"),
    ("", "time", "a time"),
    ("ten s", "time", "a time"),
    ("1 2 s", "time", "a time"),
    (True, "time", "a time"),
    (False, "size", "a size"),
    (None, "bandwidth", "a bandwidth"),
    ([10, "ms"], "time", "a time"),
    ({"value": 10}, "work", "an amount of work"),
])
def test_bad_values_say_what_was_expected(value, kind, expected):
    with pytest.raises(UnitError) as info:
        parse(value, kind)
    message = str(info.value)
    assert message.startswith(f"expected {expected}"), message
    assert repr(value) in message                   # and what it got
    assert "\n" not in message


def test_unknown_unit_lists_the_known_ones():
    with pytest.raises(UnitError) as info:
        parse("12 parsecs", "time")
    message = str(info.value)
    assert "'parsecs'" in message and "ms" in message and "min" in message


def test_unit_error_is_a_value_error():
    assert issubclass(UnitError, ValueError)


def test_a_fault_rate_per_million_instructions_is_per_cpu_second_with_the_cpus_mips(tmp_path):
    """Paper 003's unit (its Eq. 3.3, "1 to 10 No./MI in practice"): 1 fault per MI on a CPU of 400 MIPS is 400
    faults per CPU-second; the figure as given is kept; a workstation twice as fast faults twice as often per
    CPU-second (the same faults per instruction)."""
    from emu.engine import cluster
    from emu.inputs import scenario
    base = scenario.load(SCENARIO, ['memory.fault_rate="0.5 /MI"', "cpu.mips=400"])
    assert base["memory"]["fault_rate"] == pytest.approx(200.0) and base["memory"]["faults_per_mi"] == 0.5
    assert scenario.load(SCENARIO, ['memory.fault_rate="200 /s"'])["memory"]["faults_per_mi"] is None
    fast = scenario.load(SCENARIO, ['memory.fault_rate="0.5 /MI"', "cpu.mips=400", "cluster.speed=2.0"])
    pagers = [cluster.make(bp).pager for bp in cluster.blueprints(fast) if bp["role"] == "workstation"]
    assert pagers and all(p.fault_rate == pytest.approx(400.0) for p in pagers)


def test_an_io_rate_per_million_instructions_is_per_cpu_second_with_the_cpus_mips():
    """Paper 003's I/O rates (Table 3.2: AR in No./MI at 800 MIPS): 1.5 accesses per MI are 1,200 per
    CPU-second; a rate drawn per job (`rate_max`) converts the same way, and needs cpu.mips as a fault rate does."""
    from emu.inputs import scenario
    s = scenario.load(SCENARIO, ['workload.io.rate="1.5 /MI"', 'workload.io.rate_max="3 /MI"', "cpu.mips=800"])
    assert s["workload"][0]["io"]["rate"] == pytest.approx(1200.0)
    assert s["workload"][0]["io"]["rate_max"] == pytest.approx(2400.0)
    assert scenario.load(SCENARIO, ['workload.io.rate="20 /s"'])["workload"][0]["io"]["rate"] == 20.0
    with pytest.raises(scenario.ScenarioError, match=r"workload\[0\].io.rate_max.*cpu.mips"):
        scenario.load(SCENARIOS / "quickstart.toml", ['workload.io.rate_max="3 /MI"'])       # no cpu.mips

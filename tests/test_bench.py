"""`nowemu bench`'s model section judges its aims from what it measured: a ratio against SimPy from whole
processes, speed-ups against the baseline's own runs, and "not measured" (never "met") without a baseline."""
import pytest

from emu.tools.bench_model import render, verdicts


def _row(process, wall, done=100):
    return {"process": process, "wall": wall, "jobs_done": done, "mean_response": 2.0, "page_faults": 0,
            "migrations": 0}


def _result(baseline: bool) -> dict:
    best = {("mm1", "now"): _row(1.0, 0.8), ("mm1-quantum", "now"): _row(1.2, 1.0),
            ("mm1", "simpy"): _row(0.25, 0.2), ("mm1", "simpy-loop"): 0.2,
            ("slices", "now"): _row(0.2, 0.1, 4), ("quickstart-64", "now"): _row(0.5, 0.4, 900),
            ("p001", "now"): _row(5.0, 4.0, 170)}
    if baseline:
        best.update({("mm1", "baseline"): _row(3.0, 2.8), ("slices", "baseline"): _row(0.7, 0.6, 4),
                     ("quickstart-64", "baseline"): _row(1.2, 1.0, 880)})
    return {"best": best, "theory": 2.0, "mean_s": 1.0, "mean_ia": 2.0, "jobs": 100, "slices": 40000, "p001": 200000,
            "baseline": "7b93f2b" if baseline else None, "span": 200.0}


def test_aims_come_from_the_measured_ratios():
    v = verdicts(_result(True))
    assert v["mm1"] == (pytest.approx(0.25), False)       # 100 jobs/s against SimPy's 400, whole processes
    assert v["slices"] == (pytest.approx(6.0), True)      # baseline wall 0.6 s against 0.1 s
    assert v["quickstart-64"] == (pytest.approx(2.5), False)
    text = "\n".join(render(_result(True)))
    assert "0.250x, **not met**" in text and "met (6.00x)" in text and "**not met** (2.50x)" in text
    assert "200,000 dispatches in 4.00 s, 50,000 dispatches per wall second" in text   # paper 001's model, now only


def test_without_a_baseline_the_speed_ups_are_not_measured_and_not_met():
    v = verdicts(_result(False))
    assert v["slices"] == (None, False) and v["quickstart-64"] == (None, False)
    assert "not measured" in "\n".join(render(_result(False)))


def _memory(hosts_end: float, driver_end: float = 120.5) -> dict:
    readings = [{"t": 10.0, "driver": 120.0, "board": 80.0, "hosts": 200.0, "n_hosts": 2},
                {"t": 600.0, "driver": driver_end, "board": 80.5, "hosts": hosts_end, "n_hosts": 2}]
    growth = (hosts_end - 200.0) * 2**20 / (20.0 * 590.0)
    return {"wall": 600.0, "nodes": 64, "actors": 2, "speed": 20.0, "readings": readings, "virtual": 12000.0,
            "jobs_done": 100, "paced_per_s": growth, "results_per_s": 24 * 1024.0,
            "ratio": growth / (24 * 1024.0), "driver_growth": driver_end - 120.0, "board_growth": 0.5, "error": None}


def test_memory_is_judged_against_what_the_results_hold():
    from emu.tools.bench_memory import render as render_memory
    flat = "\n".join(render_memory(_memory(hosts_end=200.0 + 24 * 20 * 590 / 1024)))   # the results' growth only
    assert "a ratio of 1.00" in flat and ": met." in flat
    leaking = "\n".join(render_memory(_memory(hosts_end=200.0 + 2 * 24 * 20 * 590 / 1024)))
    assert "a ratio of 2.00" in leaking and "**not met**" in leaking
    driver = "\n".join(render_memory(_memory(hosts_end=200.0, driver_end=150.0)))
    assert "**not met**" in driver                                   # the driver grew 30 MB while it ran


def test_bench_reproductions_refreshes_only_the_table_from_the_reports(tmp_path):
    """`nowemu bench --reproductions` rewrites the full reproductions' rows from the reports and leaves the
    rest of the file (a table of fewer columns, written before the pace was, gets today's); a file without the
    table is bad input (exit 2)."""
    from emu.tools import bench, cli
    out = tmp_path / "benchmarks.md"
    old_head = bench.REPRODUCTIONS_HEAD[:bench.REPRODUCTIONS_HEAD.index(" pace")]
    for head in (bench.REPRODUCTIONS_HEAD, old_head):
        out.write_text("\n".join(["# bench", "", head, "|---|", "| stale | row |", "", "tail", ""]))
        assert cli.main(["bench", "--reproductions", "--out", str(out)]) == 0
        lines = out.read_text().split("\n")
        rows = bench.reproduction_rows()
        assert rows and lines == ["# bench", "", bench.REPRODUCTIONS_HEAD, bench.REPRODUCTIONS_RULE, *rows, "",
                                  "tail", ""]
    (tmp_path / "empty.md").write_text("nothing\n")
    assert cli.main(["bench", "--reproductions", "--out", str(tmp_path / "empty.md")]) == 2

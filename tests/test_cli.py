"""The command line, as a user runs it."""
import json
import subprocess
import sys

from tests.conftest import ROOT, SCENARIOS


def nowemu(*args, cwd=ROOT):
    return subprocess.run([sys.executable, "-m", "emu", *args], capture_output=True, text=True, cwd=cwd, timeout=600)


def test_run_writes_the_results_folder(tmp_path):
    out = tmp_path / "r"
    p = nowemu("run", str(SCENARIOS / "quickstart.toml"), "--runtime", "inline", "--out", str(out), "--no-view",
               "--set", "workload.jobs=50")
    assert p.returncode == 0, p.stderr
    for name in ("jobs.csv", "nodes.csv", "events.jsonl", "summary.json"):
        assert (out / name).is_file()
    summary = json.loads((out / "summary.json").read_text())
    assert summary["runtime"] == "inline" and summary["seed"] == 7 and summary["version"]
    assert summary["metrics"]["jobs_done"] == 50
    lines = (out / "jobs.csv").read_text().splitlines()
    assert len(lines) == 51 and lines[0].startswith("job,")
    assert "jobs done 50/50" in p.stdout
    # output to a pipe is not wrapped at rich's 80 columns (which split numbers from their units)
    summary_line = next(line for line in p.stdout.splitlines() if line.startswith("jobs done"))
    assert len(summary_line) > 80 and "page faults" in summary_line


def test_a_run_that_stops_before_any_job_ends_says_so(tmp_path):
    """stop.time before the first job ends: nothing is lost (every job accounted for, unfinished), and the means
    over no finished job are shown as such, not as nan."""
    out = tmp_path / "r"
    p = nowemu("run", str(SCENARIOS / "quickstart.toml"), "--runtime", "inline", "--out", str(out), "--no-view",
               "--set", "workload.jobs=20", "--set", 'stop.when="time"', "--set", 'stop.time="1e-300 s"')
    assert p.returncode == 0, p.stderr
    assert "jobs done 0/" in p.stdout and "mean response n/a" in p.stdout and "nan" not in p.stdout
    summary = json.loads((out / "summary.json").read_text())
    assert summary["metrics"]["jobs_done"] == 0 and summary["metrics"]["mean_response"] is None


def test_validate_and_list():
    p = nowemu("validate", str(SCENARIOS / "quickstart.toml"))
    assert p.returncode == 0 and "ok" in p.stdout
    p = nowemu("list", str(SCENARIOS))
    assert p.returncode == 0 and "quickstart" in p.stdout and "mm1" in p.stdout


def test_every_command_has_help_with_an_example():
    for cmd in ("run", "validate", "list", "bench", "sweep", "report"):
        p = nowemu(cmd, "--help")
        assert p.returncode == 0 and "example:" in p.stdout


def test_wrong_argument_is_one_line():
    p = nowemu("run", str(SCENARIOS / "quickstart.toml"), "--runtime", "warp")
    assert p.returncode == 2
    assert len(p.stderr.strip().splitlines()) == 1 and "Traceback" not in p.stderr


def test_bench_without_simpy_says_what_to_install(monkeypatch, capsys, tmp_path):
    from emu.tools import cli
    monkeypatch.setitem(sys.modules, "simpy", None)              # as on a machine without the bench extra
    assert cli.main(["bench", "--quick", "--out", str(tmp_path / "b.md")]) == 2
    err = capsys.readouterr().err
    assert '.[bench]' in err and err.count("\n") == 1 and not (tmp_path / "b.md").exists()


def test_report_head_reads_back_what_it_writes():
    from emu.tools import pace
    from emu.tools.reproduce import _head, read_head
    for resumed, earlier, wall, count in ((0, (), 1937.0, 1), (17, (), 1937.0, 1),
                                          (17, [{"wall": 600.0, "made": 17}], 2537.0, 2),
                                          (17, [{"wall": 600.0, "made": 17, "stopped": True}], 2537.0, 2)):
        text = "Written by `nowemu reproduce p000` " + _head("2026-11-24 18:55 UTC", 60, "inline", 3269.4, 1937.2,
                                                             resumed, earlier) + " on vm (Linux)."
        assert read_head(text) == {"date": "2026-11-24 18:55 UTC", "runs": 60, "run_time": 3269.0, "wall": wall,
                                   "read_back": resumed, "invocations": count, "pace": None}
        for made in (None, 1560):
            paced = text + " " + pace.words({"alone": 0.1234, "pair": 0.2}, {"alone": 0.3, "pair": 0.4}, made)
            assert read_head(paced)["pace"] == (0.123, 0.2, 0.3, 0.4)
    assert read_head("no head here") is None


def test_a_resumed_report_counts_the_wall_time_of_the_invocations_that_made_its_runs(tmp_path):
    """OUT/invocations.jsonl: the earlier invocations' wall time is added only when they made every run read
    back (one stopped before its end records nothing, and its time is unknown); runs made before the file was
    kept are known from the head of the report they wrote, if it names OUT."""
    from emu.tools.reproduce import INVOCATIONS, _earlier, _head
    out, report = tmp_path / "runs", tmp_path / "p.md"
    out.mkdir()
    report.write_text("Written by `x` " + _head("2026-11-27 03:00 UTC", 252, "inline", 9000.0, 4800.0, 0) +
                      f" on vm. (their results folders were written under `{out}`)")
    assert _earlier(out, report, 252) == [{"date": "2026-11-27 03:00 UTC", "wall": 4800.0, "made": 252,
                                          "invocations": 1}]
    assert _earlier(out, report, 260) == []                     # some runs were made by an unknown invocation
    assert len(_earlier(out, report, 240)) == 1                 # some of its runs were made again since
    assert _earlier(tmp_path / "elsewhere", report, 252) == []   # the report's runs are not these
    (out / INVOCATIONS).write_text('{"date": "d", "wall": 100.0, "made": 10}\n{"date": "e", "wall": 50.0, "made": 5}\n')
    assert [e["wall"] for e in _earlier(out, report, 15)] == [100.0, 50.0]
    assert _earlier(out, report, 16) == []                       # one more run than they made


def test_a_stopped_invocation_is_counted_up_to_its_last_finished_run(tmp_path):
    """An invocation keeps its record so far (wall time, runs made) as each run ends; stopped before its end, it
    leaves that record, which the next --resume enters in invocations.jsonl, marked stopped, and the report's
    head says so."""
    from emu.tools.reproduce import INVOCATIONS, RUNNING, _earlier, _enter_stopped, _head, _keep_running
    out = tmp_path / "runs"
    out.mkdir()
    (out / INVOCATIONS).write_text('{"date": "d", "wall": 100.0, "made": 10}\n')
    _keep_running(out, {"date": "e", "wall": 30.0, "made": 2})
    _keep_running(out, {"date": "e", "wall": 70.0, "made": 3})                # the last run's end replaces the record
    _enter_stopped(out)
    assert not (out / RUNNING).exists() and not list(out.glob("*.tmp"))
    earlier = _earlier(out, tmp_path / "p.md", 13)
    assert earlier == [{"date": "d", "wall": 100.0, "made": 10}, {"date": "e", "wall": 70.0, "made": 3, "stopped": True}]
    assert _earlier(out, tmp_path / "p.md", 14) == earlier      # a run in flight at the stop ended after its record
    head = _head("f", 20, "inline", 500.0, 40.0, 13, earlier)
    assert "210 s of wall time over 3 invocations" in head and "1 of them stopped before its end" in head
    _enter_stopped(out)                                                       # nothing left to enter: no change
    assert len((out / INVOCATIONS).read_text().splitlines()) == 2


def test_bench_reads_the_head_of_every_full_reproduction_report():
    """docs/benchmarks.md's table of full reproductions comes from the reports' heads: a change to the head
    that the bench cannot read must fail here, not leave the table empty."""
    from emu.tools import bench
    from emu.tools.reproduce import DOCS
    full = sorted(p.name for p in DOCS.glob("p*.md") if not p.stem.endswith("-quick"))
    rows = bench.reproductions()
    assert full and sorted(r["report"].rsplit("/", 1)[1] for r in rows) == full
    assert all(r["runs"] > 0 and r["run_time"] > 0 and 0 <= r["read_back"] <= r["runs"] for r in rows)



def test_runs_with_the_same_scenario_seed_and_runtime_are_twins_of_the_first():
    """Two experiments may plan the same run (paper 002's network study and its comparison): it is run once."""
    from emu.tools.reproduce import _twins
    from tests.conftest import load
    base = load("p002/app.toml", "workload.jobs=8")
    runs = [{"dir": "a/s1", "config": base, "runtime": "inline", "samples": False},
            {"dir": "b/s1", "config": load("p002/app.toml", "workload.jobs=8"), "runtime": "inline", "samples": False},
            {"dir": "c/s1", "config": base, "runtime": "stepped", "samples": False},
            {"dir": "d/s1", "config": load("p002/app.toml", "workload.jobs=8", "seed=2"), "runtime": "inline",
             "samples": False},
            {"dir": "e/s1", "config": base, "runtime": "paced", "samples": False},
            {"dir": "f/s1", "config": base, "runtime": "paced", "samples": False}]
    assert [r["dir"] for r in _twins(runs)] == ["b/s1"] and runs[1]["twin_of"] == "a/s1"
    assert all("twin_of" not in r for r in runs[2:])   # another runtime, another seed, paced (not deterministic)

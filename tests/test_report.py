"""`nowemu report`: tables from results and sweep folders, plots when matplotlib is there, and a Gantt whose
stays add up to each job's time in the system."""
import csv
import json
import shutil
import sys

import pytest

from emu.engine import results

from emu.tools import cli, report
from tests.conftest import SCENARIOS

QUICKSTART = str(SCENARIOS / "quickstart.toml")


@pytest.fixture(scope="module")
def folders(ray_local, tmp_path_factory):
    """A sweep of two policies over two seeds, and the results folder of a plain run of the whole quickstart
    (0.1 s inline, and it migrates jobs)."""
    base = tmp_path_factory.mktemp("report")
    assert cli.main(["sweep", QUICKSTART, "--seeds", "2", "--set", "policy=local,cpu_threshold",
                     "--set", "workload.jobs=60", "--out", str(base / "sweep")]) == 0
    assert cli.main(["run", QUICKSTART, "--runtime", "inline", "--no-view", "--out", str(base / "run")]) == 0
    assert cli.main(["run", QUICKSTART, "--runtime", "inline", "--no-view", "--set", 'network.medium="bus"',
                     "--out", str(base / "bus")]) == 0
    return base


def rows(path):
    with open(path, newline="") as fh:
        return {row["group"]: row for row in csv.DictReader(fh)}


def test_tables_have_a_row_per_sweep_group_and_per_run(folders, tmp_path, capsys):
    capsys.readouterr()
    assert cli.main(["report", str(folders / "sweep"), str(folders / "run"), "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    table = rows(tmp_path / "report.csv")
    assert set(table) == {"sweep policy=local", "sweep policy=cpu_threshold", "run"}
    assert table["sweep policy=local"]["n"] == "2" and table["sweep policy=local"]["seeds"] == "7 8"
    plain = json.loads((folders / "run" / "summary.json").read_text())
    assert table["run"]["n"] == "1" and table["run"]["mean_response_ci95"] == "nan"
    assert float(table["run"]["mean_response"]) == pytest.approx(plain["metrics"]["mean_response"], rel=1e-12)
    assert "sweep policy=cpu_threshold" in out and "runtime inline" in out
    assert (tmp_path / "report.md").read_text().count("\n| ") == 4      # heading and three rows


def test_metrics_chooses_the_columns(folders, tmp_path, capsys):
    """`--metrics` shows any numeric metric of summary.json (here the family time and the variation) instead of
    the main ones; a name that is not one is a one-line error."""
    assert cli.main(["report", str(folders / "run"), "--metrics", "makespan,execution_time_cv",
                     "--out", str(tmp_path)]) == 0
    plain = json.loads((folders / "run" / "summary.json").read_text())["metrics"]
    md = (tmp_path / "report.md").read_text()
    assert "| makespan | execution_time_cv |" in md and "response (s)" not in md
    assert f"{plain['makespan']:.3g}" in md
    capsys.readouterr()
    assert cli.main(["report", str(folders / "run"), "--metrics", "states"]) == 2
    err = capsys.readouterr().err
    assert "no numeric metric 'states'" in err and "makespan" in err and err.count("\n") == 1


def test_pngs(folders, tmp_path):
    pytest.importorskip("matplotlib")
    assert cli.main(["report", str(folders / "sweep"), "--out", str(tmp_path)]) == 0
    pngs = {p.name for p in tmp_path.glob("*.png")}
    assert pngs == {"metrics.png", *(f"policy_{p}-{kind}.png" for p in ("local", "cpu_threshold")
                                     for kind in ("cluster", "gantt"))}
    for name in pngs:
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_without_matplotlib_the_tables_print_and_one_line_says_how_to_get_plots(folders, tmp_path, capsys,
                                                                                monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)       # makes `import matplotlib` fail
    capsys.readouterr()
    assert cli.main(["report", str(folders / "run"), "--out", str(tmp_path)]) == 0
    lines = [line for line in capsys.readouterr().out.splitlines() if "plots skipped" in line]
    assert len(lines) == 1 and 'pip install -e ".[plot]"' in lines[0]
    assert (tmp_path / "report.csv").is_file() and not list(tmp_path.glob("*.png"))


@pytest.mark.parametrize("medium", ["run", "bus"])
def test_gantt_stays_and_moves_fill_each_jobs_time_from_start_to_finish(folders, medium):
    """On links and on a shared bus (where the sender cannot know when a move will land)."""
    run = folders / medium
    summary = json.loads((run / "summary.json").read_text())
    stays, left_out = report.gantt(run, summary["end"])
    jobs = {int(j["job"]): j for j in csv.DictReader(open(run / "jobs.csv"))}
    costs = {}
    for line in open(run / "events.jsonl"):
        e = json.loads(line)
        if e["event"] in ("migrate", "migrated_in"):     # each move's time on the wire: arrival - departure
            costs[e["job"]] = costs.get(e["job"], 0.0) + e["time"] * (1 if e["event"] == "migrated_in" else -1)
    drawn = {}
    for node, spans in stays.items():
        for begin, length, job in spans:
            assert str(node) in jobs[job]["nodes"].split() and length >= 0
            drawn[job] = drawn.get(job, 0.0) + length
    assert len(drawn) + left_out == sum(1 for j in jobs.values() if j["nodes"])
    assert summary["metrics"]["migrations"] > 0          # the check below covers moves, not only stays
    for job, total in drawn.items():
        j = jobs[job]
        assert total + costs.get(job, 0.0) == pytest.approx(float(j["finish"]) - float(j["start"]), abs=1e-9)


def test_a_folder_that_is_not_results_is_one_line(tmp_path, capsys):
    assert cli.main(["report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and str(tmp_path) in err and "summary.json" in err


@pytest.mark.parametrize("name, damage", [("nodes.csv.gz", "missing"), ("nodes.csv.gz", "truncated"),
                                           ("events.jsonl", "missing"), ("events.jsonl", "truncated")])
def test_run_files_that_cannot_be_read_are_one_line(folders, tmp_path, name, damage):
    """A sweep's run whose samples (read for its cluster plot) or events (for its Gantt) are gone or cut short:
    a ReportError, which the command line prints as one line, naming the file; not a traceback."""
    run = tmp_path / "run"
    shutil.copytree(sorted(p for p in (folders / "sweep").iterdir() if p.is_dir())[0], run)
    path = run / name
    if damage == "missing":
        path.unlink()
    else:
        path.write_bytes(path.read_bytes()[:200])
    with pytest.raises(report.ReportError) as caught:
        if name == "events.jsonl":
            report.gantt(run, end=1e9)
        else:
            report._read_csv(results.samples_file(run))
    message = str(caught.value)
    assert "\n" not in message and str(run) in message and name.split(".")[0] in message


def test_runs_that_kept_no_samples_are_reported_without_their_cluster_plots(folders, tmp_path):
    """`nowemu reproduce p002` keeps no nodes.csv (`Experiment.samples`): its runs are still tables and Gantts."""
    pytest.importorskip("matplotlib")
    sweep = tmp_path / "sweep"
    shutil.copytree(folders / "sweep", sweep)
    for path in sweep.rglob("nodes.csv*"):
        path.unlink()
    assert cli.main(["report", str(sweep), "--out", str(tmp_path / "out")]) == 0
    assert {p.name for p in (tmp_path / "out").glob("*.png")} == {
        "metrics.png", *(f"policy_{p}-gantt.png" for p in ("local", "cpu_threshold"))}

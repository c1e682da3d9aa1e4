"""`nowemu sweep`: axes and seeds, one folder per run, and a table whose means and intervals are those of
the runs' own summaries."""
import csv
import json
import math

import numpy as np
import pytest

from emu.engine import results

from emu.engine.run import run
from emu.tools import cli, sweep, sweep_runs, sweep_table
from tests.conftest import SCENARIOS

QUICKSTART = str(SCENARIOS / "quickstart.toml")


def read_rows(path):
    with open(path, newline="") as fh:
        return {row["group"]: row for row in csv.DictReader(fh)}


def test_a_sweep_writes_every_run_and_the_means_of_their_summaries(ray_local, tmp_path, capsys):
    out = tmp_path / "sweep"
    status = cli.main(["sweep", QUICKSTART, "--seeds", "2", "--set", "policy=local,cpu_threshold",
                       "--set", "workload.jobs=40", "--out", str(out)])
    assert status == 0, capsys.readouterr().err
    summaries = {(p, s): json.loads((out / f"{p}-s{s}" / "summary.json").read_text())
                 for p in ("local", "cpu_threshold") for s in (7, 8)}
    for (policy, seed), summary in summaries.items():
        assert summary["seed"] == seed and summary["config"]["policy"]["name"] == policy
        assert summary["runtime"] == "inline" and summary["checks"]["jobs_accounted"]
    rows = read_rows(out / "sweep.csv")
    assert set(rows) == {"policy=local", "policy=cpu_threshold"}
    t1 = 12.706204736                 # Student's t, 97.5 % quantile, one degree of freedom (any t table)
    for policy in ("local", "cpu_threshold"):
        row = rows[f"policy={policy}"]
        assert (row["policy"], row["n"], row["seeds"], row["failed"]) == (policy, "2", "7 8", "")
        for m in sweep_table.METRICS:
            values = [summaries[policy, s]["metrics"][m] for s in (7, 8)]
            assert float(row[m]) == pytest.approx(sum(values) / 2, rel=1e-12)
            assert float(row[f"{m}_ci95"]) == pytest.approx(t1 * np.std(values, ddof=1) / math.sqrt(2), rel=1e-6)
        assert float(row["mean_response_ci95"]) > 0          # the seeds drew different workloads
    manifest = json.loads((out / "sweep.json").read_text())
    assert manifest["axes"] == {"policy": ["local", "cpu_threshold"]} and manifest["seeds"] == [7, 8]
    assert (out / "sweep.md").read_text().count("| policy=") == 2
    out_text = capsys.readouterr().out
    assert "policy=cpu_threshold" in out_text
    # no terminal here: a line per finished run, for logs of long sweeps
    assert sorted(line.split("] ")[1].split(":")[0] for line in out_text.splitlines() if line.startswith("[")) == \
        sorted(f"{p}-s{s}" for p in ("local", "cpu_threshold") for s in (7, 8))


@pytest.mark.parametrize("setting, field", [
    ("polcy=local,random", "polcy"),                  # unknown field
    ("policy=local,nosuch", "policy.name"),           # a bad value in the last place of an axis
    ("cluster.nodes=4,", "cluster.nodes"),            # an empty value
    ("seed=1,2", "seed"),                             # seeds come from --seeds
    ("policy=local,local", "local"),                  # two runs in one folder
])
def test_a_bad_axis_is_one_line_before_anything_runs(setting, field, tmp_path, capsys):
    out = tmp_path / "never"
    assert cli.main(["sweep", QUICKSTART, "--set", setting, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("nowemu: error: ") and field in err
    assert not out.exists()


def test_commas_inside_brackets_braces_and_quotes_do_not_make_an_axis():
    assert sweep.split_values("local, random ,cpu_threshold") == ["local", "random", "cpu_threshold"]
    assert sweep.split_values("[1,2]") == ["[1,2]"]
    assert sweep.split_values('"a, b",c') == ['"a, b"', "c"]
    assert sweep.split_values('{x = 1, y = "q\\",r"},{x = 2}') == ['{x = 1, y = "q\\",r"}', "{x = 2}"]


def test_seeds_default_to_the_scenarios_list_and_values_reach_the_scenario():
    axes, runs = sweep.plan(QUICKSTART, ["cluster.nodes=4,8", "seeds=[3,5]"], None, "inline")
    assert axes == {"cluster.nodes": ["4", "8"]}
    assert [(r["dir"], r["config"]["cluster"]["nodes"], r["config"]["seed"]) for r in runs] == [
        ("4-s3", 4, 3), ("4-s5", 4, 5), ("8-s3", 8, 3), ("8-s5", 8, 5)]
    _, runs = sweep.plan(QUICKSTART, ["seed=20"], 3, "inline")
    assert [r["dir"] for r in runs] == ["s20", "s21", "s22"]


def test_a_run_that_raises_is_a_failed_row_with_one_line(monkeypatch, tmp_path):
    _, runs = sweep.plan(QUICKSTART, ["workload.jobs=20"], 3, "inline")
    real = sweep_runs.run

    def flaky(config, runtime):
        if config["seed"] == 8:
            raise RuntimeError("disk on fire\nsecond line of the story")
        return real(config, runtime)
    monkeypatch.setattr(sweep_runs, "run", flaky)
    for r in runs:
        r.update(sweep_runs.run_one(r["config"], "inline", str(tmp_path / r["dir"])))
    [row] = sweep_table.summarize(runs)
    assert row["n"] == 2 and row["failed"] == "s8: RuntimeError: disk on fire"
    ok = [r["metrics"]["mean_response"] for r in runs if r["seed"] != 8]
    assert row["mean_response"] == pytest.approx(np.mean(ok))


def test_resume_reads_the_runs_that_finished_with_the_same_scenario_and_no_others(monkeypatch, tmp_path):
    _, runs = sweep.plan(QUICKSTART, ["workload.jobs=20"], 2, "inline")
    for r in runs:
        sweep_runs.run_one(r["config"], "inline", str(tmp_path / r["dir"]))

    def never(config, runtime):
        raise AssertionError("a finished run was run again")
    monkeypatch.setattr(sweep_runs, "run", never)
    _, again = sweep.plan(QUICKSTART, ["workload.jobs=20"], 2, "inline")
    seen = []
    sweep_runs.execute(again, tmp_path, done=seen.append, resume=True)  # all finished: Ray is not even started
    assert len(seen) == 2 and all(r["resumed"] and r["error"] is None for r in again)
    for r in again:
        assert r["metrics"] == json.loads((tmp_path / r["dir"] / "summary.json").read_text())["metrics"]
    _, changed = sweep.plan(QUICKSTART, ["workload.jobs=21"], 2, "inline")
    assert [sweep_runs.finished(r, tmp_path) for r in changed] == [None, None]     # same folders, another scenario
    _, stepped = sweep.plan(QUICKSTART, ["workload.jobs=20"], 2, "stepped")
    assert sweep_runs.finished(stepped[0], tmp_path) is None                  # another runtime
    (tmp_path / again[1]["dir"] / "summary.json").unlink()                    # a run stopped before its end
    assert sweep_runs.finished(again[0], tmp_path) is not None and sweep_runs.finished(again[1], tmp_path) is None


def test_a_runs_samples_are_compressed_and_read_back_as_a_plain_run_writes_them(tmp_path):
    """A sweep's run writes nodes.csv.gz; decompressed, it is the nodes.csv of the same run written plainly."""
    _, runs = sweep.plan(QUICKSTART, ["workload.jobs=20"], 1, "inline")
    sweep_runs.run_one(runs[0]["config"], "inline", str(tmp_path / "swept"))
    results.write(run(runs[0]["config"], "inline"), tmp_path / "plain")
    assert not (tmp_path / "swept" / "nodes.csv").exists()
    assert results.samples_file(tmp_path / "plain").name == "nodes.csv"
    with results.open_text(results.samples_file(tmp_path / "swept")) as fh:
        swept = fh.read()
    assert swept.count("\n") > 20 and swept == (tmp_path / "plain" / "nodes.csv").read_text()


def test_resume_reads_a_run_older_than_a_new_field_only_if_the_field_is_at_its_default(tmp_path):
    """A field added to the schema after a run finished, at its default (the old behaviour), does not make the
    run another scenario; set to anything else, it does."""
    _, runs = sweep.plan(QUICKSTART, ["workload.jobs=20"], 1, "inline")
    sweep_runs.run_one(runs[0]["config"], "inline", str(tmp_path / runs[0]["dir"]))
    path = tmp_path / runs[0]["dir"] / "summary.json"
    summary = json.loads(path.read_text())
    del summary["config"]["owner"]["nonidle_spread"]                  # as written before the field existed
    del summary["config"]["workload"][0]["nonmigratable"]
    del summary["config"]["workload"][0]["variants"]                 # a list of tables: empty by default
    del summary["config"]["policy"]["hold"]                          # a policy's parameter (PARAMS) alike
    path.write_text(json.dumps(summary))
    assert sweep_runs.finished(runs[0], tmp_path) is not None
    _, held = sweep.plan(QUICKSTART, ["workload.jobs=20", "policy.hold=true"], 1, "inline")
    assert sweep_runs.finished(held[0], tmp_path) is None
    _, mixed = sweep.plan(QUICKSTART, ["workload.jobs=20", "workload.variants=[{share=0.1, work_scale=2}]"], 1, "inline")
    assert sweep_runs.finished(mixed[0], tmp_path) is None
    _, flagged = sweep.plan(QUICKSTART, ["workload.jobs=20", "workload.nonmigratable=0.1"], 1, "inline")
    assert sweep_runs.finished(flagged[0], tmp_path) is None
    summary["config"]["cpu"]["retired_field"] = 1                    # a field the schema no longer has
    path.write_text(json.dumps(summary))
    assert sweep_runs.finished(runs[0], tmp_path) is None


def test_resume_ignores_owner_fields_of_a_run_without_owners(tmp_path):
    """With `owner.activity = "none"` no other owner field is read: a run finished under other owner defaults
    (paper 004's shares changed on 2026-11-24) is the same scenario. With owners, those fields count."""
    _, runs = sweep.plan(QUICKSTART, ["workload.jobs=20"], 1, "inline")
    sweep_runs.run_one(runs[0]["config"], "inline", str(tmp_path / runs[0]["dir"]))
    path = tmp_path / runs[0]["dir"] / "summary.json"
    summary = json.loads(path.read_text())
    summary["config"]["owner"]["low_share"] = 0.76                   # as written under the earlier default
    path.write_text(json.dumps(summary))
    assert sweep_runs.finished(runs[0], tmp_path) is not None
    _, owned = sweep.plan(QUICKSTART, ["workload.jobs=20", 'owner.activity="synthetic"'], 1, "inline")
    path = tmp_path / owned[0]["dir"] / "summary.json"                # as if that run had finished there
    path.parent.mkdir(parents=True, exist_ok=True)
    summary["config"]["owner"] = {**owned[0]["config"]["owner"], "low_share": 0.76}
    path.write_text(json.dumps(results.json_safe(summary)))
    assert sweep_runs.finished(owned[0], tmp_path) is None           # 0.76 against the default 0.609
    summary["config"]["owner"]["low_share"] = owned[0]["config"]["owner"]["low_share"]
    path.write_text(json.dumps(results.json_safe(summary)))
    assert sweep_runs.finished(owned[0], tmp_path) is not None


@pytest.mark.parametrize("command", [["sweep", QUICKSTART], ["reproduce", "p000"]])
def test_resume_needs_the_folder_to_pick_up(command, capsys):
    assert cli.main([*command, "--resume"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--resume" in err and "--out" in err


def test_student_t_quantiles():
    # two-sided 95 % critical values from any t table
    for df, t in ((1, 12.706), (2, 4.303), (4, 2.776), (9, 2.262), (30, 2.042)):
        assert sweep_table.t_quantile(0.95, df) == pytest.approx(t, abs=1e-3)


@pytest.mark.parametrize("option", ["--seeds", "--parallel"])
def test_a_bad_count_is_one_line(option, capsys):
    assert cli.main(["sweep", QUICKSTART, option, "0"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and option in err


@pytest.mark.parametrize("command", ["sweep", "report"])
def test_help_has_an_example(command, capsys):
    with pytest.raises(SystemExit) as exit:
        cli.main([command, "--help"])
    assert exit.value.code == 0 and "example: nowemu " + command in capsys.readouterr().out

"""A real multi-node Ray cluster on this machine (a head and two more raylets, from ray.cluster_utils): a
scenario runs across it through the CLI, exactly as a user would with `--address`, and losing a node mid-run
ends the run with a report of what was lost, never a hang or a traceback."""
import csv
import json
import subprocess
import sys
import time

import pytest

from conftest import ROOT, run
from emu.engine.cluster import blueprints
from emu.inputs.scenario import load

pytestmark = pytest.mark.ray

SCENARIO = str(ROOT / "scenarios" / "quickstart.toml")


@pytest.fixture
def cluster():
    from ray.cluster_utils import Cluster
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    workers = [c.add_node(num_cpus=1) for _ in range(2)]
    yield c, workers
    c.shutdown()


def nowemu(*args: str, **kw):
    return subprocess.Popen([sys.executable, "-m", "emu", "run", SCENARIO, "--no-view", *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def test_a_scenario_runs_across_the_nodes_and_agrees_with_inline(cluster, tmp_path):
    c, _ = cluster
    out = tmp_path / "run"
    proc = nowemu("--runtime", "stepped", "--address", c.address, "--out", str(out), "--set", "workload.jobs=60")
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    assert "on 3 Ray node(s)" in stdout
    summary = json.loads((out / "summary.json").read_text())
    nodes = [h["ray_node"] for h in summary["hosts"].values()]
    assert len(nodes) == 9 and len(set(nodes)) == 3                       # 8 workstations + the collector
    assert max(nodes.count(n) for n in set(nodes)) == 3                  # dealt evenly
    # stepped is deterministic wherever its actors run: the same jobs.csv as in one process
    inline = run("quickstart.toml", "workload.jobs=60", runtime="inline")
    with open(out / "jobs.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert [(r["job"], r["finish"], r["nodes"]) for r in rows] == \
        [(str(j["job"]), repr(j["finish"]), j["nodes"]) for j in inline["jobs"]]


def test_an_embedded_run_starts_its_own_ray_beside_a_running_cluster(cluster, tmp_path):
    """Without --address nowemu embeds a Ray of its own, even while another cluster runs on the machine (a bare
    ray.init() would join that one, and fail on num_cpus)."""
    proc = nowemu("--runtime", "stepped", "--out", str(tmp_path / "run"), "--set", "workload.jobs=20")
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    assert "on 1 Ray node(s)" in stdout


def test_losing_a_node_mid_run_ends_with_a_report_of_what_was_lost(cluster, tmp_path):
    c, workers = cluster
    out = tmp_path / "run"
    proc = nowemu("--runtime", "paced", "--speed", "5", "--address", c.address, "--out", str(out))
    for line in proc.stdout:                          # wait until the actors are up and the clock runs
        if "participants started" in line:
            break
    time.sleep(3)
    c.remove_node(workers[0], allow_graceful=False)  # kill that raylet and every process on it
    stdout, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 3, stderr[-2000:]
    assert "Traceback" not in stderr
    assert "lost:" in stdout
    summary = json.loads((out / "summary.json").read_text())
    dead = workers[0].node_id
    on_dead = sorted(int(i) for i, h in summary["hosts"].items() if h["ray_node"] == dead)
    assert on_dead and summary["lost"]["participants"] == on_dead
    states = summary["metrics"]["states"]
    assert states["lost"] > 0
    # nothing disappears: every job is in jobs.csv, in some state, or counted as not arrived
    assert summary["metrics"]["jobs_submitted"] + summary["metrics"]["jobs_not_arrived"] == 200
    assert summary["checks"]["jobs_accounted"] and summary["checks"]["work_conservation_error"] is None
    with open(out / "jobs.csv") as fh:
        rows = list(csv.DictReader(fh))
    assert sum(r["state"] == "lost" for r in rows) == states["lost"]
    # lost are only jobs that had arrived; the dead nodes' later jobs count as not arrived, as everyone's do
    end = summary["end"]
    arrivals = [job.arrival for bp in blueprints(load(SCENARIO)) for job in bp.get("arrivals", ())]
    assert all(float(r["arrival"]) <= end for r in rows) and any(a > end for a in arrivals)
    # (a survivor stops at its own clock, a little before `end`: its jobs due in between did not arrive either)
    assert sum(a > end for a in arrivals) <= summary["metrics"]["jobs_not_arrived"]

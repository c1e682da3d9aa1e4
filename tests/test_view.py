"""The live view, drawn headless from real snapshots of small inline runs: what it shows matches what the
workstations report, its layouts fit a 120-column terminal, and watching a run does not change it."""
import io
import math
import re

import pytest
from rich.console import Console

from emu.engine import cluster, results

from emu.engine.inline import run_inline
from emu.inputs import scenario
from emu.tools.view import FEED, MB, Dashboard, LiveView
from tests.conftest import SCENARIOS, run
from tests.test_cli import nowemu


def midrun(until: float, *overrides: str):
    """The quick-start cluster, run inline up to virtual time `until` (and resumable from there)."""
    s = scenario.load(SCENARIOS / "quickstart.toml", list(overrides))
    parts, heap, total = cluster.in_process(cluster.blueprints(s))
    advance = lambda t: run_inline(parts, heap, total, {"when": "time", "time": t}, cluster.lookahead(s))   # noqa: E731
    advance(until)
    return parts, total, advance


def frame(parts, total, vnow, **kw):
    snaps = [p.snapshot() for p in parts.values()]
    return snaps, Dashboard(snaps, vnow, sum(len(p.finished) for p in parts.values()), total, **kw)


def draw(renderable, width=120, height=50) -> list[str]:
    console = Console(file=io.StringIO(), width=width, height=height, force_terminal=False, color_system=None)
    console.print(renderable)
    return console.file.getvalue().splitlines()


def workstations(snaps):
    return sorted((s for s in snaps if s["role"] == "workstation"), key=lambda s: s["node"])


def test_header_and_one_row_per_workstation_match_the_snapshots():
    parts, total, _ = midrun(100.0)
    snaps, dash = frame(parts, total, 100.0, title="quickstart")
    lines = draw(dash)
    done = sum(len(p.finished) for p in parts.values())
    assert 0 < done < total
    assert lines[0].startswith("quickstart  inline · virtual 100.0 s")
    assert f"{done}/{total} done" in lines[1]
    nodes = workstations(snaps)
    assert f"{sum(s['jobs'] for s in nodes)} running" in lines[1]
    head = next(i for i, line in enumerate(lines) if line.split()[:2] == ["node", "jobs"])
    rows = lines[head + 1:head + 1 + len(nodes)]
    assert lines[head + 1 + len(nodes)].startswith("Σ 8 nodes")
    assert any(s["jobs"] for s in nodes) and any(s["demand"] for s in nodes)      # something to compare
    for row, s in zip(rows, nodes):
        node, jobs, ready, pending, cpu, bar, demand, _, size, _, faults, disk, finished = row.split()
        assert [int(node), int(jobs), int(ready), int(pending)] == [s["node"], s["jobs"], s["ready"], s["pending"]]
        assert cpu == f"{s['cpu_util'] * 100:.0f}%"
        assert bar.count("█") == round(min(1.0, s["demand"] / s["memory"]) * 12) and len(bar) == 12
        assert (int(demand), int(size)) == (round(s["demand"] / MB), round(s["memory"] / MB))
        assert [int(faults), int(disk), int(finished)] == [round(s["fault_rate"]), s["disk_queue"], s["finished"]]


def test_the_event_feed_shows_the_latest_events_with_a_migration_src_to_dest():
    parts, total, advance = midrun(0.0)
    t = 0.0
    while True:
        t += 1.0
        advance(t)
        snaps = [p.snapshot() for p in parts.values()]
        latest = sorted((e for s in snaps for e in s["recent"]), key=lambda e: (e["time"], e["node"]))[-FEED:]
        if any(e["event"] == "migrate" for e in latest):
            break
    lines = draw(frame(parts, total, t)[1])
    feed = lines[lines.index(f"recent events ({sum(len(p.events) for p in parts.values())} so far)") + 1:]
    assert len(feed) == FEED
    for line, e in zip(feed, latest):
        assert f"{e['time']:.2f} s" in line and e["event"] in line and f"job {e['job']}" in line
    m = next(e for e in latest if e["event"] == "migrate")
    line = feed[latest.index(m)]
    assert f"{m['src']} → {m['dest']}" in line and f"bytes {m['bytes'] / MB:.3g} MB" in line
    assert f"cost {m['cost']:.3g} s" in line


def test_events_of_kinds_the_view_does_not_know_are_shown_generically():
    snaps = [{"node": 3, "role": "workstation", "jobs": 0, "ready": 0, "pending": 0, "memory": MB, "demand": 0,
              "cpu_util": 0.0, "fault_rate": 0.0, "disk_queue": 0, "finished": 0, "events": 2, "late": {},
              "recent": [{"time": 5.0, "event": "evict", "node": 3, "job": 9, "reason": "owner back"},
                         {"time": 6.0, "event": "refused", "node": 3, "job": 4, "src": 1}]}]
    evict, refused = draw(Dashboard(snaps, 6.0, 0, 10))[-2:]
    assert re.search(r"5\.00 s\s+evict\s+job 9\s+on 3\s+reason owner back$", evict)
    assert re.search(r"refused\s+job 4\s+1 → 3$", refused)


def test_owner_reservation_and_lingering_columns_appear_only_when_reported():
    parts, total, _ = midrun(60.0)
    snaps, dash = frame(parts, total, 60.0)
    lines = draw(dash)
    assert not any(word in line for line in lines for word in ("owner", "reserved", "lingering"))
    nodes = workstations(snaps)
    nodes[2]["owner_active"] = True
    for s in nodes:
        s["lingering"] = s["node"] % 3          # foreign jobs lingering, a count
    lines = draw(Dashboard(snaps, 60.0, 0, total))
    head = next(line for line in lines if line.startswith("node"))
    assert head.split()[-2:] == ["owner", "lingering"] and "reserved" not in head
    rows = {int(line.split()[0]): line.split() for line in lines[lines.index(head) + 1:][:len(nodes)]}
    assert rows[2][-2] == "●" and rows[3][-2] == "·"
    assert [int(rows[s["node"]][-1]) for s in nodes] == [s["node"] % 3 for s in nodes]
    assert "disk q 0 · owner 1 · lingering 5" in next(line for line in lines if line.startswith("Σ"))
    grid = draw(Dashboard(snaps, 60.0, 0, total), height=12)          # too short for a row each
    assert grid[2].endswith("O owner, L lingering")
    cells = dict(re.findall(r"(\d+) +\d+ \S\S(\S\S)", " ".join(grid[3:])))
    assert cells["2"] == "OL" and cells["3"] == "··" and cells["4"] == "·L"


@pytest.mark.parametrize("n", [64, 256])
def test_large_clusters_are_a_compact_grid_that_fits_120_columns(n):
    parts, total, _ = midrun(40.0, f"cluster.nodes={n}", f"workload.jobs={2 * n}",
                             f'workload.arrival.mean_interarrival="{8 / n} s"')
    snaps, dash = frame(parts, total, 40.0)
    lines = draw(dash, width=120, height=50)
    assert all(len(line) <= 120 and not line.endswith("…") for line in lines)
    start = next(i for i, line in enumerate(lines) if line.startswith("cell:")) + 1
    grid = lines[start:next(i for i, line in enumerate(lines) if line.startswith("Σ"))]
    per_line = len(re.findall(r"\d+ +\d+ \S\S", grid[0]))
    assert per_line >= 10 and len(grid) == math.ceil(n / per_line)
    assert len(lines) <= 40
    cells = [tuple(map(int, c)) for line in grid for c in re.findall(r"(\d+) +(\d+) \S\S", line)]
    assert cells == [(s["node"], s["ready"]) for s in workstations(snaps)]
    assert sum(ready for _, ready in cells) > 0
    # with room for a row each, the same cluster is a table
    assert sum(line.startswith("node") for line in draw(dash, width=120, height=n + 20)) == 1


def test_the_paced_fidelity_line():
    parts, total, _ = midrun(30.0)
    snaps = [{**p.snapshot(), "lateness_p99": 0.21e-3 * (1 + p.id % 2)} for p in parts.values()]
    snaps[0]["late"] = {"migrate": 1, "remote_exec": 1, "load_index": 3}
    lines = draw(Dashboard(snaps, 30.0, 0, total, runtime="paced", target=10.0, rate=9.9))
    assert "speed ×9.9 (target ×10.0)" in lines[0]
    assert lines[1] == "fidelity  lateness p99 0.42 ms (worst actor) · stragglers 2 · late load messages 3"
    assert not any(line.startswith("fidelity") for line in draw(frame(parts, total, 30.0)[1]))


def test_the_live_view_draws_a_few_times_a_second_and_always_the_end():
    console = Console(file=io.StringIO(), width=120, height=50, force_terminal=False)
    taken = []

    def snapshots():
        taken.append(1)
        return []

    with LiveView(console, 10, "inline", None, "t") as view:
        for i in range(1000):
            view(float(i), 0, snapshots)            # all within the first quarter second: none drawn
        view(1000.0, 10, snapshots)                  # the end is kept for the closing draw
    assert view.frames == 0 and len(taken) == 1
    assert "virtual 1,000.0 s" in console.file.getvalue() and "10/10 done" in console.file.getvalue()


def test_without_the_full_view_only_the_clock_and_jobs_bar_are_shown_and_no_snapshot_is_taken():
    console = Console(file=io.StringIO(), width=120, height=50, force_terminal=False)

    def snapshots():
        raise AssertionError("snapshots taken")

    with LiveView(console, 10, "inline", None, "t", nodes=False) as view:
        view(5.0, 10, snapshots)
    lines = console.file.getvalue().splitlines()
    assert len(lines) == 2 and lines[0].startswith("t  inline · virtual 5.0 s") and "10/10 done" in lines[1]


def test_a_watched_run_is_the_run_unwatched(tmp_path):
    """Snapshots read the model without changing it (reading the CPU's busy time settled it, and the rounding
    of that split step made watched runs differ)."""
    calls = []

    def watch(vnow, finished, snapshots):
        calls.append(snapshots())

    watched = run("quickstart.toml", "workload.jobs=800", progress=watch)
    plain = run("quickstart.toml", "workload.jobs=800")
    assert len(calls) >= 5
    for r, name in ((watched, "w"), (plain, "p")):
        results.write(r, tmp_path / name)
    assert (tmp_path / "w" / "jobs.csv").read_bytes() == (tmp_path / "p" / "jobs.csv").read_bytes()


def test_no_view_output_has_no_live_view(tmp_path):
    args = ("run", str(SCENARIOS / "quickstart.toml"), "--runtime", "inline", "--set", "workload.jobs=30")
    plain = nowemu(*args, "--no-view", "--out", str(tmp_path / "a"))
    shown = nowemu(*args, "--view", "--out", str(tmp_path / "b"))       # forced: its last frame, once
    assert plain.returncode == 0 and shown.returncode == 0, plain.stderr + shown.stderr
    for marker in ("30/30 done", "recent events", "run q", "Σ 8 nodes"):
        assert marker in shown.stdout and marker not in plain.stdout
    assert "jobs done 30/30" in plain.stdout


@pytest.mark.ray
def test_paced_actors_post_their_lateness_and_late_counts(ray_local):
    seen = []
    run("quickstart.toml", "workload.jobs=20", runtime="paced", speed=50.0,
        progress=lambda vnow, finished, snapshots: seen.append(snapshots()))
    nodes = workstations(seen[-1])
    assert len(nodes) == 8 and all(s["lateness_p99"] >= 0 and isinstance(s["late"], dict) for s in nodes)
    assert any(line.startswith("fidelity  lateness p99") for line in draw(Dashboard(seen[-1], 1.0, 20, 20)))


def test_drawing_the_view_makes_no_cyclic_garbage():
    """An inline run keeps Python's cyclic collector off, watched or not (`emu.engine.run.collector_paused`):
    safe only while everything the view makes to draw its frames is freed by reference counting."""
    import gc
    parts, total, _ = midrun(60.0)
    snaps = [p.snapshot() for p in parts.values()]
    console = Console(file=io.StringIO(), width=120, height=50, force_terminal=True)
    gc.collect()
    gc.disable()
    try:
        with LiveView(console, total, "inline", None, "t") as view:
            for i in range(20):
                view.next = 0.0                     # due: every call draws a frame
                view(60.0 + i, 0, lambda: snaps)
        assert view.frames == 20 and gc.collect() == 0
    finally:
        gc.enable()

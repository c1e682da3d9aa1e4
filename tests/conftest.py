import json
import os
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCENARIOS = ROOT / "scenarios"


@pytest.fixture(scope="session")
def ray_local():
    """One embedded Ray for the whole test session (about 5 s to start). A start that fails (a Ray startup
    timeout on a loaded machine) is tried once more, so that one flaky start fails no test."""
    from emu.engine.ray_runtime import start_ray
    try:
        ray = start_ray()
    except Exception:
        import ray as failed
        failed.shutdown()
        ray = start_ray()
    yield ray
    ray.shutdown()


def two_at_a_time(fn, items) -> list:
    """fn over items in two spawned processes (the machine's two cores; CI's time is capped): for a test of a
    property of many seeds. fn must be importable (a module-level function)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        return list(pool.map(fn, items))


def load(name: str, *overrides: str) -> dict:
    from emu.inputs import scenario
    return scenario.load(SCENARIOS / name, list(overrides))


def run(name: str, *overrides: str, runtime: str = "inline", **kw) -> dict:
    from emu.engine import run as runner
    return runner.run(load(name, *overrides), runtime=runtime, **kw)


def assert_balanced(result: dict) -> None:
    """Every run's accounting: all jobs present, time split, work conservation, Little's law."""
    checks = result["summary"]["checks"]
    assert checks["jobs_accounted"]
    assert checks["time_split_error"] < 1e-9
    assert checks["work_conservation_error"] < 1e-9
    if checks["little_error"] is not None:
        assert checks["little_error"] < 1e-9
    metrics = result["summary"]["metrics"]
    assert sum(metrics["states"].values()) == metrics["jobs_submitted"]
    assert metrics["states"]["lost"] == 0
    expected = 0
    for w in result["summary"]["config"]["workload"]:
        if w["parallel"]["sizes"]:          # tasks per job drawn: every job there, each of a size it may have
            sizes = Counter(j["group"] for j in result["jobs"] if j["program"] == w["name"])
            assert len(sizes) == w["jobs"] and set(sizes.values()) <= set(w["parallel"]["sizes"])
            expected += sum(sizes.values())
        else:
            expected += w["jobs"] * max(1, w["parallel"]["tasks"])
    assert metrics["jobs_submitted"] + metrics["jobs_not_arrived"] == metrics["jobs_replaced"] + expected


# summary.json's fields that describe the run rather than the model: the runtime, its Ray hosts and actors,
# and wall-clock times
RUNTIME = ("runtime", "hosts", "actors", "startup_time", "wall_time")


def assert_identical_folders(inline: dict, stepped: dict, tmp_path) -> None:
    """Every file of the two runs' results folders byte for byte (summary.json but for RUNTIME)."""
    from emu.engine import results
    folders = {}
    for name, result in (("inline", inline), ("stepped", stepped)):
        results.write(result, tmp_path / name)
        folders[name] = tmp_path / name
    files = sorted(p.name for p in folders["inline"].iterdir())
    assert files == sorted(p.name for p in folders["stepped"].iterdir())
    for file in files:
        a, b = (folders[k] / file for k in ("inline", "stepped"))
        if file == "summary.json":
            a, b = ({k: v for k, v in json.loads(x.read_text()).items() if k not in RUNTIME} for x in (a, b))
            assert a == b
        else:
            assert a.read_bytes() == b.read_bytes(), file


os.environ.setdefault("PYTHONHASHSEED", "0")

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


os.environ.setdefault("PYTHONHASHSEED", "0")

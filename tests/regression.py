"""A developer's check that a change meant to be a pure speed-up (or refactoring) changes no output: run a fixed
set of small scenarios, covering every paper's policy families, both network media and the page-level memory,
with two checkouts, and compare their results folders byte for byte (summary.json without its wall times and
file paths).

    cd OLD_CHECKOUT && python -m tests.regression run /tmp/before      # e.g. a `git worktree` of the base
    cd NEW_CHECKOUT && python -m tests.regression run /tmp/after
    python -m tests.regression compare /tmp/before /tmp/after          # exit 1 and a line per difference

`python -m` from a checkout imports that checkout's code; a script run as `python FILE.py` imports the
editable install's, whatever the working directory (a timing of two checkouts that way times one twice). The
set takes about two minutes on 2 cores. It is not a test of its own: the results it compares depend on NumPy's
random streams, which NumPy does not promise to keep across releases, so there is no stored golden output;
both sides run on the same machine.
"""
from __future__ import annotations

import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

SCENARIOS = Path(__file__).resolve().parent.parent / "scenarios"
SPAN = 'workload.arrival.span="3582 s"'
SET = {      # name: (scenario, overrides)
    "p000-reservation": ("p000/spec.toml", ["cluster.nodes=8", "workload.jobs=194", SPAN]),
    "p000-app-ls_re": ("p000/app.toml", ["policy=ls_re", "cluster.nodes=8", "workload.jobs=144", SPAN]),
    "p002-ls_net_ram": ("p002/spec.toml", ["policy=ls_net_ram", "cluster.nodes=8", "workload.jobs=120",
                                           'network.bandwidth="1 Gbps"']),
    "p002-net_ram-bus": ("p002/app.toml", ["policy=net_ram", "cluster.nodes=4", "workload.jobs=45",
                                           'network.bandwidth="100 Mbps"']),
    "p002-suspension": ("p002/app.toml", ["policy=suspension", "cluster.nodes=8", "workload.jobs=90"]),
    "p002-ls_re-type1": ("p002/app.toml", ["policy=ls_re", "cluster.nodes=8", "workload.jobs=90",
                                           "workload.nonmigratable=0.2"]),
    "p004-linger_longer": ("p004/ll_c1.toml", ["policy=linger_longer", "workload.jobs=16"]),
    "p004-pause_and_migrate": ("p004/ll_c1.toml", ["policy=pause_and_migrate", "workload.jobs=16"]),
    "p004-parallel": ("p004/ll_p1.toml", []),
    "p001-csm-25ms": ("p001/high.toml", ["workload.0.jobs=240", "workload.1.jobs=8", "workload.2.jobs=8", "seed=3",
                                         'workload.1.parallel.burst="25 ms"', 'workload.2.parallel.burst="25 ms"']),
    "p001-rr-lru_page": ("p001/medium.toml", ["cpu.insertion.name=rr", 'memory.lru="page"', "workload.0.jobs=160",
                                              "workload.1.jobs=5", "workload.2.jobs=5"]),
    "p003-iocm": ("p003/io.toml", ["policy=iocm", "workload.jobs=40", 'workload.arrival.span="40 s"',
                                   'workload.lifetime.max="20 s"', 'workload.io.initial_data="10 MB"']),
    "p003-iocm_pm-parallel": ("p003/parallel.toml", ["policy=iocm_pm", "cluster.nodes=6", "workload.0.jobs=8",
                                                     "workload.1.jobs=5", "workload.1.parallel.sizes=[2, 3, 4]",
                                                     'workload.0.arrival.span="20 s"',
                                                     'workload.1.arrival.span="20 s"']),
    "quickstart": ("quickstart.toml", []),
    "quickstart-gossip": ("quickstart.toml", ["load_index.exchange=gossip"]),
}
VARYING = ("wall_time", "file")     # summary fields that differ between identical runs


def _run_one(name: str, out: str) -> str:
    from emu.engine import results
    from emu.engine.run import run
    from emu.inputs import scenario
    path, overrides = SET[name]
    results.write(run(scenario.load(SCENARIOS / path, overrides), "inline"), Path(out) / name)
    return name


def run_all(out: Path) -> None:
    with ProcessPoolExecutor(max_workers=2) as pool:
        for name in pool.map(_run_one, SET, [str(out)] * len(SET)):
            print(f"{name}: {out / name}")


def _summary(path: Path) -> dict:
    """A summary without what differs between identical runs of two checkouts: wall times, the scenario's
    file, and the checkout's own folder in the paths of data files (scenarios/data/bursts.csv)."""
    def strip(node):
        if isinstance(node, dict):
            return {k: strip(v) for k, v in node.items() if k not in VARYING}
        if isinstance(node, list):
            return [strip(v) for v in node]
        if isinstance(node, str) and "/scenarios/" in node:
            return node[node.index("/scenarios/"):]
        return node
    return strip(json.loads(path.read_text()))


def compare(a: Path, b: Path) -> list[str]:
    """Every difference between two runs of the set: a missing run or file, a file whose bytes differ."""
    differences = []
    for name in SET:
        files = sorted({p.name for p in (a / name).glob("*")} | {p.name for p in (b / name).glob("*")})
        if not files:
            differences.append(f"{name}: in neither folder")
        for file in files:
            x, y = a / name / file, b / name / file
            if not (x.exists() and y.exists()):
                differences.append(f"{name}/{file}: only in {a if x.exists() else b}")
            elif file == "summary.json":
                if _summary(x) != _summary(y):
                    differences.append(f"{name}/{file}: differs (beyond {', '.join(VARYING)})")
            elif x.read_bytes() != y.read_bytes():
                differences.append(f"{name}/{file}: differs")
    return differences


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "run":
        run_all(Path(argv[1]))
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        differences = compare(Path(argv[1]), Path(argv[2]))
        print("\n".join(differences) or f"identical: {len(SET)} runs")
        return 1 if differences else 0
    print("usage: python -m tests.regression run OUT | compare BEFORE AFTER", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

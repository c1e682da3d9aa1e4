"""The mean interarrival times (mit) of paper 001's dynamic workloads, found by running them: eq. (5) defines
mem_load through N_k.mem, which depends on how long tasks stay, so mit is the value at which the runs reach
the paper's mem_load (the spec's "literal eq. (5) with measured N_k.mem, iterated").

    python -m emu.tools.reproductions.p001.calibrate

For each workload point (low at every pdt, medium and high at pdt 0.5): RR, bursts of 100 ms, seeds 1 and
2, inline; a secant search on log mit from `plan.analytic`'s guess until the mean of the runs' memory load
(N_k.mem / M over the arrivals, `emu.engine.coscheduling.load`) is within 2 % of the target. It prints
`plan.MIT` as Python: paste it there (with the date), and the pdt-0.5 values into the scenario files
(tests/test_coscheduling.py holds them equal). The same mit serves every policy: the paper's load is a
property of the workload, and RR is its baseline.
"""
from __future__ import annotations

import math
from concurrent.futures import ProcessPoolExecutor

from emu.engine.run import run
from emu.inputs import SCENARIOS
from emu.inputs.scenario import load, node_specs
from emu.tools.reproductions.p001.plan import MEM_LOAD, PDTS, analytic, arrivals, shares, split

SEEDS = (1, 2)
TOLERANCE = 0.02


def memory_load(case: str, pdt: float, mit: float) -> float:
    sets = ["cpu.insertion.name=rr", *(split(pdt) if case == "low" else [])]
    sets += arrivals(case, pdt, mit, tuple(sets))
    total = 0.0
    for seed in SEEDS:
        scenario = load(SCENARIOS / "p001" / f"{case}.toml", [*sets, f"seed={seed}"])
        total += run(scenario, "inline")["summary"]["coscheduling"]["memory_load"]
    return total / len(SEEDS)


def calibrate(point: tuple[str, float]) -> tuple[tuple[str, float], float, float, int]:
    case, pdt = point
    target = MEM_LOAD[case]
    scenario = load(SCENARIOS / "p001" / f"{case}.toml", split(pdt) if case == "low" else [])
    mit, _ = analytic(scenario, target, shares(case, pdt, len(node_specs(scenario))))
    seen = []
    for step in range(1, 9):
        reached = memory_load(case, pdt, mit)
        seen.append((math.log(mit), math.log(reached)))
        if abs(reached / target - 1) <= TOLERANCE:
            return point, mit, reached, step
        slope = -1.5                                   # d log(load) / d log(mit): -1 at no queueing, steeper with it
        if len(seen) > 1 and seen[-1][0] != seen[-2][0]:
            slope = min(-0.5, max(-6.0, (seen[-1][1] - seen[-2][1]) / (seen[-1][0] - seen[-2][0])))
        mit = math.exp(math.log(mit) + (math.log(target) - math.log(reached)) / slope)
    raise SystemExit(f"calibrate: {case} pdt {pdt}: no mit within {TOLERANCE:.0%} in 8 steps (last {mit:.4g} s: {reached:.3f})")


def main() -> None:
    points = [("medium", 0.5), ("high", 0.5), *(("low", p) for p in PDTS)]
    with ProcessPoolExecutor(2) as pool:
        found = list(pool.map(calibrate, points))
    print("MIT = {" + ", ".join(f"({c!r}, {p}): {mit:.5g}" for (c, p), mit, _, _ in found) + "}")
    for (c, p), mit, reached, steps in found:
        print(f"# {c} pdt {p}: mit {mit:.5g} s -> memory load {reached:.3f} (target {MEM_LOAD[c]}) in {steps} runs")


if __name__ == "__main__":
    main()

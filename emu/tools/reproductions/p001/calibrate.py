"""The mean interarrival times (mit) of paper 001's dynamic workloads, found by running them: eq. (5) defines
mem_load through N_k.mem, which depends on how long tasks stay, so mit is the value at which the runs reach
the paper's mem_load (the spec's "literal eq. (5) with measured N_k.mem, iterated").

    python -m emu.tools.reproductions.p001.calibrate

For each workload point (low at every pdt, medium and high at pdt 0.5): RR, bursts of 100 ms, inline, over
SEEDS (not the reproduction's own seeds 1-7: near saturation one seed's load can be half another's, so the
mit is found on five others and the report shows what the reproduction's seeds reached). From `plan.analytic`'s
guess, steps on log mit (`calibrate`) until the mean of the runs' memory load (N_k.mem / M over the arrivals,
`emu.engine.coscheduling.load`) is within 3 % of the target. It prints
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

SEEDS = (101, 102, 103, 104, 105)
TOLERANCE = 0.03
STEPS = 10


def memory_load(case: str, pdt: float, mit: float) -> float:
    sets = ["cpu.insertion.name=rr", *(split(pdt) if case == "low" else [])]
    sets += arrivals(case, pdt, mit, tuple(sets))
    total = 0.0
    for seed in SEEDS:
        scenario = load(SCENARIOS / "p001" / f"{case}.toml", [*sets, f"seed={seed}"])
        total += run(scenario, "inline")["summary"]["coscheduling"]["memory_load"]
    return total / len(SEEDS)


def calibrate(point: tuple[str, float]) -> tuple[tuple[str, float], float, float, int]:
    """(point, mit, memory load reached, runs): secant steps on log mit until the target is bracketed, then
    bisection (the load is monotone in mit only on average: one mapping decision more or less moves it);
    after STEPS, the mit whose load came closest."""
    case, pdt = point
    target = MEM_LOAD[case]
    scenario = load(SCENARIOS / "p001" / f"{case}.toml", split(pdt) if case == "low" else [])
    x = math.log(analytic(scenario, target, shares(case, pdt, len(node_specs(scenario))))[0])
    seen: dict[float, float] = {}
    for step in range(1, STEPS + 1):
        seen[x] = memory_load(case, pdt, math.exp(x))
        if abs(seen[x] / target - 1) <= TOLERANCE:
            break
        over = [m for m, v in seen.items() if v > target]          # mit too short: load too high
        under = [m for m, v in seen.items() if v < target]
        if over and under:
            x = (max(over) + min(under)) / 2
        else:
            x += (math.log(target) - math.log(seen[x])) / -1.5       # d log(load) / d log(mit): -1, steeper queueing
    best = min(seen, key=lambda m: abs(seen[m] / target - 1))
    return point, math.exp(best), seen[best], len(seen)


def main() -> None:
    points = [("medium", 0.5), ("high", 0.5), *(("low", p) for p in PDTS)]
    with ProcessPoolExecutor(2) as pool:
        found = list(pool.map(calibrate, points))
    print("MIT = {" + ", ".join(f"({c!r}, {p}): {mit:.5g}" for (c, p), mit, _, _ in found) + "}")
    for (c, p), mit, reached, steps in found:
        print(f"# {c} pdt {p}: mit {mit:.5g} s -> memory load {reached:.3f} (target {MEM_LOAD[c]}) after {steps} "
              f"points of {len(SEEDS)} runs")


if __name__ == "__main__":
    main()

"""Paper 001 under real concurrency: the scaled-down medium workload (plan.PACED) run paced, every workstation
a Ray actor whose tasks wait for partner messages that come from other actors, beside the same seeds inline.
The paced runs are not deterministic (the actors' interleaving decides ties in wall time, not in the event
order), so they are held to the inline runs' own spread over seeds, not to equality."""
from __future__ import annotations

import json

import numpy as np

from emu.tools.reproduce import Claim, fmt, mean_ci, select
from emu.tools.reproductions.p001.dynamic import value
from emu.tools.reproductions.p001.plan import PACED_SLOWER, PACED_SPEED

METRICS = ("correlation/parallel", "slowdown/small", "slowdown/large", "slowdown/local")
WHY_BEYOND = (". A paced run is another sample of the same model, not a copy of the inline run: the actors' wall-time "
              "interleaving orders its events at equal times, and its partner messages come late (below); where the "
              "inline seeds barely differ (correlation near 100 %, a few parallel jobs a run) one job whose tasks end "
              "a little further apart is enough")


def analyse(records: dict) -> tuple[list[Claim], list[str]]:
    paced, inline = select(records.get("paced", [])), select(records.get("paced-inline", []))
    if not paced or not inline:
        return [], []
    by_seed = {r["seed"]: r for r in inline}
    pairs = [(r, by_seed[r["seed"]]) for r in paced if r["seed"] in by_seed]
    rows, verdicts, widths = [], [], []
    for what in METRICS:
        spread = [value(r, what) for r in inline]
        width = max(spread) - min(spread)
        widths.append(width)
        gaps = [value(p, what) - value(i, what) for p, i in pairs]
        ok = all(abs(g) <= width for g in gaps) if len(spread) > 1 else None
        verdicts.append(ok)
        rows.append(f"| {what} | {fmt(*mean_ci(value(p, what) for p, _ in pairs), 3)} | {fmt(*mean_ci(spread), 3)} | "
                    f"{width:.3f} | {max(map(abs, gaps)):.3f} | {'yes' if ok else 'no' if ok is False else 'n/a'} |")
    within = None if None in verdicts else all(verdicts)
    beyond = [f"{what}: seed {p['seed']} {value(p, what) - value(i, what):+.3f} where the inline seeds spread "
              f"{width:.3f}" for what, width in zip(METRICS, widths) for p, i in pairs
              if abs(value(p, what) - value(i, what)) > width]
    late = [_late(r) for r in paced]
    unfaithful = [r for r in paced if r.get("unfaithful")]
    speeds = _speeds(paced)
    claim = Claim("real concurrency", "the scaled-down medium workload under `paced` (every workstation a Ray actor, "
                  "partner messages between actors), at the highest speed of "
                  f"{', '.join(f'{s:g}x' for s in (PACED_SPEED, *PACED_SLOWER))} that the runtime reports faithful, "
                  "agrees with inline, seed by seed, within the inline runs' spread over seeds",
                  "(not in the paper: the emulator's own check)",
                  f"{len(pairs)} seeds, {speeds}; {len(paced) - len(unfaithful)} of {len(paced)} paced runs faithful",
                  within if not unfaithful else False,
                  "; ".join([w for r in unfaithful for w in r["unfaithful"]] + beyond) + (WHY_BEYOND if beyond else ""))
    tried = [f"seed {r['seed']} at {speed:g}x: {'; '.join(warnings)}"
             for r in paced for speed, warnings in r.get("tried", [])]
    seeds = ", ".join(str(p["seed"]) for p, _ in pairs)
    lines = ["## Real concurrency: paced against inline", "",
             f"scenarios/p001/medium.toml on 8 workstations under CSM (`plan.PACED`), seeds {seeds}, paced with one Ray "
             f"actor per workstation, and inline. Each paced run ran at {PACED_SPEED:g} virtual seconds per wall "
             "second and, while the runtime reported it unfaithful, again at "
             f"{' and then '.join(f'{s:g}' for s in PACED_SLOWER)} (`plan.PACED_SLOWER`; a speed at which one "
             f"seed was unfaithful was not tried for the seeds after it): {speeds}. Spread: "
             "the largest minus the smallest inline value over the seeds; a paced run agrees when it is within that "
             "of the inline run of its seed.", "",
             *([f"Unfaithful tries, run again slower: {'. '.join(tried)}.", ""] if tried else []),
             "| metric | paced | inline | inline spread | largest paced - inline | within |", "|---|---|---|---|---|---|",
             *rows, "",
             "Partner messages processed after their deliver time (the 1-ms latency; not in the runtime's verdict, "
             f"which counts late job messages): {np.mean([n for n, _ in late]):,.0f} a run. Late messages of every "
             f"kind (partner messages and load reports) came {np.median([p for _, p in late]) * 1e3:.0f} ms of "
             "virtual time late at the median of the runs' medians.", ""]
    return [claim], lines


def _speeds(paced: list[dict]) -> str:
    """The speeds the paced runs kept, e.g. "seeds 1, 3 at 50x, seed 2 at 25x"."""
    at = {}
    for r in paced:
        at.setdefault(r["config"]["speed"], []).append(str(r["seed"]))
    return ", ".join(f"seed{'s' if len(seeds) > 1 else ''} {', '.join(seeds)} at {speed:g}x"
                     for speed, seeds in sorted(at.items(), reverse=True))


def _late(record: dict) -> tuple[int, float]:
    """A paced run's partner (sync) messages that came after their deliver time, and the median lateness of all
    its late messages (virtual s)."""
    fidelity = json.loads((record["folder"] / "summary.json").read_text())["fidelity"]
    return fidelity["late_by_kind"].get("sync", 0), fidelity["lateness_p50"]

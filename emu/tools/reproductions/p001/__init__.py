"""Paper 001 (Giné, Solsona, Hernández, Luque, coscheduling under memory constraints): the experiments `nowemu
reproduce p001` runs and how they are set beside the paper's. The node model is scenarios/p001/node.toml's
(the paper's §3 and §5.1); docs/p001.md gives it and every reading taken where the paper is silent.

The experiments and the arrival rates of the dynamic workloads are in `plan`; the analysis of Fig. 4's static
workload in `fig4`, of the dynamic workloads (Figs. 5-12) in `dynamic`, and the paced runs against inline in
`paced`.
"""
from __future__ import annotations

from emu.tools.reproduce import Claim
from emu.tools.reproductions.p001 import dynamic, fig4, paced
from emu.tools.reproductions.p001.plan import experiments

TITLE = ('Giné, Solsona, Hernández and Luque, "Coscheduling under Memory Constraints in a NOW Environment", '
         'JSSPP 2001 (paper 001)')
__all__ = ["TITLE", "experiments", "analyse"]           # what `nowemu reproduce` reads (emu/tools/reproduce.py)


def analyse(records: dict, plots) -> tuple[list[Claim], list[str]]:
    claims, sections = fig4.analyse(records, plots)
    for part in (dynamic.analyse(records, plots), paced.analyse(records)):
        claims, sections = claims + part[0], sections + part[1]
    return claims, sections

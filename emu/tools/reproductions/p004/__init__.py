"""Paper 004 (Ryu and Hollingsworth, Linger-Longer): the experiments `nowemu reproduce p004` runs and how
their results are set beside the paper's (spec 004 §7, §9). See docs/p004.md for the model and its defaults.

Reproduced: Fig. 3 (the burst generator against its model, from Fig. 7's runs), Fig. 7 (node level), Fig. 8
(one owner episode), Table 1 for both workloads (average job time, variation, family time, the local delay,
and the throughput of the paper's separate constant-population runs, `workload.closed`, one simulated hour),
spec A1's sweep of PM's pause, Fig. 10 (time per state), and the synthetic parallel jobs of Figs. 11-13. Not
built: the DSM applications (Figs. 14-18), whose deciding parameters the paper does not give (docs/p004.md).

The experiments are in `plan`; the analysis by level in `node` (Figs. 3, 7, 8), `sequential` (Table 1, PM's
pause, Fig. 10) and `parallel` (Figs. 11-13).
"""
from __future__ import annotations

from emu.tools.reproduce import Claim
from emu.tools.reproductions.p004.node import fig3, fig7, fig8
from emu.tools.reproductions.p004.parallel import fig11, fig12, fig13
from emu.tools.reproductions.p004.plan import experiments
from emu.tools.reproductions.p004.sequential import fig10, pause, table1

TITLE = ('Ryu and Hollingsworth, "Exploiting Fine-Grained Idle Periods in Networks of Workstations", '
         "IEEE TPDS (paper 004)")
__all__ = ["TITLE", "experiments", "analyse"]           # what `nowemu reproduce` reads (emu/tools/reproduce.py)


def analyse(records: dict, plots) -> tuple[list[Claim], list[str]]:
    claims, sections = [], []
    for part in (fig3, fig7, fig8, table1, pause, fig10, fig11, fig12, fig13):
        c, s = part(records, plots)
        claims += c
        sections += s
    sections += ["## Not yet reproduced", "",
                 "- **DSM applications** (Figs. 14-18: sor, water, fft under CVM): not built. The paper gives neither "
                 "CVM's clock nor water's locks nor fft's diffs, which would decide the results "
                 "(docs/p004.md, \"The DSM applications\"). sor is a barrier code: Fig. 12's 50-ms column is "
                 "the nearest point.",
                 ""]
    return claims, sections

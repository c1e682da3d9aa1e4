"""Paper 003 (Qin's thesis): the experiments `nowemu reproduce p003` runs and how their results are set beside the
thesis's (spec 003a §6 and §7.5): Chapter 3's sequential jobs on six nodes (`ch3`) and WAL-PM's sensitivities
(`sensitivity`), Chapter 4's parallel jobs on 32 (`ch4`) and its traces of real applications (`apps`).

The thesis reports no numbers for these figures, only orderings, sensitivities and a few factors; its claims are
checked on the means over seeds (each experiment's runs use the same seeds for every policy, so that every
policy sees the same jobs). It averaged 10 runs after dropping the highest and the lowest: the tables give that
trimmed mean too when there are enough seeds. An "improvement" the thesis does not define: both forms are given,
(S_other - S) / S (its Ch. 4 figures above 100 % need this one) and (S_other - S) / S_other.
"""
from __future__ import annotations

from emu.tools.reproductions.p003 import apps, ch3, ch4, sensitivity
from emu.tools.reproductions.p003.common import by_chapter

TITLE = ('Xiao Qin, "Dynamic I/O-Aware Load Balancing and Resource Management for Clusters", PhD thesis, '
         'University of Nebraska-Lincoln, 2004, Chapters 3 and 4 (paper 003)')
__all__ = ["TITLE", "experiments", "analyse"]           # what `nowemu reproduce` reads (emu/tools/reproduce.py)
CHAPTERS = (ch3, sensitivity, ch4, apps)
experiments, analyse = by_chapter(CHAPTERS)

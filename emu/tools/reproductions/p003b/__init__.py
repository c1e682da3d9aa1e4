"""Paper 003 (Qin's thesis), part 2: the experiments `nowemu reproduce p003b` runs and how their results are set
beside the thesis's: Chapter 5's heterogeneous clusters (`ch5`; its real applications against one aging disk,
Fig. 5.7: `aging`), Chapter 6's buffer feedback controller (`ch6`)
and Chapter 7's communication-aware balancing (`ch7`). Chapters 3 and 4 are `p003`; a reproduction of its own,
as the two together would not fit in an hour.

As in p003 (emu/tools/reproductions/p003/__init__.py): the thesis reports no numbers for its figures, only
orderings, sensitivities and a few factors; its claims are checked on the means over seeds (every policy on the
same seeds); the tables give the thesis's trimmed mean (highest and lowest run dropped) too.
"""
from __future__ import annotations

from emu.tools.reproductions.p003b import aging, ch5, ch6, ch7
from emu.tools.reproductions.p003.common import by_chapter

TITLE = ('Xiao Qin, "Dynamic I/O-Aware Load Balancing and Resource Management for Clusters", PhD thesis, '
         'University of Nebraska-Lincoln, 2004, Chapters 5 to 7 (paper 003, part 2)')
__all__ = ["TITLE", "experiments", "analyse"]           # what `nowemu reproduce` reads (emu/tools/reproduce.py)
CHAPTERS = (ch5, aging, ch6, ch7)
experiments, analyse = by_chapter(CHAPTERS)

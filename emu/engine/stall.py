"""The stall guard: a run that can make no more progress ends, instead of running on to `stop.time`.

A model or policy bug can leave jobs that will never run again (a task waiting for a message nobody sends, a job
held in a pending pool no node will take) while the load reports go on ticking: such a run would spin through
virtual time up to `stop.time` (1e7 s by default), hours of wall time, and then look finished. The guard looks
every `stop.stall` of virtual time (1e5 s by default: far longer than any wait the papers' models have; an
owner's busy spell, which holds guest jobs off, lasts minutes) and ends the run at the look where nothing
changed since the previous one while jobs remain: no job arrived or finished, no CPU did any work (busy time
unchanged on every workstation), the jobs held (resident or waiting to be placed) the same. The run then ends
as at its stop time, every job accounted for in its state, and its summary says `stalled`.

So that the inline and stepped runtimes end alike, the guard looks at the start of a conservative window (the
earliest pending event, which both runtimes know: `emu.engine.inline` keeps track of the stepped runtime's
windows), the first at or after each due time, and each workstation's figures are as of that instant
(`Participant.progress`). The paced runtime has no common instants: its driver looks at the figures the hosts
post to its board (`look`), each as of its host's clock, and stops the actors as at `stop.time`.
"""
from __future__ import annotations

INF = float("inf")


class StallWatch:
    __slots__ = ("period", "next", "last", "at", "since")

    def __init__(self, stop: dict):
        self.period = stop.get("stall", INF)
        self.next = self.period     # the virtual time of the next look
        self.last = self.since = None   # the figures of the last look that saw progress, and its time
        self.at = None                  # the look that found none since (a stall)

    def stalled(self, t: float, figures: list) -> bool:
        """A look at window start `t`: True if nothing progressed since the last look while jobs remain.
        `figures`: each participant's `progress(t)`, in id order (None for those that hold no jobs)."""
        figures = [f for f in figures if f is not None]
        same = figures == self.last and any(held for *_, held in figures)
        if same:
            self.at = t
        else:
            self.last, self.since, self.next = figures, t, t + self.period
        return same

    def look(self, t: float, snapshots: list[dict]) -> bool:
        """A paced run's look, at virtual time `t` as its driver reckons it, when due and no stall was found
        yet: the figures its hosts last posted (`Host._post`: each as of that host's clock, up to a post's
        interval behind; nothing progressed over a whole period all the same)."""
        if self.at is not None or t < self.next:
            return False
        return self.stalled(t, [s.get("figures") for s in sorted(snapshots, key=lambda s: s["node"])])

    def report(self) -> dict:
        """summary.json's `stalled`: the look that found no progress, the one before it, the guard's period, and
        the jobs the workstations held."""
        return {"at": self.at, "since": self.since, "stall": self.period, "held": sum(f[-1] for f in self.last)}


def line(stalled: dict) -> str:
    """A stalled run's one line (`nowemu run` prints it; a sweep or reproduction counts the run as failed)."""
    return (f"stalled: no job arrived, finished or ran from virtual {stalled['since']:.0f} s to {stalled['at']:.0f} s "
            f"(stop.stall) while the workstations held {stalled['held']} job(s); the run ended there")

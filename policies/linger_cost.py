"""Linger-Longer's cost model (paper 004 §3.1, Fig. 1; spec 004 §4.1, §9): when does leaving a nonidle node
pay? The Linger-Longer policy decides with it; its equations are tested as oracles in tests/test_linger_cost.py.

A foreign job progresses at 1 - u on a node whose owner uses u of the CPU. Its node turns nonidle at t1 with
owner utilization h (an idle node has l); it lingers until t2, migrates until t3 (T_migr, the job stopped),
and the nonidle episode ends at t4.
"""
from __future__ import annotations

import math


def migration_time(size: float, bandwidth: float, suspend: float = 0.0, resume: float = 0.0) -> float:
    """Eq. 5: T_migr = Suspend_Time(source) + Process_size / Network_Bandwidth + Resume_Time(destination).
    `size` in bytes, `bandwidth` in bytes per second."""
    return suspend + size / bandwidth + resume


def completion_gain(t2: float, t3: float, t4: float, h: float, l: float) -> float:
    """Eq. 2: t_f2 - t_f1, how much later the job finishes if it migrates at t2 (arriving t3) than if it
    stays through the episode ending at t4 (negative: migrating finishes sooner). Assumes t3 <= t4, the
    destination stays at l and the job outlives the episode."""
    return (t4 - t2) * (1 - h) / (1 - l) - (t4 - t3)


def migration_pays(nonidle: float, lingered: float, t_migr: float, h: float, l: float) -> bool:
    """Eq. 3: migrating after lingering `lingered` in an episode lasting `nonidle` pays off (t_f2 <= t_f1)
    iff nonidle >= lingered + ((1 - l) / (h - l)) T_migr. Never when h <= l."""
    return h > l and nonidle >= lingered + (1 - l) / (h - l) * t_migr


def linger_time(h: float, l: float, t_migr: float) -> float:
    """Eq. 4: how long to linger before migrating, T_lingr = ((1 - l) / (h - l)) T_migr. It is Eq. 3 with the
    episode predicted as twice its age (median remaining life = current age, after Harchol-Balter and Downey).
    Infinite when h <= l: then migrating never pays."""
    return (1 - l) / (h - l) * t_migr if h > l else math.inf

"""Linger-Longer's cost model, Eqs. 2-5 of paper 004, against the spec's oracles (spec 004 §9) and against a
direct work-conservation account of one foreign job (its progress rate is 1 - u, u its node's owner load)."""
import math
import random

import pytest

from emu.inputs import units
from policies.linger_cost import completion_gain, linger_time, migration_pays, migration_time


def finish(work: float, pieces: list) -> float:
    """When a job of `work` CPU-s finishes, running through `pieces` of (until, rate) in order; the last
    piece lasts for ever."""
    t = done = 0.0
    for until, rate in pieces:
        if rate > 0 and done + (until - t) * rate >= work:
            return t + (work - done) / rate
        done += (until - t) * rate
        t = until
    raise AssertionError("the last piece must last for ever")


def stay_and_migrate(work, t1, t2, t3, t4, h, l):
    stay = finish(work, [(t1, 1 - l), (t4, 1 - h), (math.inf, 1 - l)])
    migrate = finish(work, [(t1, 1 - l), (t2, 1 - h), (t3, 0.0), (math.inf, 1 - l)])
    return stay, migrate


def test_eq4_values_from_the_spec():
    assert linger_time(0.2, 0.0, 6.0) == pytest.approx(30.0)          # Fig. 8's 30-s linger time
    assert linger_time(0.2, 0.0, 21.33) == pytest.approx(106.65)
    assert linger_time(1.0, 0.0, 7.0) == pytest.approx(7.0)
    assert linger_time(0.5, 0.0, 21.33) == pytest.approx(42.66)
    assert linger_time(0.1, 0.1, 5.0) == math.inf and linger_time(0.05, 0.1, 5.0) == math.inf   # h <= l


def test_eq5_the_papers_migration_of_8_mb_at_3_mbps():
    assert migration_time(8e6, 3e6 / 8) == pytest.approx(21.33, abs=0.01)                     # decimal MB
    assert migration_time(units.parse("8 MB", "size"), units.parse("3 Mbps", "bandwidth")) == pytest.approx(22.37, abs=0.01)
    assert migration_time(8e6, 10e6 / 8, suspend=0.5, resume=0.25) == pytest.approx(7.15)


def test_eq2_against_a_direct_account_of_the_job():
    rng = random.Random(4)
    for _ in range(500):
        h, l = rng.uniform(0.05, 0.95), rng.uniform(0.0, 0.04)
        t1 = rng.uniform(0, 100)
        t2 = t1 + rng.uniform(0, 100)
        t3 = t2 + rng.uniform(0.1, 30)
        t4 = t3 + rng.uniform(0, 200)
        work = (1 - l) * t4 + rng.uniform(1, 500)             # the job outlives the episode either way
        stay, migrate = stay_and_migrate(work, t1, t2, t3, t4, h, l)
        assert migrate - stay == pytest.approx(completion_gain(t2, t3, t4, h, l), abs=1e-7)


def test_eq3_says_when_eq2_is_a_gain():
    rng = random.Random(5)
    for _ in range(500):
        h, l = rng.uniform(0.0, 1.0), rng.uniform(0.0, 0.3)
        t1, lingered, t_migr = 0.0, rng.uniform(0, 60), rng.uniform(0.5, 30)
        nonidle = lingered + t_migr + rng.uniform(0, 300)
        gain = completion_gain(t1 + lingered, t1 + lingered + t_migr, t1 + nonidle, h, l)
        assert migration_pays(nonidle, lingered, t_migr, h, l) == (gain <= 1e-12 and h > l)


def test_fig8_oracle_linger_beats_eviction_for_short_episodes_only():
    """Spec §9: a 50-s job, owner back at its start at h = 0.2 for D s, l = 0, T_migr = 6 s. Immediate
    eviction finishes at M + W; lingering stays until T_lingr = 30 s and then migrates. Linger wins for
    D <= 30 s, loses after, and never by more than M (rent or buy: 2-competitive)."""
    work, h, m = 50.0, 0.2, 6.0
    t_lingr = linger_time(h, 0.0, m)
    for d in [x * 0.5 for x in range(1, 241)]:
        evict = finish(work, [(m, 0.0), (math.inf, 1.0)])
        if d <= t_lingr:
            linger = finish(work, [(d, 1 - h), (math.inf, 1.0)])
        else:
            linger = finish(work, [(t_lingr, 1 - h), (t_lingr + m, 0.0), (math.inf, 1.0)])
        assert evict == pytest.approx(m + work)
        assert (linger <= evict + 1e-9) == (d <= t_lingr + 1e-9) or linger == pytest.approx(evict)
        assert linger - evict <= m + 1e-9
    assert finish(work, [(t_lingr, 1 - h), (t_lingr + m, 0.0), (math.inf, 1.0)]) == pytest.approx(work + 2 * m)

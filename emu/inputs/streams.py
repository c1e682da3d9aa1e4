"""Every random stream of a run flows from the scenario seed: stream `(seed, purpose, index)` is
`numpy.random.SeedSequence([seed, purpose, index])`. Each purpose has its own number here, so that no two
purposes ever draw from the same stream (until 2026-11-24 a job stream's nonmigratable flags and a workstation's
owner bursts shared purpose 2, which correlated the flags of workload stream i with node i's owner)."""
from __future__ import annotations

import numpy as np

WORKLOAD = 0            # index: workload stream; arrivals, homes, lifetimes, programs
NODE = 1                # index: workstation; its own decisions (policy draws, which network-RAM host serves)
OWNER_BURSTS = 2        # index: workstation; its owner's fine-grained run/idle bursts
OWNER_ACTIVITY = 3      # index: workstation; its synthetic coarse trace (0: which machine of a real trace)
OWNER_SPREAD = 4        # index 0: the nodes' nonidle shares around the mean
NONMIGRATABLE = 5       # index: workload stream; which of its jobs may not be moved (paper 002's type 1)
PARALLEL = 6            # index: workload stream; its parallel jobs' sizes and burst sequences (paper 001)
IO = 7                  # index: workload stream; its jobs' I/O rates, when drawn (paper 003's U[0, AR])
VARIANTS = 8            # index: workload stream; which of its jobs are of which variant (paper 003's mixes)


def generator(seed: int, purpose: int, index: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([seed, purpose, index]))


def integer_seed(seed: int, purpose: int, index: int) -> int:
    """A seed for a `random.Random` (what the workstation model uses, as it never imports numpy)."""
    return int(np.random.SeedSequence([seed, purpose, index]).generate_state(1, dtype=np.uint64)[0])

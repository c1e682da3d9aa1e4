"""Quantities written as the papers write them ("10 ms", "384 MB", "10 Mbps"), parsed once into SI.

Conventions (spec 000, ambiguity A20): sizes are binary (1 KB = 1024 B, 1 MB = 2**20 B), bandwidths
are decimal (1 Mbps = 10**6 bit/s) and held in *bytes* per second, so that size / bandwidth is seconds.
Work is held in abstract operations and CPU speed in operations per second: "800 MIPS" is 8e8 op/s and
"1000 MI" is 1e9 op; a plain number of seconds of work on a speed-1.0 CPU is the default unit.
A bare number is taken as already in SI.
"""
from __future__ import annotations

import re

_TIME = {"s": 1.0, "sec": 1.0, "ms": 1e-3, "us": 1e-6, "µs": 1e-6, "ns": 1e-9, "min": 60.0, "h": 3600.0}
_SIZE = {"B": 1, "KB": 2**10, "MB": 2**20, "GB": 2**30, "TB": 2**40,
         "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "pages": None}
_RATE_BITS = {"bps": 1, "Kbps": 1e3, "Mbps": 1e6, "Gbps": 1e9}
_RATE_BYTES = {"B/s": 1, "KB/s": 2**10, "MB/s": 2**20, "GB/s": 2**30, "MBps": 2**20, "KBps": 2**10, "GBps": 2**30}
_SPEED = {"MIPS": 1e6, "GIPS": 1e9, "op/s": 1.0}
_WORK = {"MI": 1e6, "GI": 1e9, "op": 1.0}
_FREQ = {"/s": 1.0, "Hz": 1.0, "/min": 1 / 60.0, "/h": 1 / 3600.0}

KINDS = {
    "time": (_TIME, 'a time like "10 ms" or "2.5 s"'),
    "size": (_SIZE, 'a size like "384 MB" or "4 KB"'),
    "bandwidth": ({**{k: v / 8 for k, v in _RATE_BITS.items()}, **_RATE_BYTES}, 'a bandwidth like "10 Mbps" or "160 MB/s"'),
    "speed": (_SPEED, 'a CPU speed like "800 MIPS" or a relative factor like 1.5'),
    "work": ({**_WORK, **_TIME}, 'an amount of work like "600 s" (on a speed-1 CPU) or "1000 MI"'),
    "rate": (_FREQ, 'a rate like "0.5 /s"'),
    # a page-fault rate: per CPU-second, or per million instructions as paper 003 and its sources give it
    # (1e-6 per instruction here; `emu.inputs.scenario` makes it per CPU-second with cpu.mips)
    "fault_rate": ({**_FREQ, "/MI": 1e-6}, 'a fault rate like "800 /s" (per CPU-second) or "1 /MI" (per million '
                                           'instructions, with cpu.mips)'),
    # a job's explicit I/O accesses, the same way (paper 003's No./MI)
    "access_rate": ({**_FREQ, "/MI": 1e-6}, 'an I/O rate like "20 /s" (per CPU-second) or "1.5 /MI" (per million '
                                            'instructions, with cpu.mips)'),
}

_NUM = re.compile(r"^\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([^\d\s].*?)?\s*$")


class UnitError(ValueError):
    """A quantity that does not parse; the message says what was expected."""


def parse(value, kind: str, page_size: int = 4096) -> float:
    """Parse `value` (a number or a string with a unit) as a quantity of `kind`, returning SI."""
    table, expected = KINDS[kind]
    if isinstance(value, bool):
        raise UnitError(f"expected {expected}, got {value!r}")
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        raise UnitError(f"expected {expected}, got {value!r}")
    m = _NUM.match(value)
    if not m:
        raise UnitError(f"expected {expected}, got {value!r}")
    number, unit = float(m.group(1)), (m.group(2) or "").strip()
    if not unit:
        return number
    if unit not in table:
        raise UnitError(f"expected {expected}, got {value!r} (unknown unit {unit!r}; known: {', '.join(table)})")
    factor = table[unit]
    return number * (page_size if factor is None else factor)

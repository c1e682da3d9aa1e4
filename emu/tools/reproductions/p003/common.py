"""What paper 003's chapters share in how their results are set beside the thesis's."""
from __future__ import annotations


def trimmed(values: list[float]) -> float:
    """The thesis's average: the highest and the lowest dropped (with at least 4 values)."""
    v = sorted(values)
    return sum(v[1:-1]) / (len(v) - 2) if len(v) >= 4 else float("nan")


def gain(other: float, new: float) -> str:
    """An improvement in both forms: (S_other - S) / S and (S_other - S) / S_other."""
    return f"{100 * (other - new) / new:.1f} % / {100 * (other - new) / other:.1f} %"

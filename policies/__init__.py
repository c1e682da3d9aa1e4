"""Pluggable decisions. A policy is one file here, `policies/<name>.py`, defining `POLICY` (a subclass of
`policies.base.Policy`); a run-queue insertion policy defines `INSERTION` instead. Scenarios name them."""
from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path


def available(kind: str = "POLICY") -> list[str]:
    names = []
    for info in pkgutil.iter_modules([str(Path(__file__).parent)]):
        if info.name != "base" and hasattr(importlib.import_module(f"policies.{info.name}"), kind):
            names.append(info.name)
    return sorted(names)


def load(name: str, kind: str = "POLICY"):
    """The class behind a policy name; KeyError (with the names available) if there is none. Its own module
    only: every workstation of a run loads its policy, and scanning and importing them all each time cost a
    64-workstation run 3 % of its time."""
    module = None
    if name.isidentifier() and name != "base":
        try:
            module = importlib.import_module(f"policies.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"policies.{name}":      # the policy's own import failed: not a wrong name
                raise
    if hasattr(module, kind):
        return getattr(module, kind)
    raise KeyError(f"unknown {'policy' if kind == 'POLICY' else 'insertion policy'} {name!r}; "
                   f"available: {', '.join(available(kind))}")

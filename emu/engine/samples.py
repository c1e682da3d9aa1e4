"""nodes.csv: every workstation's samples at the load-report period as one table, and the cluster's series per
period that the metrics read (idle memory, memory demand, balance skew, blocked nodes).

A workstation takes its sample as a tuple (its load report's values, then `TAIL`'s; both are defined where the
sample is taken, `actors.load_report`, `node` and `time` first) under one list of column names, not as a dict:
a paper-scale run takes hundreds of thousands of samples, and a dict each cost more than the sample. `Samples`
holds all of them in (time, node) order; iterating it gives each row as a dict, as nodes.csv reads back.
"""
from __future__ import annotations

from operator import itemgetter

import numpy as np


class Samples:
    """Column names and one tuple per sample, in (time, node) order."""

    def __init__(self, keys: list[str], rows: list[tuple]):
        self.keys, self.rows = keys, rows

    @classmethod
    def merge(cls, tables) -> "Samples":
        """The workstations' own tables, (keys, rows in time order) each, as one. The columns are those of the
        first row (the earliest, of the lowest node), as nodes.csv always had them: a node whose report has
        other fields (an owner, where the first node has none) leaves the missing ones empty (None)."""
        tables = [(list(keys), rows) for keys, rows in tables if rows]
        if not tables:
            return cls([], [])
        keys = min(tables, key=lambda t: (t[1][0][1], t[1][0][0]))[0]
        rows: list[tuple] = []
        for own, some in tables:
            if own == keys:
                rows += some
            else:
                where = [own.index(k) if k in own else None for k in keys]
                rows += [tuple(None if i is None else row[i] for i in where) for row in some]
        if len(tables) > 1:             # one node's rows are in time order already
            rows.sort(key=itemgetter(1, 0))
        return cls(keys, rows)

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self):
        keys = self.keys
        return (dict(zip(keys, row)) for row in self.rows)

    def column(self, key: str) -> list:
        i = self.keys.index(key)
        return [row[i] for row in self.rows]

    def array(self, key: str, dtype=float):
        """A numeric column as a numpy array (straight from the rows, without a list between)."""
        return np.fromiter(map(itemgetter(self.keys.index(key)), self.rows), dtype, len(self.rows))


class ClusterSeries:
    """The samples grouped by load-report period (`periods()`: row positions of the k-th sample of each node, in
    node order; at one time each, or at each node's own phase of the period when reports are staggered), and
    the cluster's figures per period. A total adds the nodes in node order, one after the other, as Python's
    `sum` does. Where every period has a sample of each node (the usual case) a column is one numpy table of
    periods x nodes."""

    def __init__(self, samples: Samples):
        self.samples = samples
        self.tables: dict = {}      # by column: periods x nodes
        nodes = samples.array("node", np.intp) if samples.rows else np.array([], dtype=np.intp)
        order = np.argsort(nodes, kind="stable")         # each node's rows together, in time order, nodes in order
        counts = np.bincount(nodes)
        counts = counts[counts > 0]
        self.width = len(counts) if len(set(counts.tolist())) == 1 else None    # None: some node has fewer
        if self.width is not None:
            self.index = order.reshape(self.width, -1).T
            self.groups = None
        else:
            own = np.split(order, np.cumsum(counts)[:-1]) if len(order) else []
            periods = max((len(rows) for rows in own), default=0)
            self.index = None
            self.groups = [[int(rows[k]) for rows in own if k < len(rows)] for k in range(periods)]

    def periods(self) -> list[list[int]]:
        """Row positions of each period's samples, node by node."""
        return self.index.tolist() if self.groups is None else self.groups

    def total(self, key: str, cap: str | None = None):
        """Per period, the sum over nodes of `key` (each node's value at most its `cap`, if given)."""
        if self.width is None:
            value = self.samples.column(key)
            if cap:
                value = [min(v, c) for v, c in zip(value, self.samples.column(cap))]
            return [sum(value[i] for i in group) for group in self.groups]
        table = self._table(key)
        if cap:
            table = np.minimum(table, self._table(cap))
        total = table[:, 0].copy()
        for node in range(1, self.width):
            total += table[:, node]
        return total

    def any(self, key: str) -> list[bool]:
        """Per period, whether some node's sample has a true `key`."""
        if key not in self.samples.keys:
            return [False] * (len(self.index) if self.groups is None else len(self.groups))
        value = self.samples.column(key)
        return [any(value[i] for i in group) for group in self.periods()]

    def skews(self) -> list[float]:
        """Papers 000/002's job balance skew per period: the spread (standard deviation) of active (resident)
        jobs over the nodes not reserved. One numpy call over a table of periods x nodes where every period has
        as many such nodes (the usual case); its rows give exactly what `np.std` gives each alone."""
        if self.width is not None and "reservation" not in self.samples.keys:
            return np.std(self._table("jobs"), axis=1).tolist()
        jobs = self.samples.column("jobs")
        normal = (self.samples.column("reservation") if "reservation" in self.samples.keys
                  else [None] * len(jobs))
        rows = [[jobs[i] for i in group if normal[i] in ("normal", None)] or [0] for group in self.periods()]
        if rows and all(len(row) == len(rows[0]) for row in rows):
            return np.std(np.array(rows, dtype=float), axis=1).tolist()
        return [float(np.std(row)) for row in rows]

    def _table(self, key: str):
        if key not in self.tables:
            self.tables[key] = self.samples.array(key)[self.index]
        return self.tables[key]

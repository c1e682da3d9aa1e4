"""Paper 004's owner data files, read and checked before the run (one-line errors naming the file, the line and
the column): the fine level's burst table and coarse owner-activity traces. `emu.inputs.checks` reads them when a
scenario is loaded; `emu.inputs.owners` draws each node's owner from them. No numpy here, so that checking a scenario
stays light."""
from __future__ import annotations

import csv
import math

from emu.inputs.errors import ScenarioError, found

BURST_COLUMNS = ("utilization", "run_mean", "run_var", "idle_mean", "idle_var")
ACTIVITY_COLUMNS = ("machine", "cpu", "keyboard")


def read_csv(path: str, columns: tuple, optional: tuple = ()) -> list[dict]:
    """A numeric CSV file (lines starting with # are comments): rows of floats by column name, each with its
    line number under "line". One-line errors name the file, the line and the column."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            lines = [(i, text) for i, text in enumerate(fh, start=1) if text.strip() and not text.startswith("#")]
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read the file ({exc.strerror})") from None
    except UnicodeDecodeError:
        raise ScenarioError(f"{path}: not a UTF-8 text file") from None
    if not lines:
        raise ScenarioError(f"{path}: the file is empty")
    first, header_text = lines[0]
    header = [h.strip() for h in next(csv.reader([header_text]))]
    for col in columns:
        if col not in header:
            raise ScenarioError(f"{path}: line {first}: missing column '{col}' ({found(header)})")
    unknown = [h for h in header if h not in columns + optional]
    if unknown:
        raise ScenarioError(f"{path}: line {first}: unknown column '{unknown[0]}'; expected "
                            f"{', '.join(columns + optional)}")
    rows = []
    for line, text in lines[1:]:
        cells = next(csv.reader([text]))
        if len(cells) != len(header):
            raise ScenarioError(f"{path}: line {line}: expected {len(header)} columns, got {len(cells)}")
        row = {"line": line}
        for col, cell in zip(header, cells):
            try:
                row[col] = float(cell)
            except ValueError:
                raise ScenarioError(f"{path}: line {line}: column '{col}': expected a number, got {cell!r}") from None
            if not math.isfinite(row[col]):
                raise ScenarioError(f"{path}: line {line}: column '{col}': expected a finite number, got {cell!r}")
        rows.append(row)
    if not rows:
        raise ScenarioError(f"{path}: no rows after the header")
    return rows


def read_bursts(path: str) -> list[list[float]]:
    """The fine-grained burst table: per utilization level (strictly between 0 and 1), the mean and variance of
    run and idle bursts, in seconds and s^2 (Fig. 4's four curves)."""
    table = []
    for row in read_csv(path, BURST_COLUMNS):
        u = row["utilization"]
        if not 0 < u < 1:
            raise ScenarioError(f"{path}: line {row['line']}: column 'utilization': expected a level strictly "
                                f"between 0 and 1, got {u}")
        for col in BURST_COLUMNS[1:]:
            if row[col] <= 0:
                raise ScenarioError(f"{path}: line {row['line']}: column '{col}': expected a positive value")
        table.append([row[c] for c in BURST_COLUMNS])
    if len({r[0] for r in table}) != len(table):
        raise ScenarioError(f"{path}: column 'utilization': each level must appear once")
    return table


def read_activity(path: str) -> tuple[dict[int, tuple[list, list]], bool]:
    """A coarse owner-activity trace: a CSV file with columns `machine` (a number), `cpu` (utilization, 0 to 1)
    and `keyboard` (1 if the keyboard or mouse was used in the sample, else 0), and optionally `idle` (1 if
    the machine was idle, 0 if not; without it the recruitment threshold decides). One row per sample
    period, each machine's rows in time order. Returns (machine -> (cpu samples, keyboard samples, or
    nonidle flags when the trace has `idle`), whether it has)."""
    machines: dict[int, tuple[list, list]] = {}
    rows = read_csv(path, ACTIVITY_COLUMNS, ("idle",))
    has_idle = "idle" in rows[0]
    for row in rows:
        if not 0 <= row["cpu"] <= 1:
            raise ScenarioError(f"{path}: line {row['line']}: column 'cpu': expected a utilization from 0 to 1")
        for col in ("keyboard", "idle") if has_idle else ("keyboard",):
            if row[col] not in (0, 1):
                raise ScenarioError(f"{path}: line {row['line']}: column '{col}': expected 0 or 1")
        cpu, flag = machines.setdefault(int(row["machine"]), ([], []))
        cpu.append(row["cpu"])
        flag.append(1 - int(row["idle"]) if has_idle else int(row["keyboard"]))
    return machines, has_idle

"""The live terminal view: what a run looks like while it runs (rich). It only reads snapshots that the
runtime hands it a few times a second; it never touches the model.

Header: virtual clock, speed, wall time, jobs finished of submitted. Then one row per workstation (jobs,
run queue, pending, CPU utilization, memory demand against memory as a bar, page-fault rate, disk queue);
at more than 32 workstations, a compact grid of per-node cells.
"""
from __future__ import annotations

import time

from rich.console import Group
from rich.table import Table
from rich.text import Text

MB = 2**20


def _bar(fraction: float, width: int = 12, done_style: str | None = None) -> Text:
    """A bar of `width` cells; memory bars turn yellow near full and red when demand exceeds memory."""
    fraction = max(0.0, fraction)
    filled = min(width, int(round(min(fraction, 1.0) * width)))
    style = done_style or ("red" if fraction > 1.0 else "green" if fraction < 0.8 else "yellow")
    return Text("█" * filled + "·" * (width - filled), style=style)


def render(snapshots: list[dict], vnow: float, finished: int, total: int, runtime: str, speed: float | None,
           wall: float, title: str = "nowemu"):
    nodes = sorted((s for s in snapshots if s.get("role") == "workstation"), key=lambda s: s["node"])
    pace = f"speed {speed:g}×" if runtime == "paced" and speed else "as fast as possible"
    head = Text.assemble((f"{title}  ", "bold"), f"{runtime} · {pace} · virtual {vnow:9.1f} s · wall {wall:6.1f} s · ",
                         (f"{finished}/{total} jobs done", "bold"))
    bar = Text.assemble(_bar(finished / max(total, 1), 60, done_style="cyan"), f" {100 * finished / max(total, 1):3.0f}%")
    if len(nodes) > 32:
        grid = Table.grid(padding=(0, 1))
        cols = 8
        for c in range(cols):
            grid.add_column()
        cells = [Text.assemble(f"{s['node']:>3} ", (f"{s['jobs']}j ", "bold"), _bar(s["demand"] / s["memory"], 6))
                 for s in nodes]
        for i in range(0, len(cells), cols):
            grid.add_row(*cells[i:i + cols])
        return Group(head, bar, grid)
    table = Table(expand=False, box=None, header_style="bold")
    for col in ("node", "jobs", "queue", "pending", "cpu", "memory (demand / size)", "faults/s", "disk q", "done"):
        table.add_column(col, justify="right" if col != "memory (demand / size)" else "left")
    for s in nodes:
        table.add_row(str(s["node"]), str(s["jobs"]), str(s["ready"]), str(s["pending"]),
                      f"{s['cpu_util'] * 100:3.0f}%",
                      Text.assemble(_bar(s["demand"] / s["memory"]), f" {s['demand'] / MB:6.0f}/{s['memory'] / MB:.0f} MB"),
                      f"{s['fault_rate']:.0f}", str(s["disk_queue"]), str(s["finished"]))
    return Group(head, bar, table)


class LiveView:
    """A progress callback that redraws the view at most `fps` times a second."""

    def __init__(self, console, total: int, runtime: str, speed: float | None, title: str, fps: float = 4.0):
        from rich.live import Live
        self.total, self.runtime, self.speed, self.title = total, runtime, speed, title
        self.live = Live(console=console, refresh_per_second=fps, transient=False)
        self.start = time.perf_counter()
        self.every = 1.0 / fps
        self.last = 0.0

    def __enter__(self):
        self.live.__enter__()
        return self

    def __exit__(self, *exc):
        self.live.__exit__(*exc)

    def __call__(self, vnow: float, finished: int, snapshots=None) -> None:
        now = time.perf_counter()
        if now - self.last < self.every:
            return
        self.last = now
        snaps = snapshots() if snapshots else []
        self.live.update(render(snaps, vnow, finished, self.total, self.runtime, self.speed, now - self.start,
                                self.title))

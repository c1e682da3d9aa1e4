"""The live terminal view: what a run looks like while it runs (rich). It only reads the snapshots that the
runtime hands it; it never touches the model.

    quickstart  paced · virtual 54.2 s · speed ×10.0 (target ×10.0) · wall 11.7 s
    fidelity  lateness p99 2.11 ms (worst actor) · stragglers 0 · late load messages 338
    jobs      ███████████·····························  54/200 done · 13 running · 0 queued · 133 to come   27%
    node  jobs  run q  pending   cpu  memory: demand / size        faults/s  disk q  done
       0     1      1        0  100%  ███████·····   305 / 512 MB         0       0     7
       ...                                                                   (one line per workstation)
    Σ 8 nodes · run q 13 · cpu 92% · memory 2.5/4.0 GB · 0 faults/s · disk q 0
    recent events (18 so far)
         42.56 s  migrate     job 36    3 → 5      bytes 143 MB, cost 1.3 s
         45.57 s  remote_exec job 57    5 → 0

Workstations get one row each while the whole view fits in the terminal's height, else a compact grid of
cells (node, run queue, one-character CPU and memory gauges), as many per line as the width allows: 64 and
256 workstations fit in 120 columns.

The contract with the model: a runtime calls `progress(vnow, finished, snapshots)`, where `snapshots` is a
callable returning one dict per participant, called only for a frame that is drawn. The keys:

    every participant    node, role, now (its virtual time), events (how many it has logged), recent (its last
                         few events, as `Participant.log` wrote them), late ({message kind: how many were late})
    a workstation        jobs (resident), ready (run-queue length), pending, memory and demand (bytes),
                         cpu_util and fault_rate (over the last load-report period), disk_queue, finished
    a paced actor        lateness_p99: the p99 of its host's event lateness since its previous post (wall seconds)
    a workstation MAY    owner_active, reserved, lingering (owners, reservations, foreign jobs lingering: papers
                         003/004). Each is a column (a flag letter in the grid, a count in the totals) only when
                         some workstation reports it: True shows ●, a false value ·, anything else as itself.
                         A model that gains owners adds the key to `Workstation.snapshot`; nothing here changes.

Events of any kind are shown: the route `src → dest` (each defaults to the node that logged the event), the
job, then the other fields; the kinds in KIND_STYLE get a colour, others a neutral one.

Cost: each frame (snapshots and drawing) is timed, and the next waits until drawing has taken at most BUDGET
of the wall time, so the view cannot slow a run by more than that; `bench_view` measures it.

With --no-view in a terminal, the first lines alone (clock, speed, jobs bar) are shown, from the progress
arguments without any snapshot: who turns the dashboard off still wants to see that the run moves and how
far it is, at no cost. Output to a file or a pipe gets neither, so logs stay clean.
"""
from __future__ import annotations

import io
import time

from rich.console import Console
from rich.live import Live
from rich.text import Text

from emu.engine.ray_runtime import FAITHFUL_LATENESS_MS
from emu.engine.results import JOB_KINDS
from emu.inputs.scenario import QUICKSTART

MB, GB = 2**20, 2**30
FPS = 4.0
BUDGET = 0.02                 # the share of the wall time the view may spend drawing
FEED = 6                      # events shown (each participant's snapshot carries its last 8)
GAUGE = "·▁▂▃▄▅▆▇█"
FLAGS = {"owner_active": "owner", "reserved": "reserved", "lingering": "lingering"}
KIND_STYLE = {"migrate": "cyan", "remote_exec": "bright_blue", "refused": "yellow", "over_swap": "red"}
UNITS = {"bytes": (MB, " MB"), "demand": (MB, " MB"), "cost": (1.0, " s")}    # how event fields read


def _mem_style(fraction: float) -> str:
    return "red" if fraction > 1.0 else "yellow" if fraction >= 0.8 else "green"


def _bar(fraction: float, width: int, style: str) -> Text:
    filled = min(width, int(round(max(0.0, min(fraction, 1.0)) * width)))
    return Text.assemble(("█" * filled, style), ("·" * (width - filled), "dim"))


def _gauge(fraction: float, style: str) -> Text:
    """One character for a fraction: · for none, then eighths."""
    return Text(GAUGE[0 if fraction <= 0 else 1 + min(7, int(fraction * 8))], style=style)


def _count(value, width: int = 0) -> Text:
    """Zeros dim, so that what is there stands out."""
    return Text(f"{f'{value:g}' if isinstance(value, float) else value:>{width}}", style="" if value else "dim")


def _flag(value) -> Text:
    if isinstance(value, bool) or value is None:
        return Text("●", style="bold magenta") if value else Text("·", style="dim")
    return _count(value)


def _speed(x: float) -> str:
    return f"×{x:,.0f}" if x >= 100 else f"×{x:.1f}"


def _detail(key: str, value) -> str:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        scale, unit = UNITS.get(key, (1.0, ""))
        return f"{key} {value / scale:.3g}{unit}"
    return f"{key} {value}"


def _event(e: dict) -> Text:
    fields = {k: v for k, v in e.items() if k not in ("time", "event", "node")}
    job = fields.pop("job", None)
    src, dest = fields.pop("src", e["node"]), fields.pop("dest", e["node"])
    route = f"{src} → {dest}" if src != dest else f"on {src}"
    line = Text.assemble(f"{e['time']:10.2f} s  ", (f"{e['event']:<12}", KIND_STYLE.get(e["event"], "white")),
                         f"{'' if job is None else f'job {job}':<9} {route:<10} ",
                         (", ".join(_detail(k, v) for k, v in fields.items()), "dim"))
    line.rstrip()
    return line


class Dashboard:
    """One frame of the view, laid out for the console it is drawn on."""

    def __init__(self, snapshots: list[dict], vnow: float, finished: int, total: int, runtime: str = "inline",
                 target: float | None = None, rate: float | None = None, wall: float = 0.0, title: str = "nowemu"):
        self.snapshots, self.vnow, self.finished, self.total = snapshots, vnow, finished, total
        self.runtime, self.target, self.rate, self.wall, self.title = runtime, target, rate, wall, title
        self.nodes = sorted((s for s in snapshots if s.get("role") == "workstation"), key=lambda s: s["node"])
        self.flags = [k for k in FLAGS if any(k in s for s in self.nodes)]

    def __rich_console__(self, console, options):
        lines = [self._header(), *self._fidelity(), self._jobs()]
        if self.nodes:
            after = [self._totals(), *self._feed()]
            fits = len(lines) + 1 + len(self.nodes) + len(after) <= options.size.height
            lines += (self._table() if fits else self._grid(options.max_width)) + after
        for line in lines:          # cropped, not wrapped: the layout keeps its shape in a narrow terminal
            line.no_wrap, line.overflow = True, "ellipsis"
        yield from lines

    # -- the parts -------------------------------------------------------------------------------------------
    def _header(self) -> Text:
        speed = "" if self.rate is None else f" · speed {_speed(self.rate)}"
        if self.target and self.runtime == "paced":
            speed += f" (target {_speed(self.target)})"
        return Text.assemble((f"{self.title}  ", "bold"), self.runtime, " · virtual ", (f"{self.vnow:,.1f} s", "bold"),
                             speed, f" · wall {self.wall:.1f} s")

    def _fidelity(self) -> list[Text]:
        worst = max((s["lateness_p99"] for s in self.snapshots if "lateness_p99" in s), default=None)
        if worst is None:
            return []
        late = [(kind, n) for s in self.snapshots for kind, n in s.get("late", {}).items()]
        stragglers = sum(n for kind, n in late if kind in JOB_KINDS)
        return [Text.assemble(("fidelity  ", "bold"), "lateness p99 ",
                              (f"{worst * 1e3:.2f} ms", "green" if worst * 1e3 <= FAITHFUL_LATENESS_MS else "red"),
                              " (worst actor) · stragglers ", (str(stragglers), "red" if stragglers else "green"),
                              f" · late load messages {sum(n for _, n in late) - stragglers}")]

    def _jobs(self) -> Text:
        share = self.finished / max(self.total, 1)
        counts = ""
        if self.nodes:
            running, queued = (sum(s[k] for s in self.nodes) for k in ("jobs", "pending"))
            coming = max(0, self.total - self.finished - running - queued)
            counts = f" · {running} running · {queued} queued · {coming} to come"
        return Text.assemble(("jobs      ", "bold"), _bar(share, 40, "cyan"),
                             (f"  {self.finished}/{self.total} done", "bold"), counts, f"  {100 * share:3.0f}%")

    def _table(self) -> list[Text]:
        """One line per workstation, in columns (drawn as text: a rich Table costs ten times as much)."""
        head = ["node", "jobs", "run q", "pending", "cpu", "memory: demand / size", "faults/s", "disk q", "done",
                *(FLAGS[k] for k in self.flags)]
        rows = [[Text(h, style="bold") for h in head]]
        for s in self.nodes:
            mem = s["demand"] / s["memory"]
            rows.append([Text(str(s["node"])), _count(s["jobs"]), _count(s["ready"]), _count(s["pending"]),
                         Text(f"{s['cpu_util'] * 100:3.0f}%", style="" if s["cpu_util"] >= 0.05 else "dim"),
                         Text.assemble(_bar(mem, 12, _mem_style(mem)),
                                       (f" {s['demand'] / MB:5.0f} / {s['memory'] / MB:.0f} MB", _mem_style(mem))),
                         _count(round(s["fault_rate"])), _count(s["disk_queue"]), Text(str(s["finished"])),
                         *(_flag(s.get(k)) for k in self.flags)])
        widths = [max(cell.cell_len for cell in column) for column in zip(*rows)]
        for row in rows:
            for cell, width, h in zip(row, widths, head):
                cell.align("left" if h.startswith("memory") else "right", width)
        return [Text("  ").join(row) for row in rows]

    def _grid(self, width: int) -> list[Text]:
        """A cell per workstation, as many to a line as the width holds."""
        digits = len(str(self.nodes[-1]["node"]))
        cells = []
        for s in self.nodes:
            mem = s["demand"] / s["memory"]
            cells.append(Text.assemble((f"{s['node']:>{digits}} ", "dim"), _count(s["ready"], 2), " ",
                                       _gauge(s["cpu_util"], "cyan"), _gauge(mem, _mem_style(mem)),
                                       *(Text(FLAGS[k][0].upper(), style="bold magenta") if s.get(k)
                                         else Text("·", style="dim") for k in self.flags)))
        cell = max(c.cell_len for c in cells)
        for c in cells:
            c.align("right", cell)
        per_line = max(1, (width + 2) // (cell + 2))
        legend = "".join(f", {FLAGS[k][0].upper()} {FLAGS[k]}" for k in self.flags)
        return [Text(f"cell: node, run queue, cpu ▁▇, memory ▁▇ (red: over){legend}", style="dim"),
                *(Text("  ").join(cells[i:i + per_line]) for i in range(0, len(cells), per_line))]

    def _totals(self) -> Text:
        """The cluster at a glance (jobs running, queued and done are on the jobs line)."""
        total = {k: sum(s[k] for s in self.nodes) for k in ("ready", "memory", "demand", "fault_rate", "disk_queue")}
        over = sum(1 for s in self.nodes if s["demand"] > s["memory"])
        cpu = sum(s["cpu_util"] for s in self.nodes) / len(self.nodes)
        flags = "".join(f" · {FLAGS[k]} {sum(bool(s.get(k)) for s in self.nodes)}" for k in self.flags)
        return Text.assemble(("Σ ", "bold"), f"{len(self.nodes)} nodes · run q {total['ready']} · cpu {cpu * 100:.0f}%"
                             f" · memory {total['demand'] / GB:.1f}/{total['memory'] / GB:.1f} GB",
                             (f", {over} over" if over else "", "red"),
                             f" · {total['fault_rate']:.0f} faults/s · disk q {total['disk_queue']}{flags}")

    def _feed(self) -> list[Text]:
        recent = sorted((e for s in self.snapshots for e in s.get("recent", ())), key=lambda e: (e["time"], e["node"]))
        count = sum(s.get("events", 0) for s in self.snapshots)
        return [Text(f"recent events ({count} so far)", style="bold"), *map(_event, recent[-FEED:])]


class LiveView:
    """The progress callback of a run: draws the dashboard (or, with `nodes` off, its first lines only) at most
    FPS times a second and within BUDGET of the wall time. The run's last state is always shown: a call that
    says every job is done or the stop time is reached is kept, if too soon to draw, for the closing draw."""

    def __init__(self, console, total: int, runtime: str, speed: float | None, title: str,
                 stop: float = float("inf"), nodes: bool = True):
        self.total, self.runtime, self.speed, self.title = total, runtime, speed, title
        self.stop, self.nodes = stop, nodes
        # drawn when we say, not by Live's own thread, which would redraw stale frames and compete for the GIL
        self.live = Live(console=console, auto_refresh=False)
        self.start = time.perf_counter()
        self.next = self.start + 1.0 / FPS    # a run shorter than that is drawn once, at its end
        self.last = (0.0, self.start)          # virtual and wall time of the last frame, for the speed
        self.frames = 0

    def __enter__(self):
        self.live.__enter__()
        return self

    def __exit__(self, *exc):
        self.live.__exit__(*exc)

    def __call__(self, vnow: float, finished: int, snapshots=None) -> None:
        now = time.perf_counter()
        due = now >= self.next
        if not due and finished < self.total and vnow < self.stop:
            return
        rate = (vnow - self.last[0]) / (now - self.last[1]) if now > self.last[1] else None
        self.last = (vnow, now)
        snaps = snapshots() if snapshots is not None and self.nodes else []
        self.live.update(Dashboard(snaps, vnow, finished, self.total, self.runtime, self.speed, rate,
                                   now - self.start, self.title), refresh=due)
        if due:
            self.frames += 1
            self.next = now + max(1.0 / FPS, (time.perf_counter() - now) / BUDGET)


def bench_view(log=print, jobs: int = 2000, repeats: int = 5, overrides: tuple = ()) -> dict:
    """What the live view costs a run: the quick-start scenario inline with `jobs` jobs, run with the view
    drawing into an in-memory terminal and without it, alternately, best of `repeats` each. The issue asks
    for a ratio of at most 1.05. 2000 jobs take about a second, so that frames are drawn during the run and
    not only the last one (a few hundred finish before the first frame is due)."""
    from emu.engine.run import run
    from emu.inputs import scenario
    s = scenario.load(QUICKSTART, ['runtime="inline"', f"workload.jobs={jobs}", *overrides])
    total = sum(w["jobs"] for w in s["workload"])
    best = {"without": float("inf"), "with": float("inf")}
    frames = 0
    for _ in range(repeats):
        t = time.perf_counter()
        run(s)
        best["without"] = min(best["without"], time.perf_counter() - t)
        console = Console(file=io.StringIO(), width=120, height=50, force_terminal=True)
        t = time.perf_counter()
        with LiveView(console, total, "inline", None, s["name"], s["stop"]["time"]) as view:
            run(s, progress=view)
        best["with"] = min(best["with"], time.perf_counter() - t)
        frames = view.frames
    out = {"jobs": jobs, "workstations": s["cluster"]["nodes"], **best, "ratio": best["with"] / best["without"],
           "frames": frames}
    log(f"live view, {out['workstations']} workstations, {jobs} jobs: {best['without']:.2f} s without, "
        f"{best['with']:.2f} s with ({frames} frames and the last): ×{out['ratio']:.3f}")
    return out

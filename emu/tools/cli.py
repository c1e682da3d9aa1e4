"""The `nowemu` command (also `python -m emu`).

    nowemu run SCENARIO [--runtime paced|stepped|inline] [--speed S] [--seed N] [--address A] [--actors K]
                        [--out DIR]
                        [--set key=value ...] [--view/--no-view]
    nowemu validate SCENARIO [--set key=value ...]
    nowemu list [DIR]
    nowemu bench [--quick | --reproductions] [--out docs/benchmarks.md]
    nowemu sweep SCENARIO [--seeds N] [--set key=v1,v2,... ...] [--runtime inline|stepped|paced] [--address A]
                          [--out DIR] [--parallel K]
    nowemu report RESULTS... [--out DIR]
    nowemu reproduce PAPER [--seeds N] [--quick] [--runtime inline|stepped|paced] [--address A] [--out DIR]
                           [--report FILE]

A wrong argument or a bad scenario gives one line on stderr and exit status 2, never a traceback. A run that
lost a participant (its Ray node died) still writes its results, says what was lost, and exits with 3.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

from emu.engine import stall
from emu.engine.envelope import MessageError
from emu.inputs.scenario import ScenarioError

EXAMPLES = {
    "run": "example: nowemu run scenarios/quickstart.toml --runtime paced --speed 10 --set policy.threshold=3",
    "validate": "example: nowemu validate scenarios/quickstart.toml",
    "list": "example: nowemu list scenarios",
    "bench": "example: nowemu bench --quick",
    "sweep": "example: nowemu sweep scenarios/quickstart.toml --seeds 10 --set policy=local,random,cpu_threshold "
             "--set cluster.nodes=8,16",
    "report": "example: nowemu report results/sweep-quickstart-20250101-120000 --out plots",
    "reproduce": "example: nowemu reproduce p004 --quick",
}


class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"nowemu: error: {message} (see nowemu {self.prog.split()[-1]} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    p = Parser(prog="nowemu", description="An emulator of networks of workstations for job-scheduling research.",
               epilog="example: nowemu run scenarios/quickstart.toml")
    sub = p.add_subparsers(dest="command", required=True, parser_class=Parser)
    r = sub.add_parser("run", help="run a scenario and write its results folder", epilog=EXAMPLES["run"])
    r.add_argument("scenario")
    r.add_argument("--runtime", choices=("paced", "stepped", "inline"), help="default: the scenario's")
    r.add_argument("--speed", type=float, help="paced: virtual seconds per wall second (default: the scenario's)")
    r.add_argument("--seed", type=int, help="override the scenario's seed")
    r.add_argument("--address", help='join a Ray cluster ("auto" or "ray://host:port"); default: embedded Ray')
    r.add_argument("--actors", type=int, metavar="K", help="paced: spread the participants over K Ray actors, "
                   "each running its group on one event heap (default: one actor per participant)")
    r.add_argument("--out", help="results folder (default: results/NAME-RUNTIME-sSEED-TIME)")
    r.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a scenario field")
    r.add_argument("--view", action=argparse.BooleanOptionalAction, default=None,
                   help="live terminal view: clock, fidelity, jobs, every workstation, recent events (default: on "
                        "when stdout is a terminal; --no-view in a terminal keeps only the clock and the jobs bar)")
    v = sub.add_parser("validate", help="check a scenario without running it", epilog=EXAMPLES["validate"])
    v.add_argument("scenario")
    v.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    ls = sub.add_parser("list", help="list the scenarios in a folder", epilog=EXAMPLES["list"])
    ls.add_argument("folder", nargs="?", default="scenarios")
    b = sub.add_parser("bench", help="measure speed and write docs/benchmarks.md", epilog=EXAMPLES["bench"])
    b.add_argument("--quick", action="store_true", help="smaller runs (a minute or two)")
    b.add_argument("--out", default="docs/benchmarks.md")
    b.add_argument("--reproductions", action="store_true",
                   help="measure nothing: re-read the full reproductions' reports into OUT's table")
    sw = sub.add_parser("sweep", help="run a scenario over parameter axes and seeds, one Ray task per run",
                        epilog=EXAMPLES["sweep"])
    sw.add_argument("scenario")
    sw.add_argument("--seeds", type=int, help="seeds per combination: the scenario's seed, seed+1, ... "
                    "(default: the scenario's seeds list)")
    sw.add_argument("--set", action="append", default=[], metavar="KEY=V1,V2",
                    help="override a field; a comma outside brackets and quotes makes an axis")
    sw.add_argument("--runtime", choices=("inline", "stepped", "paced"), default="inline")
    sw.add_argument("--address", help='join a Ray cluster ("auto" or "ray://host:port"); default: embedded Ray')
    sw.add_argument("--out", help="sweep folder (default: results/sweep-NAME-TIME)")
    sw.add_argument("--parallel", type=int, help="at most K runs at once (default: as many as Ray has CPUs)")
    sw.add_argument("--resume", action="store_true", help="with --out: read the runs an earlier sweep into that "
                    "folder finished (same scenario and runtime) instead of running them again")
    rp = sub.add_parser("report", help="compare results or sweep folders: tables and PNG plots",
                        epilog=EXAMPLES["report"])
    rp.add_argument("results", nargs="+", help="results folders or sweep folders")
    rp.add_argument("--out", help="where tables and plots go (default: FIRST_RESULTS/report)")
    rp.add_argument("--metrics", help="the table's columns: metric names of summary.json, comma-separated "
                    "(default: response, slowdown, queue, throughput, CPU and memory use, migrations, faults)")
    rr = sub.add_parser("reproduce", help="run a paper's experiments over seeds; write the paper-beside-emulator "
                        "report", epilog=EXAMPLES["reproduce"])
    rr.add_argument("paper", help="which paper: p000, p001, p002, p003 (Chapters 3-4 of paper 003), p003b "
                    "(its Chapters 5-7) or p004; or a calibration study: p000_lineage (papers 000/002's paging "
                    "severity, docs/calibration/p000-lineage.md)")
    rr.add_argument("--seeds", type=int, help="seeds per experiment point (default: the paper's own: 3 for p000 "
                    "and p002; 5 for p003, p003b and p004 (p004's Table 1 runs twice as many, its throughput hour "
                    "four times); 6 for p001's dynamic workloads and 5 for the rest of it; with --quick 1, except "
                    "2 for p004)")
    rr.add_argument("--quick", action="store_true", help="the scaled-down variant CI runs")
    rr.add_argument("--runtime", choices=("inline", "stepped", "paced"), default="inline")
    rr.add_argument("--address", help='join a Ray cluster ("auto" or "ray://host:port"); default: embedded Ray')
    rr.add_argument("--out", help="where the runs' results folders go (default: results/reproduce-PAPER-TIME)")
    rr.add_argument("--report", help="the report (default: docs/reproductions/PAPER.md, or PAPER-quick.md)")
    rr.add_argument("--resume", action="store_true", help="with --out: read the runs an earlier reproduction into that "
                    "folder finished (same scenario and runtime) instead of running them again")
    return p


def entry() -> int:
    """The `nowemu` program: main() in a network of its own with loopback only (emu.engine.loopback),
    entered first, before any thread starts; not when it joins a cluster (`--address`)."""
    if not any(a == "--address" or a.startswith("--address=") for a in sys.argv[1:]):
        from emu.engine import loopback
        loopback.enter()
    return main()


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return {"run": cmd_run, "validate": cmd_validate, "list": cmd_list, "bench": cmd_bench,
                "sweep": cmd_sweep, "report": cmd_report, "reproduce": cmd_reproduce}[args.command](args)
    except (ScenarioError, MessageError) as exc:
        print(f"nowemu: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        import signal
        signal.signal(signal.SIGINT, signal.SIG_IGN)        # a second Ctrl-C must not break Ray's shutdown
        print("nowemu: interrupted: the run under way was not kept (a run writes its results when it ends; "
              "a sweep's or reproduction's finished runs are in their folders)", file=sys.stderr)
        return 130


def _load(args):
    from emu.inputs import scenario
    overrides = list(args.set)
    if getattr(args, "seed", None) is not None:
        overrides.append(f"seed={args.seed}")
    return scenario.load(args.scenario, overrides)


def cmd_validate(args) -> int:
    from emu.engine.cluster import blueprints
    from emu.inputs.scenario import heterogeneity, node_specs
    s = _load(args)
    bps = blueprints(s)      # also reads traces and draws the workload
    jobs = sum(len(bp.get("arrivals", ())) for bp in bps)
    h = heterogeneity(node_specs(s))
    print(f"{args.scenario}: ok ({s['name']}: {len([b for b in bps if b['role'] == 'workstation'])} workstations, "
          f"{jobs} jobs, policy {s['policy']['name']}, runtime {s['runtime']}; heterogeneity level CPU "
          f"{h['cpu']:.2f}, memory {h['memory']:.2f}, disk {h['disk']:.2f})")
    return 0


def cmd_list(args) -> int:
    from emu.inputs import scenario
    folder = Path(args.folder)
    if not folder.is_dir():
        raise ScenarioError(f"{folder}: not a folder")
    for path in sorted(folder.rglob("*.toml")):
        if path.name.endswith(".part.toml"):        # a base that scenarios extend, not a scenario
            continue
        try:
            s = scenario.load(path)
            print(f"{str(path):48} {s['description'] or s['name']}")
        except ScenarioError as exc:
            print(f"{str(path):48} INVALID: {exc}")
    return 0


def cmd_run(args) -> int:
    from emu.tools.sweep_table import wide_console

    from emu.engine import results
    from emu.engine.run import run
    s = _load(args)
    runtime = args.runtime or s["runtime"]
    if args.speed is not None and not (math.isfinite(args.speed) and args.speed > 0):
        raise ScenarioError(f"--speed: expected a positive number of virtual seconds per wall second, got {args.speed:g}")
    speed = s["speed"] if args.speed is None else args.speed
    console = wide_console()
    view = console.is_terminal if args.view is None else args.view
    out = Path(args.out) if args.out else Path("results") / (
        f"{s['name']}-{runtime}-s{s['seed']}-{time.strftime('%Y%m%d-%H%M%S')}")
    if out.exists() and not out.is_dir():
        raise ScenarioError(f"--out: {out} exists and is not a folder")
    total = sum(w["jobs"] for w in s["workload"])
    console.print(f"[bold]{s['name']}[/]: {s['description']}  ({runtime}"
                  f"{f', speed {speed:g}' if runtime == 'paced' else ''}, seed {s['seed']})")
    from contextlib import nullcontext

    from emu.tools.view import LiveView
    shown = view or console.is_terminal     # --no-view in a terminal still shows the clock and the jobs bar
    with (LiveView(console, total, runtime, speed, s["name"], s["stop"]["time"], nodes=view) if shown
          else nullcontext()) as live:
        result = run(s, runtime, speed, args.address, live, log=console.print, actors=args.actors)
    results.write(result, out)
    _print_summary(console, result["summary"], out)
    return 3 if "lost" in result["summary"] else 4 if "stalled" in result["summary"] else 0


def _print_summary(console, summary: dict, out: Path) -> None:
    m, c = summary["metrics"], summary["checks"]

    def shown(x, spec, unit=""):       # a mean over no finished job is not a number
        return "n/a" if x is None or math.isnan(x) else format(x, spec) + unit
    console.print(f"jobs done {m['jobs_done']}/{m['jobs_submitted']}   mean response {shown(m['mean_response'], '.2f', ' s')}   "
                  f"mean slowdown {shown(m['mean_slowdown'], '.3f')}   makespan {m['makespan']:.1f} s   "
                  f"migrations {m['migrations']}   remote executions {m['remote_executions']}   "
                  f"page faults {m['page_faults']}")
    unfinished = {k: v for k, v in m["states"].items() if k != "done" and v}
    if unfinished:
        console.print(f"[yellow]not finished: {json.dumps(unfinished)}[/]")
    if "paced" in summary:
        p, f = summary["paced"], summary["fidelity"]
        console.print(f"fidelity: event lateness p50 {p['event_lateness_ms_p50']:.2f} ms, p99 "
                      f"{p['event_lateness_ms_p99']:.2f} ms, max {p['event_lateness_ms_max']:.1f} ms (wall, "
                      f"{p['events']:,} events); stragglers {f['stragglers']}; late load "
                      f"messages {f['late_messages'] - f['stragglers']}; batches between hosts p99 "
                      f"{p['transit_ms_p99']:.2f} ms (a job message's shortest window: {p['job_window_ms']:.1f} ms)")
    if "lost" in summary:
        lost, states = summary["lost"], m["states"]
        where = ", ".join(f"{i} (Ray node {h.get('ray_node', '?')[:8]} at {h.get('address', '?')})"
                          for i, h in lost["hosts"].items())
        console.print(f"[bold red]lost: participant(s) {where} died ({lost['error']}); the run stopped at "
                      f"virtual {summary['end']:.1f} s; {states['lost']} job(s) lost with them (state \"lost\" in "
                      f"jobs.csv), {states['done']} done, the rest as the survivors held them[/]")
    if "stalled" in summary:
        console.print(f"[bold red]{stall.line(summary['stalled'])}[/]")
    for w in summary.get("warnings", []):
        console.print(f"[yellow]warning: {w}[/]")
    figures = {k: "n/a" if c[k] is None else format(c[k], ".1e")
               for k in ("time_split_error", "work_conservation_error", "little_error")}
    console.print("checks: time split {time_split_error}, work conservation {work_conservation_error}, "
                  "Little {little_error}".format(**figures))
    console.print(f"results: {out}/  (jobs.csv, nodes.csv, events.jsonl, summary.json)  wall {summary['wall_time']:.1f} s")


def cmd_bench(args) -> int:
    from emu.tools import bench
    if args.reproductions:
        return bench.refresh_reproductions(Path(args.out))
    try:
        import simpy  # noqa: F401  (the other side of the bench's M/M/1 comparison; an optional extra)
    except ImportError:
        raise ScenarioError('bench: needs SimPy, the M/M/1 comparison\'s other side: pip install -e ".[bench]"') from None
    return bench.main(quick=args.quick, out=Path(args.out))


def cmd_sweep(args) -> int:
    from emu.tools import sweep
    return sweep.main(args)


def cmd_report(args) -> int:
    from emu.tools import report
    return report.main(args)


def cmd_reproduce(args) -> int:
    from emu.tools import reproduce
    return reproduce.main(args)

"""The two Ray runtimes: participants hosted by Ray actors (`actors.ray_actor.Host`) spread over the cluster's
nodes; one participant per actor, or (paced) the participants dealt over K actors (`actors`).

Locally Ray starts embedded (2 CPUs, no dashboard, quiet, node address loopback), with its token
authentication as Ray sets it (on, for a new local cluster). Its servers listen on every interface whatever
they are told; the `nowemu` program has already put itself in a network of its own with loopback only
(`emu.engine.loopback`), and where it could not, start_ray says so. `address` ("auto" or "ray://host:port")
joins a running cluster. Actors take no CPU reservation (they mostly sleep) and are dealt round-robin over the
cluster's nodes, and the summary records which Ray node hosted which workstation. If a node dies mid-run, the
run stops, the survivors report, and the jobs that died with it are reported lost (`summary.lost`).

- stepped: the conservative-window driver of `emu.engine.conservative` with the actors as hosts. Identical results
  to inline for the same scenario and seed.
- paced: every actor runs its own loop against the wall clock (see `actors.ray_actor`); the driver only
  warms the actors up, fixes the epoch, reads the board the actors post their snapshots to, and stops them
  when every job is done. Its results agree with inline statistically, and its fidelity figures say how
  faithful it was: the lateness of every local event (wall ms) and the messages that came too late.
"""
from __future__ import annotations

import os
import socket
import sys
import time

import numpy as np

from emu.engine.stall import StallWatch
from emu.inputs.scenario import ScenarioError

FAITHFUL_LATENESS_MS = 5.0  # p99 event lateness (wall ms) beyond which a paced run is not faithful (the bar)
# The embedded Ray is always a new one of this process's own ("local"): a bare ray.init() would join the last
# cluster started on the machine (`ray start`, a test's multi-node cluster) and fail on num_cpus
LOCAL_INIT = dict(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
                  object_store_memory=128 * 2**20, _node_ip_address="127.0.0.1")


def start_ray(address: str | None = None):
    """Start an embedded Ray (or join `address`), once per process."""
    _environment()
    import ray
    if not ray.is_initialized():
        if address:
            _reachable(address)
            try:
                ray.init(address=address, log_to_driver=False, logging_level="ERROR")
            except Exception as exc:        # Ray raises many kinds: all mean the same to the user
                first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
                raise ScenarioError(f"--address {address}: could not join a Ray cluster there ({first})") from None
        else:
            from emu.engine import loopback
            if loopback.refused:
                print(f"nowemu: note: the embedded Ray listens on this machine's network, guarded by Ray's token "
                      f"(a network of its own, loopback only, could not be made: {loopback.refused})",
                      file=sys.stderr)
            ray.init(**LOCAL_INIT)
    return ray


def _reachable(address: str) -> None:
    """Before Ray tries (it retries for minutes): HOST:PORT or ray://HOST:PORT answers a TCP connection."""
    if address == "auto":
        return
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit():
        raise ScenarioError(f"--address {address}: expected \"auto\", HOST:PORT or ray://HOST:PORT")
    try:
        socket.create_connection((host, int(port)), timeout=5).close()
    except (OSError, OverflowError) as exc:
        raise ScenarioError(f"--address {address}: nothing answers there ({getattr(exc, 'strerror', None) or exc})") \
            from None


def _environment() -> None:
    """Ray's settings for nowemu's runs, unless the environment already says otherwise. Authentication is
    not among them: Ray's own default stands (a token, for a new local cluster)."""
    # Ray starts its workers at niceness 15, so that any ordinary process on the machine takes the CPU from them:
    # paced actors keep time against the wall clock and must not yield it to whatever else runs
    for key, value in (("RAY_USAGE_STATS_ENABLED", "0"), ("RAY_worker_maximum_startup_concurrency", "16"),
                       ("RAY_DEDUP_LOGS", "0"), ("RAY_worker_niceness", "0")):
        os.environ.setdefault(key, value)


class RayHosts:
    """The participants as Ray actors, one each, for the conservative-window driver."""

    def __init__(self, ray, hosts: list):
        self.ray = ray
        self.actors = {ids[0]: actor for actor, ids in hosts}

    def next_times(self) -> dict:
        ids = list(self.actors)
        return dict(zip(ids, self.ray.get([self.actors[i].next_time.remote() for i in ids])))

    def advance(self, calls: dict) -> dict:
        ids = list(calls)
        refs = [self.actors[i].step.remote(*calls[i]) for i in ids]
        return dict(zip(ids, self.ray.get(refs)))

    def progress(self, t: float) -> list:
        ids = sorted(self.actors)
        return self.ray.get([self.actors[i].progress.remote(t) for i in ids])

    def finals(self) -> list[dict]:
        return _finals(self.ray.get([a.final.remote() for a in self.actors.values()]))

    def snapshots(self) -> list[dict]:
        return [s for ss in self.ray.get([a.snapshots.remote() for a in self.actors.values()]) for s in ss]


def groups(bps: list[dict], actors: int | None) -> list[list[dict]]:
    """The participants dealt over `actors` hosts (one each by default): round robin, so that the workstations
    are spread evenly and the collector or bus, last, lands on the hosts with fewest."""
    k = len(bps) if actors is None else actors
    if not 1 <= k <= len(bps):
        raise ScenarioError(f"actors: expected a number of Ray actors from 1 to {len(bps)} (the run's "
                            f"participants), got {k}")
    return [bps[i::k] for i in range(k)]


def _spawn(ray, parts: list[list[dict]]) -> list:
    """One actor per group, dealt round-robin over the cluster's live nodes (Ray's own SPREAD is only best
    effort and can pile several on one node, and so is soft affinity). Actors reserve no CPU, so hard
    affinity never waits for a busy node. Returns [(actor, participant ids)]."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    from actors.ray_actor import HostActor
    nodes = sorted(n["NodeID"] for n in ray.nodes() if n["Alive"])
    hosts = [(HostActor.options(scheduling_strategy=NodeAffinitySchedulingStrategy(nodes[k % len(nodes)],
                                                                                  soft=False)).remote(group),
              [bp["id"] for bp in group]) for k, group in enumerate(parts)]
    ray.get([a.next_time.remote() for a, _ in hosts])          # all constructed
    return hosts


def _finals(outs: list[dict]) -> list[dict]:
    return [f for out in outs for f in out["finals"]]


def _salvage(ray, hosts: list, info: dict, exc: Exception) -> tuple[list, float]:
    """A host died (its Ray node went down): stop the others and keep what they hold; record who was lost in
    `info["lost"]`. The jobs that died with it are reported by emu.engine.results.lost_jobs."""
    alive, dead = [], []
    for a, ids in hosts:
        try:
            ray.get(a.next_time.remote(), timeout=10)
            alive.append(a)
        except (ray.exceptions.RayError, ray.exceptions.GetTimeoutError):
            dead += ids
    dead.sort()
    message = str(exc).strip().splitlines()
    info["lost"] = {"participants": dead, "hosts": {str(i): info["hosts"].get(str(i), {}) for i in dead},
                    "error": message[0] if message else type(exc).__name__}
    ray.get([a.stop.remote() for a in alive])
    outs = ray.get([a.final.remote() for a in alive])
    return outs, max(ray.get([a.now.remote() for a in alive]), default=0.0)


def _hosting(ray, hosts: list) -> dict:
    where = ray.get([a.where.remote() for a, _ in hosts])
    address = {n["NodeID"]: n["NodeManagerAddress"] for n in ray.nodes()}
    return {str(i): {"ray_node": node, "address": address.get(node, "")}
            for (_, ids), node in zip(hosts, where) for i in ids}


def run(runtime: str, scenario: dict, bps: list[dict], total: int, speed: float, address, progress, log=None,
        actors: int | None = None):
    parts = groups(bps, actors)
    if runtime == "stepped" and len(parts) < len(bps):
        raise ScenarioError("actors: the stepped runtime runs one participant per actor (each window advances "
                            "participants on heaps of their own); use it with the paced runtime")
    ray = start_ray(address)
    from emu.engine import cluster
    from emu.engine.conservative import run_windows
    t0 = time.perf_counter()
    hosts = _spawn(ray, parts)
    info = {"hosts": _hosting(ray, hosts), "actors": len(hosts), "startup_time": time.perf_counter() - t0}
    if log is not None:
        log(f"{len(bps)} participants started in {len(hosts)} Ray actors on "
            f"{len({h['ray_node'] for h in info['hosts'].values()})} Ray node(s) in {info['startup_time']:.1f} s")
    try:
        if runtime == "paced":
            finals, end = _run_paced(ray, hosts, scenario, total, speed, progress, info, local=not address)
        else:
            ray_hosts, watch = RayHosts(ray, hosts), StallWatch(scenario["stop"])
            try:
                end = run_windows(ray_hosts, cluster.lookahead(scenario), total, scenario["stop"], progress, watch)
                finals = ray_hosts.finals()
                if watch.at is not None:
                    info["stalled"] = watch.report()
            except ray.exceptions.RayActorError as exc:
                outs, end = _salvage(ray, hosts, info, exc)
                finals = _finals(outs)
    finally:
        for a, _ in hosts:
            ray.kill(a)
    return finals, end, info


def _run_paced(ray, hosts: list, scenario: dict, total: int, speed: float, progress, info: dict, local: bool):
    from actors.ray_actor import POST_EVERY, Board
    handles = {k: a for k, (a, _) in enumerate(hosts)}
    host_of = {i: k for k, (_, ids) in enumerate(hosts) for i in ids}
    token = os.urandom(16)          # what a stream to a host must present: the run's own hosts only
    ports = dict(enumerate(ray.get([a.listen.remote(local, token) for a in handles.values()])))
    ray.get([a.connect.remote(host_of, k, ports) for k, a in handles.items()])
    ray.get([a.warm.remote() for a in handles.values()])
    stop_time, watch = scenario["stop"]["time"], StallWatch(scenario["stop"])
    board = Board.remote()
    ray.get(board.read.remote())
    epoch = time.time() + 0.2
    loops = [a.run_paced.remote(epoch, speed, stop_time, board, k / len(hosts)) for k, a in handles.items()]
    try:
        while True:
            time.sleep(POST_EVERY / 2)
            snapshots = ray.get(board.read.remote())
            finished = sum(s.get("finished", 0) for s in snapshots)
            vnow = (time.time() - epoch) * speed
            if progress is not None:
                progress(vnow, finished, lambda: snapshots)
            done, _ = ray.wait(loops, num_returns=len(loops), timeout=0)
            ray.get(done)           # a loop that ended early because its actor died raises RayActorError
            if len(done) == len(loops):
                break
            if scenario["stop"]["when"] == "all_done" and finished >= total or watch.look(vnow, snapshots):
                ray.get([a.stop.remote() for a in handles.values()])
        end = max(ray.get(loops))
        outs = ray.get([a.final.remote() for a in handles.values()])
    except ray.exceptions.RayActorError as exc:
        outs, end = _salvage(ray, hosts, info, exc)
    if watch.at is not None:
        info["stalled"] = watch.report()
    wall = time.time() - epoch
    late, transit = (np.concatenate([np.frombuffer(o[key]) for o in outs]) * 1e3 if outs else np.zeros(0)
                     for key in ("lateness", "transit"))
    pct = (lambda q: float(np.percentile(late, q))) if len(late) else (lambda q: 0.0)
    info["paced"] = {"speed": speed, "events": len(late), "event_lateness_ms_p50": pct(50),
                     "event_lateness_ms_p99": pct(99), "event_lateness_ms_max": float(late.max()) if len(late) else 0.0,
                     "events_over_bar": int((late > FAITHFUL_LATENESS_MS).sum()),
                     "virtual_behind_p99": pct(99) / 1e3 * speed, "virtual_time": end, "paced_wall": wall,
                     # frames between hosts: how long a batch took from one host's send to the other's receive
                     "calls": len(transit),
                     **{f"transit_ms_{name}": float(np.percentile(transit, q)) if len(transit) else 0.0
                        for name, q in (("p50", 50), ("p99", 99), ("max", 100))},
                     # the shortest wall time a job message has to arrive in: remote execution's r plus a latency
                     "job_window_ms": (scenario["network"]["remote_exec_cost"] + scenario["network"]["latency"])
                     / speed * 1e3}
    return _finals(outs), end


def paced_warnings(summary: dict) -> list[str]:
    """Say when a paced run was too fast to be faithful: a job message arrived after its destination had
    moved past its deliver_at (a straggler), or local events were processed more than FAITHFUL_LATENESS_MS of
    wall time late at the 99th percentile."""
    paced, fid = summary["paced"], summary["fidelity"]
    out = []
    n = fid["stragglers"]
    if n:
        its, one = ("their", "stragglers") if n > 1 else ("its", "a straggler")
        out.append(f"{n} job-carrying message{'s' if n > 1 else ''} arrived after {its} destination had moved past "
                   f"{its} deliver_at ({one}): a job message may have as little as {paced['job_window_ms']:.1f} "
                   f"ms of wall time at this speed, and batches between hosts took {paced['transit_ms_p99']:.1f} ms "
                   f"(p99); speed {paced['speed']:g} is too high for this scenario to be faithful; lower --speed")
    if paced["event_lateness_ms_p99"] > FAITHFUL_LATENESS_MS:
        out.append(f"p99 event lateness {paced['event_lateness_ms_p99']:.1f} ms of wall time (over "
                   f"{FAITHFUL_LATENESS_MS:g} ms): the actors cannot keep up with speed {paced['speed']:g}")
    return out

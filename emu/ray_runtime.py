"""The two Ray runtimes: one actor per participant, spread over the cluster's nodes.

Locally Ray starts embedded (2 CPUs, no dashboard, quiet); `address` ("auto" or "ray://host:port") joins a
running cluster. Actors take no CPU reservation (they mostly sleep) and are dealt round-robin over the
cluster's nodes, and the summary records which Ray node hosted which workstation. If a node dies mid-run,
the run stops, the survivors report, and the jobs that died with it are reported lost (`summary.lost`).

- stepped: the conservative-window driver of `emu.conservative` with the actors as hosts. Identical results
  to inline for the same scenario and seed.
- paced: every actor runs its own loop against the wall clock (see `actors.ray_actor`); the driver only
  warms the actors up, fixes the epoch, reads the board the actors post their snapshots to, and stops them
  when every job is done. Its results
  agree with inline statistically, and its fidelity figures say how faithful it was.
"""
from __future__ import annotations

import os
import time

import numpy as np

FAITHFUL_WAKE_MS = 5.0      # p99 wake lateness (wall ms) beyond which a paced run is not faithful (the bar)
# The embedded Ray is always a new one of this process's own ("local"): a bare ray.init() would join the last
# cluster started on the machine (`ray start`, a test's multi-node cluster) and fail on num_cpus
LOCAL_INIT = dict(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR",
                  object_store_memory=128 * 2**20)


def start_ray(address: str | None = None):
    """Start an embedded Ray (or join `address`), once per process."""
    for key, value in (("RAY_AUTH_MODE", "disabled"), ("RAY_USAGE_STATS_ENABLED", "0"),
                       ("RAY_worker_maximum_startup_concurrency", "16"), ("RAY_DEDUP_LOGS", "0")):
        os.environ.setdefault(key, value)
    import ray
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False, logging_level="ERROR")
        else:
            ray.init(**LOCAL_INIT)
    return ray


class RayHosts:
    """The participants as Ray actors, for the conservative-window driver."""

    def __init__(self, ray, actors: dict):
        self.ray, self.actors = ray, actors

    def next_times(self) -> dict:
        ids = list(self.actors)
        return dict(zip(ids, self.ray.get([self.actors[i].next_time.remote() for i in ids])))

    def advance(self, calls: dict) -> dict:
        ids = list(calls)
        refs = [self.actors[i].step.remote(*calls[i]) for i in ids]
        return dict(zip(ids, self.ray.get(refs)))

    def finals(self) -> list[dict]:
        return self.ray.get([a.final.remote() for a in self.actors.values()])

    def snapshots(self) -> list[dict]:
        return self.ray.get([a.snapshot.remote() for a in self.actors.values()])


def _spawn(ray, bps: list[dict]) -> dict:
    """One actor per participant, dealt round-robin over the cluster's live nodes (Ray's own SPREAD is only
    best effort and can pile several on one node, and so is soft affinity). Actors reserve no CPU, so hard
    affinity never waits for a busy node."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    from actors.ray_actor import ParticipantActor
    nodes = sorted(n["NodeID"] for n in ray.nodes() if n["Alive"])
    actors = {bp["id"]: ParticipantActor.options(scheduling_strategy=NodeAffinitySchedulingStrategy(
        nodes[k % len(nodes)], soft=False)).remote(bp) for k, bp in enumerate(bps)}
    ray.get([a.next_time.remote() for a in actors.values()])          # all constructed
    return actors


def _salvage(ray, actors: dict, info: dict, exc: Exception) -> tuple[list, float]:
    """A participant died (its Ray node went down): stop the others and keep what they hold; record who was
    lost in `info["lost"]`. The jobs that died with it are reported by emu.results.lost_jobs."""
    alive = {}
    for i, a in actors.items():
        try:
            ray.get(a.next_time.remote(), timeout=10)
            alive[i] = a
        except (ray.exceptions.RayError, ray.exceptions.GetTimeoutError):
            pass
    dead = sorted(set(actors) - set(alive))
    message = str(exc).strip().splitlines()
    info["lost"] = {"participants": dead, "hosts": {str(i): info["hosts"].get(str(i), {}) for i in dead},
                    "error": message[0] if message else type(exc).__name__}
    ray.get([a.stop.remote() for a in alive.values()])
    finals = ray.get([a.final.remote() for a in alive.values()])
    return finals, max(ray.get([a.now.remote() for a in alive.values()]), default=0.0)


def _hosting(ray, actors: dict) -> dict:
    where = dict(zip(actors, ray.get([a.where.remote() for a in actors.values()])))
    address = {n["NodeID"]: n["NodeManagerAddress"] for n in ray.nodes()}
    return {str(i): {"ray_node": node, "address": address.get(node, "")} for i, node in where.items()}


def run(runtime: str, scenario: dict, bps: list[dict], total: int, speed: float, address, progress, log=None):
    ray = start_ray(address)
    from emu import cluster
    from emu.conservative import run_windows
    t0 = time.perf_counter()
    actors = _spawn(ray, bps)
    info = {"hosts": _hosting(ray, actors), "startup_time": time.perf_counter() - t0}
    if log is not None:
        log(f"{len(actors)} participants started on {len({h['ray_node'] for h in info['hosts'].values()})} "
            f"Ray node(s) in {info['startup_time']:.1f} s")
    try:
        if runtime == "paced":
            finals, end = _run_paced(ray, actors, scenario, total, speed, progress, info)
        else:
            hosts = RayHosts(ray, actors)
            try:
                end = run_windows(hosts, cluster.lookahead(scenario), total, scenario["stop"], progress)
                finals = hosts.finals()
            except ray.exceptions.RayActorError as exc:
                finals, end = _salvage(ray, actors, info, exc)
    finally:
        for a in actors.values():
            ray.kill(a)
    return finals, end, info


def _run_paced(ray, actors: dict, scenario: dict, total: int, speed: float, progress, info: dict):
    from actors.ray_actor import POST_EVERY, Board
    handles = dict(actors)
    ray.get([a.connect.remote(handles) for a in actors.values()])
    ray.get([a.warm.remote() for a in actors.values()])
    stop_time = scenario["stop"]["time"]
    board = Board.remote()
    ray.get(board.read.remote())
    epoch = time.time() + 0.2
    loops = [a.run_paced.remote(epoch, speed, stop_time, board) for a in actors.values()]
    try:
        while True:
            time.sleep(POST_EVERY)
            snapshots = ray.get(board.read.remote())
            finished = sum(s.get("finished", 0) for s in snapshots)
            vnow = (time.time() - epoch) * speed
            if progress is not None:
                progress(vnow, finished, lambda: snapshots)
            done, _ = ray.wait(loops, num_returns=len(loops), timeout=0)
            ray.get(done)           # a loop that ended early because its actor died raises RayActorError
            if len(done) == len(loops):
                break
            if scenario["stop"]["when"] == "all_done" and finished >= total:
                ray.get([a.stop.remote() for a in actors.values()])
        end = max(ray.get(loops))
        finals = ray.get([a.final.remote() for a in actors.values()])
    except ray.exceptions.RayActorError as exc:
        finals, end = _salvage(ray, actors, info, exc)
    wall = time.time() - epoch
    wake = np.array([x for f in finals for x in f["stats"].pop("wake_lateness")]) * 1e3
    p99 = float(np.percentile(wake, 99)) if len(wake) else 0.0
    fidelity = {"speed": speed, "wake_lateness_ms_p50": float(np.percentile(wake, 50)) if len(wake) else 0.0,
                "wake_lateness_ms_p99": p99, "wake_lateness_ms_max": float(wake.max()) if len(wake) else 0.0,
                "virtual_behind_p99": p99 / 1e3 * speed, "virtual_time": end, "paced_wall": wall}
    info["paced"] = fidelity
    return finals, end


def paced_warnings(summary: dict) -> list[str]:
    """Say when a paced run was too fast to be faithful: a job message arrived after its deliver_at
    (a straggler), or actors woke more than FAITHFUL_WAKE_MS of wall time late at the 99th percentile."""
    paced, fid = summary["paced"], summary["fidelity"]
    out = []
    if fid["stragglers"]:
        out.append(f"{fid['stragglers']} job-carrying messages arrived after their deliver_at (stragglers): "
                   f"speed {paced['speed']:g} is too high for this scenario to be faithful; lower --speed")
    if paced["wake_lateness_ms_p99"] > FAITHFUL_WAKE_MS:
        out.append(f"p99 wake lateness {paced['wake_lateness_ms_p99']:.1f} ms of wall time (over 5 ms): the "
                   f"actors cannot keep up with speed {paced['speed']:g}")
    return out

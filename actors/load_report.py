"""The periodic load report and sample: one workstation's entry of the papers' load index.

Every load-index period a workstation samples its load (a row of nodes.csv) and reports it: to the collector,
which broadcasts every node's latest report back as the index the policies read; under gossip, its own view
to a few random peers; with a policy that reads no index, to nobody. `load()` is the same report as of now.

A report is a dict of `REPORT`'s fields, then those an owner and the policy add; a sample is the same values
as a tuple, then `TAIL`'s (dicts only where a report leaves the node or has more fields: a paper-scale run
takes hundreds of thousands of samples). `emu.engine.samples` gathers every node's samples into nodes.csv. The
receivers of one broadcast in this process share one view of it (`shared_view`).
"""
from __future__ import annotations

from emu.engine.envelope import REPORT
from emu.engine.kernel import INF
from policies.base import Policy

# what a sample adds to the report: disk queue, guest bytes held for others, network RAM used, disk
# utilization over the period, bytes sent so far
TAIL = ("disk_queue", "guest", "remote", "disk_util", "net_bytes")
VIEWS = ("load_index", "load_report")     # the messages that bring a node load information (`received`)

_VIEW: list = [None, {}]     # the last load index broadcast and its view by node, shared by its receivers


def shared_view(reports: list) -> dict:
    """A broadcast load index as {node: report}, built once for all the receivers of one broadcast in this
    process (they get the same payload, read-only); each takes a copy to make its own view of the others."""
    if _VIEW[0] is not reports:
        _VIEW[0], _VIEW[1] = reports, {r["node"]: r for r in reports}
    return _VIEW[1]


class LoadReports:
    __slots__ = ("node", "exchange", "gossip_fanout", "plain", "samples", "keys", "last", "index_at")

    def __init__(self, node, spec: dict):
        self.node = node
        self.exchange = spec["exchange"]       # "collector", "gossip" or "none" (a policy that reads no index)
        self.gossip_fanout = spec["gossip_fanout"]
        # no owner and the policy's report is the base one: a report has REPORT's fields only
        self.plain = node.owner is None and type(node.policy).report is Policy.report
        self.samples: list[tuple] = []      # per period, a row of nodes.csv: the report's values, then TAIL's
        self.keys: tuple | None = None      # its columns, if not REPORT + TAIL: known at the first sample
        self.last = (0.0, 0.0, 0, 0.0)      # at the last report: time, CPU busy, faults, disk busy
        self.index_at = -INF                # when the last load index came (the next one is a period later)

    def start(self, phase: float) -> None:
        """The first report at `phase`. A report that goes nowhere and has no fields beyond the sample's is a
        sample only: it is taken lazily (`EventQueue.observe_lazily`), not woken for, as a run of one
        workstation under a local policy would otherwise spend a third of its events on them."""
        node = self.node
        if self.plain and self.exchange == "none" and not (node.pages is not None and node.spec["memory"]["trace"]):
            node.q.observe_lazily(phase, self.sample)
        else:
            node.q.at(phase, self.report)

    def received(self, env) -> None:
        """Load information into the node's view (`index`): the collector's index, every node's latest report,
        replaces it; under gossip, a peer's view brings the reports newer than the node's own."""
        node = self.node
        if env.kind == "load_index":
            self.index_at = node.q.now
            node.index = dict(shared_view(env.payload["reports"]))
            node.reported = node.index.pop(node.id, None)
            node.view_version += 1
            node.view_refreshes += 1
            return
        for r in env.payload["report"]:
            if r["node"] != node.id and r["time"] > node.index.get(r["node"], {"time": -1})["time"]:
                node.index[r["node"]] = r
                node.view_version += 1
                node.view_refreshes += 1

    def load(self) -> dict:
        """This node's load report as of now, with the owner's and the policy's fields."""
        return self.extend(dict(zip(REPORT, self.values(self.node.cpu.busy_time()))))     # zip: REPORT's only

    def extend(self, report: dict) -> dict:
        """The fields an owner and the policy add to a load report."""
        node = self.node
        if node.owner is not None:
            report.update(node.owner.report())
        report.update(node.policy.report(node))
        return report

    def values(self, busy_now: float) -> tuple:
        """A row of nodes.csv: the load report's own fields (`REPORT`), then TAIL's (taken once per period on
        every node: its lookups are written out, not made through the Pager's properties)."""
        node = self.node
        now, pager, disk = node.q.now, node.pager, node.disk
        since, busy, faults, disk_busy = self.last
        span = now - since
        user, demand, guest, remote = pager.user_memory, pager.demand, pager.guest, pager.remote
        idle = user - demand - guest            # Pager.idle
        return (node.id, now, len(node.jobs), node.cpu.queue_length(), len(node.pending), node.speed,
                user, demand, idle if idle > 0.0 else 0.0, (busy_now - busy) / span if span > 0 else 0.0,
                (node.faults - faults) / span if span > 0 else 0.0,
                node.foreign,
                disk.waiting, guest, sum(remote.values()) if remote else 0,
                (disk.busy - disk_busy) / node.period,
                node.nic.bytes_sent)

    def sample(self, now: float) -> float:
        """Take the sample of `now` (a row of nodes.csv) and report nothing; returns the next sample's time."""
        node = self.node
        busy = node.cpu.busy_time()
        self.samples.append(self.values(busy))
        self.last = (now, busy, node.faults, node.disk.busy)
        return now + node.period

    def report(self, _=None) -> None:
        """Sample this node's load (a row of nodes.csv) and report it, every period. The report is a dict only
        where it is sent or has fields beyond `REPORT` (an owner's, the policy's)."""
        node = self.node
        busy = node.cpu.busy_time()
        row = self.values(busy)
        if self.plain:
            report = None if self.exchange == "none" else dict(zip(REPORT, row))
            self.samples.append(row)
        else:
            report = self.extend(dict(zip(REPORT, row)))
            self.samples.append((*report.values(), *row[len(REPORT):]))
            if self.keys is None:
                self.keys = tuple(report) + TAIL
        self.last = (node.q.now, busy, node.faults, node.disk.busy)
        if node.pages is not None and node.spec["memory"]["trace"]:
            for job in node.jobs.values():
                node.log("task_memory", job=job.id, resident=node.pages.resident(job), cpu=job.cpu)
        if self.exchange == "collector":
            node.send(node.collector, "load_report", {"report": report})
        elif self.exchange == "gossip":
            view = list(node.index.values()) + [report]
            for peer in node.rng.sample([p for p in node.peers() if p != node.id],
                                        min(self.gossip_fanout, node.workstations - 1)):
                node.send(peer, "load_report", {"report": view})
        node.q.at(node.q.now + node.period, self.report)

    def final(self) -> tuple:
        """Every sample taken, under its columns."""
        return self.keys or REPORT + TAIL, self.samples

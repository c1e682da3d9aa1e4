"""The message envelope and its msgpack codec.

Everything that crosses workstations travels as an envelope `(deliver_at, sender, seq, kind, payload)`.
`(deliver_at, sender, seq)` is a total order: `seq` counts each sender's messages, so ties never depend on
the order in which messages happen to arrive. Envelopes are batched per destination: one encoded batch
is one transport call. A broadcast (`dest = ALL`) is one frame on the sender's link, encoded once and
delivered to every workstation; a delivered payload is read-only (receivers may share it). A batch is decoded and checked whole before any of it is applied, so a malformed
envelope is rejected with a clear error and never half-applied.
"""
from __future__ import annotations

import math
from collections import defaultdict
from typing import NamedTuple

import msgpack

# Every kind of message, with the payload fields it must carry. A new kind is added here and handled by the
# participant that receives it.
KINDS: dict[str, tuple[str, ...]] = {
    "load_report": ("report",),          # one node's load, to the collector (or a peer, under gossip)
    "load_index": ("reports",),          # the collected global load index, from the collector
    "remote_exec": ("job", "sent"),      # a job that has not started, placed on another node (cost r)
    "migrate": ("job", "sent"),          # a running job's state, moved preemptively (cost r + D/B)
    "job_return": ("job", "sent", "reason"),   # a job refused by its destination, back to its sender
    "sync": ("group", "to", "from", "it"),     # a parallel task ended a compute phase, to a partner task
    # network RAM (paper 002): a node borrows idle memory on a peer for its overflow, pages from it, hands it
    # back, and the host evicts the guest pages (sending them back) when its own jobs need the memory
    "ram_request": ("bytes",),
    "ram_grant": ("bytes", "asked"),
    "ram_release": ("bytes",),
    "ram_evict": ("bytes",),
    "page_request": ("job_id", "pages"),
    "page_reply": ("job_id", "pages"),
    # remote I/O (paper 003's IOCM, actors/remote_io.py): a job's data to its I/O node (with a copy of the job),
    # stored; each access of the job there and its bytes back; the job's end
    "io_data": ("job",),
    "io_stored": ("job_id",),
    "io_request": ("job_id", "bytes"),
    "io_reply": ("job_id", "bytes"),
    "io_end": ("job_id",),
    # a policy's own (Policy.MESSAGES): the batch system's central queue (paper 003's BS, policies/bs.py), a job
    # submitted to the central node, its nodes back to its home, a task ended on its node
    "batch_submit": ("key", "width", "pinned"),
    "batch_start": ("key", "nodes"),
    "batch_ended": ("key",),
    # on a shared bus (network.medium = "bus") every message goes to the bus first, wrapped
    "relay": ("dest", "kind", "payload", "size", "fixed"),
}


# a load report's own fields, numbers all, in the order a sample begins with them (actors.load_report); `node`
# and `time` come first, which nodes.csv's sort relies on. An owner and the policy may add fields of their own.
REPORT = ("node", "time", "jobs", "ready", "pending", "speed", "memory", "demand", "idle", "cpu_util",
          "fault_rate", "foreign")
MAX_BATCH = 64 * 2**20      # bytes: far above any batch a run sends (a 4,096-node load index is a few MB)
INTEGERS = {"group", "to", "from", "it", "job_id", "pages", "width"}     # payload fields: non-negative integers
NUMBERS = {"bytes", "asked", "size", "fixed"}                    # payload fields: non-negative finite numbers
ALL = -1     # the destination of a broadcast: every workstation


class MessageError(ValueError):
    """A malformed envelope or batch; the message names the field and what was expected."""


class Envelope(NamedTuple):
    deliver_at: float
    sender: int
    seq: int
    kind: str
    payload: dict
    dest: int = ALL          # routing only; not part of the order

    def order(self):
        return (self.deliver_at, self.sender, self.seq)


def destinations(envelopes: list[Envelope], workstations: int) -> dict[int, list[int]]:
    """Which of `envelopes` (their positions, in order) go to which destination, destinations in the order
    they first appear; a broadcast goes to every workstation."""
    groups = defaultdict(list)
    for i, env in enumerate(envelopes):
        for dest in (range(workstations) if env.dest == ALL else (env.dest,)):
            groups[dest].append(i)
    return groups


def by_destination(envelopes: list[Envelope], workstations: int) -> dict[int, tuple[bytes, float]]:
    """What one participant sent, batched per destination: {dest: (encoded batch, its earliest deliver_at)}.
    Destinations that get the same envelopes (a broadcast) share one encoding. Every runtime that crosses a
    process boundary routes with this."""
    if len(envelopes) == 1 and envelopes[0].dest != ALL:     # the common case (a load report), kept cheap
        return {envelopes[0].dest: (encode_batch(envelopes), envelopes[0].deliver_at)}
    encoded: dict[tuple, tuple[bytes, float]] = {}
    out = {}
    for dest, members in destinations(envelopes, workstations).items():
        key = tuple(members)
        if key not in encoded:
            envs = [envelopes[i] for i in members]
            encoded[key] = (encode_batch(envs), min(e.deliver_at for e in envs))
        out[dest] = encoded[key]
    return out


def packed(obj) -> bytes:
    """msgpack's bytes for `obj`, as `msgpack.packb(obj, use_bin_type=True)` gives them, by one reused packer
    (packb makes a new one per call, which costs as much as packing a load report)."""
    return _PACKER.pack(obj)


_PACKER = msgpack.Packer(use_bin_type=True)


def encode_batch(envelopes: list[Envelope]) -> bytes:
    return packed([[e.deliver_at, e.sender, e.seq, e.kind, e.payload, e.dest] for e in envelopes])


# per kind: the payload fields it must carry, those of them that are non-negative numbers, non-negative integers
_FIELDS = {kind: (fields, [f for f in fields if f in NUMBERS], [f for f in fields if f in INTEGERS])
           for kind, fields in KINDS.items()}
_REAL = (int, float)        # what msgpack decodes a number to (bool is not one: `type`, not `isinstance`)


def _check(i: int, item) -> Envelope:
    where = f"envelope #{i}"
    if type(item) not in (list, tuple) or len(item) != 6:
        raise MessageError(f"{where}: expected a 6-item array (deliver_at, sender, seq, kind, payload, dest), "
                           f"got {type(item).__name__} of length {len(item) if hasattr(item, '__len__') else '?'}")
    deliver_at, sender, seq, kind, payload, dest = item
    if type(deliver_at) not in _REAL or not 0 <= deliver_at < math.inf:
        raise MessageError(f"{where}: field 'deliver_at': expected a finite non-negative number, got {deliver_at!r}")
    for name, value, least in (("sender", sender, 0), ("seq", seq, 0), ("dest", dest, ALL)):
        if type(value) is not int or value < least:
            what = "a node id or -1 (broadcast)" if name == "dest" else "a non-negative integer"
            raise MessageError(f"{where}: field '{name}': expected {what}, got {value!r}")
    if type(kind) is not str or kind not in _FIELDS:
        raise MessageError(f"{where}: field 'kind': expected one of {sorted(KINDS)}, got {kind!r}")
    if type(payload) is not dict:
        raise MessageError(f"{where} ({kind}): field 'payload': expected a map, got {type(payload).__name__}")
    fields, numbers, integers = _FIELDS[kind]
    for name in fields:
        if name not in payload:
            raise MessageError(f"{where} ({kind}): field 'payload.{name}': missing")
    sent = payload.get("sent", 0)
    if type(sent) not in _REAL or not 0 <= sent <= deliver_at:
        raise MessageError(f"{where} ({kind}): field 'payload.sent': expected the send time, at most deliver_at, "
                           f"got {sent!r}")
    for name in numbers:
        if type(payload[name]) not in _REAL or not 0 <= payload[name] < math.inf:
            raise MessageError(f"{where} ({kind}): field 'payload.{name}': expected a non-negative number, "
                               f"got {payload[name]!r}")
    for name in integers:
        if type(payload[name]) is not int or payload[name] < 0:
            raise MessageError(f"{where} ({kind}): field 'payload.{name}': expected a non-negative integer, "
                               f"got {payload[name]!r}")
    if kind in ("load_report", "load_index"):
        _check_reports(f"{where} ({kind}): field 'payload.{fields[0]}'", payload[fields[0]], kind == "load_report")
    return Envelope(float(deliver_at), sender, seq, kind, payload, dest)


def _check_reports(where: str, reports, one_allowed: bool) -> None:
    """A list of load reports (or, from a node to the collector, one): maps with REPORT's fields, numbers, and
    a node id; what the receivers index and compare."""
    if one_allowed and type(reports) is dict:
        reports = [reports]
    if type(reports) is not list:
        raise MessageError(f"{where}: expected a list of load reports, got {type(reports).__name__}")
    for r in reports:
        if type(r) is not dict or not all(type(r.get(f)) in _REAL for f in REPORT) or type(r["node"]) is not int \
                or r["node"] < 0:
            raise MessageError(f"{where}: expected load reports, maps of numbers {', '.join(REPORT)} (node a "
                               f"node id), got {r!r:.200}")


def decode_batch(data: bytes) -> list[Envelope]:
    if len(data) > MAX_BATCH:
        raise MessageError(f"batch: {len(data):,} bytes, expected at most {MAX_BATCH:,}")
    try:
        items = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception as exc:  # msgpack raises several unrelated types
        raise MessageError(f"batch: not valid msgpack ({exc})") from None
    if not isinstance(items, list):
        raise MessageError(f"batch: expected an array of envelopes, got {type(items).__name__}")
    return [_check(i, item) for i, item in enumerate(items)]

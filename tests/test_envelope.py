"""The message envelope and its msgpack codec; a job's wire state; a batch is checked whole before it is applied."""
import dataclasses
import math
import struct
from pathlib import Path

import msgpack
import pytest

from actors.job import Job
from emu.engine import cluster
from emu.engine.envelope import KINDS, MAX_BATCH, REPORT, Envelope, MessageError, decode_batch, encode_batch
from emu.inputs import scenario

QUICKSTART = Path(__file__).resolve().parent.parent / "scenarios" / "quickstart.toml"


def bits(x: float) -> bytes:
    return struct.pack(">d", x)


def assert_identical(a, b, where="value"):
    """Equal, with the same types all the way down, and floats equal bit for bit."""
    assert type(a) is type(b), f"{where}: {type(a).__name__} != {type(b).__name__}"
    if isinstance(a, float):
        assert bits(a) == bits(b), f"{where}: {a!r} != {b!r}"
    elif isinstance(a, dict):
        assert list(a) == list(b), where
        for k in a:
            assert_identical(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, list):
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            assert_identical(x, y, f"{where}[{i}]")
    else:
        assert a == b, where


def job_state(**changes) -> dict:
    state = Job(id=4, home=1, arrival=2.5, work=10.0).to_state()
    state.update(changes)
    return state


def report(node=1) -> dict:
    """A load report's own fields (all numbers), and one a policy adds."""
    return {**{f: 0.0 for f in REPORT}, "node": node, "jobs": 2, "reservation": "normal"}


def valid(kind="remote_exec", deliver_at=1.0, sender=1, seq=1, dest=0) -> list:
    payload = {"load_report": {"report": report()},
               "load_index": {"reports": []},
               "remote_exec": {"job": job_state(), "sent": 0.5},
               "migrate": {"job": job_state(), "sent": 0.5},
               "job_return": {"job": job_state(), "reason": "refused", "sent": 0.5},
               "sync": {"group": 0, "to": 3, "from": 1, "it": 7},
               "ram_request": {"bytes": 4096.0}, "ram_grant": {"bytes": 0.0, "asked": 4096.0},
               "ram_release": {"bytes": 4096.0}, "ram_evict": {"bytes": 4096.0},
               "page_request": {"job_id": 4, "pages": 50}, "page_reply": {"job_id": 4, "pages": 50},
               "io_data": {"job": job_state(io_node=2)}, "io_stored": {"job_id": 4},
               "io_request": {"job_id": 4, "bytes": 262144.0}, "io_reply": {"job_id": 4, "bytes": 262144.0},
               "io_end": {"job_id": 4},
               "batch_submit": {"key": [1, 7], "width": 16, "pinned": False},
               "batch_start": {"key": [1, 7], "nodes": [3, 4]}, "batch_ended": {"key": [0, 9]},
               "relay": {"dest": -1, "kind": "load_index", "payload": {"reports": []}, "size": 60, "fixed": 0.0},
               }[kind]
    return [deliver_at, sender, seq, kind, payload, dest]


def raw_batch(*items) -> bytes:
    return msgpack.packb(list(items), use_bin_type=True)


# -- round trip --------------------------------------------------------------------------------------------------

AWKWARD = [0.1 + 0.2, 1 / 3, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, 123456789.123456789,
           math.pi * 1e-9, 2.0**-40]


def test_round_trip_preserves_every_field_exactly():
    envelopes = [
        Envelope(0.1 + 0.2, 3, 1, "remote_exec", {"job": job_state(arrival=1 / 3, work=math.pi, done=0.1 + 0.7,
                                                                    memory=[[0.0, 1e6], [1 / 7, 3.5 * 2**20]]),
                                                  "sent": 0.1}, 5),
        Envelope(5e-324, 0, 2, "load_report", {"report": {**report(0), "load": AWKWARD, "name": "ws0",
                                                          "idle": -0.0, "big": 2**62, "ok": True}}, 8),
        Envelope(1e7, 8, 3, "load_index", {"reports": [{**report(i), "time": t} for i, t in enumerate(AWKWARD)]}, 2),
        Envelope(12.5, 2, 2**40, "job_return", {"job": job_state(cls="foreign"), "reason": "memory", "sent": 12.0}, 2),
        Envelope(0.0, 0, 0, "migrate", {"job": job_state(state="ready", nodes=[1, 2, 3]), "sent": 0.0}, 0),
    ]
    decoded = decode_batch(encode_batch(envelopes))
    assert len(decoded) == len(envelopes)
    for i, (before, after) in enumerate(zip(envelopes, decoded)):
        assert isinstance(after, Envelope)
        assert after == before
        for name in Envelope._fields:
            assert_identical(getattr(before, name), getattr(after, name), f"envelope #{i}.{name}")
        assert after.order() == before.order()


def test_empty_batch_round_trips():
    assert decode_batch(encode_batch([])) == []


def test_every_kind_round_trips():
    envelopes = [Envelope(*valid(kind)) for kind in KINDS]
    assert decode_batch(encode_batch(envelopes)) == envelopes


@pytest.mark.parametrize("name, value", [("it", -1), ("to", 1.5), ("group", True), ("from", "2")])
def test_rejects_a_sync_message_whose_counters_are_not_whole(name, value):
    item = valid("sync")
    item[4][name] = value
    rejects(raw_batch(valid("sync"), item), "envelope #1 (sync)", f"payload.{name}", "non-negative integer")


# -- rejection ---------------------------------------------------------------------------------------------------

def rejects(data: bytes, *words: str) -> str:
    with pytest.raises(MessageError) as info:
        decode_batch(data)
    message = str(info.value)
    for word in words:
        assert word in message, message
    assert "\n" not in message
    return message


@pytest.mark.parametrize("data", [b"\xc1", b"", b"\x92\x01", b"not msgpack at all", b"\x90\x90"])
def test_rejects_bytes_that_are_not_msgpack(data):
    rejects(data, "batch", "msgpack")


@pytest.mark.parametrize("value", [{"deliver_at": 1.0}, 3, "envelopes", None])
def test_rejects_a_batch_that_is_not_an_array(value):
    rejects(msgpack.packb(value), "batch", "array")


@pytest.mark.parametrize("item", [valid()[:5], valid() + [0], [], "envelope", 7, {"deliver_at": 1.0}])
def test_rejects_an_envelope_of_the_wrong_shape(item):
    rejects(raw_batch(item), "envelope #0", "6-item array")


@pytest.mark.parametrize("field, index, value", [
    ("deliver_at", 0, -1.0),
    ("deliver_at", 0, -1e-300),
    ("deliver_at", 0, float("nan")),
    ("deliver_at", 0, "1.0"),
    ("deliver_at", 0, True),
    ("deliver_at", 0, None),
    ("sender", 1, True),
    ("sender", 1, False),
    ("sender", 1, -1),
    ("sender", 1, 1.0),
    ("sender", 1, "1"),
    ("seq", 2, -5),
    ("seq", 2, True),
    ("dest", 5, -2),
    ("dest", 5, None),
])
def test_rejects_a_bad_envelope_field(field, index, value):
    item = valid()
    item[index] = value
    rejects(raw_batch(item), "envelope #0", f"'{field}'")


@pytest.mark.parametrize("kind", ["teleport", "", None, 3, "REMOTE_EXEC", [1], {"a": 1}])
def test_rejects_an_unknown_kind(kind):
    item = valid()
    item[3] = kind
    message = rejects(raw_batch(item), "envelope #0", "'kind'")
    for known in KINDS:
        assert known in message


@pytest.mark.parametrize("payload", [[], "job", None, 3, [["job", {}]]])
def test_rejects_a_payload_that_is_not_a_map(payload):
    item = valid()
    item[4] = payload
    rejects(raw_batch(item), "envelope #0", "'payload'", "map")


@pytest.mark.parametrize("kind, missing", [(kind, field) for kind, fields in KINDS.items() for field in fields])
def test_rejects_a_payload_missing_a_required_field(kind, missing):
    item = valid(kind)
    del item[4][missing]
    rejects(raw_batch(item), "envelope #0", kind, f"'payload.{missing}'", "missing")


@pytest.mark.parametrize("kind, field, value", [("ram_request", "bytes", -1.0), ("ram_grant", "asked", "all"),
                                                ("ram_evict", "bytes", float("inf")), ("page_reply", "pages", 2.5),
                                                ("page_request", "job_id", -3), ("io_request", "bytes", -1.0),
                                                ("io_reply", "job_id", 1.5)])
def test_rejects_network_ram_and_remote_io_amounts_that_are_not_amounts(kind, field, value):
    item = valid(kind)
    item[4][field] = value
    rejects(raw_batch(item), "envelope #0", kind, f"'payload.{field}'", "non-negative")


@pytest.mark.parametrize("field, value", [("dest", -2), ("dest", "all"), ("size", -1), ("fixed", float("nan"))])
def test_the_bus_rejects_a_relay_it_cannot_carry(field, value):
    from actors.participant import Bus
    item = valid("relay")
    item[4][field] = value
    with pytest.raises(MessageError, match=f"payload.{field}"):
        Bus(2, 2, 1e6, 1e-4).deliver(decode_batch(raw_batch(item)))


@pytest.mark.parametrize("kind, reports", [
    ("load_report", "x"), ("load_report", {"node": 1}), ("load_report", [{**report(), "jobs": "many"}]),
    ("load_report", {**report(), "node": -1}), ("load_report", {**report(), "node": 1.5}),
    ("load_index", {"reports": 1}), ("load_index", [report(), 7]), ("load_index", [{**report(), "time": None}]),
])
def test_rejects_load_reports_that_are_not_reports(kind, reports):
    """What the collector and the policies index and compare is checked with the batch, not inside advance()."""
    item = valid(kind)
    item[4][KINDS[kind][0]] = reports
    rejects(raw_batch(item), "envelope #0", kind, f"'payload.{KINDS[kind][0]}'", "load reports")


def test_reports_as_gossip_and_as_a_load_index_pass():
    for kind, reports in (("load_report", [report(1), report(2)]), ("load_index", [report(1), report(2)])):
        item = valid(kind)
        item[4][KINDS[kind][0]] = reports
        assert decode_batch(raw_batch(item))[0].payload == item[4]


def test_rejects_a_batch_larger_than_any_run_sends():
    rejects(bytes(MAX_BATCH + 1), "batch", "at most")


def test_a_batch_with_a_bad_second_envelope_is_rejected_whole():
    bad = valid(seq=3)
    bad[0] = float("nan")
    data = raw_batch(valid(seq=1), valid(seq=2), bad, valid(seq=4))
    result = "not assigned"
    with pytest.raises(MessageError) as info:
        result = decode_batch(data)
    assert result == "not assigned"                     # nothing came back, not even the good envelopes
    assert "envelope #2" in str(info.value) and "'deliver_at'" in str(info.value)


# -- a job's wire state ------------------------------------------------------------------------------------------

def test_job_round_trips_through_its_state():
    job = Job(id=17, home=3, arrival=1 / 3, work=math.pi * 100, memory=[[0.0, 2**20], [0.25, 96.5 * 2**20]],
              io_rate=1e-3, io_size=65536.0, io_read=0.75, program="cc", cls="foreign", migratable=False)
    job.done, job.state, job.node, job.start = 0.1 + 0.2, "ready", 5, 2.0
    job.cpu, job.queue, job.page, job.io, job.net = 0.1, 0.2, 0.3, 0.4, 0.5
    job.faults, job.io_requests, job.migrations, job.remote_execs, job.nodes = 3, 4, 1, 1, [3, 5]
    wire = msgpack.unpackb(msgpack.packb(job.to_state(), use_bin_type=True), raw=False)
    again = Job.from_state(wire)
    assert dataclasses.asdict(again) == dataclasses.asdict(job)
    assert_identical(again.to_state(), job.to_state())


def test_job_state_carries_no_local_fields():
    state = Job(id=1, home=0, arrival=0.0, work=1.0).to_state()
    for local in Job._LOCAL:
        assert local not in state


@pytest.mark.parametrize("changes, field", [
    ({"colour": "red"}, "colour"),                   # unknown field
    ({"stop_at": 3.0}, "stop_at"),                   # a local field is not part of the wire state
    ({"home": "1"}, "home"),                         # wrong types
    ({"id": 1.0}, "id"),
    ({"id": True}, "id"),
    ({"arrival": "0 s"}, "arrival"),
    ({"arrival": None}, "arrival"),
    ({"work": "10"}, "work"),
    ({"work": False}, "work"),
    ({"memory": "96 MB"}, "memory"),
    ({"migratable": 1}, "migratable"),
    ({"program": 7}, "program"),
    ({"nodes": {"0": 1}}, "nodes"),
    ({"work": 0}, "work"),                           # non-positive work
    ({"work": 0.0}, "work"),
    ({"work": -1.5}, "work"),
    ({"cls": "vip"}, "cls"),                         # unknown class
    ({"state": "zombie"}, "state"),
])
def test_job_from_state_rejects(changes, field):
    with pytest.raises(MessageError) as info:
        Job.from_state(job_state(**changes))
    assert f"payload.job.{field}" in str(info.value)


@pytest.mark.parametrize("missing", ["id", "home", "arrival", "work"])
def test_job_from_state_rejects_a_missing_required_field(missing):
    state = job_state()
    del state[missing]
    with pytest.raises(MessageError) as info:
        Job.from_state(state)
    assert f"payload.job.{missing}" in str(info.value) and "missing" in str(info.value)


@pytest.mark.parametrize("state", [None, [], "job", 3])
def test_job_from_state_rejects_a_non_map(state):
    with pytest.raises(MessageError, match=r"payload\.job"):
        Job.from_state(state)


def test_job_from_state_rejects_nan_work():
    with pytest.raises(MessageError, match=r"payload\.job\.work"):
        Job.from_state(job_state(work=float("nan")))


# -- a participant applies a batch whole or not at all -----------------------------------------------------------

@pytest.fixture(scope="module")
def first_blueprint():
    return cluster.blueprints(scenario.load(QUICKSTART))[0]


@pytest.fixture
def workstation(first_blueprint):
    return cluster.make(first_blueprint)


def job_envelope(seq: int, state: dict, kind="remote_exec") -> Envelope:
    return Envelope(0.5, 1, seq, kind, {"job": state, "sent": 0.4}, 0)


def test_deliver_accepts_a_good_batch(workstation):
    before = len(workstation.q.pending())
    workstation.deliver(decode_batch(encode_batch([job_envelope(1, job_state(id=900)),
                                                   job_envelope(2, job_state(id=901))])))
    assert len(workstation.q.pending()) == before + 2


@pytest.mark.parametrize("bad, field", [
    (job_state(id=901, work=-1.0), "work"),
    (job_state(id=901, cls="vip"), "cls"),
    (job_state(id=901, colour="red"), "colour"),
    ({k: v for k, v in job_state(id=901).items() if k != "work"}, "work"),
    (job_state(id=901, home="0"), "home"),
])
def test_deliver_rejects_a_batch_whose_second_job_is_malformed_and_applies_none_of_it(workstation, bad, field):
    p = workstation
    before = len(p.q.pending())
    pending_before = list(p.q.pending())
    batch = decode_batch(encode_batch([job_envelope(1, job_state(id=900)), job_envelope(2, bad)]))
    with pytest.raises(MessageError) as info:
        p.deliver(batch)
    assert f"payload.job.{field}" in str(info.value)
    assert len(p.q.pending()) == before
    assert [(t, fn) for t, fn, _ in p.q.pending()] == [(t, fn) for t, fn, _ in pending_before]
    assert p.in_transit() == [] and p.lateness == {}


# -- envelopes the emulator itself makes, or accepts, must be ones it can handle (bugs found by these tests) ----

def test_a_job_return_made_by_a_workstation_passes_the_codec(workstation):
    p = workstation
    p.policy.accept = lambda job, node: False             # refuse every job sent here
    p.deliver([job_envelope(1, job_state(id=900))])
    out = p.advance(0.6)
    returns = [e for e in out if e.kind == "job_return"]
    assert len(returns) == 1
    assert decode_batch(encode_batch(returns)) == returns


def test_a_job_message_that_passes_the_checks_can_be_processed(workstation):
    p = workstation
    env = Envelope(0.5, 1, 1, "remote_exec", {"job": job_state(id=900)}, 0)
    try:
        p.deliver(decode_batch(encode_batch([env])))
    except MessageError as exc:                            # rejecting it up front is fine too
        assert "sent" in str(exc)
        return
    p.advance(1.0)

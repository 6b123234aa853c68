"""The hold records on the floor (issue 45 item 2): the forwarder's messages of a journal with
holds (a jam, an unreadable card, the controller stopped while held) pass the ingest's checks, each
hold record on ``.event`` with its content hash, and a round's ``.round`` message tells its holds
(``recall.holds``) as ``tablectl recall --json`` does. Without servers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.journal import SqliteJournal
from controller.journal.outbox import Outbox
from hil.simulate.run import run_seed

pytest.importorskip("nats")
pytest.importorskip("psycopg")

from controller.floor.ingest import parse_batch
from controller.floor.messages import messages_for
from controller.floor.validate import FloorRecord, content_hash_ok

HOLDS = ("HoldBegan", "HoldChanged", "HoldEnded")


@pytest.mark.parametrize(("kinds", "seed"), [(["jam", "unreadable_card"], 2), (["jam", "crash"], 1)])
def test_hold_records_pass_the_floors_checks_and_each_round_message_tells_its_holds(
    tmp_path: Path, kinds: list[str], seed: int
) -> None:
    result = run_seed("mississippi_stud", seed, kinds, rounds=3, folder=tmp_path)
    assert not result.broken, result.broken
    path = tmp_path / f"mississippi_stud-{seed}.db"
    box = Outbox(path)
    try:
        messages = [m for r in box.after(0) for m in messages_for(r, "ms-01", "floor", box.between)]
    finally:
        box.close()
    batch = parse_batch((m.subject, m.msg_id, m.payload) for m in messages)
    assert all(isinstance(item, FloorRecord) for item in batch.items), [
        getattr(item, "reason", "") for item in batch.items if not isinstance(item, FloorRecord)
    ]
    held = [item for item in batch.items if isinstance(item, FloorRecord) and item.kind in HOLDS]
    assert held and all(item.subject == "floor.ms-01.event" for item in held)
    assert all(content_hash_ok(item, None) is True for item in held)  # the journal has no key here
    journal = SqliteJournal.open_readonly(path)
    try:
        ended = {r.seq: r.data for r in journal.records() if r.kind == "HoldEnded"}
    finally:
        journal.close()
    told = [
        h
        for m in messages
        if m.subject.endswith(".round")
        for h in json.loads(m.payload)["data"]["recall"]["holds"]
        if h["ended"] is not None
    ]
    assert told and all(ended[h["ended"]["seq"]]["by"] == h["ended"]["by"] for h in told)

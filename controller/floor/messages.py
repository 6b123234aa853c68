"""Journal records as floor messages (docs/floor.md): the subject by kind, the message id, the
JSON payload, and hidden cards left out.

Every card leaves the shoe face down in the three games, so a ``CardDealt`` on ``.event`` never
carries its card; the round's ``.round`` message, written only once the round is over, carries
them all (the round as ``tablectl recall --json`` writes it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import orjson

from controller.journal.meters import meters_for_round
from controller.journal.outbox import RawRecord
from controller.journal.recall import RecalledRound, own_events, recall_json
from controller.journal.records import JournalRecord

__all__ = [
    "FORMAT_VERSION",
    "FAULT_KINDS",
    "Message",
    "TABLE_ID",
    "record_class",
    "messages_for",
    "subject_for",
    "hide_cards",
]

FORMAT_VERSION = 1

TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a table id may be: one NATS subject token."""

FAULT_KINDS = frozenset(
    {"LinkDown", "LinkUp", "DeviceFault", "CardUnreadable", "JournalFault", "Jam", "DoorChanged", "ControllerError"}
)
"""Journal kinds published on ``.fault``."""


@dataclass(frozen=True, slots=True)
class Message:
    """One message to publish: subject, ``Nats-Msg-Id``, JSON payload, and the journal seq it
    comes from."""

    subject: str
    msg_id: str
    payload: bytes
    seq: int


def record_class(kind: str, data_text: str) -> str:
    """``round``, ``fault``, ``supervisor`` or ``event``: where a journal record is published."""
    if kind == "RoundSettled":
        return "round"
    if kind in FAULT_KINDS:
        return "fault"
    if kind == "SupervisorAction" or (kind == "ButtonChanged" and '"supervisor_key"' in data_text):
        return "supervisor"
    return "event"


def subject_for(prefix: str, table_id: str, kind: str) -> str:
    return f"{prefix}.{table_id}.{kind}"


def hide_cards(data: dict[str, Any]) -> dict[str, Any]:
    """A dealt card's data with the card left out (``"card": null, "hidden": true``)."""
    return {**data, "card": None, "hidden": True}


def _payload(table_id: str, seq: int, at: float, kind: str, data_json: str) -> bytes:
    return (
        f'{{"v":{FORMAT_VERSION},"table":"{table_id}","seq":{seq},"at":{at!r},"kind":{json.dumps(kind)},'
        f'"data":{data_json}}}'
    ).encode()


def messages_for(
    record: RawRecord, table_id: str, prefix: str, round_events: Callable[[int, int], list[RawRecord]]
) -> list[Message]:
    """The messages for one journal record (two for a round: ``.round`` and ``.meters``).
    ``round_events(first, last)`` reads a round's records from the journal."""
    cls = record_class(record.kind, record.data)
    msg_id = f"{table_id}/{record.seq}"
    if cls != "round":
        text = record.data
        if "card" in text and record.kind == "CardDealt":
            text = orjson.dumps(hide_cards(orjson.loads(text))).decode()
        return [
            Message(
                subject_for(prefix, table_id, cls),
                msg_id,
                _payload(table_id, record.seq, record.at, record.kind, text),
                record.seq,
            )
        ]
    data = orjson.loads(record.data)
    first = int(data.get("first_seq") or record.seq)
    number = int(data["round"])
    events = own_events(
        (JournalRecord(r.seq, r.at, r.kind, orjson.loads(r.data)) for r in round_events(first, record.seq - 1)), number
    )
    recalled = recall_json(RecalledRound(number, data, events, record.at))
    meters = [[scope, name, value] for (scope, name), value in sorted(meters_for_round(data).items())]
    return [
        Message(
            subject_for(prefix, table_id, "round"),
            msg_id,
            _payload(table_id, record.seq, record.at, record.kind, orjson.dumps(recalled).decode()),
            record.seq,
        ),
        Message(
            subject_for(prefix, table_id, "meters"),
            f"{msg_id}/meters",
            _payload(
                table_id,
                record.seq,
                record.at,
                "RoundMeters",
                orjson.dumps({"round": data["round"], "meters": meters}).decode(),
            ),
            record.seq,
        ),
    ]

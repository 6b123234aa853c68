"""Journal records as floor messages (docs/floor.md): the subject by kind, the message id, the
JSON payload with the record's place in the journal's hash chain, and hidden cards left out.

Each message carries its record's ``hash`` and the previous record's (``prev``), as the journal
keeps them, and says whether that hash is a plain SHA-256 or the journal key's HMAC (``mac``);
where the message holds the record's content as journaled (every record but a hidden dealt
card; a round's in ``content``) the floor recomputes the hash over it.

Every card leaves the shoe face down in the three games, so a ``CardDealt`` on ``.event`` never
carries its card; the round's ``.round`` message, written only once the round is over, carries
them all (the round as ``tablectl recall --json`` writes it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import orjson

from controller.journal.meters import meters_for_round
from controller.journal.outbox import RawRecord
from controller.journal.recall import RecalledRound, own_events, recall_json
from controller.journal.records import JournalRecord
from controller.journal.store import record_hash

__all__ = ["Message", "TABLE_ID", "record_class", "messages_for"]

FORMAT_VERSION = 2
"""Version 2 added ``event``, ``prev``, ``hash``, ``mac``, ``anchor`` and a round's ``content``."""

TABLE_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a table id may be: one NATS subject token."""

FAULT_KINDS = frozenset(
    {"LinkDown", "LinkUp", "DeviceFault", "CardUnreadable", "JournalFault", "Jam", "DoorChanged", "ControllerError"}
)
"""Journal kinds published on ``.fault``."""

RECORD_SUBJECTS = ("round", "meters", "fault", "supervisor", "event")
"""The last token of every subject a table publishes its records on (``<prefix>.<table>.<this>``)."""


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


def hide_cards(data: Mapping[str, object]) -> dict[str, object]:
    """A dealt card's data with the card left out (``"card": null, "hidden": true``)."""
    return {**data, "card": None, "hidden": True}


def mac_of(record: RawRecord) -> str:
    """``sha256`` when the record's hash is the plain SHA-256 of its content, else
    ``hmac-sha256`` (the journal has a key: only its holder can make the hash)."""
    plain = record_hash(record.prev, record.seq, record.at, record.kind, record.event, record.data)
    return "sha256" if plain == record.hash else "hmac-sha256"


def _payload(
    table_id: str,
    record: RawRecord,
    kind: str,
    data_json: str,
    mac: str,
    anchor_seq: int,
    content: str | None = None,
    sig: str | None = None,
) -> bytes:
    anchor = f',"anchor":{anchor_seq}' if record.seq == anchor_seq + 1 else ""
    extra = f',"content":{content}' if content is not None else ""
    signed = f',"sig":"{sig}"' if sig is not None else ""
    return (
        f'{{"v":{FORMAT_VERSION},"table":"{table_id}","seq":{record.seq},"at":{record.at!r},"kind":{json.dumps(kind)},'
        f'"event":{"true" if record.event else "false"},"prev":"{record.prev}","hash":"{record.hash}",'
        f'"mac":"{mac}"{anchor}{signed}{extra},"data":{data_json}}}'
    ).encode()


Signer = Callable[[str, int, str, str, str], str]
"""Signs one record's chain position: ``(table, seq, prev, hash, mac) -> signature`` (hex);
:func:`controller.floor.signing.sign_record` with the table's key."""


def messages_for(
    record: RawRecord,
    table_id: str,
    prefix: str,
    round_events: Callable[[int, int], list[RawRecord]],
    anchor_seq: int = 0,
    sign: Signer | None = None,
    mac: str | None = None,
) -> list[Message]:
    """The messages for one journal record (two for a round: ``.round`` and ``.meters``).
    ``round_events(first, last)`` reads a round's records from the journal; ``anchor_seq`` is
    the journal's pruning anchor (0: nothing pruned): the record right after it says so
    (``"anchor"``), so a floor that has nothing of the table yet knows where its chain starts.
    With ``sign`` (the table's signing key) every message carries the record's signature
    (``"sig"``), which the floor checks against the table's registered public key. ``mac``:
    :func:`mac_of` the record, when the caller computed it already."""
    cls = record_class(record.kind, record.data)
    msg_id = f"{table_id}/{record.seq}"
    mac = mac_of(record) if mac is None else mac
    sig = sign(table_id, record.seq, record.prev, record.hash, mac) if sign is not None else None
    if cls != "round":
        text = record.data
        if "card" in text and record.kind == "CardDealt":
            text = orjson.dumps(hide_cards(orjson.loads(text))).decode()
        return [
            Message(
                subject_for(prefix, table_id, cls),
                msg_id,
                _payload(table_id, record, record.kind, text, mac, anchor_seq, sig=sig),
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
            _payload(table_id, record, record.kind, orjson.dumps(recalled).decode(), mac, anchor_seq, record.data, sig),
            record.seq,
        ),
        Message(
            subject_for(prefix, table_id, "meters"),
            f"{msg_id}/meters",
            _payload(
                table_id,
                record,
                "RoundMeters",
                orjson.dumps({"round": data["round"], "meters": meters}).decode(),
                mac,
                anchor_seq,
                sig=sig,
            ),
            record.seq,
        ),
    ]

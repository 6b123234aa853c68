"""``tablectl status --config FILE | --journal FILE [--json]``: a running table's round, step,
hold and key from its latest snapshot, and each device's link from its journal.

The table (``tablectl run``) writes its latest snapshot (controller.table.snapshot: revealed
cards only) as JSON beside its journal (``GAME.snapshot.json``, mode 0600, replaced atomically
by a rename whenever the round, step, hold, key, prompt or a device's return changes; written
over in place when its disk is full, so a hold for the full journal shows here too); status
reads that file, never the table. It reads the journal read-only (the table keeps writing it):
for each device the latest ``LinkUp``/``LinkDown`` (is the link up now, since when, why it went
down), the latest ``LinkStats`` record (the link counters journaled at each round's end,
docs/protocol.md section 10) and the latest ``DeviceFault``. A link that has not come up says
why (``never connected: REASON``, from its ``open_failed`` or ``no_answer`` fault).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import time
from collections.abc import Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from controller.cli._journal import RUN_JOURNAL_DIR

__all__ = ["options", "run", "link_status", "table_status", "floor_connected"]


def options(p: argparse.ArgumentParser) -> None:
    """Add ``tablectl status``'s options to its parser ``p``."""
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--config", help="the table config (its journal.path, else /var/lib/tablectl/GAME.db)")
    where.add_argument("--journal", help="the journal file")
    p.add_argument("--json", action="store_true", help="one JSON object instead of text")


def _journal_path(args: argparse.Namespace) -> Path:
    if args.journal:
        return Path(args.journal)
    from controller.configuration import load_table

    table = load_table(args.config)
    return Path(table.journal.path) if table.journal.path else RUN_JOURNAL_DIR / f"{table.game}.db"


def _snapshot_path(journal: Path) -> Path:
    # the same rule as controller.table._snapshot_file.snapshot_path (not imported: status starts fast)
    return journal.with_name(f"{journal.stem}.snapshot.json")


READS = 3
"""How many times a snapshot file that is not JSON is read (a table on a full disk writes it in
place: a read may see a part written)."""


def table_status(journal: Path) -> dict[str, Any] | None:
    """The table as its latest snapshot file beside ``journal`` shows it (None when the table
    has not written one): when written, round, step, hold, key, what the dealer is asked and the
    devices not back. Raises ``ValueError`` naming the file when it cannot be read as one."""
    path = _snapshot_path(journal)
    for attempt in range(READS):
        try:
            raw = path.read_text()
        except FileNotFoundError:
            return None
        try:
            data = json.loads(raw)
            break
        except ValueError as exc:
            if attempt + 1 == READS:
                raise ValueError(f"{path}: not a table snapshot ({type(exc).__name__}: {exc})") from None
            time.sleep(0.05)  # written in place on a full disk: read it again once written
    try:
        snap = data["snapshot"]
        hold = snap["hold"]
        return {
            "file": str(path),
            "written_at": float(data["written_at"]),
            "table": str(snap["table"]),
            "game": str(snap["game"]),
            "round": int(snap["round_no"]),
            "step": str(snap["step"]),
            "asked": str(snap["asked"]),
            "hold": None if hold is None else _hold(hold),
            "key_on": bool(snap["key_on"]),
            "devices_not_back": {str(d): str(why) for d, why in snap["links_pending"]},
        }
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a table snapshot ({type(exc).__name__}: {exc})") from None


def _hold(hold: Mapping[str, Any]) -> dict[str, Any]:
    """A snapshot's hold as status shows it: its reason as the page shows it (``shown_reason``:
    the void left out when the table refuses it; the recorded reason in a file written before it
    was kept), where it was held from, and what clears it."""
    reason = hold.get("shown_reason", hold["reason"])
    return {"reason": str(reason), "from": hold["held_from"], "clears": str(hold["clears"])}


def _link_rows(db: sqlite3.Connection) -> list[tuple[int, float, str, str]]:
    """The records the links' status is made of, in journal order: every link up, link down and
    device fault, and each device's last ``LinkStats`` only (one per device and round: read all,
    they were most of a year's scan). With the journal's ``records_links`` index each is a lookup:
    the condition is the index's, written out as SQL literals (SQLite uses a partial index only
    when the query has its condition as written, not with parameters)."""
    from controller.journal.store import LINK_KINDS
    from controller.journal.stored import read_records

    def read(kinds: tuple[str, ...], limit: int | None = None) -> Iterator[tuple[int, float, str, str]]:
        newest = limit is not None or kinds == ("LinkStats",)
        records = read_records(db, kinds=kinds, index_kinds=LINK_KINDS, checked=False, newest_first=newest, limit=limit)
        return ((r.seq, r.at, r.kind, r.data) for r in records)

    rows = list(read(tuple(k for k in LINK_KINDS if k != "LinkStats")))
    stats: dict[str, tuple[int, float, str, str]] = {}
    for row in read(("LinkStats",), 64):
        stats.setdefault(str(json.loads(row[3]).get("device", "?")), row)
    for device in {str(json.loads(r[3]).get("device", "?")) for r in rows} - set(stats):
        found = next((row for row in read(("LinkStats",)) if json.loads(row[3]).get("device") == device), None)
        if found is not None:
            stats[device] = found
    return sorted([*rows, *stats.values()])


def link_status(path: Path) -> dict[str, Any]:
    """What the journal at ``path`` says of each device's link (raises ``OSError`` or
    ``sqlite3.Error`` when it cannot be read)."""
    from controller.journal.stored import read_records
    from drivers.link import COUNTERS

    if not path.is_file():
        raise FileNotFoundError(f"{path}: no journal there")
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        last = next(read_records(db, checked=False, newest_first=True, limit=1), None)
        head = (last.seq, last.at) if last is not None else None
        rows = _link_rows(db)
        floor = floor_link(db, head[0] if head else 0)
    finally:
        db.close()
    devices: dict[str, dict[str, Any]] = {}
    for seq, at, kind, raw in rows:
        data = json.loads(raw)
        name = data.get("device", "?")
        d = devices.setdefault(
            name,
            {"link": "unknown", "since": None, "reason": "", "boot_id": None, "counters": None, "last_fault": None},
        )
        if kind == "LinkUp":
            d.update(link="up", since=at, reason="", boot_id=data.get("boot_id"), ever_up=True)
        elif kind == "LinkDown":
            d.update(link="down", since=at, reason=data.get("reason", ""))
        elif kind == "LinkStats":
            d["counters"] = {name: data.get(name, 0) for name in COUNTERS}
            d["counters_at"] = at
            d["counters_seq"] = seq
            if d["link"] == "unknown":
                d["link"] = "up" if data.get("up") else "down"
            d["boot_id"] = data.get("boot_id") or d["boot_id"]
        else:
            d["last_fault"] = {"at": at, "seq": seq, "kind": data.get("kind", ""), "error": data.get("error", "")}
            _not_connected(d, at, data)
    return {
        "journal": str(path),
        "table": table_status(path),
        "head_seq": head[0] if head else 0,
        "head_at": head[1] if head else None,
        "devices": dict(sorted(devices.items())),
        "floor": floor,
    }


NOT_CONNECTED_KINDS = ("open_failed", "no_answer")
"""``DeviceFault`` kinds the link reports while it is not up: why (drivers.link)."""


def _not_connected(d: dict[str, Any], at: float, fault: dict[str, Any]) -> None:
    """A link's report that it cannot come up (the port would not open, or the device does not
    answer): the link is down for that reason, or has never been up."""
    if fault.get("kind") not in NOT_CONNECTED_KINDS:
        return
    reason = str(fault.get("error", "")).split(" (tried again", 1)[0]
    d.update(link="down" if d.get("ever_up") else "never connected", since=at, reason=reason)


def _link_line(name: str, d: dict[str, Any]) -> str:
    """The first line of a device's link: up or down since when, or never connected and why."""
    why = f": {d['reason']}" if d["reason"] else ""
    if d["link"] == "never connected":
        return f"{name}: never connected{why} (since {_time(d['since'])})"
    boot = f", boot {d['boot_id']:08x}" if d["boot_id"] is not None else ""
    return f"{name}: link {d['link']} since {_time(d['since'])}{boot}{why}"


STORED_PATIENCE_S = 120.0
"""Records the broker took that the floor has not confirmed storing for this long are an alert."""


def floor_link(db: sqlite3.Connection, head_seq: int, now: float | None = None) -> dict[str, Any] | None:
    """The floor link as the forwarder noted it in the journal (controller.journal.outbox):
    state, last error, the record the broker acknowledged, the record the floor store says it
    holds (``stored_seq``, and since when), the backlog (records the floor has not confirmed
    storing) and an alert when records the broker took have not been stored for
    :data:`STORED_PATIENCE_S`, or when the feed is held (``held_seq``: the floor said it holds a
    record there that this journal did not write); None when the table has never published."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'floor_outbox'").fetchone() is None:
        return None
    row = db.execute("SELECT acked_seq, state, error, at FROM floor_outbox WHERE name = 'floor'").fetchone()
    if row is None:
        return None
    stored = db.execute("SELECT acked_seq, at FROM floor_outbox WHERE name = 'floor-stored'").fetchone()
    stored_seq, stored_at = (int(stored[0]), float(stored[1])) if stored else (0, None)
    now = time.time() if now is None else now
    waiting = max(0, int(row[0]) - stored_seq)
    since = stored_at if stored_at is not None else row[3]
    alert = None
    if waiting and since is not None and now - since > STORED_PATIENCE_S:
        alert = (
            f"{waiting} records the broker took (up to record {row[0]}) are not stored by the floor: it has "
            f"confirmed nothing new since {_time(since)} (tablectl floor status and floor reconcile on the floor)"
        )
    held = db.execute("SELECT acked_seq, error FROM floor_outbox WHERE name = 'floor-held'").fetchone()
    if held is not None:  # before any lag: the floor holds a record this table never wrote
        alert = f"the floor feed is held on record {held[0]}: {held[1]}"
    return {
        "state": row[1],
        "error": row[2],
        "at": row[3],
        "held_seq": held[0] if held is not None else None,
        "acked_seq": row[0],
        "stored_seq": stored_seq,
        "stored_at": stored_at,
        "backlog": max(0, head_seq - stored_seq),
        "alert": alert,
    }


CONNECTED_STATES = frozenset({"up", "throttled", "held"})
"""The floor link states only a connection can have: the broker answered (took records, or
refused them for the table's share), or the floor spoke (a held feed)."""


def floor_connected(floor: Mapping[str, Any]) -> bool:
    """Whether the floor link (:func:`floor_link`) has ever been connected: a record acknowledged
    or stored, or a state only a connection gives (a table throttled before the broker took any
    of its records is connected, not "never connected")."""
    return bool(floor["acked_seq"] or floor["stored_seq"]) or floor["state"] in CONNECTED_STATES


def _time(at: float | None) -> str:
    return datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M:%S") if at is not None else "-"


def _check_lines(check: dict[str, Any] | None) -> list[str]:
    if check is None:
        return []
    if not check["ok"]:
        return [
            "journal: WARNING: does not verify (what follows is what the file holds now): " + check["problems"][0],
            *[f"  {p}" for p in check["problems"][1:]],
        ]
    if check["notes"]:
        return [f"journal: links and head verified; {note}" for note in check["notes"]]
    return ["journal: verified (meta, head, the last snapshot and the records after it; `journal verify` reads all)"]


def _text(status: dict[str, Any]) -> list[str]:
    out = [f"{status['journal']}: {status['head_seq']} records, last at {_time(status['head_at'])}"]
    out += _check_lines(status.get("check"))
    table = status.get("table")
    if table is None:
        out.append("table: no snapshot written yet (the table writes one beside its journal while it runs)")
    else:
        key = "on" if table["key_on"] else "off"
        out.append(
            f"table {table['table']} ({table['game']}): round {table['round']}, {table['step']}, supervisor key {key}"
            f" (snapshot written {_time(table['written_at'])})"
        )
        if table["hold"] is not None:
            out.append(
                f"  HOLD from {table['hold']['from']}: {table['hold']['reason']}; clears: {table['hold']['clears']}"
            )
        if table["asked"]:
            out.append(f"  dealer: {table['asked']}")
        for device, why in table["devices_not_back"].items():
            out.append(f"  {device}: not back ({why})")
    if not status["devices"]:
        out.append("no link records yet")
    for name, d in status["devices"].items():
        out.append(_link_line(name, d))
        if d["counters"] is not None:
            shown = ", ".join(f"{k} {v}" for k, v in d["counters"].items())
            out.append(f"  counters at {_time(d['counters_at'])} (round end): {shown}")
        else:
            out.append("  counters: none journaled yet (they are recorded at each round's end)")
        if d["last_fault"] is not None:
            f = d["last_fault"]
            out.append(f"  last fault at {_time(f['at'])} (record {f['seq']}): {f['error']}")
    floor = status.get("floor")
    if floor is not None:
        why = f": {floor['error']}" if floor["error"] else ""
        if not floor_connected(floor):
            out.append(
                f"floor: never connected{why} (noted {_time(floor['at'])}); backlog {floor['backlog']} "
                "records (counted from the journal)"
            )
        else:
            out.append(
                f"floor: link {floor['state']} (noted {_time(floor['at'])}){why}; stored by the floor up to record "
                f"{floor['stored_seq']} (broker acknowledged {floor['acked_seq']}), backlog {floor['backlog']} "
                "records (counted from the journal)"
            )
        if floor["alert"]:
            out.append(f"floor: ALERT: {floor['alert']}")
    return out


def journal_check(path: Path, key: bytes | None = None) -> dict[str, Any]:
    """What can be checked cheaply of the journal at ``path`` whatever its size
    (controller.journal.verify_reader: ``meta`` against its hash, the head, the chain from the last
    snapshot to the end and that snapshot's binding): ``ok``, the problems, and notes on what could
    not be checked (a keyed journal read without its key: the links and the head only)."""
    from controller.journal import JournalError, SqliteJournal, verify_reader

    try:
        journal = SqliteJournal.open_readonly(path, key)
    except JournalError as exc:
        return {"ok": False, "problems": [str(exc)], "notes": []}
    try:
        journal.read_as_of_now()  # the table writes it meanwhile: its head and chain read as one state
        report = verify_reader(journal)
    except JournalError as exc:
        return {"ok": False, "problems": [str(exc)], "notes": []}
    finally:
        journal.close()
    return {"ok": report.ok, "problems": report.problems, "notes": report.notes}


def _key(args: argparse.Namespace) -> bytes | None:
    """The journal's HMAC key when ``--config`` names a key file this user can read."""
    if not args.config:
        return None
    from controller.configuration import load_table
    from controller.journal import JournalError, read_hmac_key

    table = load_table(args.config)
    if not table.journal.hmac_key_file:
        return None
    try:
        return read_hmac_key(table.journal.hmac_key_file)
    except (JournalError, OSError, ValueError):
        return None  # checked without it: the links and the head only (said in the notes)


def run(args: argparse.Namespace) -> int:
    """Run ``tablectl status``: 0, or 1 when the journal's cheap check finds a problem (the status
    is shown all the same, under a warning), 2 when it cannot be read."""
    from controller.configuration import ConfigError

    try:
        path = _journal_path(args)
        status = link_status(path)
        status["check"] = journal_check(path, _key(args))
    except (ConfigError, OSError, sqlite3.Error, ValueError) as exc:
        print(f"tablectl status: {exc}", file=sys.stderr)
        return 2
    check = status["check"]
    for problem in check["problems"]:
        print(f"tablectl status: {path}: WARNING: {problem}", file=sys.stderr)
    if args.json:
        print(json.dumps(status, indent=2))
    else:
        print("\n".join(_text(status)))
    return 0 if check["ok"] else 1

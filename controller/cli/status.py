"""``tablectl status --config FILE | --journal FILE [--json]``: a running table's round, step,
hold and key from its latest snapshot, and each device's link from its journal.

The table (``tablectl run``) writes its latest snapshot (controller.table.snapshot: revealed
cards only) as JSON beside its journal (``GAME.snapshot.json``, mode 0600, replaced atomically
by a rename whenever the round, step, hold, key, prompt or a device's return changes); status
reads that file, never the table. It reads the journal read-only (the table keeps writing it):
for each device the latest ``LinkUp``/``LinkDown`` (is the link up now, since when, why it went
down), the latest ``LinkStats`` record (the link counters journaled at each round's end,
docs/protocol.md section 10) and the latest ``DeviceFault``.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

from controller.cli.journal import RUN_JOURNAL_DIR
from controller.table_config import load_table
from controller.yamlfile import ConfigError
from drivers.link import COUNTERS

__all__ = ["register", "run", "link_status", "table_status"]

_KINDS = ("LinkUp", "LinkDown", "LinkStats", "DeviceFault")


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``status`` sub-command to the ``tablectl`` parser."""
    p = sub.add_parser(
        "status",
        help="each device's link state and counters of a running table, from its journal",
        description=__doc__.splitlines()[0].strip("`") if __doc__ else None,
    )
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--config", help="the table config (its journal.path, else /var/lib/tablectl/GAME.db)")
    where.add_argument("--journal", help="the journal file")
    p.add_argument("--json", action="store_true", help="one JSON object instead of text")
    p.set_defaults(run=run)


def _journal_path(args: argparse.Namespace) -> Path:
    if args.journal:
        return Path(args.journal)
    table = load_table(args.config)
    return Path(table.journal.path) if table.journal.path else RUN_JOURNAL_DIR / f"{table.game}.db"


def _snapshot_path(journal: Path) -> Path:
    # the same rule as controller.table.runtime.snapshot_path (not imported: status starts fast)
    return journal.with_name(f"{journal.stem}.snapshot.json")


def table_status(journal: Path) -> dict[str, Any] | None:
    """The table as its latest snapshot file beside ``journal`` shows it (None when the table
    has not written one): when written, round, step, hold, key, what the dealer is asked and the
    devices not back. Raises ``ValueError`` naming the file when it cannot be read as one."""
    path = _snapshot_path(journal)
    try:
        raw = path.read_text()
    except FileNotFoundError:
        return None
    try:
        data = json.loads(raw)
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
            "hold": None
            if hold is None
            else {"reason": str(hold["reason"]), "from": hold["held_from"], "clears": str(hold["clears"])},
            "key_on": bool(snap["key_on"]),
            "devices_not_back": {str(d): str(why) for d, why in snap["links_pending"]},
        }
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path}: not a table snapshot ({type(exc).__name__}: {exc})") from None


def link_status(path: Path) -> dict[str, Any]:
    """What the journal at ``path`` says of each device's link (raises ``OSError`` or
    ``sqlite3.Error`` when it cannot be read)."""
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no journal there")
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        head = db.execute("SELECT seq, at FROM records ORDER BY seq DESC LIMIT 1").fetchone()
        rows = db.execute(
            f"SELECT seq, at, kind, data FROM records WHERE kind IN ({', '.join('?' * len(_KINDS))}) ORDER BY seq",
            _KINDS,
        ).fetchall()
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
            d.update(link="up", since=at, reason="", boot_id=data.get("boot_id"))
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
    return {
        "journal": str(path),
        "table": table_status(path),
        "head_seq": head[0] if head else 0,
        "head_at": head[1] if head else None,
        "devices": dict(sorted(devices.items())),
        "floor": floor,
    }


def floor_link(db: sqlite3.Connection, head_seq: int) -> dict[str, Any] | None:
    """The floor link as the forwarder noted it in the journal (controller.journal.outbox):
    state, last error, the record acknowledged by the floor, the backlog; None when the table
    has never published."""
    if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'floor_outbox'").fetchone() is None:
        return None
    row = db.execute("SELECT acked_seq, state, error, at FROM floor_outbox WHERE name = 'floor'").fetchone()
    if row is None:
        return None
    return {"state": row[1], "error": row[2], "at": row[3], "acked_seq": row[0], "backlog": max(0, head_seq - row[0])}


def _time(at: float | None) -> str:
    return datetime.fromtimestamp(at).strftime("%Y-%m-%d %H:%M:%S") if at is not None else "-"


def _text(status: dict[str, Any]) -> list[str]:
    out = [f"{status['journal']}: {status['head_seq']} records, last at {_time(status['head_at'])}"]
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
        boot = f", boot {d['boot_id']:08x}" if d["boot_id"] is not None else ""
        why = f": {d['reason']}" if d["reason"] else ""
        out.append(f"{name}: link {d['link']} since {_time(d['since'])}{boot}{why}")
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
        out.append(
            f"floor: link {floor['state']} (noted {_time(floor['at'])}){why}; acknowledged up to record "
            f"{floor['acked_seq']}, backlog {floor['backlog']}"
        )
    return out


def run(args: argparse.Namespace) -> int:
    try:
        status = link_status(_journal_path(args))
    except (ConfigError, OSError, sqlite3.Error, ValueError) as exc:
        print(f"tablectl status: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(status, indent=2))
    else:
        print("\n".join(_text(status)))
    return 0

"""What the refactor guard compares of a journal: a digest of its content, not of its file's bytes
(issue 45 item 8). The same records, snapshots, round index, meters and ``meta`` give the same
digest whether the records are kept as rows or as compact blocks, and whatever the file's schema
version (``meta``'s ``schema_version`` and the ``meta_hash`` over it are left out).

Standard library only, and no import of the code it checks: the guard runs this file's text in
each side's tree, old revisions included (:mod:`hil.simulate.guard`). Its own reading of a
block (a format byte, then zlib-compressed lines of ``repr(at)``, kind, event and data, split by
tabs) is written from docs/journal.md, not imported from ``controller.journal.compact``.
"""

from __future__ import annotations

import hashlib
import sqlite3
import tempfile
import zlib
from pathlib import Path

__all__ = ["content_digest"]

_LEFT_OUT_META = ("schema_version", "meta_hash")


def _records(db: sqlite3.Connection, tables: set[str]) -> list[tuple[int, str, str, int, str]]:
    out = [
        (int(seq), repr(at), str(kind), int(event), str(data))
        for seq, at, kind, event, data in db.execute("SELECT seq, at, kind, event, data FROM records")
    ]
    if "blocks" in tables:
        for first, payload in db.execute("SELECT first_seq, payload FROM blocks"):
            text = zlib.decompress(bytes(payload)[1:]).decode("utf-8", "surrogatepass")
            for i, line in enumerate(text.split("\n")):
                at, kind, event, data = line.split("\t", 3)
                out.append((int(first) + i, at, kind, int(event), data))
    return sorted(out)


def content_digest(raw: bytes) -> str:
    """The digest of the journal whose SQLite file holds ``raw`` (a file that is not a journal: of
    its bytes)."""
    with tempfile.TemporaryDirectory(prefix="tablectl-digest-") as tmp:
        path = Path(tmp) / "journal.db"
        path.write_bytes(raw)
        db = sqlite3.connect(path)
        try:
            tables = {str(r[0]) for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not {"meta", "records"} <= tables:
                return hashlib.sha256(raw).hexdigest()
            h = hashlib.sha256()
            for record in _records(db, tables):
                h.update(repr(record).encode("utf-8", "surrogatepass") + b"\n")
            for name, query in (
                ("snapshots", "SELECT * FROM snapshots ORDER BY seq"),
                ("rounds", "SELECT * FROM rounds ORDER BY round_no"),
                ("meters", "SELECT * FROM meters ORDER BY scope, name"),
                ("floor_outbox", "SELECT * FROM floor_outbox ORDER BY name"),
                ("meta", "SELECT key, value FROM meta ORDER BY key"),
            ):
                if name not in tables:
                    continue
                h.update(f"-- {name}\n".encode())
                for row in db.execute(query):
                    if name == "meta" and row[0] in _LEFT_OUT_META:
                        continue
                    h.update(repr(tuple(row)).encode("utf-8", "surrogatepass") + b"\n")
            return h.hexdigest()
        finally:
            db.close()

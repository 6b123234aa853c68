"""Quarantines close (issue 44 item 6; docs/floor.md, "Closing a quarantine"): a refused forgery
and a key rotation's records resent with the new key end, after ``tablectl floor resolve``, in a
state that ``floor status``, ``floor reconcile`` and the pit show as closed: kept as evidence, no
longer alerting. A quarantined record the store does not answer yet (the table's own, not resent)
stays open, and so does anything quarantined after the resolve."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("nats")
pytest.importorskip("psycopg")
pytest.importorskip("cryptography")

from test_floor_hostile import body_of, forged, journal, rows, store
from test_floor_signed import register, seq_of, signed_messages

from controller.floor.chain import Verdict
from controller.floor.signing import new_signing_key, read_signing_key, sign_record

TABLE = "ms-01"


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "controller", "floor", *args], capture_output=True, text=True, timeout=300
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def reconcile(db: Any, path: Path) -> subprocess.CompletedProcess[str]:
    return cli("reconcile", "--journal", str(path), "--table", TABLE, "--db", db.reader)


def pit_counts(db: Any) -> tuple[int, int, int]:
    from controller.web.pit_store import PgFloorReader

    tables = PgFloorReader(db.reader).tables(datetime(2000, 1, 1, tzinfo=UTC), datetime.now(UTC))
    t = next(t for t in tables if t.table_id == TABLE)
    return t.quarantined, t.rejected, t.pending


def test_a_refused_forgery_is_closed_by_resolve_and_kept_as_evidence(floor_db: Any, tmp_path: Path) -> None:
    db = floor_db.owner
    key = tmp_path / "ms-01.pem"
    assert register(db, TABLE, new_signing_key(key))
    j = journal(tmp_path / "j.db", 3)
    j.close()
    real = signed_messages(tmp_path / "j.db", TABLE, key)
    _, outcome = store(db, [m for m in real if seq_of(m) <= 5])
    head = body_of([m for m in real if seq_of(m) <= 5][-1])
    # A forger with the table's NATS credential only: a void at seq 6, not signed by the table.
    void = forged(TABLE, 6, "SupervisorAction", {"action": "void"}, head["hash"], cls="supervisor")
    _, outcome = store(db, [void])
    assert outcome.verdicts == [Verdict.QUARANTINED]
    _, outcome = store(db, [m for m in real if seq_of(m) > 5])  # the table's own records: stored
    assert Verdict.QUARANTINED not in outcome.verdicts
    status = cli("status", "--db", floor_db.reader)
    assert f"ALERT {TABLE}: 1 records quarantined" in status.stdout, status.stdout
    assert reconcile(floor_db, tmp_path / "j.db").returncode == 1
    assert pit_counts(floor_db) == (1, 0, 0)

    dry = cli("resolve", TABLE, "--db", db, "--dry-run")
    assert dry.returncode == 0 and "would close 1 quarantined records" in dry.stdout, dry.stdout
    assert rows(db, "SELECT count(*) FROM floor_resolution") == [(0,)]
    done = cli("resolve", TABLE, "--db", db)
    assert done.returncode == 0, done.stderr
    assert "closed 1 quarantined records" in done.stdout and "1 not the table's" in done.stdout, done.stdout

    status = cli("status", "--db", floor_db.reader)
    assert f"ALERT {TABLE}" not in status.stdout, status.stdout
    assert f"closed {TABLE}: 1 quarantined records settled by tablectl floor resolve" in status.stdout
    checked = reconcile(floor_db, tmp_path / "j.db")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "0 quarantined (1 more closed by floor resolve" in checked.stdout, checked.stdout
    assert pit_counts(floor_db) == (0, 0, 0)
    # Kept as evidence, and the resolution says what it did and who did it.
    assert rows(db, "SELECT seq FROM floor_quarantine WHERE table_id = %s", TABLE) == [(6,)]
    assert rows(db, "SELECT fork_seq, settled, resolved_by FROM floor_resolution") == [(None, 1, "floor_owner")]
    again = cli("resolve", TABLE, "--db", db)
    assert again.returncode == 0 and "nothing to resolve" in again.stdout, again.stdout

    # A forgery after the resolve alerts again: closing is never for what comes later.
    last = body_of(real[-1])
    late = forged(TABLE, int(last["seq"]) + 1, "SupervisorAction", {"action": "void"}, last["hash"], cls="supervisor")
    _, outcome = store(db, [late])
    assert outcome.verdicts == [Verdict.QUARANTINED]
    assert f"ALERT {TABLE}: 1 records quarantined" in cli("status", "--db", floor_db.reader).stdout
    assert pit_counts(floor_db) == (1, 0, 0)


def rotated_in_flight(db: str, tmp_path: Path) -> tuple[Path, Path, list[Any], list[Any]]:
    """The table registered with an old signing key and a new key made; its journal's records signed
    with each (the old key's and the new key's messages); records up to 5 stored, signed with the old."""
    old, new = tmp_path / "old.pem", tmp_path / "new.pem"
    assert register(db, TABLE, new_signing_key(old))
    new_signing_key(new)
    j = journal(tmp_path / "j.db", 3)
    j.close()
    by_old = signed_messages(tmp_path / "j.db", TABLE, old)
    by_new = signed_messages(tmp_path / "j.db", TABLE, new)
    store(db, [m for m in by_old if seq_of(m) <= 5])
    return old, new, by_old, by_new


def test_a_key_rotations_records_close_once_resent_with_the_new_key(floor_db: Any, tmp_path: Path) -> None:
    db = floor_db.owner
    old, new, by_old, by_new = rotated_in_flight(db, tmp_path)
    # The key is rotated (add-table --rotate-signing-key) while records signed with the old one are in flight.
    rotate = cli(
        "add-table",
        TABLE,
        "--auth",
        str(tmp_path / "auth"),
        "--db",
        db,
        "--public-key",
        f"{new}.pub",
        "--rotate-signing-key",
    )
    assert rotate.returncode == 0 and "its public key replaced" in rotate.stdout, rotate.stdout + rotate.stderr
    _, outcome = store(db, [m for m in by_old if seq_of(m) in (6, 7)])  # in flight, signed with the old key
    assert outcome.verdicts == [Verdict.QUARANTINED, Verdict.PENDING]  # 7 waits for 6: then checked with it
    quarantined = 1

    # Not resent yet: the store does not answer them; resolve closes nothing and says what to resend.
    early = cli("resolve", TABLE, "--db", db)
    assert early.returncode == 0 and "nothing to resolve" in early.stdout, early.stdout
    assert f"{quarantined} quarantined records stay open" in early.stdout and "--from 6" in early.stdout
    assert reconcile(floor_db, tmp_path / "j.db").returncode == 1

    # `floor resend` with the new key: stored; the old-key copies are closed by resolve.
    _, outcome = store(db, [m for m in by_new if seq_of(m) > 5])
    assert Verdict.QUARANTINED not in outcome.verdicts
    quarantined = 2  # record 7 signed with the old key waited for 6, then was checked: quarantined too
    assert rows(db, "SELECT seq FROM floor_quarantine WHERE table_id = %s ORDER BY id", TABLE) == [(6,), (7,)]
    assert f"ALERT {TABLE}: {quarantined} records quarantined" in cli("status", "--db", floor_db.reader).stdout
    done = cli("resolve", TABLE, "--db", db)
    assert done.returncode == 0, done.stderr
    assert f"closed {quarantined} quarantined records" in done.stdout, done.stdout
    assert f"{quarantined} copies of the record stored at their seq" in done.stdout, done.stdout
    status = cli("status", "--db", floor_db.reader)
    assert f"ALERT {TABLE}" not in status.stdout and f"closed {TABLE}: {quarantined}" in status.stdout, status.stdout
    assert reconcile(floor_db, tmp_path / "j.db").returncode == 0
    assert pit_counts(floor_db) == (0, 0, 0)
    assert rows(db, "SELECT count(*) FROM floor_quarantine WHERE table_id = %s", TABLE) == [(quarantined,)]


def test_the_stolen_signing_key_runbook_ends_with_the_floor_equal_to_the_journal(floor_db: Any, tmp_path: Path) -> None:
    """docs/floor.md, "A stolen signing key", on the floor's side: the forger's record, signed with
    the table's stolen key, is stored and the table's own quarantined; the key is rotated, the
    table's records resent signed with the new one, resolve moves the forger's records to the
    evidence and replays the table's; reconcile exits 0 and nothing alerts."""
    db = floor_db.owner
    old, new, by_old, by_new = rotated_in_flight(db, tmp_path)
    head = body_of([m for m in by_old if seq_of(m) <= 5][-1])
    void = body_of(forged(TABLE, 6, "SupervisorAction", {"action": "void"}, head["hash"], cls="supervisor"))
    void["sig"] = sign_record(read_signing_key(old), TABLE, 6, void["prev"], void["hash"], void["mac"])
    _, outcome = store(db, [(f"floor.{TABLE}.supervisor", f"{TABLE}/6", json.dumps(void).encode())])
    assert outcome.verdicts == [Verdict.STORED]  # the stolen key signs: the forgery is stored
    _, outcome = store(db, [m for m in by_old if seq_of(m) > 5])
    assert Verdict.STORED not in outcome.verdicts  # the table's own: a fork, then waiting
    assert reconcile(floor_db, tmp_path / "j.db").returncode == 1

    # 1-2: the NATS identity and the signing key rotated (the new public key registered).
    rotate = cli(
        *("add-table", TABLE, "--auth", str(tmp_path / "auth"), "--db", db),
        *("--public-key", f"{new}.pub", "--rotate-signing-key"),
    )
    assert rotate.returncode == 0, rotate.stdout + rotate.stderr
    # 3: resent from the held record, signed with the new key: kept aside again, now the table's.
    _, outcome = store(db, [m for m in by_new if seq_of(m) >= 6])
    assert Verdict.STORED not in outcome.verdicts
    # 4-5: the fork is found (the forger's record no longer verifies) and resolved.
    dry = cli("resolve", TABLE, "--db", db, "--dry-run")
    assert dry.returncode == 0 and "fork at seq 6:" in dry.stdout, dry.stdout + dry.stderr
    done = cli("resolve", TABLE, "--db", db)
    assert done.returncode == 0 and "moved 1 stored records (seq 6 on)" in done.stdout, done.stdout + done.stderr
    # 6: the floor equals the journal; nothing alerts; the forgery is evidence.
    checked = reconcile(floor_db, tmp_path / "j.db")
    assert checked.returncode == 0, checked.stdout + checked.stderr
    status = cli("status", "--db", floor_db.reader)
    assert f"ALERT {TABLE}" not in status.stdout, status.stdout
    assert pit_counts(floor_db) == (0, 0, 0)
    removed = rows(db, "SELECT seq FROM floor_quarantine WHERE table_id = %s AND reason LIKE 'removed by%%'", TABLE)
    assert removed == [(6,)]

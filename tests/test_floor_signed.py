"""Records the floor verifies without holding a secret, and recovery from a fork (issue 33, items 2
and 3; docs/floor.md, "Signed records" and "Resolving a fork"), on the session's PostgreSQL.

A forger holds the table's NATS credential only: they can publish on the table's subjects and
make a record whose SHA-256 is right for its content, but not the table's Ed25519 signature."""

from __future__ import annotations

import asyncio
import functools
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("nats")
psycopg = pytest.importorskip("psycopg")
pytest.importorskip("cryptography")

from test_floor_hostile import (  # noqa: E402
    Msg,
    assert_real_records_stored,
    body_of,
    forged,
    journal,
    real_messages,
    rows,
    store,
)

from controller.floor.chain import ChainPolicy, Verdict, register_table  # noqa: E402
from controller.floor.messages import messages_for  # noqa: E402
from controller.floor.resolve import ResolveError, resolve_fork  # noqa: E402
from controller.floor.signing import (  # noqa: E402
    SigningKeyError,
    new_signing_key,
    read_public_key,
    read_signing_key,
    sign_record,
)
from controller.journal.outbox import Outbox  # noqa: E402


@pytest.fixture
def db(floor_db: Any) -> str:
    """A fresh, migrated database, as its owner (registering keys and resolving are the owner's)."""
    return str(floor_db.owner)


def signed_messages(path: Path, table: str, key_file: Path) -> list[Msg]:
    """The journal's messages as the table's forwarder makes them, signed with ``key_file``."""
    sign = functools.partial(sign_record, read_signing_key(key_file))
    box = Outbox(path)
    try:
        return [
            (m.subject, m.msg_id, m.payload)
            for r in box.after(0, 100_000)
            for m in messages_for(r, table, "floor", box.between, sign=sign)
        ]
    finally:
        box.close()


def register(db: str, table: str, public: str | None) -> bool:
    async def go() -> bool:
        async with await psycopg.AsyncConnection.connect(db, autocommit=True) as conn:
            return await register_table(conn, table, public)

    return asyncio.run(go())


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [sys.executable, "-m", "controller", "floor", *args], capture_output=True, text=True, timeout=120
    )
    assert "Traceback" not in done.stderr, done.stderr
    return done


def seq_of(m: Msg) -> int:
    return int(body_of(m)["seq"])


def test_signing_key_files_are_checked(tmp_path: Path) -> None:
    public = new_signing_key(tmp_path / "t.pem")
    assert (tmp_path / "t.pem").stat().st_mode & 0o777 == 0o600
    assert read_public_key(tmp_path / "t.pem.pub") == public
    with pytest.raises(SigningKeyError, match="already exists"):
        new_signing_key(tmp_path / "t.pem")
    os.chmod(tmp_path / "t.pem", 0o640)
    with pytest.raises(SigningKeyError, match=r"t\.pem: the signing key file is readable by others \(mode 0640\)"):
        read_signing_key(tmp_path / "t.pem")
    os.chmod(tmp_path / "t.pem", 0o600)
    with pytest.raises(SigningKeyError, match="a private key; give its public half"):
        read_public_key(tmp_path / "t.pem")
    (tmp_path / "bad.pem").write_text("not a key\n")
    os.chmod(tmp_path / "bad.pem", 0o600)
    with pytest.raises(SigningKeyError, match="not a PEM private key"):
        read_signing_key(tmp_path / "bad.pem")
    with pytest.raises(SigningKeyError, match="cannot read the signing key file"):
        read_signing_key(tmp_path / "missing.pem")


def test_a_stolen_nats_credential_cannot_make_a_record_the_floor_stores(db: str, tmp_path: Path) -> None:
    key = tmp_path / "ms-01.pem"
    public = new_signing_key(key)
    other = tmp_path / "other.pem"
    new_signing_key(other)
    assert register(db, "ms-01", public)
    j = journal(tmp_path / "j.db", 3)
    j.close()
    real = signed_messages(tmp_path / "j.db", "ms-01", key)
    first_round_end = 5  # records 1..5: the first round (a round's record gives .round and .meters)
    early = [m for m in real if seq_of(m) <= first_round_end]
    late = [m for m in real if seq_of(m) > first_round_end]
    _, outcome = store(db, early)
    assert set(outcome.verdicts) == {Verdict.STORED, Verdict.DUPLICATE}
    head = body_of(early[-1])
    # Two forgeries of seq 6 at once, each before the real record in the same batch: a correct
    # SHA-256 with no signature, and one signed with a key that is not the table's.
    unsigned = forged("ms-01", 6, "SupervisorAction", {"action": "void"}, head["hash"], cls="supervisor")
    mine = body_of(forged("ms-01", 6, "SupervisorAction", {"action": "void"}, head["hash"], cls="supervisor"))
    mine["sig"] = sign_record(read_signing_key(other), "ms-01", 6, mine["prev"], mine["hash"], mine["mac"])
    wrong_key = (unsigned[0], unsigned[1], json.dumps(mine).encode())
    # The real record's signature on a forged body: the hash no longer matches the signed one.
    real6 = body_of(late[0])
    lifted = forged(
        "ms-01", 6, "SupervisorAction", {"action": "void"}, head["hash"], cls="supervisor", sig=real6["sig"]
    )
    _, outcome = store(db, [unsigned, wrong_key, lifted, *late])
    reasons = [r for _, _, _, r in outcome.quarantined]
    assert reasons == [
        "seq 6: not signed by the table's registered key (tablectl floor add-table --db)",
        "seq 6: the signature is not the table's registered key's",
        "seq 6: the signature is not the table's registered key's",
    ], reasons
    assert outcome.verdicts[:3] == [Verdict.QUARANTINED] * 3
    assert set(outcome.verdicts[3:]) == {Verdict.STORED, Verdict.DUPLICATE}
    assert_real_records_stored(db, "ms-01", tmp_path / "j.db")
    assert rows(db, "SELECT count(*) FROM floor_record WHERE sig IS NULL") == [(0,)]
    # A table with no key registered stores unsigned records as before; one registered later is
    # checked from then on.
    assert register(db, "ms-02", None)
    _, outcome = store(db, [forged("ms-02", 1, "SpotReport", {"seat": 1}, "0" * 64, anchor=0)])
    assert outcome.verdicts == [Verdict.STORED]
    assert not register(db, "ms-02", public)
    assert rows(db, "SELECT public_key FROM floor_chain WHERE table_id = 'ms-02'") == [(public,)]
    head2 = body_of(forged("ms-02", 1, "SpotReport", {"seat": 1}, "0" * 64, anchor=0))["hash"]
    _, outcome = store(db, [forged("ms-02", 2, "SpotReport", {"seat": 2}, head2)])
    assert outcome.verdicts == [Verdict.QUARANTINED]
    with pytest.raises(ValueError, match="another public key registered"):
        register(db, "ms-02", read_public_key_of(other))


def read_public_key_of(key_file: Path) -> str:
    return read_public_key(key_file.with_name(key_file.name + ".pub"))


def test_add_table_registers_the_table_and_its_key_so_require_registration_stores_it(db: str, tmp_path: Path) -> None:
    auth = tmp_path / "auth"
    done = cli("add-table", "ms-01", "--auth", str(auth), "--db", db)
    assert done.returncode == 0, done.stderr
    key = auth / "signing" / "ms-01.pem"
    assert key.stat().st_mode & 0o777 == 0o600 and "registered  ms-01 in the floor store (new" in done.stdout
    public = read_public_key_of(key)
    assert rows(db, "SELECT registered_by, public_key FROM floor_chain WHERE table_id = 'ms-01'") == [
        ("add-table", public)
    ]
    # A key made on the table: only its public half travels; a second key for the table is refused
    # unless rotated.
    made = cli("signing-key", str(tmp_path / "table.pem"))
    assert made.returncode == 0, made.stderr
    refused = cli(
        "add-table", "ms-01", "--auth", str(auth), "--db", db, "--public-key", str(tmp_path / "table.pem.pub")
    )
    assert refused.returncode == 2 and "another public key registered" in refused.stderr
    rotated = cli(
        "add-table",
        "ms-01",
        "--auth",
        str(auth),
        "--db",
        db,
        "--public-key",
        str(tmp_path / "table.pem.pub"),
        "--rotate-signing-key",
    )
    assert rotated.returncode == 0 and "its public key replaced" in rotated.stdout, rotated.stderr
    secret = cli("add-table", "ms-02", "--auth", str(auth), "--db", db, "--public-key", str(tmp_path / "table.pem"))
    assert secret.returncode == 2 and "a private key; give its public half" in secret.stderr
    # With registration and signatures required, the registered table's signed records are
    # stored; a table nobody registered and one registered without a key are quarantined, all
    # in one batch.
    j = journal(tmp_path / "j.db", 1)
    j.close()
    real = signed_messages(tmp_path / "j.db", "ms-01", tmp_path / "table.pem")
    stray = forged("zz-01", 1, "SpotReport", {"seat": 1}, "0" * 64, anchor=0)
    assert register(db, "zz-02", None)
    keyless = forged("zz-02", 1, "SpotReport", {"seat": 1}, "0" * 64, anchor=0)
    _, outcome = store(db, [stray, keyless, *real], ChainPolicy(require_registration=True, require_signed=True))
    assert outcome.verdicts[0] is Verdict.QUARANTINED and "not registered" in (outcome.reasons[0] or "")
    assert outcome.reasons[1] == "table zz-02 has no public key registered (tablectl floor add-table --db --public-key)"
    assert Verdict.QUARANTINED not in outcome.verdicts[2:]
    assert_real_records_stored(db, "ms-01", tmp_path / "j.db")


def test_a_fork_is_resolved_and_the_floor_ends_equal_to_the_journal(db: str, floor_db: Any, tmp_path: Path) -> None:
    """The issue's attack on a table that had no key yet: its first records stored unsigned (its
    own), the forger's void and a record after it stored, the table's real records quarantined
    as a fork or waiting. The runbook: the table gets a key, which is registered; its records
    are resent signed; resolve keeps the signed side (and the table's unsigned records before
    the fork), moves the forger's to the evidence and replays the real ones."""
    key = tmp_path / "ms-01.pem"
    public = new_signing_key(key)
    j = journal(tmp_path / "j.db", 3)
    j.close()
    unsigned = real_messages(tmp_path / "j.db", "ms-01")
    signed = signed_messages(tmp_path / "j.db", "ms-01", key)
    store(db, [m for m in unsigned if seq_of(m) <= 5])
    head = body_of([m for m in unsigned if seq_of(m) <= 5][-1])
    void = forged("ms-01", 6, "SupervisorAction", {"action": "void"}, head["hash"], cls="supervisor")
    after = forged("ms-01", 7, "SpotReport", {"seat": 1}, body_of(void)["hash"])
    _, outcome = store(db, [void, after])
    assert outcome.verdicts == [Verdict.STORED, Verdict.STORED]
    late_unsigned = [m for m in unsigned if seq_of(m) > 5]
    _, outcome = store(db, late_unsigned[:3])
    assert outcome.verdicts == [Verdict.QUARANTINED] * 3
    code, out = _reconcile(db, tmp_path / "j.db")
    assert code == 1, out

    with pytest.raises(ResolveError, match="no public key registered"):
        asyncio.run(resolve_fork(db, "ms-01"))
    assert not register(db, "ms-01", public)
    # The table's quarantined records are not signed: resolve cannot tell them from the forger's.
    unsure = cli("resolve", "ms-01", "--db", db)
    assert unsure.returncode == 0 and "nothing to resolve" in unsure.stdout, unsure.stdout
    assert "quarantined records from seq 6 are not signed by the table" in unsure.stdout
    assert "--from 6" in unsure.stdout
    # Resent signed (the table now has its key): kept aside again, now as the table's.
    late = [m for m in signed if seq_of(m) > 5]
    _, outcome = store(db, late[:3])
    assert outcome.verdicts == [Verdict.QUARANTINED] * 3
    _, outcome = store(db, late[3:])  # past the forger's head: they wait for a gap that never fills
    assert Verdict.PENDING in outcome.verdicts
    before = rows(db, "SELECT count(*) FROM floor_quarantine WHERE table_id = 'ms-01'")[0][0]

    dry = cli("resolve", "ms-01", "--db", db, "--dry-run")
    assert dry.returncode == 0 and "fork at seq 6:" in dry.stdout and "dry run: nothing changed" in dry.stdout
    assert "would move 2 stored records" in dry.stdout and "chain head would be 15" in dry.stdout, dry.stdout
    assert rows(db, "SELECT head_seq FROM floor_chain WHERE table_id = 'ms-01'") == [(7,)]

    # the registrar may look, not remove a stored record: refused, nothing changed (issue 44 item 4)
    by_registrar = cli("resolve", "ms-01", "--db", floor_db.registrar)
    assert by_registrar.returncode != 0 and "removing a fork's stored records the owner's" in by_registrar.stderr
    assert "Traceback" not in by_registrar.stderr
    assert rows(db, "SELECT head_seq FROM floor_chain WHERE table_id = 'ms-01'") == [(7,)]
    assert rows(db, "SELECT count(*) FROM floor_quarantine WHERE table_id = 'ms-01'")[0][0] == before
    done = cli("resolve", "ms-01", "--db", db)
    assert done.returncode == 0, done.stderr
    assert "fork at seq 6:" in done.stdout and "moved 2 stored records (seq 6 on)" in done.stdout, done.stdout
    assert "signed by the table): seq 6: a different record is stored there (fork)" in done.stdout
    assert "not signed by the table): seq 6: a different record" in done.stdout  # the unsigned copy
    assert_real_records_stored(db, "ms-01", tmp_path / "j.db")
    assert rows(db, "SELECT count(*) FROM floor_pending WHERE table_id = 'ms-01'") == [(0,)]
    assert rows(db, "SELECT count(*) FROM floor_record WHERE table_id = 'ms-01' AND sig IS NULL") == [(5,)]
    # The forger's records are evidence now, with the reason; nothing was deleted from the evidence.
    moved = rows(db, "SELECT seq, reason FROM floor_quarantine WHERE table_id = 'ms-01' ORDER BY id")
    assert len(moved) == before + 2
    assert [s for s, r in moved if r.startswith("removed by tablectl floor resolve")] == [6, 7]
    code, out = _reconcile(db, tmp_path / "j.db")
    assert code == 0 and "0 differ" in out and "0 quarantined" in out, out
    again = cli("resolve", "ms-01", "--db", db)
    assert again.returncode == 0 and "nothing to resolve" in again.stdout
    missing = cli("resolve", "ms-99", "--db", db)
    assert missing.returncode == 2 and "no table 'ms-99'" in missing.stderr


def _reconcile(db: str, path: Path) -> tuple[int, str]:
    done = cli("reconcile", "--journal", str(path), "--table", "ms-01", "--db", db)
    return done.returncode, done.stdout + done.stderr


def test_bench_signs_every_record_and_the_floor_stores_them_as_the_tables(
    floor_link: Any, floor_db: Any, tmp_path: Path
) -> None:
    """``tablectl bench`` (and ``run``: the same forwarder_for) signs with ``floor.signing_key``; the
    ingest, as its own role with registration required, stores every record with its signature."""
    from floor_helpers import IngestThread
    from test_floor import assert_all_stored_once, bench, finish

    key = tmp_path / "sg-01.pem"
    public = new_signing_key(key)
    config = floor_link.yaml(tmp_path, "sg-01")
    config.write_text(config.read_text() + f"  signing_key: {key.name}\n")
    assert register(str(floor_db.owner), "sg-01", public)
    ingest = IngestThread(floor_link.ingest_config(floor_db.ingest, ack_wait_s=5, require_registration=True))
    try:
        out = finish(bench(config, tmp_path / "sg-01.db", 3))
        assert "floor       sg-01: stopped" in out and "backlog 0" in out, out
        assert_all_stored_once(floor_db.reader, "sg-01", tmp_path / "sg-01.db")
    finally:
        ingest.stop()
    assert rows(floor_db.owner, "SELECT count(*) FROM floor_quarantine") == [(0,)]
    assert rows(floor_db.owner, "SELECT count(*), count(sig) FROM floor_record")[0][1] > 0
    assert rows(floor_db.owner, "SELECT count(*) FILTER (WHERE sig IS NULL) FROM floor_record") == [(0,)]


@pytest.mark.parametrize("command", ["bench", "run"])
def test_a_signing_key_others_can_read_is_refused(command: str, tmp_path: Path) -> None:
    from floor_fixtures import REPO

    key = tmp_path / "t.pem"
    new_signing_key(key)
    key.chmod(0o644)
    game = "mississippi_stud"
    text = (REPO / "config" / "bench" / f"{game}.yaml").read_text()
    text = text.replace("paytables_dir: ../paytables", f"paytables_dir: {REPO / 'config' / 'paytables'}")
    if command == "run":  # a real table's ports (never opened: the key is refused first)
        text = text.replace("sim://", "socket://127.0.0.1:9/")
    text += "floor:\n  table_id: t-01\n  servers: [nats://127.0.0.1:4222]\n  signing_key: t.pem\n"
    config = tmp_path / "t.yaml"
    config.write_text(text)
    args = ["--rounds", "1", "--quiet", "--journal", str(tmp_path / "j.db")] if command == "bench" else []
    if command == "run":
        args = ["--journal", str(tmp_path / "j.db"), "--allow-unapproved"]
    done = subprocess.run(
        [sys.executable, "-m", "controller", command, "--config", str(config), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert f"floor.signing_key: {key}: the signing key file is readable by others (mode 0644)" in done.stderr


def test_through_nats_a_forger_with_the_tables_credential_is_quarantined(
    floor_link: Any, floor_db: Any, tmp_path: Path
) -> None:
    """The attack end to end: the forger connects with the table's own NATS credential and
    publishes the table's next record (a supervisor void, its SHA-256 right) ahead of the table;
    the ingest (its own role, registration required) quarantines it, and the table's forwarder,
    signing with its key, gets every real record stored."""
    import dataclasses
    import time

    import nats
    from floor_helpers import IngestThread

    from controller.floor.connect import nats_auth_options
    from controller.floor.forwarder import Forwarder
    from controller.journal import SqliteJournal

    key = tmp_path / "fg-01.pem"
    assert register(str(floor_db.owner), "fg-01", new_signing_key(key))
    path = tmp_path / "fg-01.db"
    journal(path, 2).close()
    link = dataclasses.replace(floor_link.floor_config("fg-01"), signing_key=str(key))
    first = body_of(real_messages(path, "fg-01")[4])  # the first round's record: seq 5
    void = forged("fg-01", 6, "SupervisorAction", {"action": "void"}, first["hash"], cls="supervisor")

    async def forge() -> None:
        nc = await nats.connect(list(link.servers), **nats_auth_options(floor_link.auth(Path(str(link.credentials)))))
        try:
            subject = f"{floor_link.prefix}.fg-01.supervisor"
            await nc.jetstream().publish(subject, void[2], headers={"Nats-Msg-Id": "fg-01/6-forged"})
        finally:
            await nc.close()

    ingest = IngestThread(floor_link.ingest_config(floor_db.ingest, ack_wait_s=5, require_registration=True))
    forwarder = None
    try:
        asyncio.run(forge())
        forwarder = Forwarder(path, link).start()
        j = SqliteJournal(path, create=False)
        head = j.last_seq
        j.close()
        assert forwarder.wait_acked(head, 120)
        deadline = time.monotonic() + 120
        while rows(floor_db.owner, "SELECT head_seq FROM floor_chain WHERE table_id = 'fg-01'") != [(head,)]:
            assert time.monotonic() < deadline, "the table's records were not all stored"
            time.sleep(0.05)
        while not rows(floor_db.owner, "SELECT 1 FROM floor_quarantine"):
            assert time.monotonic() < deadline, "the forged record was not quarantined"
            time.sleep(0.05)
    finally:
        if forwarder is not None:
            forwarder.stop()
        ingest.stop()
    assert rows(floor_db.owner, "SELECT seq, reason FROM floor_quarantine") == [
        (6, "seq 6: not signed by the table's registered key (tablectl floor add-table --db)")
    ]
    assert_real_records_stored(floor_db.owner, "fg-01", path)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["resolve", "ms-01", "--db", "postgresql://floor_owner:hunter2@127.0.0.1/floor"], "holds a password"),
        (["add-table", "ms-01", "--auth", "AUTH", "--db", "postgresql://o:pw@127.0.0.1/f"], "holds a password"),
        (["add-table", "ms-01", "--auth", "AUTH", "--rotate-signing-key"], "--rotate-signing-key needs --db"),
        (["add-table", "ms-01", "--auth", "AUTH", "--public-key", "MISSING"], "cannot read the public key file"),
        (["signing-key", "EXISTING"], "already exists"),
        (["resolve", "ms-01", "--db", "postgresql://floor_owner@127.0.0.1:1/floor"], "127.0.0.1:1/floor"),
    ],
)
def test_bad_input_to_the_new_commands_is_said_without_a_traceback(args: list[str], said: str, tmp_path: Path) -> None:
    (tmp_path / "existing").write_text("x")
    args = [
        a.replace("AUTH", str(tmp_path / "auth"))
        .replace("MISSING", str(tmp_path / "missing.pub"))
        .replace("EXISTING", str(tmp_path / "existing"))
        for a in args
    ]
    done = cli(*args)
    assert done.returncode == 2 and said in done.stderr, done.stderr
    assert not (tmp_path / "auth" / "creds").exists()  # nothing half made


def test_the_signature_rule_holds_in_every_state_a_record_is_stored_from(db: str, tmp_path: Path) -> None:
    """A registered table's record without its signature is quarantined wherever it would have been
    stored: as the table's first record (at its anchor), as a hidden card (no content to
    recompute: its own signature decides), and released from floor_pending when its gap fills;
    each beside the table's real records of the same batch, which are stored."""
    key = tmp_path / "ms-01.pem"
    assert register(db, "ms-01", new_signing_key(key))
    j = journal(tmp_path / "j.db", 2)
    j.close()
    real = signed_messages(tmp_path / "j.db", "ms-01", key)
    # The first record, unsigned, before the real one.
    first_forged = forged("ms-01", 1, "SpotReport", {"seat": 1}, "0" * 64, anchor=0)
    _, outcome = store(db, [first_forged, real[0]])
    assert outcome.verdicts == [Verdict.QUARANTINED, Verdict.STORED]
    assert outcome.reasons[0] == "seq 1: not signed by the table's registered key (tablectl floor add-table --db)"
    # A hidden card (seq 2 is the first CardDealt) with the real chain position, other data and
    # another's signature, followed by the table's next record, which chains to it (the same
    # hash): only the hidden card's own signature can tell.
    hidden = body_of(real[1])
    assert hidden["kind"] == "CardDealt" and hidden["data"]["card"] is None
    other = tmp_path / "other.pem"
    new_signing_key(other)
    hidden["data"]["index"] = 9
    hidden["sig"] = sign_record(read_signing_key(other), "ms-01", 2, hidden["prev"], hidden["hash"], hidden["mac"])
    _, outcome = store(db, [(real[1][0], real[1][1], json.dumps(hidden).encode()), real[2]])
    assert outcome.verdicts == [Verdict.QUARANTINED, Verdict.PENDING]
    assert outcome.reasons[0] == "seq 2: the signature is not the table's registered key's"
    _, outcome = store(db, [real[1]])
    assert outcome.verdicts == [Verdict.STORED] and outcome.released == 1
    # Ahead of a gap: an unsigned record waits, then is quarantined when the gap fills, and the
    # real one (arriving after it) is stored.
    at = body_of(real[4])  # seq 5, after the gap at seq 4
    early = forged("ms-01", 5, "SpotReport", {"seat": 7}, at["prev"])
    _, outcome = store(db, [early])
    assert outcome.verdicts == [Verdict.PENDING]
    _, outcome = store(db, [real[3]])
    assert outcome.verdicts == [Verdict.STORED] and outcome.released == 0
    assert [r for _, _, _, r in outcome.quarantined] == [
        "seq 5: not signed by the table's registered key (tablectl floor add-table --db)"
    ]
    store(db, real[4:])
    assert_real_records_stored(db, "ms-01", tmp_path / "j.db")

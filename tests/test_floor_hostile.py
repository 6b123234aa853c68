"""Hostile floor messages against the ingest's check and store functions, on a real PostgreSQL
started here on 127.0.0.1: wrong types, NaN and infinity, 2**70, deep nesting, 900 KB, unknown
kinds, wrong subjects, subject/body table mismatches, replayed ids, forks at a stored seq, future
seqs, rounds without cards, bad hashes and broken chains. Every real record is stored exactly
once, every hostile message is rejected or quarantined with its reason, and the pit view's data
functions still answer."""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("nats")
psycopg = pytest.importorskip("psycopg")

from floor_helpers import floor_command  # noqa: E402

from controller.floor.alerts import floor_alerts, quarantined  # noqa: E402
from controller.floor.chain import ChainPolicy, Outcome, Verdict, register_table  # noqa: E402
from controller.floor.ingest import Batch, parse_batch, write_batch  # noqa: E402
from controller.floor.messages import messages_for  # noqa: E402
from controller.floor.validate import MAX_MESSAGE_BYTES  # noqa: E402
from controller.journal import SqliteJournal  # noqa: E402
from controller.journal.meters import meters_for_round  # noqa: E402
from controller.journal.outbox import Outbox  # noqa: E402
from controller.journal.store import GENESIS, canonical, record_hash  # noqa: E402
from controller.web.pit_store import PgFloorReader  # noqa: E402

Msg = tuple[str, str | None, bytes]


@pytest.fixture
def db(floor_db: Any) -> str:
    """A fresh, migrated database of the session's PostgreSQL (SCRAM, roles), as its owner: these
    tests read the tables the ingest keeps aside as well as write them."""
    return str(floor_db.owner)


def tables_overview(db: str) -> list[Any]:
    """The pit view's tables (the one floor read model), over every round ever stored."""
    return PgFloorReader(db).tables(datetime(2000, 1, 1, tzinfo=UTC), datetime.now(UTC))


def store(db: str, messages: list[Msg], policy: ChainPolicy | None = None) -> tuple[Batch, Outcome]:
    async def go() -> tuple[Batch, Outcome]:
        async with await psycopg.AsyncConnection.connect(db) as conn:
            batch = parse_batch(messages)
            return batch, await write_batch(conn, batch, policy)

    return asyncio.run(go())


def rows(db: str, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with psycopg.connect(db, autocommit=True) as conn:
        return list(conn.execute(sql, args).fetchall())


def settled_round(number: int, first_seq: int, cards: list[str], net: int) -> dict[str, Any]:
    record = {"game": "mississippi_stud", "seats": {"1": {"wagers": {"ante": 500}, "cards": " ".join(cards)}}}
    return {
        "round": number,
        "game": "mississippi_stud",
        "table": "t.yaml",
        "record": record,
        "settlement": {
            "house_net": -net,
            "seats": {"1": {"net": net, "wagers": {"ante": {"result": "win" if net > 0 else "lose", "net": net}}}},
        },
        "late_bets": [],
        "faults": 0,
        "cards": [{"index": i + 1, "card": c, "to": "seat 1"} for i, c in enumerate(cards)],
        "first_seq": first_seq,
        "last_seq": first_seq + 3,
    }


def journal(path: Path, rounds: int, key: bytes | None = None) -> SqliteJournal:
    """Rounds of four records each: a supervisor key turn, two cards, a bet, then the round."""
    j = SqliteJournal(path, hmac_key=key)
    for n in range(1, rounds + 1):
        first = j.append("ButtonChanged", {"button": "supervisor_key", "pressed": n % 2 == 1}, event=True)
        j.append("CardDealt", {"card": "As", "index": 1, "device": "shoe"}, event=True)
        j.append("CardDealt", {"card": "Kd", "index": 2, "device": "shoe"}, event=True)
        j.append("SpotReport", {"seat": 1, "spot": "ante", "cents": 500}, event=True)
        data = settled_round(n, first, ["As", "Kd"], 500 if n % 2 else -500)
        j.append_round(n, data, meters_for_round(data))
    return j


def real_messages(path: Path, table: str) -> list[Msg]:
    box = Outbox(path)
    try:
        return [
            (m.subject, m.msg_id, m.payload)
            for r in box.after(0, 100_000)
            for m in messages_for(r, table, "floor", box.between)
        ]
    finally:
        box.close()


def forged(
    table: str,
    seq: int,
    kind: str,
    data: dict[str, Any],
    prev: str,
    cls: str = "event",
    key: bytes | None = None,
    **fields: Any,
) -> Msg:
    """A message made by hand, its hash made right for its content (SHA-256, or HMAC with ``key``)."""
    text = canonical(data)
    body: dict[str, Any] = {
        "v": 2,
        "table": table,
        "seq": seq,
        "at": 1796262867.5,
        "kind": kind,
        "event": True,
        "prev": prev,
        "hash": record_hash(prev, seq, 1796262867.5, kind, True, text, key),
        "mac": "hmac-sha256" if key else "sha256",
        "data": data,
    }
    body.update(fields)
    return (f"floor.{table}.{cls}", f"{table}/{seq}", json.dumps(body).encode())


def body_of(m: Msg) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(m[2])
    return out


def edited(m: Msg, subject: str | None = None, **fields: Any) -> Msg:
    body = body_of(m)
    for k, v in fields.items():
        if v is _DROP:
            body.pop(k, None)
        else:
            body[k] = v
    return (subject or m[0], m[1], json.dumps(body).encode())


_DROP = object()


def raw(m: Msg, payload: bytes, subject: str | None = None) -> Msg:
    return (subject or m[0], m[1], payload)


def assert_real_records_stored(db: str, table: str, path: Path) -> None:
    box = Outbox(path)
    head = box.head()
    box.close()
    seqs = [
        s
        for (s,) in rows(
            db,
            "SELECT seq FROM journal_event WHERE table_id = %s UNION ALL SELECT seq FROM round WHERE table_id = %s "
            "ORDER BY 1",
            table,
            table,
        )
    ]
    assert seqs == list(range(1, head + 1))
    j = SqliteJournal(path, create=False)
    try:
        meters = {
            (s, n): v for s, n, v in rows(db, "SELECT scope, name, value FROM meter_total WHERE table_id = %s", table)
        }
        assert meters == j.meters()
        box = Outbox(path)
        hashes = [r.hash for r in box.after(0, 100_000)]
        box.close()
        assert hashes == [
            h for (h,) in rows(db, "SELECT hash FROM floor_record WHERE table_id = %s ORDER BY seq", table)
        ]
    finally:
        j.close()
    leaked = rows(db, "SELECT count(*) FROM journal_event WHERE kind = 'CardDealt' AND data->>'card' IS NOT NULL")
    assert leaked == [(0,)]


def test_real_messages_are_stored_once_and_redelivery_changes_nothing(db: str, tmp_path: Path) -> None:
    j = journal(tmp_path / "j.db", 3)
    real = real_messages(tmp_path / "j.db", "ms-01")
    batch, outcome = store(db, real)
    assert batch.rejects == [] and outcome.verdicts == [
        Verdict.STORED if not m[0].endswith("meters") else Verdict.DUPLICATE for m in real
    ]
    _, again = store(db, real)  # a redelivery: identical, idempotent
    assert set(again.verdicts) == {Verdict.DUPLICATE}
    assert_real_records_stored(db, "ms-01", tmp_path / "j.db")
    assert rows(db, "SELECT count(*) FROM floor_quarantine") == [(0,)]
    assert rows(db, "SELECT head_seq, registered_by FROM floor_chain") == [(15, "first record")]
    j.close()


def test_records_after_a_gap_wait_in_order_and_are_stored_when_it_fills(db: str, tmp_path: Path) -> None:
    j = journal(tmp_path / "j.db", 3)
    real = real_messages(tmp_path / "j.db", "ms-01")
    late, rest = real[:3], real[3:]
    _, outcome = store(db, list(reversed(rest)))  # out of order, and the first three missing
    assert set(outcome.verdicts) == {Verdict.PENDING}
    assert rows(db, "SELECT count(*) FROM floor_table") == [(0,)]  # nothing stored while the start is missing
    _, outcome = store(db, late)
    assert outcome.verdicts == [Verdict.STORED] * 3 and outcome.released == len(rest) - 3  # less the meters
    assert rows(db, "SELECT count(*) FROM floor_pending") == [(0,)]
    assert_real_records_stored(db, "ms-01", tmp_path / "j.db")
    j.close()


def test_pending_records_are_bounded(db: str, tmp_path: Path) -> None:
    j = journal(tmp_path / "j.db", 2)
    real = real_messages(tmp_path / "j.db", "ms-01")
    _, outcome = store(db, real[1:], ChainPolicy(max_pending=3))
    assert outcome.verdicts[:3] == [Verdict.PENDING] * 3 and set(outcome.verdicts[3:]) == {Verdict.DEFERRED}
    _, outcome = store(db, real, ChainPolicy(max_pending=3))  # redelivered: all stored in order
    assert_real_records_stored(db, "ms-01", tmp_path / "j.db")
    j.close()


def _hostile(real: list[Msg], head: dict[int, str], stored_to: int) -> list[tuple[str, Msg, Verdict, str]]:
    """(name, message, verdict, a word of the reason) for every hostile message; ``head``: the real
    hashes by seq; seqs up to ``stored_to`` are stored before."""
    ev = next(m for m in real if body_of(m)["seq"] == stored_to + 1)  # the next real record (an event)
    spot = next(m for m in real if body_of(m)["kind"] == "SpotReport" and body_of(m)["seq"] > stored_to)
    rnd = next(m for m in real if m[0].endswith(".round") and body_of(m)["seq"] > stored_to)
    stored_round = next(m for m in real if m[0].endswith(".meters") and body_of(m)["seq"] <= stored_to)
    nxt = stored_to + 1
    R, Q = Verdict.REJECTED, Verdict.QUARANTINED
    deep: Any = {"x": 1}
    for _ in range(40):
        deep = {"x": deep}
    rb = body_of(rnd)

    def round_edit(change: Any) -> Msg:
        b = json.loads(json.dumps(rb))
        change(b)
        return ("floor.ms-01.round", "x", json.dumps(b).encode())

    return [
        # First in the batch, so before the real record of their seq.
        (
            "broken chain at the next seq",
            forged("ms-01", nxt, "SpotReport", {"seat": 1, "cents": 5}, "ab" * 32),
            Q,
            "does not chain",
        ),
        (
            "bad hash at the next seq",
            edited(ev, data={"button": "supervisor_key", "pressed": True, "device": "forged"}),
            Q,
            "not the sha256",
        ),
        ("not json", raw(ev, b"{not json"), R, "not JSON"),
        ("empty", raw(ev, b""), R, "not JSON"),
        ("array", raw(ev, b"[1, 2]"), R, "an object is needed"),
        ("900 KB", raw(ev, b'{"v": 2, "data": "' + b"x" * 900_000 + b'"}'), R, "bytes"),
        ("deep nesting", edited(ev, data=deep), R, "nested deeper"),
        ("nesting past the parser", raw(ev, b"[" * 2000 + b"]" * 2000), R, "not JSON"),
        ("table 5", edited(ev, table=5), R, "$.table"),
        ("table of another", edited(ev, table="ms-02"), R, "ms-01's subject"),
        ("body of another on ms-01's fault subject", edited(ev, "floor.b5-01.fault"), R, "b5-01's subject"),
        ("seq as text", edited(ev, seq="7"), R, "$.seq"),
        ("seq 0", edited(ev, seq=0), R, "out of range"),
        ("seq negative", edited(ev, seq=-3), R, "out of range"),
        ("seq 2**70", raw(ev, ev[2].replace(f'"seq":{nxt}'.encode(), b'"seq":' + str(2**70).encode())), R, "$.seq"),
        ("seq 2**60", edited(ev, seq=2**60), R, "2**53"),
        ("seq 1.5", edited(ev, seq=1.5), R, "$.seq"),
        ("at inf text", edited(ev, at="inf"), R, "$.at"),
        ("at 1e309", raw(ev, ev[2].replace(b'"at":', b'"at":1e309,"x":')), R, "not JSON"),
        ("at NaN", raw(ev, ev[2].replace(b'"at":', b'"at":NaN,"x":')), R, "not JSON"),
        ("at negative", edited(ev, at=-5), R, "not a time"),
        ("at true", edited(ev, at=True), R, "$.at"),
        ("at year 3000", edited(ev, at=32503680000.0), R, "not a time"),
        ("data an array", edited(ev, data=[1]), R, "$.data"),
        ("huge number in data", edited(ev, data={"n": 1e300}), R, "out of range"),
        (
            "2**70 in data",
            raw(ev, ev[2].replace(b'"data":{', b'"data":{"n":' + str(2**70).encode() + b",")),
            R,
            "out of range",
        ),
        ("long string", edited(ev, data={"s": "x" * 5000}), R, "characters"),
        ("unknown field", edited(ev, extra=1), R, "unknown field"),
        ("no hash", edited(ev, hash=_DROP), R, "no 'hash'"),
        ("bad hash text", edited(ev, hash="xyz"), R, "hex"),
        ("upper-case prev", edited(ev, prev=body_of(ev)["prev"].upper()), R, "hex"),
        ("unknown mac", edited(ev, mac="md5"), R, "$.mac"),
        ("format 1", edited(ev, v=1), R, "format version"),
        ("format true", edited(ev, v=True), R, "format version"),
        ("kind with SQL", edited(ev, kind="x'); DROP TABLE round; --"), R, "not a record kind"),
        ("round kind on event", edited(ev, kind="RoundSettled"), R, "belongs on .round"),
        ("supervisor action on event", edited(spot, kind="SupervisorAction"), R, "belongs on .supervisor"),
        ("event flag text", edited(ev, event="yes"), R, "$.event"),
        ("anchor that is not the record before", edited(ev, anchor=99), R, "$.anchor"),
        ("content on an event", edited(ev, content={}), R, "$.content"),
        ("unknown subject kind", raw(ev, ev[2], "floor.ms-01.bogus"), R, "unknown kind"),
        ("wrong prefix", raw(ev, ev[2], "other.ms-01.event"), R, "not under"),
        ("extra subject token", raw(ev, ev[2], "floor.ms-01.x.event"), R, "<table>.<kind>"),
        ("subject table not an id", raw(ev, ev[2], "floor.ms%01.event"), R, "not a table id"),
        (
            "round without cards",
            round_edit(lambda b: (b["data"]["recall"].update(cards=[]), b["content"].update(cards=[]))),
            R,
            "no cards",
        ),
        (
            "round seat not a number",
            round_edit(lambda b: b["data"]["seats"].update(abc=b["data"]["seats"]["1"])),
            R,
            "differs",
        ),
        (
            "round wager negative",
            round_edit(
                lambda b: (
                    b["data"]["seats"]["1"]["wagers"].update(ante=-5),
                    b["content"]["record"]["seats"]["1"]["wagers"].update(ante=-5),
                )
            ),
            R,
            "cents",
        ),
        (
            "round wager as text",
            round_edit(
                lambda b: (
                    b["data"]["seats"]["1"]["wagers"].update(ante="500"),
                    b["content"]["record"]["seats"]["1"]["wagers"].update(ante="500"),
                )
            ),
            R,
            "cents",
        ),
        (
            "round settlement missing its seat",
            round_edit(
                lambda b: (
                    b["data"]["recall"]["settlement"].update(seats={}),
                    b["content"]["settlement"].update(seats={}),
                )
            ),
            R,
            "no seat 1",
        ),
        (
            "round recall not its record",
            round_edit(lambda b: b["data"]["recall"]["settlement"].update(house_net=-1_708_200)),
            R,
            "differs from the journaled",
        ),
        ("round with no content", round_edit(lambda b: b.pop("content")), R, "$.content"),
        (
            "round kind on round subject wrong",
            round_edit(lambda b: b.update(kind="CardDealt")),
            R,
            "on a .round subject",
        ),
        (
            "meters value text",
            edited(stored_round, data={"round": 1, "meters": [["table", "paid", "x"]]}),
            R,
            "integer",
        ),
        (
            "meters not triples",
            edited(stored_round, data={"round": 1, "meters": [["table"]]}),
            R,
            "[scope, name, value]",
        ),
        # Well formed, but not the table's record: quarantined with the reason.
        (
            "replayed id, different record (fork at a stored seq)",
            forged("ms-01", 2, "SpotReport", {"seat": 2, "cents": 1_708_200}, head[1]),
            Q,
            "fork",
        ),
        ("stored hash, different message", edited(real[1], at=body_of(real[1])["at"] + 1), Q, "different message"),
        (
            "future seq (waits, then loses to the real one)",
            forged("ms-01", nxt + 2, "SupervisorAction", {"action": "void"}, "cd" * 32, cls="supervisor"),
            Q,
            "does not chain|fork",
        ),
        ("far future seq", forged("ms-01", nxt + 5_000_000, "SpotReport", {"seat": 1}, "ef" * 32), Q, "ahead"),
        (
            "meters that differ from the stored round",
            edited(stored_round, data={"round": 1, "meters": [["table", "paid", 1_708_200]]}),
            Q,
            "meters differ",
        ),
        (
            "meters for a seq that is no round",
            edited(stored_round, seq=2, hash=head[2], prev=head[1]),
            Q,
            "not a stored round",
        ),
        (
            "a journal's first record after a stored start",
            forged("ms-01", 1, "SpotReport", {"seat": 1}, GENESIS, anchor=0),
            Q,
            "fork",
        ),
    ]


def test_hostile_corpus(db: str, tmp_path: Path) -> None:
    j = journal(tmp_path / "j.db", 4)
    real = real_messages(tmp_path / "j.db", "ms-01")
    hashes = {body_of(m)["seq"]: body_of(m)["hash"] for m in real}
    stored_to = 5  # round 1 and its meters stored first
    first = [m for m in real if body_of(m)["seq"] <= stored_to]
    rest = [m for m in real if body_of(m)["seq"] > stored_to]
    store(db, first)
    corpus = _hostile(real, hashes, stored_to)
    assert len(corpus) >= 40
    mixed: list[Msg] = []
    for i, (_, m, _, _) in enumerate(corpus):  # the hostile messages among the real ones, in one batch
        mixed.append(m)
        if i % 4 == 3 and rest:
            mixed.append(rest.pop(0))
    mixed += rest
    batch, outcome = store(db, mixed)
    by_msg = {id(m): (v, why) for m, v, why in zip(mixed, outcome.verdicts, outcome.reasons, strict=True)}
    quarantined_reasons = {(t, s): why for t, s, _, why in outcome.quarantined}
    for name, m, verdict, word in corpus:
        got, why = by_msg[id(m)]
        if verdict is Verdict.QUARANTINED and got is Verdict.PENDING:  # waited for the gap, then quarantined
            why = quarantined_reasons.get(("ms-01", body_of(m)["seq"]))
            got = Verdict.QUARANTINED if why else got
        assert got is verdict, (name, got, why)
        assert why is not None and any(w in why for w in word.split("|")), (name, why)
    assert_real_records_stored(db, "ms-01", tmp_path / "j.db")
    n_rejected = sum(1 for _, _, v, _ in corpus if v is Verdict.REJECTED)
    n_quarantined = sum(1 for _, _, v, _ in corpus if v is Verdict.QUARANTINED)
    assert rows(db, "SELECT count(*) FROM ingest_reject") == [(n_rejected,)]
    assert rows(db, "SELECT count(*) FROM floor_quarantine") == [(n_quarantined,)]
    assert rows(db, "SELECT max(length(payload)), max(length(excerpt)) FROM ingest_reject")[0][0] <= 4096
    assert rows(db, "SELECT count(*) FROM floor_pending") == [(0,)]
    # Nothing partial: every seat and wager row belongs to a stored round.
    assert rows(
        db, "SELECT count(*) FROM round_seat s LEFT JOIN round r USING (table_id, seq) WHERE r.seq IS NULL"
    ) == [(0,)]
    assert rows(db, "SELECT count(*) FROM wager w LEFT JOIN round r USING (table_id, seq) WHERE r.seq IS NULL") == [
        (0,)
    ]
    # No stray table created; the pit view's data functions answer, with a finite last-seen time.
    overview = tables_overview(db)
    # b5-01 is on the pit only by its rejected message (a table with only evidence is shown, with no rounds).
    by_id = {t.table_id: t for t in overview}
    assert sorted(by_id) == ["b5-01", "ms-01"] and by_id["ms-01"].rounds_today == 4
    assert by_id["b5-01"].rounds_today == 0 and by_id["b5-01"].last_round is None
    overview = [by_id["ms-01"]]
    assert overview[0].last_at.year < 2100
    assert [r.round_no for r in PgFloorReader(db).rounds("ms-01", 2)] == [4, 3]
    assert PgFloorReader(db).recall("ms-01", 4) is not None
    with psycopg.connect(db, autocommit=True) as conn:
        alerts = {a.table_id: a for a in floor_alerts(conn)}
        assert alerts["ms-01"].quarantined == n_quarantined
        assert alerts["ms-01"].rejected == sum(
            1 for _, m, v, _ in corpus if v is Verdict.REJECTED and m[0].startswith("floor.ms-01.")
        )
        assert alerts["b5-01"].rejected == 1 and alerts["b5-01"].quarantined == 0
        assert len(quarantined(conn, "ms-01", limit=5)) == 5
    # tablectl floor status shows it as an alert.
    status = subprocess.run(
        [sys.executable, "-m", "controller", "floor", "status", "--db", db, "--json"], capture_output=True, text=True
    )
    assert status.returncode == 0, status.stderr
    tables = {t["table_id"]: t for t in json.loads(status.stdout)["tables"]}
    assert tables["ms-01"]["last_seq"] == 20 and tables["ms-01"]["quarantined"] == n_quarantined
    assert tables["ms-01"]["lag_s"] is not None and tables["b5-01"]["last_seq"] is None
    text = subprocess.run(
        [sys.executable, "-m", "controller", "floor", "status", "--db", db], capture_output=True, text=True, check=True
    ).stdout
    assert f"ALERT ms-01: {n_quarantined} records quarantined" in text and "ingest: last wrote" in text
    j.close()


def test_a_keyed_table_must_sign_and_a_stray_table_is_not_created(db: str, tmp_path: Path) -> None:
    key = b"k" * 32
    j = journal(tmp_path / "k.db", 1, key=key)
    real = real_messages(tmp_path / "k.db", "ms-02")
    assert all(body_of(m)["mac"] == "hmac-sha256" for m in real)
    policy = ChainPolicy(keys={"ms-02": key})
    _, outcome = store(db, real, policy)
    assert Verdict.QUARANTINED not in outcome.verdicts
    assert rows(db, "SELECT bool_and(verified) FROM floor_record WHERE class <> 'event' OR seq = 1") == [(True,)]
    last = body_of(real[-1])
    unsigned = forged("ms-02", last["seq"] + 1, "SpotReport", {"seat": 1}, last["hash"])
    wrong_key = forged("ms-02", last["seq"] + 1, "SpotReport", {"seat": 1}, last["hash"], key=b"x" * 32)
    _, outcome = store(db, [unsigned, wrong_key], policy)
    assert [r for _, _, _, r in outcome.quarantined] == [
        "seq 6: not signed with the table's journal key",
        "seq 6: the hash is not the hmac-sha256 of the record's content",
    ]
    # A stray table: a record that is not a journal's first waits and creates nothing; with
    # registration required, even a first record of an unregistered table is quarantined.
    _, outcome = store(db, [forged("zz-99", 7, "SpotReport", {"seat": 1}, "ab" * 32)])
    assert outcome.verdicts == [Verdict.PENDING]
    strict = ChainPolicy(require_registration=True)
    _, outcome = store(db, [forged("zz-98", 1, "SpotReport", {"seat": 1}, GENESIS, anchor=0)], strict)
    assert outcome.verdicts == [Verdict.QUARANTINED] and "not registered" in (outcome.reasons[0] or "")
    assert {t for (t,) in rows(db, "SELECT table_id FROM floor_table")} == {"ms-02"}

    async def reg() -> None:
        async with await psycopg.AsyncConnection.connect(db, autocommit=True) as conn:
            assert await register_table(conn, "zz-98") and not await register_table(conn, "zz-98")

    asyncio.run(reg())
    _, outcome = store(db, [forged("zz-98", 1, "SpotReport", {"seat": 1}, GENESIS, anchor=0)], strict)
    assert outcome.verdicts == [Verdict.STORED]
    j.close()


def test_the_running_ingest_stays_up_through_hostile_messages(db: str, tmp_path: Path) -> None:
    """Through NATS: the hostile corpus published among a table's real messages; the ingest stays
    up, stores every real record, terminates every reject (nothing left to redeliver)."""
    import threading
    import time
    import urllib.request

    import nats
    from prometheus_client.parser import text_string_to_metric_families

    from controller.floor.ingest import IngestConfig, IngestStats, run_ingest
    from controller.floor.metrics import IngestMetrics, serve_metrics
    from controller.floor.servers import LocalNats, free_port

    folder = Path(tempfile.mkdtemp(prefix="tablectl-hostile-nats-"))
    broker = LocalNats(folder / "nats").start()
    j = journal(tmp_path / "j.db", 4)
    real = real_messages(tmp_path / "j.db", "ms-01")
    hashes = {body_of(m)["seq"]: body_of(m)["hash"] for m in real}
    corpus = _hostile(real, hashes, 5)
    stop, stats = threading.Event(), IngestStats()
    metrics, port = IngestMetrics(), free_port()
    stop_metrics = serve_metrics(metrics, port)
    errors: list[BaseException] = []

    def ingest() -> None:
        try:
            asyncio.run(run_ingest(IngestConfig((broker.url,), db, batch=7, ack_wait_s=5), stop, stats, metrics))
        except BaseException as exc:  # reported below
            errors.append(exc)

    def reaches(subject: str, payload: bytes) -> bool:
        return subject.startswith("floor.") and len(payload) <= MAX_MESSAGE_BYTES

    async def publish(messages: list[Msg]) -> Any:
        nc = await nats.connect(broker.url)
        js = nc.jetstream()
        for n, (subject, msg_id, payload) in enumerate(messages):
            if reaches(subject, payload):
                await js.publish(subject, payload, headers={"Nats-Msg-Id": f"{msg_id}#{n}"})
        await nc.close()

    async def pending() -> int:
        nc = await nats.connect(broker.url)
        info = await nc.jetstream().consumer_info("FLOOR", "floor-ingest")
        await nc.close()
        return int(info.num_ack_pending) + int(info.num_pending)

    thread = threading.Thread(target=ingest, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + 60
        while not rows(db, "SELECT 1 FROM pg_tables WHERE tablename = 'floor_chain'") or not _stream_ready(broker.url):
            assert time.monotonic() < deadline, "the ingest did not create the stream"
            time.sleep(0.05)
        mixed = real[:5] + [m for _, m, _, _ in corpus] + real[5:]
        asyncio.run(publish(mixed))
        published = sum(1 for s, _, p in mixed if reaches(s, p))
        deadline = time.monotonic() + 120
        while stats.messages < published or asyncio.run(pending()) != 0:
            assert thread.is_alive(), errors
            assert time.monotonic() < deadline, f"{stats} of {published}"
            time.sleep(0.05)
        assert thread.is_alive() and not errors
        assert_real_records_stored(db, "ms-01", tmp_path / "j.db")
        # the stream's subjects are floor.>; the broker refuses a message over MAX_MESSAGE_BYTES (its max_msg_size)
        n_rejected = sum(1 for _, m, v, _ in corpus if v is Verdict.REJECTED and reaches(m[0], m[2]))
        assert stats.rejected == n_rejected
        assert rows(db, "SELECT count(*) FROM ingest_reject") == [(n_rejected,)]
        # b5-01 is on the pit only by its rejected message.
        assert sorted(t.table_id for t in tables_overview(db)) == ["b5-01", "ms-01"]
        text = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
        samples = {
            (s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text)
            for s in family.samples
        }
        assert samples[("tablectl_floor_records_stored_total", ())] == len({body_of(m)["seq"] for m in real})
        assert sum(v for (n, _), v in samples.items() if n == "tablectl_floor_rejected_total") == n_rejected
        assert samples[("tablectl_floor_quarantined_total", (("table", "ms-01"),))] == stats.quarantined
        assert ("tablectl_floor_lag_seconds", (("table", "ms-01"),)) in samples
    finally:
        stop.set()
        thread.join(30)
        stop_metrics()
        broker.kill()
        shutil.rmtree(folder, ignore_errors=True)
        j.close()


def _stream_ready(url: str) -> bool:
    import nats

    async def go() -> bool:
        nc = await nats.connect(url)
        try:
            await nc.jetstream().consumer_info("FLOOR", "floor-ingest")
            return True
        except Exception:
            return False
        finally:
            await nc.close()

    return asyncio.run(go())


def test_a_pruned_journal_starts_its_chain_at_its_anchor(db: str, tmp_path: Path) -> None:
    """The first record after a prune states the anchor; the floor's chain starts there, and a
    record before it is then a record below the chain's start, never stored."""
    j = journal(tmp_path / "j.db", 3)
    box = Outbox(tmp_path / "j.db")
    try:
        after = [
            (m.subject, m.msg_id, m.payload)
            for r in box.after(5, 100)
            for m in messages_for(r, "ms-01", "floor", box.between, anchor_seq=5)
        ]
        anchor_hash = box.after(4, 1)[0].hash
    finally:
        box.close()
    assert body_of(after[0])["anchor"] == 5 and all("anchor" not in body_of(m) for m in after[1:])
    _, outcome = store(db, after)
    assert Verdict.QUARANTINED not in outcome.verdicts and Verdict.PENDING not in outcome.verdicts
    assert rows(db, "SELECT head_seq, anchor_seq, anchor_hash FROM floor_chain") == [(15, 5, anchor_hash)]
    _, outcome = store(db, real_messages(tmp_path / "j.db", "ms-01")[:1])
    assert outcome.verdicts == [Verdict.QUARANTINED] and "no chained record" in (outcome.reasons[0] or "")
    j.close()


def test_journal_keys_for_the_ingest_are_checked(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    keys.mkdir()
    (keys / "ms-01.key").write_text("k" * 32)
    (keys / "ms-01.key").chmod(0o644)
    args = [sys.executable, "-m", "controller", "floor", "ingest", "--nats", "nats://127.0.0.1:9", "--db", "x"]
    proc = subprocess.run(args + ["--journal-keys", str(keys)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "ms-01.key" in proc.stderr and "readable by others" in proc.stderr
    assert "Traceback" not in proc.stderr
    (keys / "ms-01.key").chmod(0o600)
    (keys / "not a table.key").write_text("k" * 32)
    proc = subprocess.run(args + ["--journal-keys", str(keys)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "is not a table id" in proc.stderr


def test_made_up_tables_cannot_fill_the_store(db: str) -> None:
    strays = [forged(f"zz-{n}", 7, "SpotReport", {"seat": 1}, "ab" * 32) for n in range(4)]
    _, outcome = store(db, strays[:1], ChainPolicy(max_stray=2))
    _, again = store(db, strays[1:], ChainPolicy(max_stray=2))
    assert outcome.verdicts + again.verdicts == [Verdict.PENDING] * 2 + [Verdict.QUARANTINED] * 2
    assert "unknown" in (again.reasons[-1] or "")
    assert rows(db, "SELECT count(*) FROM floor_pending") == [(2,)] and rows(
        db, "SELECT count(*) FROM floor_table"
    ) == [(0,)]


def _reconcile(db: str, path: Path, *extra: str) -> tuple[int, str]:
    return floor_command("reconcile", "--journal", str(path), "--table", "ms-01", "--db", db, *extra)


def test_reconcile_compares_a_tables_journal_with_the_floor(db: str, tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    j = journal(path, 3)
    j.close()
    store(db, real_messages(path, "ms-01"))
    code, out = _reconcile(db, path)
    assert code == 0 and "15 records agree, 0 differ, 0 in the journal not yet on the floor" in out, out
    j = SqliteJournal(path)
    j.append("SpotReport", {"seat": 1, "spot": "ante", "cents": 500}, event=True)  # not published yet
    j.close()
    code, out = _reconcile(db, path)
    assert code == 0 and "1 in the journal not yet on the floor" in out, out
    with psycopg.connect(db, autocommit=True) as conn:
        conn.execute("UPDATE floor_record SET hash = %s WHERE table_id = 'ms-01' AND seq = 7", ("f" * 64,))
        conn.execute("DELETE FROM floor_record WHERE table_id = 'ms-01' AND seq = 3")
    code, out = _reconcile(db, path)
    assert code == 1, out
    assert "records 3 to 3: in the journal, missing on the floor (a gap)" in out
    assert "record 7: the floor's hash ffffffffffff... is not the journal's" in out


def test_reconcile_says_records_missing_once_they_are_older_than_the_grace(db: str, tmp_path: Path) -> None:
    """Records past the floor's last one are backlog while young, missing (exit 1) once older than
    ``--grace``: a floor that silently stopped storing a table no longer passes."""
    path = tmp_path / "j.db"
    j = journal(path, 2)
    j.close()
    messages = real_messages(path, "ms-01")
    store(db, messages[:5])  # the floor stopped storing after record 5
    code, out = _reconcile(db, path)
    assert code == 0 and "0 missing" in out, out
    code, out = _reconcile(db, path, "--grace", "0")
    assert code == 1 and "records 6 to" in out and "missing on the floor" in out and " 0 missing" not in out, out
    assert _reconcile(db, path, "--grace", "-1")[0] == 2


def test_reconcile_of_a_table_the_floor_does_not_know(db: str, tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    journal(path, 1).close()
    code, out = _reconcile(db, path)
    assert code == 1 and "the floor store has no table 'ms-01'" in out


def test_reconcile_reads_records_as_they_go_and_skips_what_the_journal_pruned() -> None:
    from controller.floor.reconcile import reconcile

    journal_rows = [(s, f"h{s}") for s in range(11, 21)]
    floor_rows = [(s, f"h{s}") for s in range(1, 18)]
    found = reconcile(iter(journal_rows), iter(floor_rows), journal_anchor=10)
    assert found.ok and found.compared == 7 and found.backlog == 3
    found = reconcile(iter(journal_rows), iter([(s, f"h{s}") for s in (11, 12, 15)]), journal_anchor=10)
    assert found.differences == ["records 13 to 14: in the journal, missing on the floor (a gap)"]
    assert reconcile([], [(1, "x")]).differences == ["record 1: on the floor, not in the journal"]


def test_a_copied_event_time_is_the_one_to_timestamp_makes(db: str) -> None:
    """journal_event.at goes in by COPY (chain.pg_timestamp): the same microsecond PostgreSQL's
    to_timestamp makes of the journal's float, half-microseconds and rounding included."""
    from controller.floor.chain import pg_timestamp

    times = [0.0, 1.5e-6, 2.5e-6, 946684800.0000005, 1796262867.1906152, 1796262867.0000005, 1796262867.9999995]
    times += [1_700_000_000 + i / 7 + j * 1e-7 for i in range(50) for j in range(3)]
    with psycopg.connect(db, autocommit=True) as conn:
        made = [conn.execute("SELECT to_timestamp(%s::float8)", (t,)).fetchone() for t in times]
    assert [pg_timestamp(t) for t in times] == [row[0] if row else None for row in made]

"""The floor link end to end, on real servers started here on 127.0.0.1: bench tables publishing
their journals to NATS JetStream, the ingest writing PostgreSQL; the broker, the ingest, the table
process and the database killed or stopped mid-run, and a three-node cluster losing a node.
Every kill point is a count of rows or records, never a time. The servers run as in production
(tests/floor_fixtures.py): TLS and a per-table identity on NATS, SCRAM and roles on PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import signal
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("nats")
psycopg = pytest.importorskip("psycopg")

import nats  # noqa: E402
from floor_fixtures import FloorLink, FloorSite  # noqa: E402
from floor_helpers import IngestThread, count, wait_for  # noqa: E402

import controller.floor.forwarder as forwarder_module  # noqa: E402
from controller.floor.connect import NatsAuth, nats_auth_options  # noqa: E402
from controller.floor.forwarder import Forwarder, LinkState  # noqa: E402
from controller.floor.servers import FloorDatabase, LocalNats, LocalPostgres, free_port, nats_server_binary  # noqa: E402
from controller.journal import NewRecord, SqliteJournal  # noqa: E402
from controller.journal.outbox import Outbox  # noqa: E402
from controller.journal.stored import read_records  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
TIMEOUT = 120.0


@pytest.fixture
def db(floor_db: FloorDatabase) -> FloorDatabase:
    """A fresh, migrated database for one test: ``.ingest`` for the ingest, ``.reader`` to count."""
    return floor_db


@pytest.fixture
def broker(floor_site: FloorSite, floor_folder: Path) -> Iterator[LocalNats]:
    """A broker of the test's own (it gets killed), with the session's certificates and identities."""
    server = floor_site.own_nats(floor_folder / "nats").start()
    yield server
    server.kill()


@pytest.fixture
def own_link(floor_site: FloorSite, broker: LocalNats) -> FloorLink:
    """This test's link on its own broker, the stream made."""
    link = floor_site.link(brokers=[broker], servers=(broker.url,))
    link.create_stream()
    return link


def bench(config: Path, journal: Path, rounds: int, seed: int = 1) -> subprocess.Popen[str]:
    """``tablectl bench`` in its own process (``--resume``: started again it finishes the run)."""
    return subprocess.Popen(
        [sys.executable, "-m", "controller", "bench", "--config", str(config), "--journal", str(journal)]
        + ["--rounds", str(rounds), "--seed", str(seed), "--seats", "4", "--quiet", "--resume"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def finish(proc: subprocess.Popen[str]) -> str:
    out, _ = proc.communicate(timeout=TIMEOUT * 2)
    assert proc.returncode == 0, out
    return out


def ingest_process(link: FloorLink, servers: list[str], db: str, *extra: str) -> subprocess.Popen[str]:
    args = [sys.executable, "-m", "controller", "floor", "ingest", "--db", db, "--ack-wait", "3", "--batch", "100"]
    args += link.ingest_args()
    for url in servers:
        args += ["--nats", url]
    return subprocess.Popen(args + list(extra), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def journal_rounds(journal: Path) -> int:
    if not journal.exists():
        return 0
    box = Outbox(journal)
    try:
        return int(box.reader.execute("SELECT count(*) FROM rounds").fetchone()[0])
    except sqlite3.OperationalError:  # the table has made the file and not its schema yet
        return 0
    finally:
        box.close()


def recall_json(journal: Path) -> list[dict[str, Any]]:
    out = subprocess.run(
        [sys.executable, "-m", "controller", "recall", "--journal", str(journal), "--json", "--last", "100000"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return [json.loads(line) for line in out.splitlines()]


def assert_all_stored_once(db: str, table_id: str, journal: Path) -> None:
    """Every record of the journal is in the store exactly once; the rounds are exactly what
    ``tablectl recall --json`` gives; no card value among the events."""
    box = Outbox(journal)
    try:
        head = box.head()
        # rows and folded rounds alike (the table folds what the floor holds)
        n_rounds = sum(1 for _ in read_records(box.reader, kinds=("RoundSettled",), checked=False))
    finally:
        box.close()
    wait_for(
        lambda: (
            count(db, "SELECT count(*) FROM journal_event WHERE table_id = %s", table_id)
            + count(db, "SELECT count(*) FROM round WHERE table_id = %s", table_id)
            == head
        ),
        f"all {head} records of {table_id} in PostgreSQL",
    )
    with psycopg.connect(db, autocommit=True) as conn:
        seqs = [
            s
            for (s,) in conn.execute(
                "SELECT seq FROM journal_event WHERE table_id = %s UNION ALL SELECT seq FROM round WHERE table_id = %s ORDER BY 1",
                (table_id, table_id),
            )
        ]
        assert seqs == list(range(1, head + 1))
        stored = [r for (r,) in conn.execute("SELECT recall FROM round WHERE table_id = %s ORDER BY seq", (table_id,))]
        assert stored == recall_json(journal)
        assert len(stored) == n_rounds
        leaked = conn.execute(
            "SELECT count(*) FROM journal_event WHERE table_id = %s AND kind = 'CardDealt' AND data->>'card' IS NOT NULL",
            (table_id,),
        ).fetchone()[0]
        assert leaked == 0
        meters = dict(
            ((s, n), v)
            for s, n, v in conn.execute("SELECT scope, name, value FROM meter_total WHERE table_id = %s", (table_id,))
        )
        cards = conn.execute("SELECT count(*) FROM card WHERE table_id = %s", (table_id,)).fetchone()[0]
    assert cards == sum(len(r["recall"]["cards"]) for r in stored)
    from controller.journal import SqliteJournal

    j = SqliteJournal(journal, create=False)
    try:
        assert meters == j.meters()
    finally:
        j.close()


async def _stream_messages(link: FloorLink, servers: tuple[str, ...]) -> int:
    nc = await nats.connect(servers=list(servers), connect_timeout=5, **nats_auth_options(link.admin))
    try:
        info = await nc.jetstream().stream_info(link.stream)
        return int(info.state.last_seq)  # every message it took: a settled one leaves the work queue
    finally:
        await nc.close()


def stream_messages(link: FloorLink, servers: tuple[str, ...] | None = None) -> int:
    """The messages in the link's stream (read by the setup identity)."""
    return asyncio.run(_stream_messages(link, servers or link.servers))


def expected_messages(journal: Path) -> int:
    box = Outbox(journal)
    try:
        return box.head() + int(box.reader.execute("SELECT count(*) FROM rounds").fetchone()[0])
    finally:
        box.close()


# --- the tests ------------------------------------------------------------------------------------


def test_bench_tables_reach_postgres_exactly_once(floor_folder: Path, floor_link: FloorLink, db: FloorDatabase) -> None:
    ingest = IngestThread(floor_link.ingest_config(db.ingest, ack_wait_s=5))
    try:
        runs = []
        for game in ("mississippi_stud", "boston5", "pai_gow"):
            table_id = f"{game.replace('_', '-')}-1"
            journal = floor_folder / f"{table_id}.db"
            runs.append((table_id, journal, bench(floor_link.yaml(floor_folder, table_id, game), journal, 4)))
        for table_id, journal, proc in runs:
            out = finish(proc)
            assert f"floor       {table_id}: stopped" in out and "backlog 0" in out
            assert_all_stored_once(db.reader, table_id, journal)
        assert stream_messages(floor_link) == sum(expected_messages(j) for _, j, _ in runs)
        from datetime import UTC, datetime

        from controller.web.pit_store import PgFloorReader  # the one floor read model

        reader = PgFloorReader(db.reader)
        overview = {t.table_id: t for t in reader.tables(datetime(2000, 1, 1, tzinfo=UTC), datetime.now(UTC))}
        assert set(overview) == {t for t, _, _ in runs}
        assert all(t.rounds_today == 4 for t in overview.values())
        last = reader.rounds("pai-gow-1", limit=2)
        assert [r.round_no for r in last] == [4, 3]
        assert reader.recall("pai-gow-1", 4) == recall_json(runs[2][1])[-1]
        assert reader.recall("pai-gow-1", 99) is None
        report = subprocess.run(
            [
                sys.executable,
                "-m",
                "controller",
                "floor",
                "report",
                "--db",
                db.reader,
                "--json",
                "--table",
                "pai-gow-1",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        data = json.loads(report)
        assert [t["table_id"] for t in data["tables"]] == ["pai-gow-1"] and data["floor"]["rounds"] == 4
        line = data["tables"][0]
        assert line["theoretical_hold_percent"] is not None and data["note"] is None  # par figures (controller.par)
        handle = count(db.reader, "SELECT sum(handle) FROM round WHERE table_id = 'pai-gow-1'")
        assert line["handle"] == handle and line["hold_percent"] == pytest.approx(100 * line["win"] / handle)
        everything = json.loads(
            subprocess.run(
                [sys.executable, "-m", "controller", "floor", "report", "--db", db.reader, "--json"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
        )
        for table in everything["tables"]:  # the report's figures are `tablectl meters`' for the same rounds
            journal = next(j for t, j, _ in runs if t == table["table_id"])
            meters = subprocess.run(
                [sys.executable, "-m", "controller", "meters", "--journal", str(journal), "--json"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            m = {(s, n): v for s, n, v in json.loads(meters)}
            assert table["theoretical_win"] == m[("theoretical", "theoretical_win:all")], table["table_id"]
            assert table["handle"] == m[("theoretical", "handle:all")], table["table_id"]
            assert table["faults"] == m.get(("table", "faults"), 0), table["table_id"]
            assert overview[table["table_id"]].theoretical_win_today in (None, table["theoretical_win"])
        status = subprocess.run(
            [sys.executable, "-m", "controller", "status", "--journal", str(runs[0][1])],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert "floor: link stopped" in status and "backlog 0" in status
    finally:
        ingest.stop()


def test_forwarders_sharing_one_connection_publish_each_journal_once(floor_folder: Path, floor_link: FloorLink) -> None:
    """``Forwarder.run``: several forwarders on one asyncio loop over one connection (how the
    benchmark simulates many tables in one process, with one identity for them all), each
    publishing its own journal."""
    journals = [SqliteJournal(floor_folder / f"s{i}.db") for i in range(3)]
    spot = {"device": "spots", "seat": 1, "spot": "ante", "cents": 500}
    for j in journals:
        j.append_batch([NewRecord("SpotReport", spot, event=True)] * 20)
    creds = floor_link.simulator("sim", ("s0", "s1", "s2"))
    forwarders = [
        Forwarder(j.path, replace(floor_link.floor_config(f"s{i}"), credentials=str(creds)))
        for i, j in enumerate(journals)
    ]

    async def run_all() -> None:
        nc = await forwarders[0].connect()
        try:
            await asyncio.gather(*(f.run(nc) for f in forwarders))
        finally:
            await nc.close()

    loop = threading.Thread(target=lambda: asyncio.run(run_all()))
    loop.start()
    try:
        for f, j in zip(forwarders, journals, strict=True):
            assert f.wait_acked(j.last_seq, TIMEOUT)
            j.append_batch([NewRecord("SpotReport", spot, event=True)] * 5)  # more while running
        for f, j in zip(forwarders, journals, strict=True):
            assert f.wait_acked(j.last_seq, TIMEOUT)
    finally:
        for f in forwarders:
            f.ask_stop()
        loop.join(TIMEOUT)
    assert not loop.is_alive()
    assert stream_messages(floor_link) == 3 * 25
    for j in journals:
        box = Outbox(j.path)
        assert box.acked() == j.last_seq == 25 and box.state()[0] == "stopped"
        box.close()
        j.close()


def test_a_clean_stop_sends_records_written_just_after_the_forwarder_looked(
    floor_folder: Path, floor_link: FloorLink, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table's last records land between the forwarder's look (nothing new) and its "caught
    up" mark, and the table stops then: the stop's drain still sends them (the mark is the look's
    time, not the time after the look's bookkeeping)."""

    journal = SqliteJournal(floor_folder / "late.db")
    spot = {"device": "spots", "seat": 1, "spot": "ante", "cents": 500}
    journal.append_batch([NewRecord("SpotReport", spot, event=True)] * 5)
    forwarder = Forwarder(journal.path, floor_link.floor_config("late"), drain_on_stop_s=60).start()
    assert forwarder.wait_acked(5, TIMEOUT)
    stopper = threading.Thread(target=forwarder.stop, kwargs={"timeout": TIMEOUT})
    asked = threading.Event()
    fired: list[bool] = []
    real_changed, real_time = Outbox.changed, forwarder_module.time

    def monotonic() -> float:
        if threading.current_thread() is stopper:
            asked.set()  # stop() has taken its "asked" time
        return real_time.monotonic()

    def changed(self: Outbox) -> bool:
        result = real_changed(self)
        if not result and not fired:  # this look found nothing new: the table writes and stops now
            fired.append(True)
            journal.append_batch([NewRecord("SpotReport", spot, event=True)] * 10)
            stopper.start()
            assert asked.wait(TIMEOUT)
        return result

    monkeypatch.setattr(forwarder_module, "time", SimpleNamespace(monotonic=monotonic, sleep=real_time.sleep))
    monkeypatch.setattr(Outbox, "changed", changed)
    # the look appends to ``fired`` before it starts the stop: wait for the stop itself
    wait_for(lambda: stopper.ident is not None, "the forwarder's next look and the table's stop")
    stopper.join(TIMEOUT)
    assert not stopper.is_alive()
    box = Outbox(journal.path)
    try:
        assert box.acked() == journal.last_seq == 15 and forwarder.status().backlog == 0
        assert stream_messages(floor_link) == 15
    finally:
        box.close()
        journal.close()


def test_a_record_that_does_not_follow_the_one_sent_before_is_not_published(
    floor_folder: Path, floor_link: FloorLink, caplog: pytest.LogCaptureFixture
) -> None:
    """A record written into the journal behind the table's back while the forwarder runs (its
    check of the backlog already done): the forwarder sees that it does not follow the record it
    sent before, publishes nothing more, and the link says why."""
    journal = SqliteJournal(floor_folder / "j.db")
    spot = {"device": "spots", "seat": 1, "spot": "ante", "cents": 500}
    journal.append_batch([NewRecord("SpotReport", spot, event=True)] * 5)
    forwarder = Forwarder(journal.path, floor_link.floor_config("forged"), ack_timeout_s=2.0).start()
    try:
        assert forwarder.wait_acked(5, TIMEOUT)
        with closing(sqlite3.connect(journal.path)) as raw, raw:
            raw.execute("INSERT INTO records VALUES (6, 0.0, 'SpotReport', 1, '{}', ?, ?)", ("0" * 64, "1" * 64))
        wait_for(lambda: forwarder.status().state is LinkState.DOWN, "the link down")
        assert "record 6 does not follow record 5: the journal was changed; not published" in caplog.text
    finally:
        forwarder.stop(timeout=TIMEOUT)
        journal.close()
    assert forwarder.status().acked == 5 and stream_messages(floor_link) == 5


def test_broker_killed_and_ingest_killed_mid_run(
    floor_folder: Path, broker: LocalNats, own_link: FloorLink, db: FloorDatabase
) -> None:
    journal = floor_folder / "t.db"
    table = bench(own_link.yaml(floor_folder, "ms-2"), journal, 24)
    urls = [broker.url]
    ingests = [ingest_process(own_link, urls, db.ingest), ingest_process(own_link, urls, db.ingest)]  # one durable
    try:
        wait_for(lambda: count(db.reader, "SELECT count(*) FROM round") >= 3, "three rounds stored")
        broker.kill(signal.SIGKILL)
        rounds_at_kill = journal_rounds(journal)
        wait_for(lambda: journal_rounds(journal) >= rounds_at_kill + 3, "three rounds played with the broker down")
        broker.start()
        stored = count(db.reader, "SELECT count(*) FROM journal_event")
        wait_for(lambda: count(db.reader, "SELECT count(*) FROM journal_event") >= stored + 200, "the ingest going on")
        ingests[0].send_signal(signal.SIGKILL)  # mid-run: batches fetched and not acknowledged are delivered again
        ingests[0].wait(30)
        stored = count(db.reader, "SELECT count(*) FROM journal_event")
        wait_for(
            lambda: count(db.reader, "SELECT count(*) FROM journal_event") >= stored + 200 or table.poll() is not None,
            "the other ingest going on",
        )
        ingests[1].send_signal(signal.SIGKILL)
        ingests[1].wait(30)
        ingests = [ingest_process(own_link, urls, db.ingest)]
        finish(table)
        assert_all_stored_once(db.reader, "ms-2", journal)
    finally:
        if table.poll() is None:
            table.kill()
        for ingest in ingests:
            if ingest.poll() is None:
                ingest.send_signal(signal.SIGTERM)
            ingest.communicate(timeout=60)


def test_table_killed_mid_publish_sends_its_backlog_after_restart(
    floor_folder: Path, floor_site: FloorSite, db: FloorDatabase
) -> None:
    broker = floor_site.own_nats(
        floor_folder / "nats", port=free_port()
    )  # down while the table plays: a backlog builds
    link = floor_site.link(brokers=[broker], servers=(broker.url,))
    journal = floor_folder / "t.db"
    config = link.yaml(floor_folder, "ms-3")
    table = bench(config, journal, 16)
    ingest: IngestThread | None = None
    try:
        wait_for(lambda: journal_rounds(journal) >= 6, "six rounds in the journal")
        broker.start()
        link.create_stream()
        ingest = IngestThread(link.ingest_config(db.ingest, ack_wait_s=5))

        def acked() -> int:
            box = Outbox(journal)
            try:
                return box.acked()
            finally:
                box.close()

        wait_for(lambda: acked() > 0, "the first acknowledgements")
        table.kill()  # SIGKILL while the backlog is being published
        table.wait(30)
        box = Outbox(journal)
        assert 0 < box.acked() < box.head(), "killed after the backlog was sent: not mid-publish"
        box.close()
        finish(bench(config, journal, 16))
        assert_all_stored_once(db.reader, "ms-3", journal)
        # the records resent after the kill are in the stream again (no broker de-duplication id: one
        # table's id could drop another's record); the floor stored each once (above)
        assert stream_messages(link) >= expected_messages(journal)
    finally:
        if table.poll() is None:
            table.kill()
        if ingest is not None:
            ingest.stop()
        broker.kill()


def test_postgres_stopped_for_a_while(floor_folder: Path, floor_site: FloorSite, floor_link: FloorLink) -> None:
    postgres = floor_site.own_postgres(floor_folder / "postgres").start()  # stopped mid-run: the test's own
    db = floor_site.database(postgres)
    journal = floor_folder / "t.db"
    config = floor_link.yaml(floor_folder, "ms-4")
    table = bench(config, journal, 24)
    ingest = IngestThread(floor_link.ingest_config(db.ingest, ack_wait_s=5, batch=100))
    try:
        wait_for(lambda: count(db.reader, "SELECT count(*) FROM round") >= 2, "two rounds stored")
        postgres.stop()
        in_stream = stream_messages(floor_link)
        wait_for(
            lambda: stream_messages(floor_link) >= in_stream + 200 or table.poll() is not None,
            "the table publishing with the database down",
        )
        retries = ingest.stats.db_retries
        wait_for(lambda: ingest.stats.db_retries >= retries + 3, "the ingest retrying")
        postgres.start()
        finish(table)
        # What the broker refused once the table's share of the stream was full (the ingest holding
        # its batch) waits in the journal: the table sends it when it runs again (docs/floor.md,
        # "One table, one feed")
        finish(bench(config, journal, 24))
        assert_all_stored_once(db.reader, "ms-4", journal)
    finally:
        if table.poll() is None:
            table.kill()
        ingest.stop()
        postgres.stop()


def test_three_node_cluster_loses_a_node(floor_folder: Path, floor_site: FloorSite, db: FloorDatabase) -> None:
    """Three nodes with mutual TLS on their routes, the stream on all three (R3)."""
    cluster_ports = [free_port() for _ in range(3)]
    nodes = [
        floor_site.own_nats(
            floor_folder / f"n{i}",
            name=f"n{i}",
            cluster_port=cluster_ports[i],
            routes=tuple(p for j, p in enumerate(cluster_ports) if j != i),
        )
        for i in range(3)
    ]
    urls = [n.url for n in nodes]
    link = floor_site.link(brokers=nodes, servers=tuple(urls))
    for node in nodes:
        node.start(wait=False)
    ingest: IngestThread | None = None
    table: subprocess.Popen[str] | None = None
    try:
        for node in nodes:
            node.wait_ready(TIMEOUT)
            cluster = (node.varz() or {})["cluster"]
            assert cluster["tls_required"] and cluster["tls_verify"]  # the routes: mutual TLS
        ingest = IngestThread(link.ingest_config(db.ingest, ack_wait_s=5))

        async def leader() -> str | None:
            nc = await nats.connect(servers=urls, connect_timeout=5, **nats_auth_options(link.admin))
            try:
                info = await nc.jetstream().stream_info(link.stream)
                assert info.config.num_replicas == 3
                return info.cluster.leader if info.cluster else None
            finally:
                await nc.close()

        def stream_up() -> bool:
            try:
                link.create_stream(replicas=3)
                return asyncio.run(leader()) is not None
            except Exception:
                return False

        wait_for(stream_up, "the R3 stream")
        journal = floor_folder / "t.db"
        table = bench(link.yaml(floor_folder, "ms-5"), journal, 16)
        wait_for(lambda: count(db.reader, "SELECT count(*) FROM round") >= 3, "three rounds stored")
        name = asyncio.run(leader())
        victim = next(n for n in nodes if n.name == name)  # the stream's leader
        victim.kill(signal.SIGKILL)
        stored = count(db.reader, "SELECT count(*) FROM round")
        wait_for(
            lambda: count(db.reader, "SELECT count(*) FROM round") >= stored + 3, "rounds stored after the node's loss"
        )
        finish(table)
        assert_all_stored_once(db.reader, "ms-5", journal)
    finally:
        if table is not None and table.poll() is None:
            table.kill()
        if ingest is not None:
            ingest.stop()
        for node in nodes:
            node.kill()


def test_migrate_and_report_errors_are_clear(floor_folder: Path) -> None:
    url = f"postgresql://floor_owner@127.0.0.1:{free_port()}/none"
    for command in (["migrate", "--db", url], ["report", "--db", url]):
        result = subprocess.run(
            [sys.executable, "-m", "controller", "floor", *command], capture_output=True, text=True, timeout=120
        )
        assert result.returncode == 2
        assert result.stderr.startswith(f"tablectl floor {command[0]}: ") and "Traceback" not in result.stderr
    result = subprocess.run(
        [sys.executable, "-m", "controller", "floor", "report", "--db", url, "--since", "yesterday"],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and "--since" in result.stderr


@pytest.mark.parametrize(
    "url",
    [
        "postgresql://floor_owner:s3cret@127.0.0.1:5432/floor",
        "postgresql://floor_owner@127.0.0.1:5432/floor?password=s3cret",
        "host=127.0.0.1 user=floor_owner password=s3cret dbname=floor",
    ],
)
@pytest.mark.parametrize("command", ["migrate", "report", "ingest", "web"])
def test_a_password_on_the_command_line_is_refused(command: str, url: str) -> None:
    """``ps`` shows a command line: a --db URL with a password is refused before anything connects."""
    extra = ["--nats", "nats://127.0.0.1:1"] if command == "ingest" else []
    result = subprocess.run(
        [sys.executable, "-m", "controller", "floor", command, "--db", url, *extra],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stderr
    assert "PGPASSWORD" in result.stderr and "Traceback" not in result.stderr
    assert "s3cret" not in result.stderr


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(entry.name))
    return out


def test_floor_serve_runs_a_single_machine_floor(floor_folder: Path) -> None:
    """``floor serve`` as in production: TLS and identities on NATS (a table added with
    ``floor add-table`` and the broker reloaded), SCRAM and roles on PostgreSQL, and no password
    on any command line of its processes."""
    data = floor_folder / "floor-data"
    serve = subprocess.Popen(
        [sys.executable, "-m", "controller", "floor", "serve", "--data", str(data)]
        + ["--nats-port", "0", "--db-port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert serve.stdout is not None
        nats_url = serve.stdout.readline().split()[-1]  # printed once both servers are up and migrated
        db_url = serve.stdout.readline().split()[-1]
        auth_dir = Path(serve.stdout.readline().split()[-1])
        assert nats_url.startswith("tls://127.0.0.1:") and db_url.startswith("postgresql://floor_reader@127.0.0.1:")
        passwords = LocalPostgres(data / "postgres").passwords()
        assert set(passwords) == {
            "postgres",
            "floor_owner",
            "floor_ingest",
            "floor_reader",
            "floor_migrator",
            "floor_registrar",
        }
        for pid in [serve.pid, *_children(serve.pid)]:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace")
            assert not any(pw in cmdline for pw in passwords.values()), cmdline
        added = subprocess.run(
            [sys.executable, "-m", "controller", "floor", "add-table", "ms-6", "--auth", str(auth_dir)],
            capture_output=True,
            text=True,
            check=True,
        )
        creds = auth_dir / "creds" / "ms-6.nk"
        assert str(creds) in added.stdout and (creds.stat().st_mode & 0o777) == 0o600
        subprocess.run(
            [str(nats_server_binary()), "--signal", f"reload={data / 'nats' / 'nats.pid'}"], check=True, timeout=60
        )
        table_auth = NatsAuth(str(creds), str(auth_dir / "ca.pem"))

        async def admitted() -> bool:
            try:
                nc = await nats.connect(
                    nats_url, connect_timeout=5, allow_reconnect=False, **nats_auth_options(table_auth)
                )
            except Exception:
                return False
            await nc.close()
            return True

        wait_for(lambda: asyncio.run(admitted()), "the broker to admit ms-6 after its reload")
        journal = floor_folder / "t.db"
        config = floor_folder / "ms-6.yaml"
        text = (REPO / "config" / "bench" / "mississippi_stud.yaml").read_text()
        text = text.replace("paytables_dir: ../paytables", f"paytables_dir: {REPO / 'config' / 'paytables'}")
        config.write_text(
            text + f"floor:\n  table_id: ms-6\n  servers: [{nats_url}]\n  credentials: {creds}\n"
            f"  ca: {auth_dir / 'ca.pem'}\n"
        )
        finish(bench(config, journal, 3))
        assert_all_stored_once(db_url, "ms-6", journal)
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.communicate(timeout=120)
    assert serve.returncode == 0


def test_a_table_is_reingested_from_its_journal(
    floor_folder: Path, floor_site: FloorSite, floor_link: FloorLink
) -> None:
    """``tablectl floor resend``: a table's journal published again with its own identity, here
    into a new stream and an empty store (a floor rebuilt from the tables' journals); the table's
    own acknowledged position in its journal does not move."""
    journal = floor_folder / "t.db"
    first_db = floor_site.database()
    ingest = IngestThread(floor_link.ingest_config(first_db.ingest, ack_wait_s=5))
    try:
        finish(bench(floor_link.yaml(floor_folder, "ms-7"), journal, 3))
        assert_all_stored_once(first_db.reader, "ms-7", journal)
    finally:
        ingest.stop()
    box = Outbox(journal)
    acked, head = box.acked(), box.head()
    box.close()
    rebuilt = floor_site.link()
    rebuilt.create_stream()
    db = floor_site.database()
    (floor_folder / "again").mkdir()
    config = rebuilt.yaml(floor_folder / "again", "ms-7")
    ingest = IngestThread(rebuilt.ingest_config(db.ingest, ack_wait_s=5))
    try:
        result = subprocess.run(
            [sys.executable, "-m", "controller", "floor", "resend", "--config", str(config), "--journal", str(journal)],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        assert f"resent records 1..{head} of ms-7" in result.stdout
        assert f"the floor holds this journal's records up to record {head}" in result.stdout, result.stdout
        assert_all_stored_once(db.reader, "ms-7", journal)
    finally:
        ingest.stop()
    # Resent into the first store, which holds every record already (issue 44: resend said "confirmed
    # storing up to record 0" while the floor held them all): it says what the floor holds.
    ingest = IngestThread(floor_link.ingest_config(first_db.ingest, ack_wait_s=5))
    try:
        again = subprocess.run(
            [
                sys.executable,
                "-m",
                "controller",
                "floor",
                "resend",
                "--config",
                str(floor_link.yaml(floor_folder, "ms-7")),
            ]
            + ["--journal", str(journal)],
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
        assert again.returncode == 0, again.stdout + again.stderr
        assert f"the floor holds this journal's records up to record {head}" in again.stdout, again.stdout
        assert_all_stored_once(first_db.reader, "ms-7", journal)
    finally:
        ingest.stop()
    box = Outbox(journal)
    assert box.acked() == acked
    box.close()

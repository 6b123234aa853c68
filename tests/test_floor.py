"""The floor link end to end, on real servers started here on 127.0.0.1: bench tables publishing
their journals to NATS JetStream, the ingest writing PostgreSQL; the broker, the ingest, the table
process and the database killed or stopped mid-run, and a three-node cluster losing a node.
Every kill point is a count of rows or records, never a time."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("nats")
psycopg = pytest.importorskip("psycopg")

import nats  # noqa: E402

import controller.floor.forwarder as forwarder_module  # noqa: E402
from controller.floor.forwarder import Forwarder  # noqa: E402
from controller.floor.ingest import IngestConfig, IngestStats, ensure_stream, run_ingest  # noqa: E402
from controller.floor.migrate import migrate  # noqa: E402
from controller.floor.servers import LocalNats, LocalPostgres, free_port  # noqa: E402
from controller.floor.store import recent_rounds, round_recall, tables_overview  # noqa: E402
from controller.floor_config import FloorConfig  # noqa: E402
from controller.journal import NewRecord, SqliteJournal  # noqa: E402
from controller.journal.outbox import Outbox  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
TIMEOUT = 120.0


def wait_for(cond: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


@pytest.fixture(scope="module")
def base() -> Iterator[Path]:
    """A folder PostgreSQL's user (nobody, when the tests run as root) can pass through."""
    path = Path(tempfile.mkdtemp(prefix="tablectl-floor-"))
    path.chmod(0o711)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope="module")
def postgres(base: Path) -> Iterator[LocalPostgres]:
    server = LocalPostgres(base / "postgres").start()
    yield server
    server.stop()


_DB_COUNT = iter(range(1, 1000))


@pytest.fixture
def db(postgres: LocalPostgres) -> str:
    """A fresh, migrated database for one test."""
    name = f"floor_{next(_DB_COUNT)}"
    with psycopg.connect(postgres.url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    url = postgres.url.rsplit("/", 1)[0] + "/" + name
    assert [m.version for m in migrate(url)] == [1, 2]
    assert migrate(url) == []  # twice: nothing to do
    return url


@pytest.fixture
def folder(base: Path, request: pytest.FixtureRequest) -> Iterator[Path]:
    path = base / request.node.name
    path.mkdir()
    path.chmod(0o711)
    yield path


@pytest.fixture
def broker(folder: Path) -> Iterator[LocalNats]:
    server = LocalNats(folder / "nats").start()
    yield server
    server.kill()


def table_config(folder: Path, table_id: str, servers: list[str], game: str = "mississippi_stud") -> Path:
    text = (REPO / "config" / "bench" / f"{game}.yaml").read_text()
    text = text.replace("paytables_dir: ../paytables", f"paytables_dir: {REPO / 'config' / 'paytables'}")
    text += f"floor:\n  table_id: {table_id}\n  servers: [{', '.join(servers)}]\n"
    path = folder / f"{table_id}.yaml"
    path.write_text(text)
    return path


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


class IngestThread:
    """``floor ingest`` in a thread of the test process."""

    def __init__(self, config: IngestConfig) -> None:
        self.stop_event = threading.Event()
        self.stats = IngestStats()
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.config = config
        self.thread.start()

    def _run(self) -> None:
        try:
            asyncio.run(run_ingest(self.config, self.stop_event, self.stats))
        except BaseException as exc:  # reported by stop()
            self.error = exc

    def stop(self) -> None:
        self.stop_event.set()
        self.thread.join(30)
        assert self.error is None, repr(self.error)


def ingest_process(servers: list[str], db: str, *extra: str) -> subprocess.Popen[str]:
    args = [sys.executable, "-m", "controller", "floor", "ingest", "--db", db, "--ack-wait", "3", "--batch", "100"]
    for url in servers:
        args += ["--nats", url]
    return subprocess.Popen(args + list(extra), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def count(db: str, sql: str, *args: Any) -> int:
    with psycopg.connect(db, autocommit=True) as conn:
        row = conn.execute(sql, args).fetchone()
        return int(row[0]) if row else 0


def journal_rounds(journal: Path) -> int:
    if not journal.exists():
        return 0
    box = Outbox(journal)
    try:
        return int(box.reader.execute("SELECT count(*) FROM rounds").fetchone()[0])
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
        n_rounds = int(box.reader.execute("SELECT count(*) FROM records WHERE kind = 'RoundSettled'").fetchone()[0])
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


async def _stream_messages(servers: list[str], stream: str = "FLOOR") -> int:
    nc = await nats.connect(servers=servers, connect_timeout=5)
    try:
        info = await nc.jetstream().stream_info(stream)
        return int(info.state.messages)
    finally:
        await nc.close()


def stream_messages(servers: list[str]) -> int:
    return asyncio.run(_stream_messages(servers))


def expected_messages(journal: Path) -> int:
    box = Outbox(journal)
    try:
        return box.head() + int(box.reader.execute("SELECT count(*) FROM rounds").fetchone()[0])
    finally:
        box.close()


# --- the tests ------------------------------------------------------------------------------------


def test_bench_tables_reach_postgres_exactly_once(folder: Path, broker: LocalNats, db: str) -> None:
    ingest = IngestThread(IngestConfig((broker.url,), db, ack_wait_s=5))
    try:
        runs = []
        for game in ("mississippi_stud", "boston5", "pai_gow"):
            table_id = f"{game.replace('_', '-')}-1"
            journal = folder / f"{table_id}.db"
            runs.append((table_id, journal, bench(table_config(folder, table_id, [broker.url], game), journal, 4)))
        for table_id, journal, proc in runs:
            out = finish(proc)
            assert f"floor       {table_id}: stopped" in out and "backlog 0" in out
            assert_all_stored_once(db, table_id, journal)
        assert stream_messages([broker.url]) == sum(expected_messages(j) for _, j, _ in runs)
        with psycopg.connect(db, autocommit=True) as conn:
            overview = {t.table_id: t for t in tables_overview(conn)}
            assert set(overview) == {t for t, _, _ in runs}
            assert all(t.rounds == 4 for t in overview.values())
            last = recent_rounds(conn, "pai-gow-1", limit=2)
            assert [r.round_no for r in last] == [4, 3]
            assert round_recall(conn, "pai-gow-1", 4) == recall_json(runs[2][1])[-1]
            assert round_recall(conn, "pai-gow-1", 99) is None
        report = subprocess.run(
            [sys.executable, "-m", "controller", "floor", "report", "--db", db, "--json", "--table", "pai-gow-1"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        data = json.loads(report)
        assert [t["table_id"] for t in data["tables"]] == ["pai-gow-1"] and data["floor"]["rounds"] == 4
        line = data["tables"][0]
        assert line["theoretical_hold_percent"] is not None and data["note"] is None  # par figures (controller.par)
        handle = count(db, "SELECT sum(handle) FROM round WHERE table_id = 'pai-gow-1'")
        assert line["handle"] == handle and line["hold_percent"] == pytest.approx(100 * line["win"] / handle)
        status = subprocess.run(
            [sys.executable, "-m", "controller", "status", "--journal", str(runs[0][1])],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        assert "floor: link stopped" in status and "backlog 0" in status
    finally:
        ingest.stop()


def test_forwarders_sharing_one_connection_publish_each_journal_once(folder: Path, broker: LocalNats) -> None:
    """``Forwarder.run``: several forwarders on one asyncio loop over one connection (how the
    benchmark simulates many tables in one process), each publishing its own journal."""

    async def make_stream() -> None:
        nc = await nats.connect(broker.url)
        await ensure_stream(nc.jetstream(), IngestConfig((broker.url,), "unused"))
        await nc.close()

    asyncio.run(make_stream())
    journals = [SqliteJournal(folder / f"s{i}.db") for i in range(3)]
    spot = {"device": "spots", "seat": 1, "spot": "ante", "cents": 500}
    for j in journals:
        j.append_batch([NewRecord("SpotReport", spot, event=True)] * 20)
    forwarders = [Forwarder(j.path, FloorConfig(f"s{i}", (broker.url,))) for i, j in enumerate(journals)]

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
    assert stream_messages([broker.url]) == 3 * 25
    for j in journals:
        box = Outbox(j.path)
        assert box.acked() == j.last_seq == 25 and box.state()[0] == "stopped"
        box.close()
        j.close()


def test_a_clean_stop_sends_records_written_just_after_the_forwarder_looked(
    folder: Path, broker: LocalNats, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The table's last records land between the forwarder's look (nothing new) and its "caught
    up" mark, and the table stops then: the stop's drain still sends them (the mark is the look's
    time, not the time after the look's bookkeeping)."""

    async def make_stream() -> None:
        nc = await nats.connect(broker.url)
        await ensure_stream(nc.jetstream(), IngestConfig((broker.url,), "unused"))
        await nc.close()

    asyncio.run(make_stream())
    journal = SqliteJournal(folder / "late.db")
    spot = {"device": "spots", "seat": 1, "spot": "ante", "cents": 500}
    journal.append_batch([NewRecord("SpotReport", spot, event=True)] * 5)
    forwarder = Forwarder(journal.path, FloorConfig("late", (broker.url,)), drain_on_stop_s=60).start()
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
    wait_for(lambda: bool(fired), "the forwarder's next look")
    stopper.join(TIMEOUT)
    assert not stopper.is_alive()
    box = Outbox(journal.path)
    try:
        assert box.acked() == journal.last_seq == 15 and forwarder.status().backlog == 0
        assert stream_messages([broker.url]) == 15
    finally:
        box.close()
        journal.close()


def test_broker_killed_and_ingest_killed_mid_run(folder: Path, broker: LocalNats, db: str) -> None:
    journal = folder / "t.db"
    table = bench(table_config(folder, "ms-2", [broker.url]), journal, 24)
    ingests = [ingest_process([broker.url], db), ingest_process([broker.url], db)]  # sharing the durable consumer
    try:
        wait_for(lambda: count(db, "SELECT count(*) FROM round") >= 3, "three rounds stored")
        broker.kill(signal.SIGKILL)
        rounds_at_kill = journal_rounds(journal)
        wait_for(lambda: journal_rounds(journal) >= rounds_at_kill + 3, "three rounds played with the broker down")
        broker.start()
        stored = count(db, "SELECT count(*) FROM journal_event")
        wait_for(lambda: count(db, "SELECT count(*) FROM journal_event") >= stored + 200, "the ingest going on")
        ingests[0].send_signal(signal.SIGKILL)  # mid-run: batches fetched and not acknowledged are delivered again
        ingests[0].wait(30)
        stored = count(db, "SELECT count(*) FROM journal_event")
        wait_for(
            lambda: count(db, "SELECT count(*) FROM journal_event") >= stored + 200 or table.poll() is not None,
            "the other ingest going on",
        )
        ingests[1].send_signal(signal.SIGKILL)
        ingests[1].wait(30)
        ingests = [ingest_process([broker.url], db)]
        finish(table)
        assert_all_stored_once(db, "ms-2", journal)
    finally:
        if table.poll() is None:
            table.kill()
        for ingest in ingests:
            if ingest.poll() is None:
                ingest.send_signal(signal.SIGTERM)
            ingest.communicate(timeout=60)


def test_table_killed_mid_publish_sends_its_backlog_after_restart(folder: Path, db: str) -> None:
    port = free_port()
    broker = LocalNats(folder / "nats", port=port)  # down while the table plays: a backlog builds
    journal = folder / "t.db"
    config = table_config(folder, "ms-3", [broker.url])
    table = bench(config, journal, 16)
    ingest: IngestThread | None = None
    try:
        wait_for(lambda: journal_rounds(journal) >= 6, "six rounds in the journal")
        broker.start()
        ingest = IngestThread(IngestConfig((broker.url,), db, ack_wait_s=5))

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
        assert_all_stored_once(db, "ms-3", journal)
        assert stream_messages([broker.url]) == expected_messages(journal)  # the resent ones were dropped
    finally:
        if table.poll() is None:
            table.kill()
        if ingest is not None:
            ingest.stop()
        broker.kill()


def test_postgres_stopped_for_a_while(folder: Path, broker: LocalNats, postgres: LocalPostgres, db: str) -> None:
    journal = folder / "t.db"
    table = bench(table_config(folder, "ms-4", [broker.url]), journal, 24)
    ingest = IngestThread(IngestConfig((broker.url,), db, ack_wait_s=5, batch=100))
    try:
        wait_for(lambda: count(db, "SELECT count(*) FROM round") >= 2, "two rounds stored")
        postgres.stop()
        in_stream = stream_messages([broker.url])
        wait_for(
            lambda: stream_messages([broker.url]) >= in_stream + 200 or table.poll() is not None,
            "the table publishing with the database down",
        )
        retries = ingest.stats.db_retries
        wait_for(lambda: ingest.stats.db_retries >= retries + 3, "the ingest retrying")
        postgres.start()
        finish(table)
        assert_all_stored_once(db, "ms-4", journal)
    finally:
        if table.poll() is None:
            table.kill()
        if postgres.proc is None:
            postgres.start()
        ingest.stop()


def test_three_node_cluster_loses_a_node(folder: Path, db: str) -> None:
    cluster_ports = [free_port() for _ in range(3)]
    nodes = [
        LocalNats(
            folder / f"n{i}",
            name=f"n{i}",
            cluster_port=cluster_ports[i],
            routes=tuple(p for j, p in enumerate(cluster_ports) if j != i),
        )
        for i in range(3)
    ]
    for node in nodes:
        node.start(wait=False)
    urls = [n.url for n in nodes]
    ingest: IngestThread | None = None
    table: subprocess.Popen[str] | None = None
    try:
        for node in nodes:
            node.wait_ready(TIMEOUT)
        ingest = IngestThread(IngestConfig(tuple(urls), db, ack_wait_s=5, replicas=3))

        async def leader() -> str | None:
            nc = await nats.connect(servers=urls, connect_timeout=5)
            try:
                info = await nc.jetstream().stream_info("FLOOR")
                assert info.config.num_replicas == 3
                return info.cluster.leader if info.cluster else None
            finally:
                await nc.close()

        def stream_up() -> bool:
            try:
                return asyncio.run(leader()) is not None
            except Exception:
                return False

        wait_for(stream_up, "the R3 stream")
        journal = folder / "t.db"
        table = bench(table_config(folder, "ms-5", urls), journal, 16)
        wait_for(lambda: count(db, "SELECT count(*) FROM round") >= 3, "three rounds stored")
        name = asyncio.run(leader())
        victim = next(n for n in nodes if n.name == name)  # the stream's leader
        victim.kill(signal.SIGKILL)
        stored = count(db, "SELECT count(*) FROM round")
        wait_for(lambda: count(db, "SELECT count(*) FROM round") >= stored + 3, "rounds stored after the node's loss")
        finish(table)
        assert_all_stored_once(db, "ms-5", journal)
    finally:
        if table is not None and table.poll() is None:
            table.kill()
        if ingest is not None:
            ingest.stop()
        for node in nodes:
            node.kill()


def test_migrate_and_report_errors_are_clear(folder: Path) -> None:
    url = f"postgresql://postgres@127.0.0.1:{free_port()}/none"
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
    assert os.geteuid() != 0 or Path("/etc/passwd").exists()


def test_floor_serve_runs_a_single_machine_floor(folder: Path) -> None:
    serve = subprocess.Popen(
        [sys.executable, "-m", "controller", "floor", "serve", "--data", str(folder / "floor-data")]
        + ["--nats-port", "0", "--db-port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert serve.stdout is not None
        nats_url = serve.stdout.readline().split()[-1]  # printed once both servers are up and migrated
        db_url = serve.stdout.readline().split()[-1]
        assert nats_url.startswith("nats://127.0.0.1:") and db_url.startswith("postgresql://postgres@127.0.0.1:")
        journal = folder / "t.db"
        finish(bench(table_config(folder, "ms-6", [nats_url]), journal, 3))
        assert_all_stored_once(db_url, "ms-6", journal)
    finally:
        serve.send_signal(signal.SIGTERM)
        serve.communicate(timeout=120)
    assert serve.returncode == 0

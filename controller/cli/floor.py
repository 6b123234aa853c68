"""``tablectl floor``: the floor side of the link (docs/floor.md): ``migrate`` the store,
``ingest`` from JetStream into it, ``report`` from it, and ``serve`` a single-machine floor
(``tablectl status`` shows a table's floor link)."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import signal
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

__all__ = ["register", "forwarder_for"]


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``floor`` sub-commands to the ``tablectl`` parser."""
    p = sub.add_parser(
        "floor",
        help="the floor: every table's rounds in one PostgreSQL store, through NATS JetStream",
        description=__doc__.splitlines()[0] if __doc__ else None,
    )
    floor = p.add_subparsers(dest="floor_command", required=True, metavar="SUBCOMMAND")

    m = floor.add_parser("migrate", help="bring the floor store's schema up to date")
    m.add_argument("--db", required=True, help="PostgreSQL URL, e.g. postgresql://floor@127.0.0.1/floor")
    m.set_defaults(run=_migrate)

    i = floor.add_parser("ingest", help="write every table's messages into the floor store, until stopped")
    i.add_argument("--nats", action="append", required=True, metavar="URL", help="a NATS server (repeat for a cluster)")
    i.add_argument("--db", required=True, help="PostgreSQL URL")
    _ingest_options(i)
    i.set_defaults(run=_ingest)

    r = floor.add_parser("report", help="rounds, handle, win, hold, voids, faults and supervisor actions")
    r.add_argument("--db", required=True, help="PostgreSQL URL")
    r.add_argument("--since", help="only rounds ended at or after DATE (YYYY-MM-DD or an ISO time; UTC if no zone)")
    r.add_argument("--table", nargs="+", action="extend", metavar="ID", help="only these tables")
    r.add_argument("--json", action="store_true", help="the report as one JSON object")
    r.set_defaults(run=_report)

    st = floor.add_parser(
        "status", help="per table: last record, lag, quarantined, rejected and pending; when the ingest last wrote"
    )
    st.add_argument("--db", required=True, help="PostgreSQL URL")
    st.add_argument("--json", action="store_true", help="the status as one JSON object")
    st.set_defaults(run=_status)

    s = floor.add_parser(
        "serve", help="a single-machine floor: local NATS with JetStream, embedded PostgreSQL, migrate, ingest"
    )
    s.add_argument("--data", default="floor-data", help="the data folder (default ./floor-data)")
    s.add_argument("--nats-port", type=int, default=4222, help="NATS port on 127.0.0.1 (0: any free port)")
    s.add_argument("--db-port", type=int, default=5432, help="PostgreSQL port on 127.0.0.1 (0: any free port)")
    _ingest_options(s)
    s.set_defaults(run=_serve)


def _ingest_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--prefix", default="floor", help="subject prefix (default floor)")
    p.add_argument("--stream", default="FLOOR", help="JetStream stream (default FLOOR; created when missing)")
    p.add_argument("--durable", default="floor-ingest", help="durable consumer shared by the ingest processes")
    p.add_argument("--batch", type=int, default=500, help="messages per transaction")
    p.add_argument("--ack-wait", type=float, default=30.0, help="seconds before an unacknowledged message is resent")
    p.add_argument("--replicas", type=int, default=1, choices=[1, 3, 5], help="stream replicas when creating it")
    p.add_argument("--creds", help="NATS credentials file")
    p.add_argument(
        "--journal-keys",
        metavar="DIR",
        help="folder of tables' journal HMAC keys, TABLE.key each (mode 0600): those tables' records must carry a valid HMAC",
    )
    p.add_argument(
        "--metrics-port",
        type=int,
        help="serve Prometheus metrics on http://127.0.0.1:PORT/metrics (records stored, lag, rejects, quarantine)",
    )
    p.add_argument("--metrics-addr", default="127.0.0.1", help="address for --metrics-port (default 127.0.0.1)")
    p.add_argument(
        "--require-registration",
        action="store_true",
        help="store only tables registered beforehand (else a table's first chained record registers it)",
    )


def _metrics(args: argparse.Namespace) -> Any:
    """The ingest's metrics, served when ``--metrics-port`` is given (else None)."""
    if args.metrics_port is None:
        return None
    from controller.floor.metrics import IngestMetrics, serve_metrics

    metrics = IngestMetrics()
    serve_metrics(metrics, args.metrics_port, args.metrics_addr)
    return metrics


def _journal_keys(folder: str | None) -> dict[str, bytes]:
    """The keys in ``folder`` by table id (``ms-01.key``); raises ValueError naming a bad file."""
    if not folder:
        return {}
    from controller.floor.messages import TABLE_ID
    from controller.journal.keys import read_hmac_key
    from controller.journal.store import JournalError

    path = Path(folder)
    if not path.is_dir():
        raise ValueError(f"--journal-keys: {path} is not a folder")
    keys = {}
    for file in sorted(path.glob("*.key")):
        if not TABLE_ID.fullmatch(file.stem):
            raise ValueError(f"--journal-keys: {file}: {file.stem!r} is not a table id")
        try:
            keys[file.stem] = read_hmac_key(file)
        except JournalError as exc:
            raise ValueError(f"--journal-keys: {exc}") from exc
    return keys


def _fail(command: str, message: str) -> int:
    print(f"tablectl floor {command}: {message}", file=sys.stderr)
    return 2


def _setup_logging() -> None:
    log = logging.getLogger("tablectl")
    if not log.handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        log.addHandler(handler)
        log.setLevel(logging.INFO)


def _needs_floor_extra(command: str, exc: ImportError) -> int:
    return _fail(command, f"{exc.name or exc}: not installed; install the floor extra: pip install 'tablectl[floor]'")


def _migrate(args: argparse.Namespace) -> int:
    try:
        import psycopg

        from controller.floor.migrate import migrate
    except ImportError as exc:
        return _needs_floor_extra("migrate", exc)
    try:
        done = migrate(args.db)
    except psycopg.Error as exc:
        return _fail("migrate", f"{args.db}: {str(exc).strip()}")
    except ValueError as exc:
        return _fail("migrate", str(exc))
    for m in done:
        print(f"applied {m.version:04d} {m.name}")
    if not done:
        print("the floor store is up to date")
    return 0


def _stop_on_signals() -> threading.Event:
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    return stop


def _ingest_config(args: argparse.Namespace, servers: list[str], db: str) -> Any:
    from controller.floor.ingest import IngestConfig

    return IngestConfig(
        tuple(servers),
        db,
        subject_prefix=args.prefix,
        stream=args.stream,
        durable=args.durable,
        batch=args.batch,
        ack_wait_s=args.ack_wait,
        replicas=args.replicas,
        credentials=args.creds,
        journal_keys=_journal_keys(args.journal_keys),
        require_registration=args.require_registration,
    )


def _ingest(args: argparse.Namespace) -> int:
    try:
        from controller.floor.ingest import run_ingest
    except ImportError as exc:
        return _needs_floor_extra("ingest", exc)
    if args.batch < 1:
        return _fail("ingest", "--batch must be at least 1")
    try:
        config = _ingest_config(args, args.nats, args.db)
    except ValueError as exc:
        return _fail("ingest", str(exc))
    _setup_logging()
    stop = _stop_on_signals()
    try:
        stats = asyncio.run(run_ingest(config, stop, metrics=_metrics(args)))
    except Exception as exc:  # e.g. no NATS server there at start
        return _fail("ingest", f"{type(exc).__name__}: {exc}")
    print(
        f"ingested {stats.messages} messages in {stats.batches} batches: {stats.stored} stored, "
        f"{stats.duplicates} duplicates, {stats.quarantined} quarantined, {stats.rejected} rejected, "
        f"{stats.pending} waited for a gap"
    )
    return 0


def _parse_since(text: str) -> datetime:
    try:
        when = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ValueError(f"--since: not a date or ISO time: {text!r}") from exc
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def _report(args: argparse.Namespace) -> int:
    try:
        import psycopg

        from controller.floor.report import floor_report, report_json, report_lines
    except ImportError as exc:
        return _needs_floor_extra("report", exc)
    try:
        since = _parse_since(args.since) if args.since else None
    except ValueError as exc:
        return _fail("report", str(exc))
    try:
        with psycopg.connect(args.db, autocommit=True, connect_timeout=10) as conn:
            report = floor_report(conn, since, args.table)
    except psycopg.Error as exc:
        return _fail("report", f"{args.db}: {str(exc).strip()}")
    if args.json:
        print(json.dumps(report_json(report)))
    else:
        print("\n".join(report_lines(report)))
    return 0


def _status(args: argparse.Namespace) -> int:
    try:
        import psycopg

        from controller.floor.store import floor_status, last_ingest_write, quarantined
    except ImportError as exc:
        return _needs_floor_extra("status", exc)
    try:
        with psycopg.connect(args.db, autocommit=True, connect_timeout=10) as conn:
            tables = floor_status(conn)
            wrote = last_ingest_write(conn)
            latest = {t.table_id: quarantined(conn, t.table_id, 1) for t in tables if t.quarantined}
    except psycopg.Error as exc:
        return _fail("status", f"{args.db}: {str(exc).strip().splitlines()[0]}")
    now = datetime.now(UTC)

    def ago(when: datetime | None) -> float | None:
        return None if when is None else round((now - when).total_seconds(), 1)

    if args.json:
        print(
            json.dumps(
                {
                    "ingest_last_write": wrote.isoformat() if wrote else None,
                    "ingest_idle_s": ago(wrote),
                    "tables": [
                        {
                            "table_id": t.table_id,
                            "last_seq": t.last_seq,
                            "last_at": t.last_at.isoformat() if t.last_at else None,
                            "last_record_age_s": ago(t.last_at),
                            "lag_s": round((t.last_stored_at - t.last_at).total_seconds(), 3)
                            if t.last_stored_at and t.last_at
                            else None,
                            "quarantined": t.quarantined,
                            "rejected": t.rejected,
                            "pending": t.pending,
                            "latest_quarantine": latest[t.table_id][0].reason if latest.get(t.table_id) else None,
                        }
                        for t in tables
                    ],
                }
            )
        )
        return 0
    print(f"ingest: last wrote {wrote:%Y-%m-%d %H:%M:%S} UTC ({ago(wrote)} s ago)" if wrote else "ingest: never wrote")
    print(
        f"{'table':<16} {'last seq':>9} {'last record (UTC)':<20} {'age s':>8} {'lag s':>7} {'quarant.':>8} {'rejected':>8} {'pending':>8}"
    )
    for t in tables:
        lag = f"{(t.last_stored_at - t.last_at).total_seconds():.3f}" if t.last_stored_at and t.last_at else "-"
        when = f"{t.last_at:%Y-%m-%d %H:%M:%S}" if t.last_at else "-"
        print(
            f"{t.table_id:<16} {t.last_seq if t.last_seq is not None else '-':>9} {when:<20} "
            f"{ago(t.last_at) if t.last_at else '-':>8} {lag:>7} {t.quarantined:>8} {t.rejected:>8} {t.pending:>8}"
        )
    for t in tables:
        if t.quarantined:
            print(f"ALERT {t.table_id}: {t.quarantined} records quarantined; latest: {latest[t.table_id][0].reason}")
        if t.rejected:
            print(f"ALERT {t.table_id}: {t.rejected} messages rejected")
    return 0


def _serve(args: argparse.Namespace) -> int:
    try:
        from controller.floor.ingest import run_ingest
        from controller.floor.migrate import migrate
        from controller.floor.servers import FloorServerError, LocalNats, LocalPostgres, free_port
    except ImportError as exc:
        return _needs_floor_extra("serve", exc)
    _setup_logging()
    log = logging.getLogger("tablectl.floor")
    data = Path(args.data).resolve()
    nats_server = LocalNats(data / "nats", port=args.nats_port or free_port())
    postgres = LocalPostgres(data / "postgres", port=args.db_port or free_port())
    stop = _stop_on_signals()
    try:
        nats_server.start()
        postgres.start()
        migrate(postgres.url)
        log.info("floor serving: NATS %s, PostgreSQL %s, data %s", nats_server.url, postgres.url, data)
        print(f"nats {nats_server.url}\ndb {postgres.url}", flush=True)
        config = _ingest_config(args, [nats_server.url], postgres.url)
        stats = asyncio.run(run_ingest(config, stop, metrics=_metrics(args)))
        log.info("stopped after %d messages", stats.messages)
    except (FloorServerError, OSError, ValueError) as exc:
        return _fail("serve", str(exc))
    finally:
        postgres.stop()
        nats_server.stop()
    return 0


def forwarder_for(table: Any, journal_path: Path | str, drain_on_stop_s: float = 5.0) -> Any:
    """The floor forwarder of ``table`` (its ``floor:`` config) on ``journal_path``, not started;
    None when the table has no floor link. Raises ValueError when the floor extra is missing."""
    if table.floor is None:
        return None
    try:
        from controller.floor.forwarder import Forwarder
    except ImportError as exc:
        raise ValueError(
            f"{table.path}: floor: {exc.name or exc} is not installed; install the floor extra: pip install 'tablectl[floor]'"
        ) from exc
    return Forwarder(journal_path, table.floor, drain_on_stop_s=drain_on_stop_s)

"""``tablectl floor``: the floor side of the link (docs/floor.md): ``migrate`` the store,
``ingest`` from JetStream into it, ``report`` from it, and ``serve`` a single-machine floor
(``tablectl status`` shows a table's floor link)."""

from __future__ import annotations

import argparse
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
    )


def _ingest(args: argparse.Namespace) -> int:
    import asyncio

    try:
        from controller.floor.ingest import run_ingest
    except ImportError as exc:
        return _needs_floor_extra("ingest", exc)
    if args.batch < 1:
        return _fail("ingest", "--batch must be at least 1")
    _setup_logging()
    stop = _stop_on_signals()
    try:
        stats = asyncio.run(run_ingest(_ingest_config(args, args.nats, args.db), stop))
    except Exception as exc:  # e.g. no NATS server there at start
        return _fail("ingest", f"{type(exc).__name__}: {exc}")
    print(f"ingested {stats.messages} messages in {stats.batches} batches ({stats.rejected} kept aside as unreadable)")
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


def _serve(args: argparse.Namespace) -> int:
    import asyncio

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
        stats = asyncio.run(run_ingest(_ingest_config(args, [nats_server.url], postgres.url), stop))
        log.info("stopped after %d messages", stats.messages)
    except (FloorServerError, OSError) as exc:
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

"""``tablectl floor``: the floor side of the link (docs/floor.md): ``migrate`` the store,
``ingest`` from JetStream into it, ``report`` from it, ``serve`` a single-machine floor, and the
floor's identities and TLS: ``make-certs``, ``init-auth``, ``add-table`` (``tablectl status``
shows a table's floor link).

No secret is ever an argument: database passwords come from libpq's environment
(``PGPASSWORD``) or a 0600 password file (``PGPASSFILE`` or ``passfile=`` in the URL), NATS
identities from their 0600 credential files; a ``--db`` URL holding a password is refused."""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import re
import signal
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from controller.cli._args import positive_int
from controller.host import add_log_arguments

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from controller.configuration import TableConfig
    from controller.floor.alerts import QuarantinedRecord, TableStatus
    from controller.floor.forwarder import Forwarder
    from controller.floor.ingest import IngestConfig
    from controller.floor.metrics import IngestMetrics

__all__ = ["options", "forwarder_for", "secret_in_url"]


def options(p: argparse.ArgumentParser) -> None:
    """Add ``tablectl floor``'s sub-commands (but ``web``: see ``controller.cli.COMMANDS``) to its parser ``p``."""
    floor = p.add_subparsers(dest="floor_command", required=True, metavar="SUBCOMMAND")

    m = floor.add_parser("migrate", help="bring the floor store's schema up to date (as the migrator role)")
    m.add_argument("--db", required=True, help="PostgreSQL URL, e.g. postgresql://floor_migrator@127.0.0.1/floor")
    m.set_defaults(run=_migrate)

    i = floor.add_parser("ingest", help="write every table's messages into the floor store, until stopped")
    i.add_argument("--nats", action="append", required=True, metavar="URL", help="a NATS server (repeat for a cluster)")
    i.add_argument("--db", required=True, help="PostgreSQL URL")
    _ingest_options(i)
    add_log_arguments(i)
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
    st.add_argument(
        "--pending-alert-after",
        type=float,
        default=120.0,
        metavar="SECONDS",
        help="records waiting for a gap longer than this are an alert: not draining (default 120)",
    )
    st.set_defaults(run=_status)

    rc = floor.add_parser("reconcile", help="one table's journal against the floor store: exit 1 on any difference")
    rc.add_argument("--journal", required=True, help="the table's journal (opened read only)")
    rc.add_argument("--table", required=True, metavar="ID", help="the table's id on the floor")
    rc.add_argument("--db", required=True, help="PostgreSQL URL (the reader role)")
    rc.add_argument(
        "--config",
        help="the table's config: the journal's HMAC key (journal.hmac_key_file), to compare the hashes of "
        "the records of a keyed journal's folded rounds too",
    )
    rc.add_argument(
        "--grace",
        type=float,
        default=300.0,
        metavar="SECONDS",
        help="journal records past the floor's last one count as backlog while younger than this, "
        "as missing (exit 1) once older (default 300)",
    )
    rc.set_defaults(run=_reconcile)

    cs = floor.add_parser(
        "create-stream", help="make the floor's stream (once, as the setup identity: the ingest may not)"
    )
    cs.add_argument(
        "--nats", action="append", required=True, metavar="URL", help="a NATS server (repeat for a cluster)"
    )
    cs.add_argument(
        "--creds", required=True, help="the setup identity's credentials (tablectl floor init-auth: floor-admin.nk)"
    )
    cs.add_argument("--ca", help="the CA file that signed the brokers' certificates (TLS)")
    cs.add_argument("--cert", help="a client certificate, for brokers that verify clients")
    cs.add_argument("--key", help="the client certificate's key")
    cs.add_argument("--prefix", default="floor", help="subject prefix: the stream takes PREFIX.> (default floor)")
    cs.add_argument("--stream", default="FLOOR", help="the stream's name (default FLOOR)")
    cs.add_argument(
        "--replicas", type=int, default=1, choices=[1, 3, 5], help="copies of the stream (default 1; 3 on a cluster)"
    )
    cs.add_argument(
        "--stream-max-age-days", type=float, default=90.0, help="keep messages this many days (default 90; at least 30)"
    )
    cs.add_argument(
        "--stream-max-gib",
        type=int,
        default=0,
        help="keep at most this many GiB per broker (default 0: no byte limit, the age only)",
    )
    cs.add_argument(
        "--table-share",
        type=int,
        default=1000,
        help="messages one table may have waiting on each of its subjects; past it the broker refuses its next "
        "ones, which wait in its journal (default 1000)",
    )
    cs.set_defaults(run=_create_stream)

    s = floor.add_parser(
        "serve", help="a single-machine floor: local NATS with JetStream, embedded PostgreSQL, migrate, ingest"
    )
    s.add_argument("--data", default="floor-data", help="the data folder (default ./floor-data)")
    s.add_argument("--nats-port", type=int, default=4222, help="NATS port on 127.0.0.1 (0: any free port)")
    s.add_argument("--db-port", type=int, default=5432, help="PostgreSQL port on 127.0.0.1 (0: any free port)")
    _ingest_options(s, auth=False)
    add_log_arguments(s)
    s.set_defaults(run=_serve)

    c = floor.add_parser("make-certs", help="a small CA and the brokers' TLS certificates (and client ones)")
    c.add_argument("dir", metavar="DIR", help="the floor's auth folder (created 0700; the CA is kept if there)")
    c.add_argument("--host", action="append", default=[], help="a broker's host name or address (repeat)")
    c.add_argument("--client", action="append", default=[], metavar="NAME", help="a client certificate (repeat)")
    c.add_argument("--days", type=int, default=825, help="validity of the certificates (default 825 days)")
    c.set_defaults(run=_make_certs)

    a = floor.add_parser("init-auth", help="the ingest's and the setup identities, and the broker's include file")
    a.add_argument("dir", metavar="DIR", help="the floor's auth folder")
    a.add_argument("--name", default="floor-ingest", help="the ingest identity's name (default floor-ingest)")
    a.add_argument("--stream", default="FLOOR", help="the stream the ingest reads (default FLOOR)")
    a.add_argument("--durable", default="floor-ingest", help="the ingest's durable consumer (default floor-ingest)")
    a.add_argument("--prefix", default="floor", help="subject prefix of the tables it hears (default floor)")
    a.set_defaults(run=_init_auth)

    t = floor.add_parser(
        "add-table",
        help="a table's NATS identity (credential file and permission entry), and with --db its registration "
        "and public key in the floor store",
    )
    t.add_argument("name", metavar="NAME", help="the table id (floor.table_id in its config)")
    t.add_argument("--auth", required=True, metavar="DIR", help="the floor's auth folder")
    t.add_argument("--prefix", default="floor", help="subject prefix (default floor)")
    t.add_argument(
        "--rotate", action="store_true", help="replace an existing NATS key (the old one is refused after reload)"
    )
    t.add_argument(
        "--db",
        help="PostgreSQL URL (the registrar role, floor_registrar): register the table and its public key in the floor store "
        "(default: not registered; the ingest's --require-registration then refuses the table)",
    )
    t.add_argument(
        "--public-key",
        metavar="FILE",
        help="the table's public signing key (the .pub file tablectl floor signing-key wrote on the table); "
        "default: a key pair made in DIR/signing/NAME.pem (0600, for the table) and NAME.pem.pub",
    )
    t.add_argument(
        "--rotate-signing-key",
        action="store_true",
        help="with --db: replace a table's registered public key (records signed with the old key are "
        "quarantined from then on)",
    )
    t.set_defaults(run=_add_table)

    k = floor.add_parser(
        "signing-key", help="a table's Ed25519 signing key (0600) and its public half (FILE.pub), made on the table"
    )
    k.add_argument("file", metavar="FILE", help="the private key file to write (refused if it exists)")
    k.set_defaults(run=_signing_key)

    rs = floor.add_parser(
        "resolve",
        help="repair a fork: keep the table-signed records, move the others to the evidence, store the real ones",
    )
    rs.add_argument("table", metavar="TABLE", help="the table id")
    rs.add_argument(
        "--db",
        required=True,
        help="PostgreSQL URL (the registrar role, floor_registrar; removing a fork's stored records: the owner role)",
    )
    rs.add_argument("--prefix", default="floor", help="subject prefix (default floor)")
    rs.add_argument("--dry-run", action="store_true", help="show the fork and what would be done; change nothing")
    rs.set_defaults(run=_resolve)

    r2 = floor.add_parser(
        "resend", help="publish a table's journal again (re-ingesting it), from a copy, with the table's identity"
    )
    r2.add_argument("--config", required=True, help="the table's config (its floor: section: servers, identity, TLS)")
    r2.add_argument("--journal", required=True, help="the table's journal (read only: a copy is published)")
    r2.add_argument("--from", dest="from_seq", type=int, default=1, metavar="SEQ", help="first record (default 1)")
    r2.add_argument("--timeout", type=float, default=600.0, help="seconds to wait for the acknowledgements")
    r2.set_defaults(run=_resend)


def _ingest_options(p: argparse.ArgumentParser, auth: bool = True) -> None:
    p.add_argument("--prefix", default="floor", help="subject prefix (default floor)")
    p.add_argument("--stream", default="FLOOR", help="JetStream stream (default FLOOR; created when missing)")
    p.add_argument("--durable", default="floor-ingest", help="durable consumer shared by the ingest processes")
    p.add_argument(
        "--batch",
        type=int,
        default=5000,
        help="messages per transaction at most (default 5000; a pull is bounded by bytes too)",
    )
    p.add_argument("--ack-wait", type=float, default=30.0, help="seconds before an unacknowledged message is resent")
    p.add_argument("--replicas", type=int, default=1, choices=[1, 3, 5], help="stream replicas when creating it")
    p.add_argument(
        "--stream-max-age-days",
        type=float,
        default=90.0,
        help="when creating the stream: keep messages this many days (default 90; at least 30)",
    )
    p.add_argument(
        "--stream-max-gib",
        type=int,
        default=0,
        help="when creating the stream: keep at most this many GiB per broker (default 0: no byte limit, the age only)",
    )
    p.add_argument(
        "--table-share",
        type=int,
        default=1000,
        help="when creating the stream: messages one table may have waiting on each of its subjects (default 1000)",
    )
    if auth:
        p.add_argument("--creds", help="the ingest's NATS credentials file (tablectl floor init-auth)")
        p.add_argument("--ca", help="the CA file that signed the brokers' certificates (TLS)")
        p.add_argument("--cert", help="a client certificate, for brokers that verify clients")
        p.add_argument("--key", help="the client certificate's key")
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
        "--max-reject-rows",
        type=positive_int(10**9),
        default=10_000,
        help="rejected messages kept per table in ingest_reject (default 10000); past that they are only counted "
        "(ingest_reject_tally), so one table's flood cannot fill the store",
    )
    p.add_argument(
        "--require-registration",
        action="store_true",
        help="store only tables registered beforehand by tablectl floor add-table --db (default: off, a table's "
        "first chained record registers it)",
    )
    p.add_argument(
        "--require-signed",
        action="store_true",
        help="store only records signed by their table's registered public key (default: off, a table registered "
        "without a key is stored unsigned)",
    )


def _metrics(args: argparse.Namespace) -> IngestMetrics | None:
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


def _setup_logging(args: argparse.Namespace) -> None:
    from controller.host import configure_logging

    configure_logging(getattr(args, "log_level", "info"), getattr(args, "log_format", "text"))


def _needs_floor_extra(command: str, exc: ImportError) -> int:
    from controller.host import install_hint

    return _fail(command, f"{exc.name or exc}: not installed; install the floor extra: {install_hint('floor')}")


def secret_in_url(url: str) -> str | None:
    """Why ``url`` may not be given on a command line (it holds a password), or None."""
    from urllib.parse import parse_qs, urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.password or "password" in parse_qs(parts.query) or re.search(r"(^|\s)password\s*=", url):
        return (
            "the --db URL holds a password, which `ps` would show: give it in PGPASSWORD or a 0600 password "
            "file (PGPASSFILE, or passfile=PATH in the URL)"
        )
    return None


def _migrate(args: argparse.Namespace) -> int:
    if why := secret_in_url(args.db):
        return _fail("migrate", why)
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


class _SignalStop(threading.Event):
    """Set by SIGTERM or SIGINT (systemd's stop, Ctrl-C); :attr:`by` names the signal."""

    def __init__(self) -> None:
        super().__init__()
        self.by: str | None = None

    def take(self, signum: int, frame: object) -> None:
        """The signal handler: only a flag (the ingest's loop looks at it, also while connecting)."""
        self.by = signal.Signals(signum).name
        self.set()

    def said(self, doing: str) -> None:
        """Log that a signal stopped the command while ``doing`` (nothing when no signal came)."""
        if self.by is not None:
            logging.getLogger("tablectl.floor").info("stopped by %s while %s", self.by, doing)


def _stop_on_signals() -> _SignalStop:
    stop = _SignalStop()
    signal.signal(signal.SIGTERM, stop.take)
    signal.signal(signal.SIGINT, stop.take)
    return stop


def _stream_limits_refused(command: str, args: argparse.Namespace) -> int | None:
    """Exit status 2, said, when the stream's limits given are out of range; None when they are fine."""
    if args.stream_max_age_days >= 30 and args.stream_max_gib >= 0 and args.table_share >= 1:
        return None
    return _fail(
        command, "--stream-max-age-days must be at least 30, --stream-max-gib 0 or more, --table-share 1 or more"
    )


def _stream_config(args: argparse.Namespace, servers: list[str], db: str) -> IngestConfig:
    """The settings the stream is made of, from ``--prefix``, ``--stream``, ``--replicas`` and its
    limits (the rest of an ingest's settings their defaults)."""
    from controller.floor.ingest import IngestConfig

    return IngestConfig(
        tuple(servers),
        db,
        subject_prefix=args.prefix,
        stream=args.stream,
        replicas=args.replicas,
        stream_max_age_days=args.stream_max_age_days,
        stream_max_bytes=args.stream_max_gib * 2**30 if args.stream_max_gib > 0 else -1,
        stream_max_per_subject=args.table_share,
    )


def _ingest_config(args: argparse.Namespace, servers: list[str], db: str) -> IngestConfig:
    return dataclasses.replace(
        _stream_config(args, servers, db),
        durable=args.durable,
        batch=args.batch,
        ack_wait_s=args.ack_wait,
        credentials=getattr(args, "creds", None),
        ca=getattr(args, "ca", None),
        cert=getattr(args, "cert", None),
        key=getattr(args, "key", None),
        journal_keys=_journal_keys(getattr(args, "journal_keys", None)),
        require_registration=getattr(args, "require_registration", False),
        require_signed=getattr(args, "require_signed", False),
        max_reject_rows=getattr(args, "max_reject_rows", 10_000),
    )


def _ingest(args: argparse.Namespace) -> int:
    import asyncio

    try:
        from controller.floor.ingest import run_ingest
    except ImportError as exc:
        return _needs_floor_extra("ingest", exc)
    if args.batch < 1:
        return _fail("ingest", "--batch must be at least 1")
    if (refused := _stream_limits_refused("ingest", args)) is not None:
        return refused
    if why := secret_in_url(args.db):
        return _fail("ingest", why)
    try:
        config = _ingest_config(args, args.nats, args.db)
    except ValueError as exc:
        return _fail("ingest", str(exc))
    _setup_logging(args)
    stop = _stop_on_signals()
    try:
        stats = asyncio.run(run_ingest(config, stop, metrics=_metrics(args)))
    except Exception as exc:  # e.g. no NATS server there at start
        return _fail("ingest", f"{type(exc).__name__}: {exc}")
    stop.said(stats.doing)
    print(
        f"ingested {stats.messages} messages in {stats.batches} batches: {stats.stored} stored, "
        f"{stats.duplicates} duplicates, {stats.quarantined} quarantined, {stats.rejected} rejected, "
        f"{stats.pending} waited for a gap, {stats.released} stored once their gap filled"
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
    if why := secret_in_url(args.db):
        return _fail("report", why)
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


def _alert_lines(
    t: TableStatus, latest: Mapping[str, Sequence[QuarantinedRecord]], pending_alert_after: float
) -> list[str]:
    """``floor status``'s ALERT (and closed) lines for one table (``TableStatus``)."""
    out = []
    if t.feed_held:
        out.append(f"ALERT {t.table_id}: the table holds its floor feed: {t.feed_held}")
    if t.throttled:
        out.append(f"ALERT {t.table_id}: over its share of the stream: {t.throttled}")
    if t.quarantined:
        out.append(f"ALERT {t.table_id}: {t.quarantined} records quarantined; latest: {latest[t.table_id][0].reason}")
    if t.rejected:
        out.append(f"ALERT {t.table_id}: {t.rejected} messages rejected")
    if t.forked:
        out.append(f"ALERT {t.table_id}: {t.forked} quarantined records are forks (a different record at a stored seq)")
    if t.settled:
        out.append(
            f"closed {t.table_id}: {t.settled} quarantined records settled by tablectl floor resolve "
            "(kept as evidence in floor_quarantine, floor_resolution says when and by whom)"
        )
    if t.pending_stuck:
        oldest = f"{t.oldest_pending_at:%Y-%m-%d %H:%M:%S} UTC" if t.oldest_pending_at else "-"
        out.append(
            f"ALERT {t.table_id}: {t.pending_stuck} records waiting for a gap for more than "
            f"{pending_alert_after:g} s (oldest since {oldest}): records before them are missing; "
            "tablectl floor reconcile with the table's journal names them"
        )
    return out


def _status(args: argparse.Namespace) -> int:
    if why := secret_in_url(args.db):
        return _fail("status", why)
    if not args.pending_alert_after >= 0:
        return _fail("status", "--pending-alert-after must be 0 or more seconds")
    try:
        import psycopg

        from controller.floor.alerts import floor_status, last_ingest_write, quarantined
    except ImportError as exc:
        return _needs_floor_extra("status", exc)
    try:
        with psycopg.connect(args.db, autocommit=True, connect_timeout=10) as conn:
            tables = floor_status(conn, args.pending_alert_after)
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
                            "pending_not_draining": t.pending_stuck,
                            "forked": t.forked,
                            "latest_quarantine": latest[t.table_id][0].reason if latest.get(t.table_id) else None,
                            "feed_held": t.feed_held,
                            "throttled": t.throttled,
                            "settled": t.settled,
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
        for line in _alert_lines(t, latest, args.pending_alert_after):
            print(line)
    return 0


def _journal_key(config: str | None) -> bytes | None:
    """The HMAC key of the journal of the table config ``config`` (None: no config, or no key)."""
    from controller.configuration import load_table

    return _key_of(load_table(config)) if config else None


def _key_of(table: TableConfig) -> bytes | None:
    """The HMAC key of ``table``'s journal (None: it has none)."""
    from controller.journal import read_hmac_key

    return read_hmac_key(table.journal.hmac_key_file) if table.journal.hmac_key_file else None


def _reconcile(args: argparse.Namespace) -> int:
    """0 when every record the floor holds of the table is the journal's, 1 on a difference."""
    if why := secret_in_url(args.db):
        return _fail("reconcile", why)
    try:
        import psycopg

        from controller.floor.reconcile import reconcile
    except ImportError as exc:
        return _needs_floor_extra("reconcile", exc)
    from controller.configuration import ConfigError
    from controller.journal import JournalError, SqliteJournal
    from controller.journal.stored import read_records

    if not args.grace >= 0:
        return _fail("reconcile", "--grace must be 0 or more seconds")
    try:
        key = _journal_key(args.config)
        journal = SqliteJournal.open_readonly(args.journal, key)
    except (ConfigError, JournalError) as exc:
        return _fail("reconcile", str(exc))
    try:
        anchor = int(journal.meta("anchor_seq") or 0)
        with psycopg.connect(args.db, connect_timeout=10) as conn:  # one read transaction (the cursor is named)
            chain = conn.execute("SELECT anchor_seq FROM floor_chain WHERE table_id = %s", (args.table,)).fetchone()
            quarantined = conn.execute(
                "SELECT (SELECT count(*) FROM floor_quarantine_open WHERE table_id = %s), "
                "(SELECT count(*) FROM floor_quarantine WHERE table_id = %s)",
                (args.table, args.table),
            ).fetchone()
            with conn.cursor(name="floor_records") as cur:  # streamed: a year's records in bounded memory
                cur.execute("SELECT seq, hash FROM floor_record WHERE table_id = %s ORDER BY seq", (args.table,))
                found = reconcile(
                    ((r.seq, r.hash) for r in read_records(journal.db, key=key, checked=key is not None)),
                    ((int(seq), str(digest)) for seq, digest in cur),
                    anchor,
                    int(chain[0] or 0) if chain else 0,
                )
        before = time.time() - args.grace
        late = [r.seq for r in read_records(journal.db, found.last_floor, checked=False) if r.at < before]
        missing = (len(late), min(late, default=None), max(late, default=None))
    except psycopg.Error as exc:
        return _fail("reconcile", f"{args.db}: {str(exc).strip().splitlines()[0]}")
    except JournalError as exc:  # a folded round that does not decode with the key
        print(f"tablectl floor reconcile: {args.journal}: {exc}", file=sys.stderr)
        return 1
    finally:
        journal.close()
    if chain is None:
        print(f"tablectl floor reconcile: the floor store has no table {args.table!r}", file=sys.stderr)
        return 1
    for text in found.differences:
        print(f"tablectl floor reconcile: {args.table}: {text}", file=sys.stderr)
    if found.more:
        print(f"tablectl floor reconcile: {args.table}: and {found.more} more differences", file=sys.stderr)
    held = int(quarantined[0]) if quarantined else 0
    closed = int(quarantined[1]) - held if quarantined else 0
    lost = int(missing[0]) if missing else 0
    if lost:
        print(
            f"tablectl floor reconcile: {args.table}: records {missing[1]} to {missing[2]} ({lost}): in the journal "
            f"for more than {args.grace:g} s, missing on the floor (tablectl status on the table shows its link; "
            "tablectl floor status its pending records)",
            file=sys.stderr,
        )
    if held:
        print(
            f"tablectl floor reconcile: {args.table}: {held} records quarantined (tablectl floor status)",
            file=sys.stderr,
        )
    if found.by_number:
        print(
            f"tablectl floor reconcile: {args.table}: {found.by_number} records of folded rounds compared by number "
            "only (the journal is signed with a key: give --config with its key file to compare their hashes)",
            file=sys.stderr,
        )
    print(
        f"{args.table}: {found.compared} records agree, {len(found.differences) + found.more} differ, "
        f"{found.backlog - lost} in the journal not yet on the floor, {lost} missing, {held} quarantined"
        + (f" ({closed} more closed by floor resolve: evidence, not alerting)" if closed else "")
    )
    return 0 if found.ok and not held and not lost else 1


def _serve(args: argparse.Namespace) -> int:
    import asyncio

    try:
        from controller.floor.certs import make_certs
        from controller.floor.connect import NatsAuth, create_stream
        from controller.floor.identity import FloorAuth
        from controller.floor.ingest import run_ingest
        from controller.floor.migrate import migrate
        from controller.floor.servers import FloorServerError, LocalNats, LocalPostgres, free_port
    except ImportError as exc:
        return _needs_floor_extra("serve", exc)
    _setup_logging(args)
    log = logging.getLogger("tablectl.floor")
    data = Path(args.data).resolve()
    auth = FloorAuth(data / "auth")
    stop = _stop_on_signals()
    nats_server: LocalNats | None = None
    postgres: LocalPostgres | None = None
    try:
        if not auth.ca.exists():
            make_certs(auth.folder)
        ingest_creds = auth.add_ingest(stream=args.stream, durable=args.durable, prefix=args.prefix)
        admin_creds = auth.add_admin()
        nats_server = LocalNats(data / "nats", port=args.nats_port or free_port(), auth=auth)
        postgres = LocalPostgres(data / "postgres", port=args.db_port or free_port())
        nats_server.start()
        postgres.start()
        db = postgres.database("floor")
        if not postgres.has_database("floor"):
            db = postgres.create_database("floor")
        else:
            postgres.guard("floor")  # idempotent: a database made by an older tablectl gets it too
        migrate(db.migrator)
        config = _ingest_config(args, [nats_server.url], db.ingest)
        config = dataclasses.replace(config, credentials=str(ingest_creds), ca=str(auth.ca))
        asyncio.run(create_stream([nats_server.url], NatsAuth(str(admin_creds), str(auth.ca)), config))
        log.info("floor serving: NATS %s, PostgreSQL %s, data %s", nats_server.url, db.reader, data)
        log.info(
            "add a table: tablectl floor add-table NAME --auth %s --prefix %s --db '%s' "
            "(its NATS identity, its signing key and its registration), then nats-server --signal reload=%s",
            auth.folder,
            args.prefix,
            db.registrar,
            nats_server.pid_file,
        )
        print(f"nats {nats_server.url}\ndb {db.reader}\nauth {auth.folder}", flush=True)
        stats = asyncio.run(run_ingest(config, stop, metrics=_metrics(args)))
        stop.said(stats.doing)
        log.info("stopped after %d messages", stats.messages)
    except (FloorServerError, OSError, ValueError) as exc:
        return _fail("serve", str(exc))
    except Exception as exc:  # e.g. the broker refusing the stream: said, never a traceback
        return _fail("serve", f"{type(exc).__name__}: {exc}")
    finally:
        if postgres is not None:
            postgres.stop()
        if nats_server is not None:
            nats_server.stop()
    return 0


def _create_stream(args: argparse.Namespace) -> int:
    import asyncio

    try:
        from controller.floor.connect import NatsAuth, create_stream

        config = _stream_config(args, args.nats, "")
    except ImportError as exc:
        return _needs_floor_extra("create-stream", exc)
    if (refused := _stream_limits_refused("create-stream", args)) is not None:
        return refused
    try:
        made = asyncio.run(create_stream(args.nats, NatsAuth(args.creds, args.ca, args.cert, args.key), config))
    except ValueError as exc:
        return _fail("create-stream", str(exc))
    if made:
        print(
            f"made the stream {args.stream}: subjects {args.prefix}.>, {args.replicas} replicas, "
            f"messages kept {args.stream_max_age_days:g} days, a work queue with {args.table_share} messages "
            "waiting per table and subject"
        )
    else:
        print(f"the stream {args.stream} is there already (its limits unchanged: nats stream edit changes them)")
    return 0


def _make_certs(args: argparse.Namespace) -> int:
    try:
        from controller.floor.certs import make_certs
    except ImportError as exc:
        return _needs_floor_extra("make-certs", exc)
    try:
        made = make_certs(args.dir, tuple(args.host), tuple(args.client), args.days)
    except (OSError, ValueError) as exc:
        return _fail("make-certs", str(exc))
    print(f"CA          {made.ca} (its key {made.ca_key}: keep it off the floor's machines)")
    print(f"broker      {made.server}, key {made.server_key}")
    for cert, key in made.clients:
        print(f"client      {cert}, key {key}")
    return 0


def _init_auth(args: argparse.Namespace) -> int:
    try:
        from controller.floor.identity import FloorAuth
    except ImportError as exc:
        return _needs_floor_extra("init-auth", exc)
    auth = FloorAuth(args.dir)
    try:
        ingest = auth.add_ingest(args.name, stream=args.stream, durable=args.durable, prefix=args.prefix)
        admin = auth.add_admin()
    except (OSError, ValueError) as exc:
        return _fail("init-auth", str(exc))
    print(f"ingest      {ingest} (tablectl floor ingest --creds)")
    print(f"setup       {admin} (creates the stream)")
    print(f"broker      include {auth.authorization_conf} in nats-server.conf; reload after each change")
    return 0


def _add_table(args: argparse.Namespace) -> int:
    try:
        from controller.floor.identity import FloorAuth
        from controller.floor.signing import new_signing_key, read_public_key
    except ImportError as exc:
        return _needs_floor_extra("add-table", exc)
    if args.db and (why := secret_in_url(args.db)):
        return _fail("add-table", why)
    if args.rotate_signing_key and not args.db:
        return _fail("add-table", "--rotate-signing-key needs --db (the key is registered in the floor store)")
    auth = FloorAuth(args.auth)
    made: Path | None = None
    try:
        if args.public_key:  # read first: a bad file leaves nothing half made
            public = read_public_key(args.public_key)
        creds = auth.add_table(args.name, args.prefix, rotate=args.rotate)
        if not args.public_key:
            made = auth.folder / "signing" / f"{args.name}.pem"
            if made.exists() and not args.rotate_signing_key:
                public = read_public_key(made.with_name(made.name + ".pub"))
            else:
                made.unlink(missing_ok=True)
                public = new_signing_key(made)
    except (OSError, ValueError) as exc:
        return _fail("add-table", str(exc))
    print(f"credentials {creds} (0600: copy it to the table; floor.credentials in its config)")
    print(f"permission  publish {args.prefix}.{args.name}.> only, in {auth.authorization_conf}")
    if made is not None:
        print(f"signing key {made} (0600: move it to the table, floor.signing_key in its config; delete it here)")
    print(f"public key  {public}")
    if args.db:
        try:
            registered = _register(args.db, args.name, public, args.rotate_signing_key)
        except (ImportError, ValueError) as exc:
            return _fail("add-table", str(exc))
        print(f"registered  {args.name} in the floor store ({registered})")
    else:
        print("not registered: run again with --db (the registrar role) to register the table and its public key")
    print("reload the brokers: nats-server --signal reload=PIDFILE (or systemctl reload nats-server)")
    return 0


def _register(db: str, table_id: str, public: str, rotate: bool) -> str:
    """Register ``table_id`` with ``public`` in the store at ``db``: what was done, or ValueError."""
    import asyncio

    import psycopg

    from controller.floor.chain import register_table, replace_public_key

    async def go() -> str:
        async with await psycopg.AsyncConnection.connect(db, connect_timeout=10) as conn:
            async with conn.transaction():
                if rotate:
                    new = await register_table(conn, table_id)
                    await replace_public_key(conn, table_id, public)
                    return "new, with its public key" if new else "its public key replaced"
                new = await register_table(conn, table_id, public)
                return "new, with its public key" if new else "already registered; its public key is this one"

    try:
        return asyncio.run(go())
    except psycopg.Error as exc:
        raise ValueError(f"{db}: {str(exc).strip().splitlines()[0]}") from exc


def _signing_key(args: argparse.Namespace) -> int:
    try:
        from controller.floor.signing import new_signing_key
    except ImportError as exc:
        return _needs_floor_extra("signing-key", exc)
    try:
        public = new_signing_key(args.file)
    except (OSError, ValueError) as exc:
        return _fail("signing-key", str(exc))
    print(f"signing key {args.file} (0600: floor.signing_key in the table's config)")
    print(f"public key  {args.file}.pub: {public} (tablectl floor add-table NAME --db URL --public-key FILE.pub)")
    return 0


def _resolve(args: argparse.Namespace) -> int:
    if why := secret_in_url(args.db):
        return _fail("resolve", why)
    try:
        from controller.floor.resolve import ResolveError, resolve_fork
    except ImportError as exc:
        return _needs_floor_extra("resolve", exc)
    import asyncio

    try:
        report = asyncio.run(resolve_fork(args.db, args.table, args.prefix, dry_run=args.dry_run))
    except ResolveError as exc:
        return _fail("resolve", str(exc))
    for line in report.lines():
        print(line)
    return 0


RESEND_TOLD_S = 30.0
"""How long ``floor resend`` waits, after the broker took every record, for the floor to say what it holds."""


def _resend(args: argparse.Namespace) -> int:
    """Publish records ``--from``..head of a journal again. The live journal is copied first (the
    forwarder notes its position in the file it reads, and the table's own position must not
    move); the ingest stores each record once."""
    import sqlite3
    import tempfile

    from controller.configuration import ConfigError, load_table

    try:
        from controller.floor.forwarder import Forwarder
        from controller.journal.outbox import Outbox
        from controller.journal.store import JournalError
    except ImportError as exc:
        return _needs_floor_extra("resend", exc)
    if args.from_seq < 1:
        return _fail("resend", "--from must be at least 1")
    try:
        table = load_table(args.config)
        if table.floor is None:
            return _fail("resend", f"{args.config}: no floor: section")
        with tempfile.TemporaryDirectory(prefix="tablectl-resend-") as tmp:
            copy = Path(tmp) / "journal.db"
            source = sqlite3.connect(f"{Path(args.journal).resolve().as_uri()}?mode=ro", uri=True)
            target = sqlite3.connect(copy)
            try:
                source.backup(target)
            finally:
                source.close()
            if target.execute("SELECT 1 FROM sqlite_master WHERE name = 'floor_outbox'").fetchone():
                target.execute("DELETE FROM floor_outbox")
            target.commit()
            target.close()
            box = Outbox(copy)
            box.ack(args.from_seq - 1)
            head = box.head()
            box.close()
            # a copy: not the table's heartbeat; it publishes the table's records whatever the floor holds
            forwarder = Forwarder(
                copy, table.floor, heartbeat_s=None, hold_feed=False, journal_key=_key_of(table)
            ).start()
            try:
                done = forwarder.wait_acked(head, args.timeout)
                if done:  # what the floor holds now: it tells the table after storing (or not) what came
                    forwarder.wait_told(head, min(args.timeout, RESEND_TOLD_S))
            finally:
                forwarder.stop()
            status = forwarder.status()
    except (ConfigError, JournalError, OSError, sqlite3.Error, ValueError) as exc:
        return _fail("resend", str(exc))
    if not done:
        return _fail("resend", f"acknowledged up to record {status.acked} of {head} ({status.error or 'no error'})")
    print(f"resent records {args.from_seq}..{head} of {table.floor.table_id} (the floor stores each once)")
    told = forwarder.told
    if told is None:
        print(
            f"the floor has not said what it holds within {min(args.timeout, RESEND_TOLD_S):g} s: "
            "tablectl floor status on the floor shows it"
        )
        return 0
    seq, digest, ours = told
    if not ours:
        print(
            f"the floor holds record {seq} with hash {digest[:16]}..., not this journal's: a record the table "
            'never wrote is stored; tablectl floor resolve (docs/floor.md, "A stolen signing key")'
        )
        return 1
    if seq >= head:
        print(f"the floor holds this journal's records up to record {seq}")
    else:
        print(
            f"the floor holds this journal's records up to record {seq}, not {seq + 1}..{head} (yet): tablectl "
            "floor status shows what it quarantined or waits for"
        )
    return 0


def forwarder_for(table: TableConfig, journal_path: Path | str, drain_on_stop_s: float = 5.0) -> Forwarder | None:
    """The floor forwarder of ``table`` (its ``floor:`` config) on ``journal_path``, not started;
    None when the table has no floor link. Raises ValueError when the floor extra is missing."""
    if table.floor is None:
        return None
    from controller.journal import JournalError

    try:
        from controller.floor.forwarder import Forwarder
    except ImportError as exc:
        from controller.host import install_hint

        raise ValueError(
            f"{table.path}: floor: {exc.name or exc} is not installed; install the floor extra: {install_hint('floor')}"
        ) from exc
    try:
        return Forwarder(journal_path, table.floor, drain_on_stop_s=drain_on_stop_s, journal_key=_key_of(table))
    except (ValueError, JournalError) as exc:  # a key file (signing, journal): missing, readable by others, not a key
        raise ValueError(f"{table.path}: {exc}") from exc

"""``tablectl run --config FILE``: the real table, on the ports its config names.

Runs until SIGTERM or SIGINT, then stops between events: the events already queued are handled
and journaled, the drivers closed. Logs with stdlib logging, as text or JSON lines, in a form
systemd's journal reads (:mod:`controller.host._logs`).
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
from typing import TYPE_CHECKING

from controller.cli._floor import forwarder_for
from controller.cli._journal import RUN_JOURNAL_DIR
from controller.cli._webopts import add_web_arguments, web_attach
from controller.host import Wakeup, add_log_arguments, configure_logging

if TYPE_CHECKING:
    from controller.configuration import TableConfig

__all__ = ["options", "run", "unapproved_paytables"]


def options(p: argparse.ArgumentParser) -> None:
    """Add ``tablectl run``'s options to its parser ``p``."""
    p.add_argument("--config", required=True, help="the table config, e.g. config/mississippi_stud.yaml")
    add_log_arguments(p)
    p.add_argument(
        "--journal", help="the journal file (default: the config's journal.path, else /var/lib/tablectl/GAME.db)"
    )
    p.add_argument(
        "--allow-unapproved",
        action="store_true",
        help="run even with a paytable marked `approved: false` (a test floor; never a live table)",
    )
    add_web_arguments(p)


def unapproved_paytables(table: TableConfig) -> list[str]:
    """One line per paytable of ``table`` marked ``approved: false``: its file, line and name."""
    return [
        f"{p.file}:{p.line}: paytable '{p.name}' ({spot}) is marked approved: false"
        for spot, p in sorted(table.paytables.items())
        if not p.approved
    ]


def run(args: argparse.Namespace) -> int:
    from controller.configuration import ConfigError, load_table
    from controller.journal import JournalError
    from controller.table.journal_files import open_journal
    from controller.table.runtime import TableRuntime, freeze_start_up
    from drivers.registry import DriverNotAvailable

    configure_logging(args.log_level, args.log_format)
    log = logging.getLogger("tablectl")
    try:
        attach = web_attach(args, bench=False)
        table = load_table(args.config)
        for role, device in table.devices.items():  # before the journal is created
            if device.url.startswith("sim://"):
                raise ValueError(
                    f"{table.path}:{device.line}: devices.{role}: {device.url} is served by `tablectl bench`, not a port"
                )
        unapproved = unapproved_paytables(table)
        if unapproved and not args.allow_unapproved:
            raise ValueError(
                "\n".join(unapproved)
                + "\nrefusing to run a table with an unapproved paytable (--allow-unapproved for a test floor)"
            )
        journal = open_journal(table, RUN_JOURNAL_DIR, args.journal, "tablectl run")
        runtime = TableRuntime(
            table,
            journal=journal,
            on_round=lambda r: log.info(
                "round %d complete, house net %s", r.number, r.settlement.house_net if r.settlement else "void"
            ),
        )
        forwarder = forwarder_for(table, journal.path)
        if forwarder is not None:  # the floor link: the journal published to NATS JetStream
            runtime.services.append(forwarder)
    except (ConfigError, ValueError, JournalError, DriverNotAvailable) as exc:
        for line in str(exc).splitlines():
            print(f"tablectl run: {line}", file=sys.stderr)
        return 2
    stop_web = None
    if attach is not None:
        try:
            stop_web = attach(runtime)
        except OSError as exc:
            print(
                f"tablectl run: {'--web ' + args.web if args.web else '--view-socket ' + args.view_socket}: {exc}",
                file=sys.stderr,
            )
            return 2
    with Wakeup() as done:  # set by SIGTERM or SIGINT on whichever thread takes it; closed on every way out
        done.on_signals(signal.SIGTERM, signal.SIGINT)
        try:
            runtime.start()
        except JournalError as exc:
            print(f"tablectl run: {exc}", file=sys.stderr)
            if stop_web is not None:
                stop_web()
            runtime.stop()
            return 2
        recovered = runtime.prepared
        if runtime.recovered and recovered is not None:  # as recovered, not as the controller thread has it by now
            log.info(
                "recovered round %d (%s) from %d journaled events",
                recovered.round_no,
                recovered.step,
                runtime.recovered,
            )
        log.info(
            "table %s running (%s); journal %s",
            table.name,
            ", ".join(f"{r} on {d.url}" for r, d in table.devices.items()),
            journal.path,
        )
        freeze_start_up()
        done.wait()
        log.info("stopping")
        if stop_web is not None:
            stop_web()
        runtime.stop()
        log.info("stopped after %d events", runtime.engine.processed)
        return 0

"""``tablectl floor web --db URL``: the pit view in a browser, read only, from the floor store
(docs/floor.md): every table with its game, state, hold and faults, today's rounds and hold against
the theoretical, and each table's recent rounds with their full recall."""

from __future__ import annotations

import argparse
import signal
import sys

from controller.cli._webopts import add_web_security_arguments, web_listening
from controller.host import Wakeup, add_log_arguments, configure_logging

__all__ = ["options", "run"]


def options(p: argparse.ArgumentParser) -> None:
    """Add ``tablectl floor web``'s options to its parser ``p``."""
    p.add_argument("--db", required=True, help="the floor store, e.g. postgresql://floor@127.0.0.1/floor")
    p.add_argument(
        "--web",
        default="127.0.0.1:8090",
        metavar="HOST:PORT",
        help="where to listen (default 127.0.0.1:8090; any address but loopback needs --web-token)",
    )
    add_web_security_arguments(p)
    add_log_arguments(p)


def run(args: argparse.Namespace) -> int:
    """Serve the pit view until SIGINT or SIGTERM."""
    configure_logging(args.log_level, args.log_format)
    try:
        from controller.web.pit_app import pit_app
        from controller.web.pit_store import PgFloorReader
        from controller.web.server import WebServer

        token, address, proxies = web_listening(args)
    except ImportError as exc:
        from controller.host import install_hint

        print(
            f"tablectl floor web: needs the web and floor extras ({exc}); install them: {install_hint('web,floor')}",
            file=sys.stderr,
        )
        return 2
    except ValueError as exc:
        print(f"tablectl floor web: {exc}", file=sys.stderr)
        return 2
    from controller.cli._floor import secret_in_url

    if why := secret_in_url(args.db):
        print(f"tablectl floor web: {why}", file=sys.stderr)
        return 2
    reader = PgFloorReader(args.db)
    problem = reader.check()
    if problem:
        print(f"tablectl floor web: --db: {problem}", file=sys.stderr)
        return 2
    try:
        server = WebServer(
            pit_app(reader),
            address,
            token=token,
            hosts=args.web_host,
            cert=args.web_cert,
            key=args.web_key,
            proxies=proxies,
        )
        url = server.start()
    except (OSError, TimeoutError) as exc:
        print(f"tablectl floor web: --web {args.web}: {exc}", file=sys.stderr)
        return 2
    print(f"web: pit view on {url}{' (log in with the token)' if token else ''}", file=sys.stderr, flush=True)
    with Wakeup() as done:  # set by SIGTERM or SIGINT on whichever thread takes it; closed on every way out
        done.on_signals(signal.SIGTERM, signal.SIGINT)
        try:
            done.wait()
        finally:
            server.stop()
    return 0

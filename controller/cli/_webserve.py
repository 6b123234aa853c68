"""``tablectl web serve --socket PATH``: the table's views (its page, its live event stream, the
bench controls) in a process of their own, reading the table over its local socket.

``tablectl run --view-socket PATH`` (or ``bench``) offers the table there; this serves the views
from it, as the systemd unit deploy/tablectl-web.service does under its own user. ``tablectl run
--web`` starts this itself as its child. Every browser connection is this process's: none can
take a descriptor, a thread or CPU time from the controller.
"""

from __future__ import annotations

import argparse
import signal
import sys

from controller.cli._webopts import add_web_security_arguments, web_listening
from controller.host import Wakeup, add_log_arguments, configure_logging

__all__ = ["options", "run"]


def options(p: argparse.ArgumentParser) -> None:
    """Add ``tablectl web serve``'s options to its parser ``p``."""
    p.add_argument("--socket", required=True, metavar="PATH", help="the table's views' socket (its --view-socket)")
    p.add_argument(
        "--web",
        default="127.0.0.1:8080",
        metavar="HOST:PORT",
        help="where to listen (default 127.0.0.1:8080; any address but loopback needs --web-token)",
    )
    p.add_argument(
        "--with-table",
        action="store_true",
        help="end when the table closes its socket (the table's own child) instead of waiting for it to return",
    )
    p.add_argument(
        "--print-url", action="store_true", help="print the URL alone on stdout once listening (for the table)"
    )
    add_web_security_arguments(p)
    add_log_arguments(p)


def run(args: argparse.Namespace) -> int:
    """Serve the views until SIGTERM or SIGINT (or, ``--with-table``, until the table ends)."""
    configure_logging(args.log_level, args.log_format)
    try:
        from controller.web.attach import serve_views
    except ImportError as exc:
        from controller.host import install_hint

        print(f"tablectl web serve: needs the web extra ({exc}); install it: {install_hint('web')}", file=sys.stderr)
        return 2
    try:
        token, address, proxies = web_listening(args)
    except ValueError as exc:
        print(f"tablectl web serve: {exc}", file=sys.stderr)
        return 2

    def ready(url: str) -> None:
        if args.print_url:
            print(url, flush=True)
        else:
            shown = f"{url} (log in with the token)" if token else url
            print(f"web: table view on {shown}", file=sys.stderr, flush=True)

    # set by SIGTERM or SIGINT on whichever thread takes it (the serving thread sleeps on it); closed on every way out
    with Wakeup() as done:
        done.on_signals(signal.SIGTERM, signal.SIGINT)
        try:
            return serve_views(
                args.socket,
                address,
                token,
                args.web_host,
                args.web_cert,
                args.web_key,
                proxies,
                with_table=args.with_table,
                ready=ready,
                stopping=done,
            )
        except (OSError, TimeoutError) as exc:
            print(f"tablectl web serve: --web {args.web}: {exc}", file=sys.stderr)
            return 2

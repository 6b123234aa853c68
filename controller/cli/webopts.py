"""``--web HOST:PORT`` and ``--web-token`` for ``tablectl run`` and ``tablectl bench``: the table view
in a browser (the ``web`` package, installed with the ``web`` extra, is imported only when asked)."""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from typing import Any

__all__ = ["add_web_arguments", "web_attach"]


def add_web_arguments(p: argparse.ArgumentParser) -> None:
    """Add ``--web`` and ``--web-token`` to a sub-command."""
    p.add_argument(
        "--web",
        metavar="HOST:PORT",
        help="serve the live table view there (e.g. 127.0.0.1:8080; any address but loopback needs --web-token)",
    )
    p.add_argument(
        "--web-token",
        default=os.environ.get("TABLECTL_WEB_TOKEN"),
        help="every web request must carry this token (default: $TABLECTL_WEB_TOKEN); open the page as /?token=TOKEN",
    )


def web_attach(args: argparse.Namespace, bench: bool) -> Callable[..., Callable[[], None]] | None:
    """What the runtime calls to serve the view, or ``None`` without ``--web``; raises
    ``ValueError`` with a clear message on a bad address, a missing token or a missing extra."""
    if not args.web:
        if args.web_token and os.environ.get("TABLECTL_WEB_TOKEN") != args.web_token:
            raise ValueError("--web-token needs --web")
        return None
    try:
        from controller.web.attach import serve_table
        from controller.web.server import parse_address
    except ImportError as exc:
        raise ValueError(f"--web needs the web extra (pip install -e '.[web]'): {exc}") from None
    address = parse_address(args.web, args.web_token)
    token = args.web_token
    seed = getattr(args, "seed", 1)

    def attach(runtime: Any, sims: Any = None, servers: Any = None) -> Callable[[], None]:
        return serve_table(runtime, address, token, sims if bench else None, servers, seed)[1]

    return attach

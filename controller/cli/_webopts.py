"""The web view's options for ``tablectl run``, ``tablectl bench`` and ``tablectl floor web``:
``--web HOST:PORT``, the token (``--web-token``, ``--web-token-file`` or
``$TABLECTL_WEB_TOKEN``), ``--web-host`` (a host name the view answers to besides loopback),
``--web-proxy`` (a reverse proxy whose forwarded headers are believed),
``--web-cert``/``--web-key`` (HTTPS). The ``web`` package (the ``web`` extra) is imported only
when asked."""

from __future__ import annotations

import argparse
import ipaddress
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from controller.table.runtime import TableRuntime
    from controller.web.server import WebAddress

__all__ = ["add_web_arguments", "add_web_security_arguments", "web_listening", "web_attach"]


def add_web_security_arguments(p: argparse.ArgumentParser) -> None:
    """The token, host and TLS options (shared with ``tablectl floor web``)."""
    p.add_argument(
        "--web-token",
        default=os.environ.get("TABLECTL_WEB_TOKEN"),
        help="the token the page's login asks for, at least 128 bits (`tablectl web token` makes one; "
        "default: $TABLECTL_WEB_TOKEN)",
    )
    p.add_argument(
        "--web-token-file",
        metavar="FILE",
        help="read the token from FILE (as `tablectl web token --out FILE` wrote it), kept out of the process list",
    )
    p.add_argument(
        "--web-host",
        action="append",
        default=[],
        metavar="NAME",
        help="a host name the view answers to besides loopback and its address (repeatable); any other Host gets 421",
    )
    p.add_argument(
        "--web-proxy",
        action="append",
        default=[],
        metavar="ADDR",
        help="the IP address of a TLS-terminating reverse proxy in front of the view (repeatable): its "
        "X-Forwarded-For and X-Forwarded-Proto are believed, so clients are told apart by their own "
        "address and the session cookie is Secure under its HTTPS (default: none, forwarded headers "
        "believed from no one)",
    )
    p.add_argument("--web-cert", metavar="PEM", help="serve HTTPS with this certificate (with --web-key)")
    p.add_argument("--web-key", metavar="PEM", help="the certificate's private key (with --web-cert)")


def add_web_arguments(p: argparse.ArgumentParser) -> None:
    """Add ``--web`` and the security options to a sub-command."""
    p.add_argument(
        "--web",
        metavar="HOST:PORT",
        help="serve the live table view there (e.g. 127.0.0.1:8080; any address but loopback needs --web-token), "
        "from a process of its own started by the table",
    )
    p.add_argument(
        "--view-socket",
        metavar="PATH",
        help="offer the table's view and controls on this unix socket for `tablectl web serve` "
        "(the views' own unit; with --web, the socket the child reads)",
    )
    p.add_argument(
        "--view-socket-group",
        metavar="GROUP",
        help="the group (the views' user's) that may connect to --view-socket besides this user",
    )
    add_web_security_arguments(p)


def web_token(args: argparse.Namespace) -> str | None:
    """The token from ``--web-token-file``, else ``--web-token`` or the environment; raises
    ``ValueError`` naming the file when it cannot be read."""
    if args.web_token_file:
        path = Path(args.web_token_file)
        try:
            text = path.read_text().strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(f"--web-token-file {path}: cannot read it ({exc})") from None
        if not text:
            raise ValueError(f"--web-token-file {path}: the file is empty")
        return text
    return str(args.web_token) if args.web_token else None


def web_proxies(args: argparse.Namespace) -> tuple[str, ...]:
    """The ``--web-proxy`` addresses, each checked to be an IP address; raises ``ValueError``
    naming the one that is not."""
    out = []
    for text in args.web_proxy:
        try:
            out.append(str(ipaddress.ip_address(text.strip().strip("[]"))))
        except ValueError:
            raise ValueError(f"--web-proxy {text!r}: expected the proxy's IP address, e.g. 127.0.0.1") from None
    return tuple(out)


def web_listening(args: argparse.Namespace) -> tuple[str | None, WebAddress, tuple[str, ...]]:
    """The token, the address (``--web``) and the proxies of a view, checked with its TLS files;
    raises ``ValueError`` naming what is wrong (``ImportError`` without the web extra)."""
    from controller.web.server import parse_address

    token = web_token(args)
    address = parse_address(args.web, token)
    _check_tls(args)
    return token, address, web_proxies(args)


def _check_tls(args: argparse.Namespace) -> None:
    if bool(args.web_cert) != bool(args.web_key):
        raise ValueError("--web-cert and --web-key go together")
    for option, value in (("--web-cert", args.web_cert), ("--web-key", args.web_key)):
        if value and not Path(value).is_file():
            raise ValueError(f"{option} {value}: no such file")


def web_attach(args: argparse.Namespace, bench: bool) -> Callable[..., Callable[[], None]] | None:
    """What the runtime calls to serve the view, or ``None`` without ``--web``; raises
    ``ValueError`` with a clear message on a bad address, a missing or weak token or a missing extra."""
    if not args.web:
        explicit = args.web_token and os.environ.get("TABLECTL_WEB_TOKEN") != args.web_token
        if explicit or args.web_token_file or args.web_host or args.web_cert or args.web_key or args.web_proxy:
            raise ValueError(
                "--web-token, --web-token-file, --web-host, --web-proxy, --web-cert and --web-key need --web"
            )
        if args.view_socket_group and not args.view_socket:
            raise ValueError("--view-socket-group needs --view-socket")
        if args.view_socket:
            return _socket_only(args, bench)
        return None
    try:
        from controller.web.attach import serve_table
    except ImportError as exc:
        from controller.host import install_hint

        raise ValueError(f"--web needs the web extra ({exc}); install it: {install_hint('web')}") from None
    token, address, proxies = web_listening(args)
    seed = getattr(args, "seed", 1)
    hosts, cert, key = tuple(args.web_host), args.web_cert, args.web_key

    def attach(
        runtime: TableRuntime, sims: Mapping[str, object] | None = None, servers: Mapping[str, object] | None = None
    ) -> Callable[[], None]:
        sims = sims if bench else None
        return serve_table(
            runtime,
            address,
            token,
            sims,
            servers,
            seed,
            hosts=hosts,
            cert=cert,
            key=key,
            proxies=proxies,
            socket_path=args.view_socket,
            group=args.view_socket_group,
        )[1]

    return attach


def _socket_only(args: argparse.Namespace, bench: bool) -> Callable[..., Callable[[], None]]:
    """The table offered on ``--view-socket`` alone: its views run elsewhere (their own unit)."""
    try:
        from controller.web.attach import publish_table
    except ImportError as exc:
        from controller.host import install_hint

        raise ValueError(f"--view-socket needs the web extra ({exc}); install it: {install_hint('web')}") from None
    if args.view_socket_group:
        import grp

        try:
            grp.getgrnam(args.view_socket_group)
        except KeyError:
            raise ValueError(f"--view-socket-group {args.view_socket_group!r}: no such group") from None
    seed = getattr(args, "seed", 1)

    def attach(
        runtime: TableRuntime, sims: Mapping[str, object] | None = None, servers: Mapping[str, object] | None = None
    ) -> Callable[[], None]:
        sims = sims if bench else None
        return publish_table(runtime, args.view_socket, sims, servers, seed, args.view_socket_group)

    return attach

"""``tablectl web token``: a new random token for a web view (128 bits, URL-safe base64).

It is printed, or with ``--out FILE`` written to a new file only its owner can read (0600) and
given to the view with ``--web-token-file FILE``."""

from __future__ import annotations

import argparse
import os
import secrets
import sys

__all__ = ["options", "run", "new_token"]

TOKEN_BYTES = 16
"""128 bits."""


def new_token() -> str:
    """A fresh token: :data:`TOKEN_BYTES` random bytes, URL-safe base64 (22 characters), never
    starting with ``-`` (one in 64 did: ``--web-token TOKEN`` then took it for an option)."""
    while True:
        token = secrets.token_urlsafe(TOKEN_BYTES)
        if not token.startswith("-"):
            return token


def options(p: argparse.ArgumentParser) -> None:
    """Add ``tablectl web token``'s options to its parser ``p``."""
    p.add_argument("--out", metavar="FILE", help="write it to FILE (mode 0600, never over an existing file)")


def run(args: argparse.Namespace) -> int:
    """Print a token, or write it to ``--out``."""
    token = new_token()
    if not args.out:
        print(token)
        return 0
    try:
        fd = os.open(args.out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        print(f"tablectl web token: --out {args.out}: the file exists (a token is never overwritten)", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"tablectl web token: --out {args.out}: {exc.strerror}", file=sys.stderr)
        return 2
    with os.fdopen(fd, "w") as f:
        f.write(token + "\n")
    os.chmod(args.out, 0o600)  # whatever the umask
    print(f"tablectl web token: wrote a 128-bit token to {args.out} (mode 0600); use --web-token-file {args.out}")
    return 0

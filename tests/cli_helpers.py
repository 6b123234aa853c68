"""Run ``tablectl`` in the test's process and take its exit status, standard output and error."""

from __future__ import annotations

import contextlib
import io

from controller.cli import main as tablectl


def cli(*args: str) -> tuple[int, str, str]:
    """``tablectl ARGS``: (exit status, standard output, standard error)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = tablectl(list(args))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()

"""The command that adds an extra (``floor``, ``web``) to tablectl the way this tablectl was
installed: an editable install from a checkout (``pip install -e 'CHECKOUT[floor]'``), a wheel
(``pip install 'tablectl-X.whl[floor]'``), a source folder, or a package index. Told from the
installed distribution's ``direct_url.json`` (PEP 610) when a hint is shown, never at start-up."""

from __future__ import annotations

import json
import shlex
import sys
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote, urlparse

__all__ = ["install_command", "install_hint"]


def install_command(extras: str, installed: bool, direct_url: Mapping[str, Any] | None, python: str) -> str:
    """The pip command adding ``extras`` (e.g. ``"floor"`` or ``"web,floor"``) to a tablectl run
    by the interpreter ``python``: not ``installed`` (run from a checkout), or installed with the
    ``direct_url.json`` ``direct_url`` (``None``: from a package index)."""
    pip = f"{shlex.quote(python)} -m pip install"
    if not installed:
        return f"{pip} -e {shlex.quote(f'.[{extras}]')} (in the checkout)"
    url = str(direct_url.get("url", "")) if direct_url else ""
    if not url.startswith("file:"):
        return f"{pip} {shlex.quote(f'tablectl[{extras}]')}"
    path = unquote(urlparse(url).path)
    editable = bool(direct_url and direct_url.get("dir_info", {}).get("editable"))
    return f"{pip}{' -e' if editable else ''} {shlex.quote(f'{path}[{extras}]')}"


def _installed() -> tuple[bool, dict[str, Any] | None]:
    """Whether tablectl is installed, and its ``direct_url.json`` (``None``: from an index). A
    checkout's ``tablectl.egg-info`` (found first when the checkout is the working folder) has
    none: the installed distribution that has one is the one that applies."""
    from importlib import metadata

    found = list(metadata.distributions(name="tablectl"))
    for dist in found:
        text = dist.read_text("direct_url.json")
        if text:
            try:
                direct_url = json.loads(text)
            except ValueError:
                continue
            if isinstance(direct_url, dict):
                return True, direct_url
    return bool(found), None


def install_hint(extras: str) -> str:
    """``install_command`` for this interpreter and this tablectl, e.g. for an error message:
    "install the floor extra: /opt/tablectl/.venv/bin/python -m pip install '/opt/tablectl/tablectl-0.1.0-py3-none-any.whl[floor]'"."""
    installed, direct_url = _installed()
    return install_command(extras, installed, direct_url, sys.executable or "python3")

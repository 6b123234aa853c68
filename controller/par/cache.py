"""Where computed strategy tables are kept between runs: ``$XDG_CACHE_HOME/tablectl/par``
(``~/.cache/tablectl/par``), one ``.npz`` file per table, named by a hash of what it depends on.

A table is computed at its first use and written here (atomically); a missing, unreadable or
unwritable cache only means computing again. ``TABLECTL_CACHE_DIR`` overrides the folder; set
it to an empty string to keep nothing on disk."""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["cache_dir", "cached_arrays", "cached_json"]


def cache_dir() -> Path | None:
    """The cache folder, or ``None`` when caching is switched off."""
    env = os.environ.get("TABLECTL_CACHE_DIR")
    if env is not None:
        return Path(env) if env else None
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tablectl" / "par"


def cached_arrays(name: str, key: str, compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The arrays ``compute()`` returns, read from the cache file for (``name``, ``key``) when
    present, else computed and written there."""
    folder = cache_dir()
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    path = folder / f"{name}-{digest}.npz" if folder else None
    if path is not None and path.exists():
        try:
            with np.load(path) as data:
                return {k: data[k] for k in data.files}
        except (OSError, ValueError, KeyError):
            pass  # a damaged file: compute again and replace it
    arrays = compute()
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                np.savez(f, **arrays)
            os.replace(tmp, path)
        except OSError:
            pass
    return arrays


def cached_json(name: str, key: str, compute: Callable[[], Any]) -> Any:
    """Like :func:`cached_arrays` for a JSON-able value (a ``.json`` file)."""
    import json

    folder = cache_dir()
    digest = hashlib.sha256(key.encode()).hexdigest()[:16]
    path = folder / f"{name}-{digest}.json" if folder else None
    if path is not None and path.exists():
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            pass
    value = compute()
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp")
            with os.fdopen(fd, "w") as f:
                json.dump(value, f)
            os.replace(tmp, path)
        except OSError:
            pass
    return value

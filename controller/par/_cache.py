"""Where computed par results are kept: one file per result, named by a hash of what it was
computed from (a paytable's canonical content, the wagers' sizes, the solver's version), never
by a paytable's name or object.

A result is looked for, in order, in the process (computed or read once per process), in the
package data shipped for the shipped paytables (``controller/par/data/``, made by
``python -m controller.par.shipped``), and in the user's cache folder (``$XDG_CACHE_HOME/tablectl/par``,
else ``~/.cache/tablectl/par``; ``TABLECTL_CACHE_DIR`` moves it, an empty value keeps nothing on
disk). Only when none has it is it computed, once, with a note and a progress bar on stderr, and
written to the cache folder.

A file is gzip-compressed JSON: the result kind, its key, the inputs it was computed from (for
people), the payload, and the SHA-256 of kind, key and payload. It is written atomically (a
0600 temporary file in the folder, then renamed over the name). A file that cannot be read, is
not for the key asked, or whose hash does not match is never used: it is logged as a warning and
the result is computed again (and the file replaced).
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import logging
import os
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

if TYPE_CHECKING:
    import numpy.typing as npt

    from controller.par.combos import Array

__all__ = [
    "Progress",
    "content_key",
    "file_name",
    "encode_entry",
    "decode_entry",
    "read_entry",
    "cached",
    "pack_array",
    "unpack_array",
]

log = logging.getLogger("controller.par")

FORMAT = "tablectl-par 1"
"""The file format's name and version (a file of another format is not read)."""


class CacheError(ValueError):
    """A cache file that must not be used: unreadable, of another format or key, or damaged."""


class Progress(Protocol):
    """What a solver reports its progress to (a tqdm bar, or nothing)."""

    def update(self, n: float = 1) -> object: ...


def cache_dir() -> Path | None:
    """The user's cache folder for par results, or ``None`` when caching is switched off."""
    env = os.environ.get("TABLECTL_CACHE_DIR")
    if env is not None:
        return Path(env) if env else None
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tablectl" / "par"


def canonical(value: object) -> str:
    """``value`` as canonical JSON (sorted keys, no spaces): what hashes are taken of."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False)


def content_key(kind: str, inputs: object) -> str:
    """The key of a result of ``kind`` computed from ``inputs`` (JSON-able, canonical content)."""
    return hashlib.sha256(canonical({"kind": kind, "inputs": inputs}).encode()).hexdigest()[:32]


def file_name(kind: str, key: str) -> str:
    """The file a result is kept in, in the cache folder or the shipped data."""
    return f"{kind}-{key}.json.gz"


def _digest(kind: str, key: str, payload: object) -> str:
    return hashlib.sha256(canonical({"kind": kind, "key": key, "payload": payload}).encode()).hexdigest()


def encode_entry(kind: str, key: str, inputs: object, payload: object) -> bytes:
    """A result as file bytes (gzip with no time stamp: the same result gives the same bytes)."""
    entry = {
        "format": FORMAT,
        "kind": kind,
        "key": key,
        "inputs": inputs,
        "sha256": _digest(kind, key, payload),
        "payload": payload,
    }
    return gzip.compress(canonical(entry).encode(), compresslevel=9, mtime=0)


def decode_entry(data: bytes, kind: str, key: str) -> Any:
    """The payload of file bytes made by :func:`encode_entry` for (``kind``, ``key``); raises
    :class:`CacheError` saying what is wrong when they are not exactly that."""
    try:
        entry = json.loads(gzip.decompress(data))
    except (OSError, EOFError, ValueError) as exc:
        raise CacheError(f"not a readable cache file ({type(exc).__name__}: {exc})") from None
    if not isinstance(entry, dict) or entry.get("format") != FORMAT:
        raise CacheError(f"not a {FORMAT} file")
    if entry.get("kind") != kind or entry.get("key") != key:
        raise CacheError(f"holds {entry.get('kind')!r} {entry.get('key')!r}, not {kind!r} {key!r}")
    if "payload" not in entry:
        raise CacheError("no payload")
    try:
        digest = _digest(kind, key, entry["payload"])
    except ValueError as exc:
        raise CacheError(f"payload not canonical JSON: {exc}") from None
    if entry.get("sha256") != digest:
        raise CacheError("its SHA-256 does not match its content (damaged or edited)")
    return entry["payload"]


def write_entry(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically: a 0600 temporary file beside it, then a rename."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def shipped_file(kind: str, key: str) -> bytes | None:
    """The shipped data file for (``kind``, ``key``), or ``None`` when none is shipped."""
    try:
        return (resources.files("controller.par") / "data" / file_name(kind, key)).read_bytes()
    except (FileNotFoundError, NotADirectoryError, OSError):
        return None


def read_entry(kind: str, key: str) -> Any | None:
    """The payload kept for (``kind``, ``key``), shipped or in the cache folder, or ``None``.
    A damaged file is logged as a warning and not used."""
    shipped = shipped_file(kind, key)
    if shipped is not None:
        try:
            return decode_entry(shipped, kind, key)
        except CacheError as exc:
            log.warning("tablectl: shipped par data %s: %s: computing it instead", file_name(kind, key), exc)
    folder = cache_dir()
    if folder is None:
        return None
    path = folder / file_name(kind, key)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        log.warning("tablectl: par cache %s: cannot read it (%s): computing it again", path, exc)
        return None
    try:
        return decode_entry(data, kind, key)
    except CacheError as exc:
        log.warning("tablectl: par cache %s: %s: computing it again", path, exc)
        return None


@contextmanager
def progress_bar(what: str, total: int, unit: str) -> Iterator[Progress]:
    """A tqdm bar on stderr for computing ``what``, after a line saying so."""
    from tqdm import tqdm

    kept = cache_dir() is not None
    note = "first run only" if kept else "computed every run: no cache folder (TABLECTL_CACHE_DIR is empty)"
    print(f"computing {what}, {note}", file=sys.stderr, flush=True)
    tqdm.monitor_interval = 0  # no monitor thread: the bar is updated from the computing thread only
    with tqdm(total=total, unit=unit, desc=what, file=sys.stderr, mininterval=0.5, leave=False) as bar:
        yield bar


def cached(
    kind: str,
    inputs: object,
    compute: Callable[[Progress | None], Any],
    *,
    what: str,
    steps: int,
    unit: str = "step",
    progress: bool = True,
) -> Any:
    """The payload for ``kind`` computed from ``inputs``: kept (shipped or in the cache folder)
    when it is, else ``compute(bar)`` with a progress bar of ``steps`` steps (``what`` names it
    for people), written to the cache folder (a folder that cannot be written is logged)."""
    key = content_key(kind, inputs)
    found = read_entry(kind, key)
    if found is not None:
        return found
    if progress:
        with progress_bar(what, steps, unit) as bar:
            payload = compute(bar)
    else:
        payload = compute(None)
    folder = cache_dir()
    if folder is not None:
        path = folder / file_name(kind, key)
        try:
            write_entry(path, encode_entry(kind, key, inputs, payload))
        except OSError as exc:
            log.warning("tablectl: par cache %s: cannot write it (%s): it will be computed again", path, exc)
    return payload


class PackedArray(TypedDict):
    """A numpy array as JSON (:func:`pack_array`)."""

    dtype: str
    shape: list[int]
    data: str


def pack_array(array: npt.ArrayLike | None) -> PackedArray:
    """A numpy array as JSON: dtype, shape, and its bytes (little-endian) in base64."""
    import numpy as np

    a = np.ascontiguousarray(array)
    a = a.astype(a.dtype.newbyteorder("<"), copy=False)
    return {"dtype": a.dtype.str, "shape": list(a.shape), "data": base64.b64encode(a.tobytes()).decode()}


def unpack_array(packed: Mapping[str, Any]) -> Array:
    """The numpy array :func:`pack_array` wrote; :class:`CacheError` when it does not add up."""
    import numpy as np

    try:
        dtype = np.dtype(str(packed["dtype"]))
        if dtype.kind not in "biuf":
            raise CacheError(f"array of dtype {dtype} not allowed")
        shape = tuple(int(n) for n in packed["shape"])
        raw = base64.b64decode(str(packed["data"]), validate=True)
        return np.frombuffer(raw, dtype=dtype).reshape(shape).copy()
    except (KeyError, TypeError, ValueError) as exc:
        raise CacheError(f"bad array ({type(exc).__name__}: {exc})") from None

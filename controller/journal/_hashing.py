"""The journal's hashes at the bottom of the package: the canonical JSON text a record's data is
stored and hashed as, and the hashes of a record, a snapshot and ``meta`` (SHA-256, or with a
key HMAC-SHA-256). :mod:`controller.journal.store` names them to others; the block codec
(:mod:`controller.journal.compact`) and the record reader (:mod:`controller.journal.stored`)
use them without importing the store."""

from __future__ import annotations

import hashlib
import hmac
import json
import math
import re
from collections.abc import Iterable, Mapping
from types import ModuleType
from typing import cast

__all__ = ["UNSIGNED_META", "canonical", "record_hash", "snapshot_hash", "meta_hash"]

UNSIGNED_META = ("head_seq", "head_hash", "meta_hash")
"""``meta`` keys outside ``meta_hash``: the head changes with every record (the chain covers it)."""


_CANONICAL = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""``json.dumps`` with these settings, made once: ``dumps`` makes an encoder on every call."""

_orjson: ModuleType | None
try:
    import orjson as _orjson
except ImportError:  # the floor extra not installed: the stdlib's encoder alone
    _orjson = None

_ORJSON_OPTIONS = (
    0
    if _orjson is None
    else _orjson.OPT_SORT_KEYS
    | _orjson.OPT_PASSTHROUGH_SUBCLASS
    | _orjson.OPT_PASSTHROUGH_DATACLASS  # refused as the stdlib refuses them
    | _orjson.OPT_PASSTHROUGH_DATETIME
)
"""Sorted keys; a subclass of str, int, float, dict or list (an ``IntEnum``, a ``str`` enum) goes to
:func:`_not_plain` and so the stdlib's way, as does a dataclass or a datetime (passed through by
default when no option serializes them)."""

_TINY_EXPONENT = re.compile(rb"[0-9]e-")
"""Where orjson's text may differ from the stdlib's for a value both write (looked for in
:func:`canonical` by plain substrings first, a regular expression costing ten times more): a float
below 1e-4 (the stdlib's ``1e-05`` is orjson's ``0.00001``, ``1e-07`` its ``1e-7``), and ``null``,
which is orjson's NaN and infinities too (the stdlib's ``NaN``, ``Infinity``). A string that only
looks like one costs the stdlib's time, never a different text."""


_INFINITIES = (math.inf, -math.inf)


def _finite(data: object) -> bool:
    """Whether ``data`` holds no NaN and no infinity (orjson writes them ``null``): a third of the
    stdlib's time for a round's record, whose ``null`` values are ``None``. Only containers go on
    the stack; each one's values are looked at in place (a round's record has hundreds of leaves,
    and pushing and popping each one was most of the walk)."""
    stack = [data]
    while stack:
        value = stack.pop()
        kind = type(value)  # by exact type, not isinstance: half the time (a subclass never gets here)
        if kind is dict:
            values: Iterable[object] = cast("dict[object, object]", value).values()
        elif kind is list or kind is tuple:
            values = cast("list[object]", value)
        elif kind is float:  # data itself a float
            values = (value,)
        else:
            continue
        for item in values:
            kind = type(item)
            if kind is dict or kind is list or kind is tuple:
                stack.append(item)
            elif kind is float and (item != item or item in _INFINITIES):  # NaN is not equal to itself
                return False
    return True


def _not_plain(value: object) -> object:
    raise TypeError(f"not plain JSON: {type(value).__name__}")


def canonical(data: object) -> str:
    """The JSON text a record's data is stored and hashed as: ``json.dumps(data, sort_keys=True,
    separators=(",", ":"), ensure_ascii=False)``. Written by orjson when it is installed (a twentieth
    of the stdlib's time: a third of a journal write's CPU was this) wherever orjson writes the same
    text (tests/test_journal_canonical.py), else by the stdlib: a value orjson refuses (a key that is
    not a string, an integer past 64 bits, a lone surrogate, a subclass, a dataclass, a date or time,
    nesting past orjson's depth) or whose text may differ (:data:`_TINY_EXPONENT`) is the stdlib's, its error
    included. Unlike the stdlib, orjson writes an ``enum.Enum`` member that is no ``str`` or
    ``int`` (its value) and a ``uuid.UUID`` (its text) instead of raising ``TypeError``."""
    if _orjson is not None:
        try:
            text: bytes = _orjson.dumps(data, default=_not_plain, option=_ORJSON_OPTIONS)
        except TypeError:  # orjson.JSONEncodeError is one
            return _CANONICAL.encode(data)
        if (
            b"0.0000" not in text
            and (b"e-" not in text or not _TINY_EXPONENT.search(text))
            and (b"null" not in text or _finite(data))
        ):
            return text.decode()
    return _CANONICAL.encode(data)


def _digest(message: bytes, key: bytes | None) -> str:
    if key is not None:
        return hmac.new(key, message, hashlib.sha256).hexdigest()
    return hashlib.sha256(message).hexdigest()


def record_hash(
    prev: str, seq: int, at: float, kind: str, event: bool, data_text: str, key: bytes | None = None
) -> str:
    """The hash of one record, chained to ``prev``."""
    return _digest(f"{prev}\n{seq}\n{at!r}\n{kind}\n{int(event)}\n{data_text}".encode(), key)


def snapshot_hash(after_hash: str, seq: int, round_no: int, state_text: str, key: bytes | None = None) -> str:
    """The hash binding a snapshot to the record it follows (``after_hash``: that record's hash)."""
    return _digest(f"snapshot\n{after_hash}\n{seq}\n{round_no}\n{state_text}".encode(), key)


def meta_hash(meta: Mapping[str, str], key: bytes | None = None) -> str:
    """The hash of the ``meta`` values outside :data:`UNSIGNED_META` (schema version, creation
    time, pruning anchor, pruned meters): an HMAC with a key, so only the key's holder can move
    the anchor."""
    signed = {k: v for k, v in meta.items() if k not in UNSIGNED_META}
    return _digest(("meta\n" + canonical(signed)).encode(), key)

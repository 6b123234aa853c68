"""The games tablectl settles, by name, and settling a round record end to end.

Each game module offers ``read_round(data, table)`` (check a record, raise ``RecordError``),
``settle(round, table)`` (pure settlement) and ``round_record(round)`` (the record again), and
gathers them in its ``SPEC`` (:class:`controller.game.record._spec.GameSpec`), which the game's
definition holds (``controller.game.<name>``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from controller.configuration import TableConfig, config_dir, default_table_path, load_table
from controller.game.record._read import MAX_RECORD_BYTES, MAX_RECORD_DEPTH, RecordError, parse_record
from controller.game.record._spec import SPECS, GameSpec, spec_for
from controller.game.record._void import VOID_KEY, settle_void
from controller.wagers import Settlement

__all__ = [
    "Game",
    "GameSpec",
    "GAMES",
    "RecordError",
    "settle_record",
    "settle_json",
    "settle_written",
    "record_json",
    "resolve_table_path",
    "spec_for",
]


Game = GameSpec
"""The old name of a game's record reader, settlement and writer: its :class:`GameSpec`."""

GAMES = SPECS
"""Every game's spec, by name (:data:`controller.game.record._spec.SPECS`: a lookup imports that game only)."""


_KNOWN: dict[str, tuple[GameSpec, frozenset[str]]] = {}
"""Each game's spec and the keys its round record may have (its own and ``void``), by name, found
once: a table settles a round of its game at every round's end."""


def resolve_table_path(text: str) -> Path:
    """A record's ``table`` path: as given, else relative to the repository (``config/...``)."""
    path = Path(text)
    if path.is_absolute() or path.exists():
        return path
    return config_dir().parent / path


def settle_record(data: object, table: TableConfig | None = None) -> Settlement:
    """Check and settle one round record. Raises ``RecordError`` (every problem by JSON path)
    or ``ConfigError`` (the table config); nothing is settled unless everything is right."""
    if not isinstance(data, dict):
        raise RecordError(["$: a round record must be a JSON object"])
    name = data.get("game")
    kept = _KNOWN.get(name) if type(name) is str else None
    if kept is None:
        if not isinstance(name, str) or name not in GAMES:
            raise RecordError([f"$.game: unknown game {str(name)[:60]!r} (known: {', '.join(sorted(GAMES))})"])
        game = GAMES[name]
        kept = _KNOWN[name] = (game, game.top_keys | {VOID_KEY})
    game, keys = kept
    if not data.keys() <= keys:
        known = ", ".join(sorted(keys))
        raise RecordError([f"$.{k}: unknown key (known: {known})" for k in data if k not in keys])
    if table is None:
        raw = data.get("table")
        if raw is not None and not isinstance(raw, str):
            raise RecordError([f"$.table: must be the path of a table config, got {str(raw)[:60]}"])
        table = load_table(resolve_table_path(raw) if isinstance(raw, str) else default_table_path(game.name))
    if table.game != game.name:
        raise RecordError([f"$.table: {table.path} is a {table.game} table, not {game.name}"])
    expected = data.get("table_sha256")
    if expected is not None and expected != table.sha256:
        raise RecordError(
            [
                f"$.table_sha256: the table config {table.path} or its paytables changed since the round was "
                f"played (sha256 {str(expected)[:16]}..., now {table.sha256[:16]}...): settle it with the table it was "
                "played under"
            ]
        )
    if VOID_KEY in data:  # a round voided at the table: every wager returned, whatever it had dealt
        return settle_void(data, table)
    return game.settle(game.read_round(data, table), table)


def record_json(record: object) -> bytes:
    """A round record as the JSON bytes it is written, recalled and re-settled as; a value JSON
    cannot hold (NaN, infinity, an object that is not data) is a ``RecordError``."""
    try:
        return json.dumps(record, allow_nan=False).encode()
    except (TypeError, ValueError) as exc:
        raise RecordError([f"$: not a round record: {exc}"]) from None


def settle_json(
    raw: bytes, table: TableConfig | None = None, tables: dict[str, TableConfig] | None = None
) -> Settlement:
    """Settle one round record given as JSON bytes: the one settlement ``tablectl settle`` runs
    and the table runs at each round's end (with ``record_json`` of its record), so that what
    the table pays is what a re-settlement of its record pays. ``table``: the table config to
    settle under (else the record's ``table``, loaded once into ``tables`` when given). Raises
    ``RecordError`` (every problem by JSON path) or ``ConfigError``."""
    data = parse_record(raw)
    if table is None and tables is not None and isinstance(data, dict) and data.get("game") in GAMES:
        raw_path = data.get("table")
        path = str(resolve_table_path(raw_path) if isinstance(raw_path, str) else default_table_path(data["game"]))
        if path not in tables:
            tables[path] = load_table(path)
        table = tables[path]
    return settle_record(data, table)


def settle_written(record: object, table: TableConfig) -> Settlement:
    """:func:`settle_json` of ``record_json(record)`` under ``table``: what the table runs on its
    own round record at the round's end, so that what it pays is what a re-settlement of the
    record pays. A record made of JSON's own values only, within a record's limits
    (:func:`_json_size`), is what its JSON reads back as, value for value and type for type: it is
    settled as it is, without writing and reading it (a table's record is, at every round's end).
    Else its JSON is read back without :func:`parse_record`'s checks for a key twice in one object
    when what is read back equals ``record`` (a key twice in the JSON would be two keys of
    ``record`` written as one, then read back as one: unequal), the same value :func:`parse_record`
    gives; else (a key that is no string, a tuple, a record too large or too deep) by
    :func:`settle_json` itself."""
    if _json_size(record, 0) <= MAX_RECORD_BYTES:
        return settle_record(record, table)
    raw = record_json(record)
    if len(raw) <= MAX_RECORD_BYTES and raw.count(b"[") + raw.count(b"{") <= MAX_RECORD_DEPTH:
        data = json.loads(raw)
        if data == record:
            return settle_record(data, table)
    return settle_json(raw, table)


_NOT_JSON = MAX_RECORD_BYTES + 1
"""What :func:`_json_size` gives for a value that is not JSON's own or not within a record's limits."""
_LARGEST_INT = 10**18
"""Integers below this in size are at most 20 characters of JSON."""


def _json_size(value: object, depth: int) -> int:
    """At least the length of ``value``'s JSON (``record_json``) when it is made of JSON's own
    values only: exactly ``str``, ``int`` (below 10**18 in size), finite ``float``, ``bool``,
    ``None``, ``list`` and ``dict`` with ``str`` keys, nested at most ``MAX_RECORD_DEPTH`` levels
    (``depth``: the levels around ``value``); else more than ``MAX_RECORD_BYTES``. Such a value is
    what its JSON reads back as (``json.loads`` gives the same types), and ``parse_record`` takes
    its JSON when this is at most ``MAX_RECORD_BYTES`` (the bound: a character escaped takes at
    most 12 bytes, a number or a constant at most 24, the brackets and separators 6 a member)."""
    if type(value) is str:
        return 12 * len(value) + 2
    if type(value) is int:
        return 24 if -_LARGEST_INT < value < _LARGEST_INT else _NOT_JSON
    if type(value) is bool or value is None:
        return 5
    if type(value) is float:
        return 24 if math.isfinite(value) else _NOT_JSON
    if depth >= MAX_RECORD_DEPTH:
        return _NOT_JSON
    size = 2
    if type(value) is dict:
        for key, item in value.items():
            if type(key) is not str:
                return _NOT_JSON
            size += 12 * len(key) + 8 + _json_size(item, depth + 1)
        return size
    if type(value) is list:
        for item in value:
            size += 2 + _json_size(item, depth + 1)
        return size
    return _NOT_JSON

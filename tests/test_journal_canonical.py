"""The journal's canonical text (``controller.journal.store.canonical``, written by orjson where it
writes the same text) is exactly the stdlib's ``json`` text, or its error, for every value: the
record hashes and the journals depend on it byte for byte."""

from __future__ import annotations

import dataclasses
import datetime
import json
import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.journal import _hashing, store

STDLIB = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
"""Written from the journal's documented text (``json.dumps`` with sorted keys, no spaces, not
ASCII-escaped), not taken from the module under test."""


def stdlib(value: object) -> str | type[BaseException]:
    try:
        return STDLIB.encode(value)
    except (TypeError, ValueError, RecursionError) as exc:
        return type(exc)


def written(value: object) -> str | type[BaseException]:
    try:
        return store.canonical(value)
    except (TypeError, ValueError, RecursionError) as exc:
        return type(exc)


FLOATS = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
    [1e-5, 1e-7, -3.9e-8, 0.00001234, 1e-4, 1e16, 1e22, 5e-324, -0.0, 2.0**63, math.nan, math.inf, -math.inf]
)
SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | FLOATS
    | st.text()  # every code point, lone surrogates included
)
KEYS = st.text() | st.integers(-5, 5)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=5) | st.lists(inner, max_size=3).map(tuple) | st.dictionaries(KEYS, inner, max_size=5)
    ),
    max_leaves=25,
)


@settings(max_examples=1000)
@given(VALUES)
def test_the_text_is_the_stdlibs_for_any_value(value: Any) -> None:
    assert written(value) == stdlib(value)


CASES: list[tuple[str, Any]] = [
    ("a record's data", {"seat": 3, "card": "Kd", "at": 1765000000.25, "hold": None, "spots": [1, 2]}),
    ("a float below 1e-4 (orjson: 0.00001)", {"v": 1e-5}),
    ("a float with a negative exponent (orjson: 1e-7)", [1e-7]),
    ("NaN beside a None (orjson writes both null)", {"a": None, "b": math.nan}),
    ("infinity", [math.inf, -math.inf]),
    ("NaN alone", math.nan),
    ("infinity alone beside a None", [None, -math.inf]),
    ("NaN deep in a round's record", {"hands": [{"seat": 1, "cards": None, "pays": ({"x": [None, 1.5]}, math.nan)}]}),
    ("infinity after a dict's finite values", {"a": {"b": None, "c": 2.5}, "d": [[], {}, (math.inf,)]}),
    ("a None alone", {"a": None}),
    ("an integer past 64 bits", {"n": 2**64}),
    ("a key that is an integer", {1: "a", "b": 2}),
    ("keys of mixed types", {1: "a", None: 2}),
    ("a lone surrogate", {"s": "\ud800"}),
    ("a tuple", {"t": (1, "x", 2.5)}),
    ("keys past the ASCII range in order", {"é": 1, "z": 2, "\U0001f600": 3, "\uffff": 4}),
    ("control characters", {"s": "\x00\x01\n\t\x1f\x7f\u2028"}),
    ("a string that looks like a tiny float", {"s": "0.00001 1e-5 null"}),
    ("nesting past orjson's depth", {"d": json.loads("[" * 300 + "]" * 300)}),
    ("a dict subclass", {"d": type("D", (dict,), {})(a=1)}),
    ("a str subclass", [type("S", (str,), {})("x")]),
    ("a set", {"s": {1}}),
    ("bytes", {"b": b"x"}),
]


@pytest.mark.parametrize(("name", "value"), CASES, ids=[c[0] for c in CASES])
def test_the_text_is_the_stdlibs_where_orjson_differs(name: str, value: Any) -> None:
    assert written(value) == stdlib(value), name


def test_a_circular_value_is_refused_as_the_stdlib_refuses_it() -> None:
    loop: list[Any] = []
    loop.append(loop)
    assert written(loop) == stdlib(loop)
    assert stdlib(loop) is ValueError


def test_without_orjson_the_stdlib_writes_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_hashing, "_orjson", None)
    for _, value in CASES[:6]:
        assert written(value) == stdlib(value)


def test_the_journals_hashes_follow_the_stdlibs_text(tmp_path: Any) -> None:
    """A record written holds the stdlib's text, and its hash is over that text."""
    journal = store.SqliteJournal(tmp_path / "j.db", clock=lambda: 1765000000.5)
    try:
        data = {"v": 1e-5, "n": None, "x": [1.5, "é"]}
        seq = journal.append("Test", data)
        row = journal.db.execute("SELECT data, prev, hash FROM records WHERE seq = ?", (seq,)).fetchone()
    finally:
        journal.close()
    assert row[0] == STDLIB.encode(data)
    assert row[2] == store.record_hash(row[1], seq, 1765000000.5, "Test", False, STDLIB.encode(data))


@pytest.mark.parametrize(
    "value",
    [
        dataclasses.make_dataclass("Seat", [("n", int)], frozen=True)(3),
        datetime.datetime(2026, 12, 7, 1, 2, 3),
        datetime.date(2026, 12, 7),
        datetime.time(1, 2, 3),
    ],
    ids=["dataclass", "datetime", "date", "time"],
)
def test_a_dataclass_or_a_datetime_is_refused_as_the_stdlib_refuses_it(value: object) -> None:
    assert stdlib({"v": value}) is TypeError
    assert written({"v": value}) is TypeError

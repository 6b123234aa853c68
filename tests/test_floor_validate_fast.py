"""The ingest's quick look at a message's values (``_plain``) says "fine" only where the full
walk (``_walk``, which names the JSON path of what is wrong) finds nothing: at every limit, just
inside and just past it, and for any JSON value hypothesis makes."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.floor.validate import MAX_DEPTH, MAX_INT, MAX_ITEMS, MAX_STRING, BadMessage, _plain, _walk


def walk_ok(value: Any) -> bool:
    try:
        _walk(value)
    except BadMessage:
        return False
    return True


def nested(depth: int) -> Any:
    value: Any = 1
    for i in range(depth - 1):
        value = [value] if i % 2 else {"k": value}
    return value


CASES: list[tuple[str, Any, bool]] = [
    ("a real-looking record", {"v": 2, "seq": 7, "at": 1.5e9, "data": {"seat": 1, "cards": ["AS", "KD"]}}, True),
    ("nested to the limit", nested(MAX_DEPTH), True),
    ("nested one past it", nested(MAX_DEPTH + 1), False),
    ("as many values as allowed", [0] * (MAX_ITEMS - 1), True),
    ("one value more", [0] * MAX_ITEMS, False),
    ("the longest string", {"s": "x" * MAX_STRING}, True),
    ("a string too long", {"s": "x" * (MAX_STRING + 1)}, False),
    ("the longest key", {"k" * MAX_STRING: 1}, True),
    ("a key too long", {"k" * (MAX_STRING + 1): 1}, False),
    ("the largest integer", [MAX_INT, -MAX_INT], True),
    ("an integer too large", [MAX_INT + 1], False),
    ("an integer too small", [-MAX_INT - 1], False),
    ("2**70", {"n": 2**70}, False),
    ("infinity", {"n": math.inf}, False),
    ("minus infinity", [-math.inf], False),
    ("NaN", [math.nan], False),
    ("2**63 as a float", [2.0**63], True),
    ("past 2**63 as a float", [2.0**64], False),
    ("true, false and null", [True, False, None], True),
    ("an empty object and list", [{}, []], True),
]


@pytest.mark.parametrize(("name", "value", "fine"), CASES, ids=[c[0] for c in CASES])
def test_the_quick_look_agrees_with_the_walk_at_every_limit(name: str, value: Any, fine: bool) -> None:
    assert walk_ok(value) is fine, name
    assert _plain(value) is fine, name


_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.sampled_from([MAX_INT, MAX_INT + 1, -MAX_INT, -MAX_INT - 1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(["x" * MAX_STRING, "x" * (MAX_STRING + 1)]),
)
_json = st.recursive(
    _scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=4), inner, max_size=4)),
    max_leaves=40,
)


@settings(max_examples=300, deadline=None)
@given(value=_json, depth=st.integers(min_value=0, max_value=MAX_DEPTH + 1))
def test_the_quick_look_never_passes_what_the_walk_refuses(value: Any, depth: int) -> None:
    for _ in range(depth):
        value = [value]
    assert _plain(value) == walk_ok(value)

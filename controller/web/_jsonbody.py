"""A request's JSON body read strictly: a flat JSON object of small values, or a clear 400.

Python's ``json`` turns a 5,000-digit integer into a ``ValueError`` deep in ``int()`` and deep
nesting into a ``RecursionError``; both would be 500s. Here a body is refused (:class:`BadBody`)
when it is not UTF-8, not JSON, nested deeper than :data:`MAX_DEPTH`, holds a number longer than
:data:`MAX_NUMBER_DIGITS` characters or ``NaN``/``Infinity``, or is not an object.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import NoReturn

__all__ = ["BadBody", "parse_object", "MAX_DEPTH", "MAX_NUMBER_DIGITS"]

MAX_DEPTH = 4
MAX_NUMBER_DIGITS = 20


class BadBody(ValueError):
    """A body that is not an acceptable JSON object; the message says why."""


def _depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` outside strings (read before parsing, so a deep body
    never reaches the recursive parser)."""
    depth = deepest = 0
    in_string = escaped = False
    for ch in text:
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if deepest > MAX_DEPTH:
                return deepest
        elif ch in "]}":
            depth -= 1
    return deepest


def _number(kind: type[int] | type[float]) -> Callable[[str], int | float]:
    def parse(text: str) -> int | float:
        if len(text) > MAX_NUMBER_DIGITS:
            raise BadBody(f"a number of {len(text)} characters (at most {MAX_NUMBER_DIGITS})")
        value = kind(text)
        if isinstance(value, float) and not math.isfinite(value):
            raise BadBody(f"{text} is too large a number")
        return value

    return parse


def _constant(text: str) -> NoReturn:
    raise BadBody(f"{text} is not a JSON number")


def parse_object(body: bytes) -> dict[str, object]:
    """The JSON object in ``body``; raises :class:`BadBody` naming what is wrong."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadBody(f"the body is not UTF-8 (byte {exc.start})") from None
    if _depth(text) > MAX_DEPTH:
        raise BadBody(f"the body is nested deeper than {MAX_DEPTH} levels")
    try:
        value = json.loads(text, parse_int=_number(int), parse_float=_number(float), parse_constant=_constant)
    except json.JSONDecodeError as exc:
        raise BadBody(f"the body is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}") from None
    except RecursionError:
        raise BadBody("the body is nested too deeply") from None
    if not isinstance(value, dict):
        raise BadBody("the body must be a JSON object")
    return value

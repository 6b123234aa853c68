"""The table's settlement of its own record (``settle_written``) is ``tablectl settle``'s on the
record's JSON: a record of JSON's own values is settled as it is, without writing and reading its
JSON (issue 42 item 5), and every other record as its JSON reads back."""

from __future__ import annotations

import copy
import json
from enum import IntEnum
from pathlib import Path
from typing import Any

import pytest
from test_table_mississippi import Table, play_round

from controller.configuration import ConfigError, TableConfig
from controller.game.record import RecordError, record_json, settle_json, settle_written

RECORDS = Path(__file__).parent / "bad_input" / "records"


def outcome(settle: Any, record: object, table: TableConfig) -> tuple[object, ...]:
    """What settling ``record`` gives: the settlement, or the error and its problems."""
    try:
        return ("settled", settle(record, table))
    except RecordError as exc:
        return ("refused", exc.problems)
    except ConfigError as exc:
        return ("config", str(exc))


def by_its_json(record: object, table: TableConfig) -> Any:
    """``tablectl settle`` on the record's JSON (what the table's settlement must equal)."""
    return settle_json(record_json(record), table)


def played() -> tuple[dict[str, Any], TableConfig]:
    t = Table()
    play_round(t)
    return t.m.rounds[-1].record, t.m.config


def test_a_tables_record_is_settled_without_writing_its_json(monkeypatch: pytest.MonkeyPatch) -> None:
    record, table = played()
    expected = by_its_json(record, table)

    def written(record: object) -> bytes:
        raise AssertionError("the record's JSON was written")

    monkeypatch.setattr("controller.game.record._settle.record_json", written)
    assert settle_written(record, table) == expected
    t = Table()
    play_round(t)  # the table's own settlement at the round's end
    assert t.m.rounds[-1].settlement == expected


class Cents(IntEnum):
    FIVE = 500


class Text(str):
    pass


def _variants() -> dict[str, Any]:
    """A played record changed in each way its JSON would not read back as it is, or would be
    refused, and in ways it would."""

    def changed(change: Any) -> Any:
        def make(record: dict[str, Any]) -> dict[str, Any]:
            out = copy.deepcopy(record)
            change(out)
            return out

        return make

    seat = lambda r: r["seats"]["1"]  # noqa: E731
    deep: Any = "x"
    for _ in range(33):
        deep = [deep]
    return {
        "as played": changed(lambda r: None),
        "the cards a tuple": changed(lambda r: seat(r).__setitem__("cards", tuple(seat(r)["cards"].split()))),
        "the cards a list": changed(lambda r: seat(r).__setitem__("cards", seat(r)["cards"].split())),
        "a seat's key a number": changed(lambda r: r["seats"].__setitem__(1, r["seats"].pop("1"))),
        "a wager an IntEnum": changed(lambda r: seat(r)["wagers"].__setitem__("ante", Cents.FIVE)),
        "the cards a str subclass": changed(lambda r: seat(r).__setitem__("cards", Text(seat(r)["cards"]))),
        "a wager NaN": changed(lambda r: seat(r)["wagers"].__setitem__("ante", float("nan"))),
        "a wager a float": changed(lambda r: seat(r)["wagers"].__setitem__("ante", 500.0)),
        "a wager true": changed(lambda r: seat(r)["wagers"].__setitem__("ante", True)),
        "a wager of 10**20": changed(lambda r: seat(r)["wagers"].__setitem__("ante", 10**20)),
        "33 levels deep": changed(lambda r: r.__setitem__("deep", deep)),
        "32 levels deep": changed(lambda r: r.__setitem__("deep", deep[0][0])),
        "an astral key": changed(lambda r: r.__setitem__("\U0001f0a1" * 3, 1)),
        "over a megabyte": changed(lambda r: r.__setitem__("note", "\U0001f0a1" * 100_000)),
        "the cards a set": changed(lambda r: seat(r).__setitem__("cards", set(seat(r)["cards"].split()))),
    }


VARIANTS = _variants()


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_a_changed_record_settles_as_its_json_does(name: str) -> None:
    record, table = played()
    changed = VARIANTS[name](record)
    assert outcome(settle_written, changed, table) == outcome(by_its_json, changed, table)


@pytest.mark.parametrize("path", sorted(RECORDS.glob("*.json")), ids=lambda p: p.stem)
def test_each_bad_record_settles_as_its_json_does(path: Path) -> None:
    try:
        record = json.loads(path.read_bytes())
    except (ValueError, RecursionError):
        pytest.skip("not JSON (or nested deeper than Python's json reads)")
    _, table = played()
    assert outcome(settle_written, record, table) == outcome(by_its_json, record, table)

"""A table config under which a legal wager cannot be settled is refused at load (issue 40 item 7),
with file, line and the paragraph: Mississippi Stud's street limits against the ante (35.10(a),
(e), (g): 1x to 3x), Boston 5's first and second wagers against the ante (first_to_ante times;
24.10(b): the second equals the first), Three Card Poker's play wager (the ante, 20.6), pai gow's
bonus (11.15(b): the table's bonus_minimum) and envy (11.15(c)).

And every shipped table's legal minimum and maximum wagers, placed as the rules make them (the
amounts written here from the rules, not from the loader's check), settle through the function
``tablectl settle`` runs."""

from __future__ import annotations

import random
import re
import shutil
from pathlib import Path

import pytest
from table_helpers import pai_gow_record

from controller.configuration import ConfigError, TableConfig, config_dir, load_table
from controller.game.pai_gow._deal import deal
from controller.game.record import settle_record
from controller.vocab import deck

SHIPPED = sorted([*config_dir().glob("*.yaml"), *(config_dir() / "bench").glob("*.yaml")])


def copy_table(tmp_path: Path, game: str) -> Path:
    shutil.copytree(config_dir() / "paytables", tmp_path / "paytables")
    path = tmp_path / f"{game}.yaml"
    path.write_text((config_dir() / f"{game}.yaml").read_text())
    return path


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def refused(path: Path, key: str) -> str:
    """The load error's line for ``key`` (e.g. ``limits.third.min``), checked to name file and line."""
    with pytest.raises(ConfigError) as info:
        load_table(path)
    message = str(info.value)
    lines = [line for line in message.splitlines() if f": {key}: " in line]
    assert lines, message
    match = re.match(rf"{re.escape(str(path))}:(\d+): {re.escape(key)}: ", lines[0])
    assert match, lines[0]
    spot = key.split(".")[1]
    assert spot + ":" in path.read_text().splitlines()[int(match.group(1)) - 1], (lines[0], "names the spot's line")
    return lines[0]


@pytest.mark.parametrize(
    ("game", "old", "new", "key", "rule"),
    [
        # the case: a third-street minimum above the ante minimum
        ("mississippi_stud", "third: {min: 500,", "third: {min: 1000,", "limits.third.min", "35.10(a)"),
        ("mississippi_stud", "fourth: {min: 500,", "fourth: {min: 600,", "limits.fourth.min", "35.10(e)"),
        ("mississippi_stud", "fifth: {min: 500,", "fifth: {min: 501,", "limits.fifth.min", "35.10(g)"),
        (
            "mississippi_stud",
            "fifth: {min: 500, max: 30000}",
            "fifth: {min: 500, max: 29999}",
            "limits.fifth.max",
            "35.10(g)",
        ),
        ("boston5", "first: {min: 1000,", "first: {min: 1500,", "limits.first.min", "first_to_ante"),
        ("boston5", "second: {min: 1000,", "second: {min: 1001,", "limits.second.min", "24.10(b)"),
        (
            "boston5",
            "second: {min: 1000, max: 100000}",
            "second: {min: 1000, max: 99000}",
            "limits.second.max",
            "24.10(b)",
        ),
        ("three_card_poker", "play: {min: 500,", "play: {min: 1000,", "limits.play.min", "20.6"),
        ("three_card_poker", "play: {min: 500, max: 50000}", "play: {min: 500, max: 40000}", "limits.play.max", "20.6"),
        ("pai_gow", "bonus_minimum: 100", "bonus_minimum: 200", "limits.bonus.min", "11.15(b)"),
        ("pai_gow", "bonus: {min: 100, max: 2500}", "bonus: {min: 100, max: 400}", "limits.bonus.max", "11.15(c)"),
    ],
)
def test_limits_a_legal_wager_could_not_be_settled_under_are_refused(
    tmp_path: Path, game: str, old: str, new: str, key: str, rule: str
) -> None:
    path = copy_table(tmp_path, game)
    edit(path, old, new)
    line = refused(path, key)
    assert rule in line and ("could not settle" in line or "could never be paid" in line), line


def test_boston5_first_to_ante_is_checked_against_the_first_and_second_limits(tmp_path: Path) -> None:
    path = copy_table(tmp_path, "boston5")
    edit(path, "first_to_ante: 2", "first_to_ante: 3")
    for spot in ("first", "second"):
        assert "3 x the ante max (150000)" in refused(path, f"limits.{spot}.max")
    edit(path, "ante: {min: 500, max: 50000}", "ante: {min: 500, max: 30000}")
    assert load_table(path).options["first_to_ante"] == 3
    edit(path, "first: {min: 1000,", "first: {min: 2000,")
    assert "3 x the ante min (1500)" in refused(path, "limits.first.min")


def test_limits_that_hold_every_legal_wager_load(tmp_path: Path) -> None:
    path = copy_table(tmp_path, "mississippi_stud")
    edit(path, "third: {min: 500,", "third: {min: 100,")  # below the least legal street bet: harmless
    edit(path, "ante: {min: 500, max: 10000}", "ante: {min: 1000, max: 10000}")
    assert load_table(path).limits["third"].min == 100
    path = copy_table(tmp_path / "pg", "pai_gow")
    edit(path, "bonus_minimum: 100", "bonus_minimum: 200")
    edit(path, "bonus: {min: 100,", "bonus: {min: 200,")
    assert load_table(path).options["bonus_minimum"] == 200


# --- every legal minimum and maximum, settled ---------------------------------------------------------


def _bounds(table: TableConfig, spot: str) -> tuple[int, int]:
    limit = table.limits[spot]
    return limit.min, limit.max


def _mississippi(table: TableConfig, cards: list[str]) -> dict:
    lo, hi = _bounds(table, "ante")
    seats = {}
    for n, (ante, times) in enumerate(((lo, 1), (hi, 3), (lo, 3), (hi, 1)), start=1):
        wagers = {"ante": ante, **{street: times * ante for street in ("third", "fourth", "fifth")}}
        if "bonus" in table.limits:
            wagers["bonus"] = _bounds(table, "bonus")[n % 2]
        seats[str(n)] = {"wagers": wagers, "cards": " ".join(cards.pop() for _ in range(2))}
    return {"game": "mississippi_stud", "seats": seats, "community": " ".join(cards.pop() for _ in range(3))}


def _boston5(table: TableConfig, cards: list[str]) -> dict:
    lo, hi = _bounds(table, "ante")
    k = table.options["first_to_ante"]
    assert isinstance(k, int)
    seats = {}
    for n, ante in enumerate((lo, hi), start=1):
        wagers = {"ante": ante, "first": k * ante, "second": k * ante}  # 24.10(b): the second equals the first
        if "bonus" in table.limits:
            wagers["bonus"] = _bounds(table, "bonus")[n % 2]
        seats[str(n)] = {
            "wagers": wagers,
            "cards": " ".join(cards.pop() for _ in range(5)),
            "exposed_bonus": True,
            "folded": False,
        }
    return {"game": "boston5", "seats": seats, "dealer": " ".join(cards.pop() for _ in range(5))}


def _three_card(table: TableConfig, cards: list[str]) -> dict:
    lo, hi = _bounds(table, "ante")
    seats = {}
    for n, ante in enumerate((lo, hi), start=1):
        wagers = {"ante": ante, "play": ante}  # 20.6: the play wager equals the ante
        if "pair_plus" in table.limits:
            wagers["pair_plus"] = _bounds(table, "pair_plus")[n % 2]
        seats[str(n)] = {"wagers": wagers, "cards": " ".join(cards.pop() for _ in range(3))}
    return {"game": "three_card_poker", "seats": seats, "dealer": " ".join(cards.pop() for _ in range(3))}


def _pai_gow(table: TableConfig, rnd: random.Random) -> dict:
    shoe = list(deck(joker=True))
    rnd.shuffle(shoe)
    dealt = deal(shoe, start=0)
    least_bonus = table.options["bonus_minimum"]  # 11.15(b): at least $1.00, or the table's higher minimum
    assert isinstance(least_bonus, int)
    seats = {}
    for n, end in ((1, 0), (2, 1)):
        wagers = {"pai_gow": _bounds(table, "pai_gow")[end]}
        if "bonus" in table.limits:
            wagers["bonus"] = max(least_bonus, _bounds(table, "bonus")[0]) if end == 0 else _bounds(table, "bonus")[1]
        if "insurance" in table.limits:
            wagers["insurance"] = _bounds(table, "insurance")[end]
        seats[n] = wagers
    return pai_gow_record(dealt, seats)


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_every_shipped_tables_legal_minimum_and_maximum_wagers_settle(path: Path) -> None:
    table = load_table(path)
    for seed in range(5):
        rnd = random.Random(seed)
        cards = [str(c) for c in deck()]
        rnd.shuffle(cards)
        if table.game == "mississippi_stud":
            record = _mississippi(table, cards)
        elif table.game == "boston5":
            record = _boston5(table, cards)
        elif table.game == "three_card_poker":
            record = _three_card(table, cards)
        else:
            assert table.game == "pai_gow"
            record = _pai_gow(table, rnd)
        settlement = settle_record(record, table)  # what `tablectl settle` runs: a RecordError fails the test
        staked = {s: w for seat in record["seats"].values() for s, w in seat["wagers"].items()}
        assert {w.spot for seat in settlement.seats for w in seat.wagers} >= set(staked)

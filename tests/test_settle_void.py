"""``tablectl settle`` takes a voided round's record (issue 40 item 4): every wager returned,
nothing paid or collected, whatever the round had dealt; ``tablectl recall --json`` marks it
``"void": true``. A record that does not say it is void is still checked as a played round."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import cli
from hil_table import HilTable, to_third

from controller.configuration import config_dir, default_table_path, load_table
from controller.game.record import RecordError, settle_record
from controller.journal import SqliteJournal

BENCH = config_dir() / "bench"


def _all_returned(settlement: dict, wagers: dict[str, dict[str, int]]) -> None:
    assert settlement["house_net"] == 0
    got = {
        n: {s: (w["stake"], w["result"], w["net"]) for s, w in seat["wagers"].items()}
        for n, seat in settlement["seats"].items()
    }
    assert got == {n: {s: (c, "returned", 0) for s, c in w.items()} for n, w in wagers.items()}
    verbs = {a["verb"] for step in settlement["procedure"] for a in step.get("actions", [])}
    assert verbs <= {"return"}, verbs


def test_a_round_voided_mid_round_at_the_table_is_settled_from_its_recalled_record(tmp_path: Path) -> None:
    path = tmp_path / "j.db"
    with HilTable(load_table(BENCH / "mississippi_stud.yaml"), tmp_path / "t", SqliteJournal(path)) as t:
        to_third(t)  # seat 1's ante 500, seat 4's 1000, "As Ad Kc Qd 7h 8h 2c" dealt
        t.spot(1, "third", 500)
        t.spot(4, "third", 2000)
        t.press("reveal")
        t.key()
        t.press("void")
        result = t.results[-1]
        assert result.settlement is None
    code, out, err = cli("recall", "--journal", str(path), "--last", "1", "--json")
    assert code == 0, err
    (line,) = out.splitlines()
    record = json.loads(line)
    assert record["void"] is True and record["recall"]["void"] is True
    (tmp_path / "round.json").write_text(line)
    code, out, err = cli("settle", str(tmp_path / "round.json"))
    assert code == 0, err
    _all_returned(json.loads(out), {"1": {"ante": 500, "third": 500}, "4": {"ante": 1000, "third": 2000}})
    code, out, err = cli("settle", "--lines", str(tmp_path / "round.json"))
    assert code == 0, err
    _all_returned(json.loads(out), {"1": {"ante": 500, "third": 500}, "4": {"ante": 1000, "third": 2000}})
    del record["void"]  # the same partial record, not said to be void: a played round's checks refuse it
    with pytest.raises(RecordError) as info:
        settle_record(record)
    assert any("fourth" in p or "community" in p for p in info.value.problems), info.value.problems


@pytest.mark.parametrize(
    ("game", "seats"),
    [
        ("boston5", {"2": {"wagers": {"ante": 500, "first": 1000, "bonus": 100}, "cards": "As Kd"}}),
        (
            "pai_gow",
            {"1": {"wagers": {"pai_gow": 1000, "bonus": 500, "insurance": 100}}, "3": {"wagers": {"pai_gow": 2500}}},
        ),
        ("three_card_poker", {"5": {"wagers": {"ante": 500, "pair_plus": 100}, "cards": "2c"}}),
        ("mississippi_stud", {"6": {"wagers": {"ante": 500}, "folded_at": None}}),
    ],
)
def test_every_games_voided_record_returns_every_wager(game: str, seats: dict) -> None:
    record = {"game": game, "void": True, "seats": seats}
    settlement = settle_record(record, load_table(default_table_path(game))).to_json()
    _all_returned(settlement, {n: s["wagers"] for n, s in seats.items()})
    assert settlement["procedure"][0]["phase"] == "void"


def test_a_bad_void_record_names_each_problem() -> None:
    table = load_table(default_table_path("mississippi_stud"))
    record = {
        "game": "mississippi_stud",
        "void": "yes",
        "seats": {"1": {"wagers": {"ante": 0, "sixth": 500}}, "9": {"wagers": {"ante": 500}}, "2": {"wagers": []}},
    }
    with pytest.raises(RecordError) as info:
        settle_record(record, table)
    problems = info.value.problems
    assert "$.void: true for a voided round (every wager returned), got 'yes'" in problems
    assert "$.seats.1.wagers.ante: must be whole cents above 0, got 0" in problems
    assert any(p.startswith("$.seats.1.wagers.sixth: unknown wager spot") for p in problems)
    assert any(p.startswith("$.seats.9: no seat") for p in problems)
    assert "$.seats.2.wagers: wagers must map wager spots to cents" in problems

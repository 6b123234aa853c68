"""The bench players play the par strategy by default, and random decisions on request."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.configuration import config_dir, load_table
from controller.game.pai_gow import house_way
from controller.journal import SqliteJournal
from controller.par import boston5_expose, boston5_raise, mississippi_decision
from controller.vocab import parse_cards
from hil.bench import run_bench

STREETS = ("third", "fourth", "fifth")


def _play(game: str, tmp_path: Path, rounds: int, strategy: str = "par") -> tuple[object, list[dict]]:
    table = load_table(config_dir() / "bench" / f"{game}.yaml")
    path = tmp_path / "journal.db"
    summary = run_bench(table, seats=6, rounds=rounds, seed=11, progress=False, journal_path=path, strategy=strategy)
    assert summary.rounds == rounds and summary.mismatches == 0
    journal = SqliteJournal(path, create=False)
    try:
        return table, [journal.record(seq).data["record"] for _, seq in journal.round_seqs()]
    finally:
        journal.close()


def test_mississippi_players_play_the_optimal_strategy(tmp_path: Path) -> None:
    table, records = _play("mississippi_stud", tmp_path, 4)
    checked = 0
    for record in records:
        community = parse_cards(record["community"])
        for seat in record["seats"].values():
            cards = parse_cards(seat["cards"])
            for i, street in enumerate(STREETS):
                bet = mississippi_decision(cards, community[:i], paytable=table.paytables["main"])  # type: ignore[attr-defined]
                if bet == 0:
                    assert seat["folded_at"] == street
                    break
                assert seat["wagers"][street] == bet * seat["wagers"]["ante"]
            else:
                assert seat["folded_at"] is None
            checked += 1
    assert checked == 24


def test_boston5_players_expose_paying_hands_and_raise_by_the_rule(tmp_path: Path) -> None:
    table, records = _play("boston5", tmp_path, 3)
    for record in records:
        for seat in record["seats"].values():
            three = parse_cards(seat["cards"])[:3]
            if "bonus" in seat["wagers"]:
                assert seat.get("exposed_bonus", False) == boston5_expose(three, paytable=table.paytables["bonus"])  # type: ignore[attr-defined]
            assert seat.get("folded", False) == (not boston5_raise(three, table=table))  # type: ignore[arg-type]


def test_pai_gow_players_set_the_house_way(tmp_path: Path) -> None:
    table, records = _play("pai_gow", tmp_path, 2)
    way = house_way(str(table.options["house_way"]))  # type: ignore[attr-defined]
    for record in records:
        for seat in record["seats"].values():
            if "high" not in seat:
                continue
            expected = way.set(parse_cards(seat["cards"]), dict(table.options)).set  # type: ignore[attr-defined]
            assert {c.index for c in parse_cards(seat["low"])} == {c.index for c in expected.low.best}


def test_random_strategy_still_runs_and_unknown_is_refused(tmp_path: Path) -> None:
    _play("mississippi_stud", tmp_path, 2, strategy="random")
    with pytest.raises(ValueError, match="unknown strategy"):
        run_bench(load_table(config_dir() / "bench" / "boston5.yaml"), 1, 1, 1, strategy="best")

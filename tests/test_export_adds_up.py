"""The regulator's export adds up to the meters, for every game (docs/journal.md, "Export for the
regulator"): ``amount`` is what was staked, so a payout line on another wager (Boston 5's and Three
Card Poker's ``ante_bonus`` on the ante, pai gow's ``envy`` on the bonus wager) is a row with
nothing staked; the rows' amounts add up to the wagered meters (the handle, a void round's
returned wagers with it), those of the settled rounds to the theoretical win's handle, and their
``paid`` to what the meters say was paid less what was collected, seat by seat and per spot.
Found on main: each ante bonus row staked the ante again (a Three Card Poker bench of 40 rounds
exported 5,961.00 staked against a 5,811.00 handle).

Each round is settled from a record made by hand (the pure settlement, as ``tablectl settle``
does), so every payout line is in it; a bench table's journal is checked through ``tablectl export`` and
``tablectl meters`` too."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import bench_journal, cli

from controller.configuration import default_table_path, load_table
from controller.game import wager_order
from controller.game.record import settle_record
from controller.journal.export import wager_rows
from controller.journal.meters import add_meters
from controller.par.service import wagered_by_spot

RESULTS = {"win", "lose", "push", "returned", "void"}
"""The results docs/journal.md names for the export's ``result``."""

B5_DEALER_NINES = "9c 9d 5h 3s 2c"


def _ms(cards: str, bonus: int = 0, **streets: int) -> dict[str, Any]:
    wagers = {"ante": 1000, "third": 1000, "fourth": 1000, "fifth": 1000, **streets}
    return {"wagers": wagers | ({"bonus": bonus} if bonus else {}), "cards": cards, "folded_at": None}


def _b5(cards: str, bonus: int = 0) -> dict[str, Any]:
    wagers = {"ante": 500, "first": 1000, "second": 1000} | ({"bonus": bonus} if bonus else {})
    return {"wagers": wagers, "cards": cards, "exposed_bonus": bool(bonus), "folded": False}


def _pg(cards: str, bonus: int = 0) -> dict[str, Any]:
    return {"wagers": {"pai_gow": 1000} | ({"bonus": bonus} if bonus else {}), "cards": cards, "set": "house_way"}


ROUNDS: dict[str, list[dict[str, Any]]] = {
    "three_card_poker": [
        {
            "seats": {
                "1": {"wagers": {"ante": 1000, "play": 1000, "pair_plus": 500}, "cards": "Qs Js Ts"},  # ante bonus
                "2": {"wagers": {"ante": 1000, "play": 1000}, "cards": "4d 4c 9h"},
                "3": {"wagers": {"ante": 500, "play": 500}, "cards": "As Ad Ah"},  # ante bonus
            },
            "dealer": "Kc 8d 2s",
        },
    ],
    "boston5": [
        {  # seat 1: two pair beats the nines, the ante bonus paid and the ante returned; seat 2: a tie
            "seats": {"1": _b5("Kc Kd 4h 4s 8d", bonus=500), "2": _b5("9h 9s 5d 3c 2d"), "3": _b5("As Jd Qh 7s 6d")},
            "dealer": B5_DEALER_NINES,
        },
    ],
    "pai_gow": [
        {  # four queens: the $5 envy to each other seat with a $5 bonus wager
            "start": {"method": "dice", "value": 8},
            "remaining": 4,
            "seats": {
                "1": _pg("Qc Qd Qh Qs 8c 5d 2h", bonus=500),
                "2": _pg("As Kd Jc 9d 7c 3d 6c", bonus=500),
                "3": _pg("Ad Ks Jd 9s 7d 3s 4d"),
            },
            "dealer": "Th 9h 8s 5c 4c 3h 2s",
        },
    ],
    "mississippi_stud": [
        {  # seat 1: a royal flush over the $50,000 cap, its straight-flush bonus paid whole; seat 2: jacks
            "seats": {
                "1": _ms("As Ks", bonus=2500, ante=10000, third=30000, fourth=30000, fifth=30000),
                "2": _ms("Jd 2c", bonus=500),
                "3": {"wagers": {"ante": 1000, "bonus": 100}, "cards": "2d 3c", "folded_at": "third"},
            },
            "community": "Qs Js Ts",
        },
    ],
}


def _journaled(game: str) -> list[dict[str, Any]]:
    """The rounds of ``game`` as a ``RoundSettled`` record has them, and one void round after them."""
    table = load_table(default_table_path(game))
    out = []
    for n, raw in enumerate(ROUNDS[game], start=1):
        record = {"game": game, **raw}
        settlement = settle_record(record, replace(table, limits={}))  # a max bet over the cap
        out.append({"round": n, "game": game, "record": record, "settlement": settlement.to_json()})
    void = {"game": game, "seats": {"1": ROUNDS[game][0]["seats"]["1"]}}
    out.append({"round": len(out) + 1, "game": game, "record": void, "settlement": None})
    return out


@pytest.mark.parametrize("game", sorted(ROUNDS))
def test_the_export_adds_up_to_the_meters(game: str) -> None:
    rounds = _journaled(game)
    rows = [row for r in rounds for row in wager_rows("t", r["round"], r, 0.0, wager_order)]
    meters = add_meters(rounds)
    staked = {(r["round"], int(k)): seat["wagers"] for r in rounds for k, seat in r["record"]["seats"].items()}
    lines = [(row.round, row.seat, row.wager) for row in rows if row.wager not in staked[(row.round, row.seat)]]
    if game != "mississippi_stud":
        assert lines, "no payout line on another wager in these rounds"
    assert all(row.amount == 0 for row in rows if (row.round, row.seat, row.wager) in lines)
    assert {row.result for row in rows} <= RESULTS
    for scope in {f"seat {row.seat}" for row in rows} | {"table"}:
        mine = [row for row in rows if scope in ("table", f"seat {row.seat}")]
        wagered = sum(v for (s, name), v in meters.items() if s == scope and name.startswith("wagered:"))
        assert sum(row.amount for row in mine) == wagered, scope
        assert sum(row.paid for row in mine if row.paid > 0) == meters.get((scope, "paid"), 0), scope
        assert -sum(row.paid for row in mine if row.paid < 0) == meters.get((scope, "collected"), 0), scope
    settled = [row for row in rows if row.result != "void"]
    assert sum(row.amount for row in settled) == sum(wagered_by_spot(rounds).values())
    house = sum(
        -r["settlement"]["seats"][k]["net"] for r in rounds if r["settlement"] for k in r["settlement"]["seats"]
    )
    assert -sum(row.paid for row in settled) == house  # docs/journal.md: the rows add up to the house net negated


@pytest.mark.parametrize("game", ["boston5", "mississippi_stud"])
def test_a_bench_tables_export_adds_up_to_its_meters(tmp_path: Path, game: str) -> None:
    """``tablectl export`` beside ``tablectl meters --json`` on a bench table's journal (Three Card
    Poker's: tests/test_attack16_export_ante_bonus.py; pai gow's envy, rare at a bench table, is in
    :func:`test_the_export_adds_up_to_the_meters`; a bench journal costs seconds of CI)."""
    path = bench_journal(tmp_path, game, 4, 6, 5)
    code, out, err = cli("export", "--journal", str(path), "--since", "2000-01-01", "--format", "jsonl")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines() if line.strip()]
    code, out, err = cli("meters", "--journal", str(path), "--json")
    assert code == 0, err
    meters = {(scope, name): value for scope, name, value in json.loads(out)}
    wagered = sum(v for (scope, name), v in meters.items() if scope == "table" and name.startswith("wagered:"))
    assert sum(r["amount_cents"] for r in rows) == wagered == meters[("theoretical", "handle:all")]  # no void round
    assert sum(r["paid_cents"] for r in rows if r["paid_cents"] > 0) == meters[("table", "paid")]
    assert -sum(r["paid_cents"] for r in rows if r["paid_cents"] < 0) == meters[("table", "collected")]
    assert -sum(r["paid_cents"] for r in rows) == meters[("theoretical", "won:all")]
    assert {r["result"] for r in rows} <= RESULTS

"""Settlement gives, round for round, what it gave when its shortcuts were last checked: 480 random
rounds of Mississippi Stud and of pai gow (every wager, fold, violation, set, foul and house way,
under the shipped tables and variants of them) settled, and the SHA-256 of their settlements' JSON
compared with the one recorded from main before a speed-up of ``settle_record``.

A change meant to alter a settlement changes the recorded digest with it (run this file with
``python tests/test_settlement_digest.py`` on both revisions: it prints each game's digest and each
round's, so the first round that differs can be found). A speed-up must leave it alone.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from controller.configuration import TableConfig, default_table_path, load_table
from controller.game.record import RecordError, settle_record
from controller.vocab import deck, format_cards

ROUNDS = 480

RECORDED = {
    "mississippi_stud": "6a07897eb4c5089f12f7834c633c433cbaaf3b6be29b227a4ab9ca0b937f2a8e",
    "pai_gow": "4be9e066dc5bd356d7b856b1ad59c21e6a78ecaf2a09441b28bcbc6ddfed5744",
}
"""Each game's digest of :func:`round_digests`, recorded from main (4e6374c) before the speed-up;
Mississippi Stud's again when its payout cap left the 3-card bonus out of the aggregate and cut
equal payouts from the last bet made first (branch money16: 9 of 480 rounds differ, each at the
capped table: the ante and bet wagers still paid the cap in all, the bonus now paid whole)."""


def mississippi_round(rnd: random.Random) -> dict[str, object]:
    """A Mississippi Stud record: one to six seats, any street bets, folds, the bonus, violations."""
    cards = list(deck())
    rnd.shuffle(cards)
    seats = {}
    for number in rnd.sample(range(1, 7), rnd.randint(1, 6)):
        ante = rnd.choice([500, 500, 1000, 5000])
        folded_at = rnd.choice([None, None, None, "third", "fourth", "fifth"])
        wagers = {"ante": ante}
        for street in ("third", "fourth", "fifth"):
            if street == folded_at:
                break
            wagers[street] = rnd.randint(1, 3) * ante
        if rnd.random() < 0.5:
            wagers["bonus"] = rnd.choice([100, 500, 2500])
        seat: dict[str, object] = {
            "wagers": wagers,
            "cards": format_cards([cards.pop(), cards.pop()]),
            "folded_at": folded_at,
            "communication_violation": False,
        }
        if rnd.random() < 0.05:
            seat["communication_violation"] = True
            if folded_at is not None and "bonus" in wagers and rnd.random() < 0.5:
                seat["violation_at"] = folded_at
        seats[str(number)] = seat
    return {"game": "mississippi_stud", "seats": seats, "community": format_cards(cards.pop() for _ in range(3))}


def pai_gow_round(rnd: random.Random) -> dict[str, object]:
    """A pai gow record: one to six seats with the bonus (envy markers among them) and insurance
    or not, sets by the house way, written out (fouls among them) or marked a foul, the dealer's
    set given now and then, the empty positions dealt, a misdeal now and then."""
    cards = list(deck(joker=True))
    rnd.shuffle(cards)
    if rnd.random() < 0.15:  # a premium hand now and then: four of a kind (with the joker, five aces)
        at, rank = rnd.randrange(7) * 7, rnd.randrange(13)
        for k, i in enumerate([i for i, c in enumerate(cards) if c.index % 13 == rank and c.index < 52]):
            cards[at + k], cards[i] = cards[i], cards[at + k]
    hands = [cards[i * 7 : i * 7 + 7] for i in range(7)]
    seated = sorted(rnd.sample(range(1, 7), rnd.randint(1, 6)))
    seats: dict[str, object] = {}
    for number in seated:
        hand = hands[number]
        wagers = {"pai_gow": rnd.choice([1000, 2500, 10000])}
        if rnd.random() < 0.4:
            wagers["bonus"] = rnd.choice([100, 500, 2500])
        if rnd.random() < 0.3:
            wagers["insurance"] = rnd.choice([100, 500])
        seat: dict[str, object] = {"wagers": wagers, "cards": format_cards(hand)}
        way = rnd.random()
        if way < 0.5:
            seat["set"] = "house_way"
        elif way < 0.93:
            low = rnd.sample(hand, 2)
            seat["high"] = format_cards(c for c in hand if c not in low)
            seat["low"] = format_cards(low)
        else:
            seat["foul"] = True
        seats[str(number)] = seat
    dealer: object = format_cards(hands[0])
    if rnd.random() < 0.1:
        dealer = {"cards": dealer, "set": "house_way"}
    empty = {str(n): format_cards(hands[n]) for n in range(1, 7) if n not in seated}
    if rnd.random() < 0.03 and empty:  # a misdeal: an empty position dealt a card too few
        key = next(iter(empty))
        empty[key] = format_cards(hands[int(key)][:6])
    return {
        "game": "pai_gow",
        "seats": seats,
        "dealer": dealer,
        "empty": empty,
        "start": {"method": "dice", "value": rnd.randint(3, 18)},
        "remaining": 4,
    }


def _tables(game: str) -> list[TableConfig]:
    table = load_table(default_table_path(game))
    capped = replace(table, limits={}, payout_cap=8_000 if game == "pai_gow" else 20_000)
    if game != "pai_gow":
        return [table, capped]
    options = dict(table.options)
    return [
        table,
        capped,
        replace(table, options={**options, "foul_policy": "reset_by_house_way", "envy_includes_dealer": True}),
        replace(table, options={**options, "house_way": "ballys_ac", "commission_rounding": "nearest"}),
    ]


MAKERS: dict[str, Callable[[random.Random], dict[str, object]]] = {
    "mississippi_stud": mississippi_round,
    "pai_gow": pai_gow_round,
}


def round_digests(game: str, rounds: int = ROUNDS) -> list[str]:
    """Each round's SHA-256: its settlement's JSON (the table config named by its file's name
    only, so two checkouts compare), or the record's problems when it is refused."""
    rnd = random.Random(f"settlement digest {game}")
    tables = _tables(game)
    out = []
    for n in range(rounds):
        table = tables[n % len(tables)]
        record = MAKERS[game](rnd)
        try:
            settled = settle_record(record, table).to_json()
            settled["table"] = Path(str(settled["table"])).name
            text = json.dumps(settled, sort_keys=True)
        except RecordError as exc:
            text = "refused: " + "\n".join(exc.problems)
        out.append(hashlib.sha256(text.encode()).hexdigest())
    return out


def digest(game: str) -> str:
    """One SHA-256 of every round's digest, in order."""
    return hashlib.sha256("\n".join(round_digests(game)).encode()).hexdigest()


@pytest.mark.parametrize("game", sorted(RECORDED))
def test_every_round_settles_as_it_did_on_main(game: str) -> None:
    assert digest(game) == RECORDED[game]


def test_the_rounds_hold_every_kind_of_wager_and_set() -> None:
    # what the digest would miss if the generators stopped making it
    records = [pai_gow_round(random.Random(n)) for n in range(200)]
    seats = [s for r in records for s in r["seats"].values()]  # type: ignore[attr-defined]
    assert any("insurance" in s["wagers"] for s in seats)
    assert any(s["wagers"].get("bonus", 0) >= 500 for s in seats)
    assert any(s.get("foul") for s in seats) and any("high" in s for s in seats)
    table = load_table(default_table_path("pai_gow"))
    phases = {step.phase for r in records for step in settle_record(r, table).procedure}
    assert {"pai_gow", "bonus_insurance", "envy", "premium", "premium_cards", "misdeal"} <= phases


if __name__ == "__main__":
    for name in sorted(RECORDED):
        print(name, digest(name))

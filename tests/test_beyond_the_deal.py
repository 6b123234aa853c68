"""Issue 40 item 4: nothing is paid that cannot be re-settled. The table settles through exactly
the function ``tablectl settle`` runs (:func:`controller.game.record._settle.settle_json`), the record it
settled is the round's record, and a record that cannot be settled holds with a way on other than
a void (clear fault settles it again). A card beyond the deal, readable or not, is never a seat's,
the dealer's or a community card: it is burned (the stub's cards go to the discard rack
unexposed: Boston 5 24.8(d); Mississippi Stud 35.9, digest 2.3 step 6; pai gow 31.8, four
remain), and the table holds for the supervisor, who goes on (or voids: a misdeal)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from table_helpers import FedTable, bench_table

from controller.game.boston5._machine import Boston5Table
from controller.game.mississippi_stud._machine import MississippiTable
from controller.game.pai_gow._machine import PaiGowTable
from controller.game.record import record_json, settle_json
from controller.table.card_ledger import BURNED
from controller.vocab import deck
from drivers.panel import ButtonChanged
from drivers.shoe import CardUnreadable

PAI_GOW_SHOE = [str(c) for c in deck(joker=True)]


class Table(FedTable):
    def __init__(self, game: str, cls: type | None = None) -> None:
        default = {"mississippi_stud": MississippiTable, "boston5": Boston5Table, "pai_gow": PaiGowTable}[game]
        super().__init__(cls or default, bench_table(game))
        self.m.audit = lambda kind, data: None

    @property
    def phase(self) -> str:
        return str(self.m.phase.value)

    def key(self, on: bool = True) -> None:
        self.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=on))

    def unreadable(self) -> None:
        self.shoe_index += 1
        self.feed(CardUnreadable(device="shoe", index=self.shoe_index))

    def confirm_all(self) -> None:
        for _ in range(30):
            if self.m.rounds:
                return
            self.press("confirm")


def mississippi(streets: int) -> Callable[[Table], Callable[[], None]]:
    def reach(t: Table) -> Callable[[], None]:
        t.spot(1, "ante", 500)
        t.spot(4, "ante", 1000)
        t.press("no_more_bets")
        t.deal("As Ad Kc Kd 7h 8h 2c")
        done = ("third", "fourth", "fifth")[:streets]

        def street(name: str) -> None:
            t.spot(1, name, 500)
            t.spot(4, name, 1000)
            t.press("reveal")

        for name in done:
            street(name)

        def finish() -> None:
            for name in ("third", "fourth", "fifth")[streets:]:
                street(name)
            t.confirm_all()

        return finish

    return reach


def boston5(t: Table) -> Callable[[], None]:
    for seat in (2, 5):
        t.spot(seat, "ante", 500)
        t.spot(seat, "first", 1000)
    t.press("no_more_bets")
    t.deal("As Ks Qs 2h 7d 9c 3c 4d 5h")
    t.press("next")
    t.spot(2, "second", 1000)
    t.press("seat_5", "fold", "confirm", "deal")
    t.deal("Js Ts 6h 6c")  # seat 2's and the dealer's final cards
    return t.confirm_all


def pai_gow(confirms: int) -> Callable[[Table], Callable[[], None]]:
    """Dealt, then ``confirms`` presses: the stub counted (to set_hands), the hands set (to setting)."""

    def reach(t: Table) -> Callable[[], None]:
        t.spot(2, "pai_gow", 1000)
        t.spot(5, "pai_gow", 2500)
        t.press("no_more_bets", "confirm")
        t.deal(" ".join(PAI_GOW_SHOE[:49]))
        for _ in range(confirms):
            t.press("confirm")

        def finish() -> None:
            while t.phase in ("check_deal", "set_hands"):
                t.press("confirm")
            t.confirm_all()

        return finish

    return reach


DEALT: list[tuple[str, str, Callable[[Table], Callable[[], None]]]] = [
    ("mississippi_stud", "third_street", mississippi(0)),
    ("mississippi_stud", "fifth_street", mississippi(2)),
    ("boston5", "settlement", boston5),
    ("pai_gow", "check_deal", pai_gow(0)),
    ("pai_gow", "set_hands", pai_gow(1)),
    ("pai_gow", "setting", pai_gow(2)),
]


def hands(record: dict[str, Any]) -> dict[str, Any]:
    """Every card a round record places (seats, dealer, community)."""
    seats = {n: s["cards"] for n, s in record["seats"].items()}
    return {"seats": seats, **{k: v for k, v in record.items() if k in ("dealer", "community")}}


def resettled(t: Table) -> dict[str, Any]:
    """The round's record settled as ``tablectl settle`` does: from its JSON, the table loaded
    from the path the record names."""
    result = t.m.rounds[-1]
    raw = json.dumps({**result.record, "table": str(t.m.table.path)}).encode()
    out: dict[str, Any] = settle_json(raw).to_json()
    return out


@pytest.mark.parametrize("readable", [True, False], ids=["readable", "unreadable"])
@pytest.mark.parametrize(("game", "phase", "reach"), DEALT, ids=[f"{g}-{p}" for g, p, _ in DEALT])
def test_a_card_beyond_the_deal_is_burned_and_the_round_settles_as_its_record_does(
    game: str, phase: str, reach: Callable[[Table], Callable[[], None]], readable: bool
) -> None:
    t = Table(game)
    finish = reach(t)
    assert t.phase == phase
    before = hands(t.m.round_record())
    index = t.shoe_index + 1
    if readable:
        t.deal(PAI_GOW_SHOE[52] if game == "pai_gow" else "Qh")
    else:
        t.unreadable()
    assert t.phase == "hold", t.m.holds.reason
    assert "community card 4" not in t.m.holds.reason and "dealer card 6" not in t.m.holds.reason
    t.key()
    if readable:  # a notice shown (pai gow's dealer's hand) is confirmed first
        for _ in range(10):
            if not t.m.ledger.waiting:
                break
            t.press("confirm")  # a way on other than a void
    else:
        t.press("clear_fault")
    t.key(False)
    assert t.phase == phase, t.m.holds.reason
    entry = next(e for e in t.m.card_log if e["index"] == index)
    assert str(entry["to"]).startswith(BURNED)
    assert hands(t.m.round_record()) == before  # no one's card
    finish()
    assert t.m.rounds and t.m.rounds[-1].settlement is not None, t.m.holds.reason
    assert hands(t.m.rounds[-1].record) == before
    assert resettled(t) == t.m.rounds[-1].settlement.to_json()


def test_an_unreadable_card_beyond_the_deal_cannot_be_entered_as_a_card() -> None:
    """Mississippi Stud, the deal complete: the unreadable card is not named community card 4, and
    the supervisor's next / previous do not offer a card to enter for it."""
    t = Table("mississippi_stud")
    mississippi(0)(t)
    t.unreadable()
    assert t.m.holds.reason.startswith("card 8 from the shoe after the round's last card, unreadable: burned")
    t.key()
    t.press("next", "confirm")
    assert t.phase == "hold" and len(t.m.community) == 3
    t.press("void")  # a misdeal is the supervisor's other way
    assert t.m.rounds[-1].settlement is None and len(t.m.rounds[-1].record["community"].split()) == 3


class FaultyRecord(MississippiTable):
    """A table whose record cannot be settled until ``fixed`` (a value JSON cannot hold)."""

    fixed = False

    def round_record(self) -> dict[str, Any]:
        record = super().round_record()
        return record if self.fixed else {**record, "community": float("inf")}


def test_a_record_that_cannot_be_settled_holds_and_clear_fault_settles_it_again() -> None:
    """The table settles the record's JSON, as ``tablectl settle`` does: a record that JSON cannot
    hold is not paid (held: cannot settle); cleared once it can be, the round settles and its
    record is the one settled."""
    t = Table("mississippi_stud", FaultyRecord)
    finish = mississippi(2)(t)
    t.spot(1, "fifth", 500)
    t.spot(4, "fifth", 1000)
    t.press("reveal")
    assert t.phase == "hold" and t.m.holds.reason.startswith("cannot settle: ")
    assert t.m.walk.settlement is None
    t.key()
    t.press("clear_fault")  # still cannot: held again
    assert t.phase == "hold" and t.m.holds.reason.startswith("cannot settle: ")
    assert isinstance(t.m, FaultyRecord)
    t.m.fixed = True
    t.press("clear_fault")
    assert t.phase == "settlement" and t.m.walk.settlement is not None
    t.key(False)
    finish()
    assert t.m.rounds[-1].settlement is not None
    assert resettled(t) == t.m.rounds[-1].settlement.to_json()
    record_json(t.m.rounds[-1].record)  # JSON can hold it


def test_a_late_bet_is_not_accepted_into_a_round_already_settled() -> None:
    """Accepted during the settlement walk, a late bet would change the record after it was
    settled: what is paid would not be what a re-settlement pays (Boston 5: a bonus at a seat that
    folded would keep the seat's wagers within the rules)."""
    t = Table("boston5")
    boston5(t)
    assert t.phase == "settlement"
    t.spot(5, "bonus", 500)
    assert t.m.late.pending
    t.key()
    t.press("next")
    assert "bonus" not in t.m.seats[5].wagers and not t.m.late.pending
    t.key(False)
    t.confirm_all()
    settlement = t.m.rounds[-1].settlement
    assert "bonus" not in t.m.rounds[-1].record["seats"]["5"]["wagers"] and settlement is not None
    assert resettled(t) == settlement.to_json()

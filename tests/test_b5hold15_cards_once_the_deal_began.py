"""Cards that left the shoe during a hold that ends by itself (a link back, the journal written
again, a restart) once the round's deal has begun, in every game: at each step where no card is
expected although the deal has begun, the hold stays until the supervisor decides on them
(``confirm``: burned, no place in the deal; ``void``: a misdeal, while the table takes one).

Boston 5's steps between its two deals are ``tests/test_attack15_boston5_between_deals.py``. The
other games' steps after the deal (Mississippi Stud's streets, Three Card Poker's play, pai gow's
hand setting) held so already (the deal is over there: waiting14); they are here so that each step
is tested. New with branch b5hold15: the stub count after a misdeal declared during the deal (the
deal begun, not over), where the cards waited "once the deal begins" and the next round dropped
them without the supervisor.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from table_helpers import FedTable, bench_table
from test_table_pai_gow import SHOE as PAI_GOW_SHOE

from controller.table._stub_count import STUB_EVERY
from controller.table.card_ledger import BURNED
from controller.table.engine import JournalFault
from controller.table.events import DevicesExpected
from controller.table.game_tables import GAME_TABLES
from drivers.link import LinkDown
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt

DISK_FULL = "disk full: 0 bytes free on /"

BETS: dict[str, tuple[tuple[int, str, int], ...]] = {
    "boston5": ((1, "ante", 500), (1, "first", 1000), (2, "ante", 500), (2, "first", 1000)),
    "mississippi_stud": ((1, "ante", 500), (4, "ante", 1000)),
    "three_card_poker": ((1, "ante", 500), (3, "ante", 1000)),
    "pai_gow": ((2, "pai_gow", 1000), (5, "pai_gow", 2500)),
}
"""Each game's wagers: two seats."""

PAI_GOW_DECK = " ".join(str(c) for c in PAI_GOW_SHOE)
DEALS: dict[str, str] = {
    "boston5": "As Ks Qs 2h 7d 9c 3c 4d 5h",
    "mississippi_stud": "As Ad Kc Qd 7h 8h 2c",
    "three_card_poker": "Ah Kh Qh 7c 4d 2s Qc 8h 4h",
    "pai_gow": " ".join(str(c) for c in PAI_GOW_SHOE[:49]),
}
"""Each game's first deal, in the shoe's order (Boston 5: its first three cards each)."""

OUT: dict[str, str] = {
    "boston5": "Jc Jd",
    "mississippi_stud": "3c 4d",
    "three_card_poker": "Jc Jd",
    "pai_gow": " ".join(str(c) for c in PAI_GOW_SHOE[50:52]),
}
"""Two cards of the shoe not yet dealt: the ones that leave it while the table holds."""


def bets_closed(game: str, stub_due: bool = False) -> FedTable:
    """``game`` with its wagers placed and "no more bets" (pai gow: its dice total entered); with
    ``stub_due`` the stub is counted after this round."""
    t = FedTable(GAME_TABLES[game], bench_table(game))
    if stub_due:
        t.m.stub.restore(STUB_EVERY - 1)
    for seat, spot, cents in BETS[game]:
        t.spot(seat, spot, cents)
    t.press("no_more_bets")
    if game == "pai_gow":
        t.press(*["next"] * 5, "confirm")  # a dice total of 8
    return t


def stud_street(street: str) -> Callable[[], FedTable]:
    def at() -> FedTable:
        t = bets_closed("mississippi_stud")
        t.deal(DEALS["mississippi_stud"])
        for bet in ("third", "fourth", "fifth")[: ("third", "fourth", "fifth").index(street)]:
            t.spot(1, bet, 500)
            t.spot(4, bet, 1000)
            t.press("reveal")
        return t

    return at


def three_card_play() -> FedTable:
    t = bets_closed("three_card_poker")
    t.deal(DEALS["three_card_poker"])
    return t


def pai_gow_set_hands() -> FedTable:
    t = bets_closed("pai_gow")
    t.deal(DEALS["pai_gow"])
    t.press("confirm")  # the dealer counted the four left by hand
    return t


def stub_count_after_a_misdeal(game: str) -> Callable[[], FedTable]:
    """``game``'s stub count due after a round the supervisor voided during its deal (four cards
    placed): the deal begun, never over."""

    def at() -> FedTable:
        t = bets_closed(game, stub_due=True)
        t.deal(" ".join(DEALS[game].split()[:4]))
        key(t, True)
        t.press("void")
        key(t, False)
        return t

    return at


STEPS: dict[str, tuple[str, str, Callable[[], FedTable]]] = {
    **{f"stud {s} street": ("mississippi_stud", f"{s}_street", stud_street(s)) for s in ("third", "fourth", "fifth")},
    "three card poker play": ("three_card_poker", "play", three_card_play),
    "pai gow set hands": ("pai_gow", "set_hands", pai_gow_set_hands),
    **{f"{game} stub count after a misdeal": (game, "count_stub", stub_count_after_a_misdeal(game)) for game in BETS},
}
"""(game, step, the table at it) for each step where the deal has begun and no card is expected."""

STUB_STEPS = [name for name in STEPS if name.endswith("after a misdeal")]


def key(t: FedTable, on: bool) -> None:
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=on))


def read_again(t: FedTable, devices: tuple[str, ...]) -> None:
    """Each of ``devices`` back: its link up and its whole state read (nothing changed on it)."""
    t.devices_back(devices, tuple((s, spot, c) for (s, spot), c in t.m.board.levels.items()))


def journal_outage(t: FedTable) -> tuple[FedTable, tuple[str, ...]]:
    t.m.journal_failed(DISK_FULL)
    t.feed(JournalFault(DISK_FULL, 0, 0))
    return t, ("panel", "shoe", "bet_spots")


def link_down(device: str) -> Callable[[FedTable], tuple[FedTable, tuple[str, ...]]]:
    def down(t: FedTable) -> tuple[FedTable, tuple[str, ...]]:
        t.feed(LinkDown(device=device, reason="no reply"))
        return t, (device,)

    return down


def restart(live: FedTable) -> tuple[FedTable, tuple[str, ...]]:
    """The controller stops and starts again: the round replayed from its events, every device
    expected and read again."""
    t = FedTable(type(live.m), live.m.config)
    t.m.stub.restore(STUB_EVERY - 1)  # as ``bets_closed`` with the stub due (at the other steps: never reached)
    for event in live.events:
        t.feed(event)
    t.feed(DevicesExpected(devices=("bet_spots", "panel", "shoe"), reread=True, since=1000.0))
    return t, ("panel", "shoe", "bet_spots")


HOLDS: dict[str, Callable[[FedTable], tuple[FedTable, tuple[str, ...]]]] = {
    "journal outage": journal_outage,
    "panel link down": link_down("panel"),
    "bet spots link down": link_down("bet_spots"),
    "restart": restart,
}


def cards_out_and_back(step: str, hold: str) -> tuple[FedTable, str]:
    """The table at ``step``, held by ``hold``; two cards leave the shoe; every device is back.
    Returns the table and the step it held from."""
    game, held_from, at = STEPS[step]
    live = at()
    assert live.snapshot().step == held_from, live.snapshot().step
    t, devices = HOLDS[hold](live)
    for n, card in enumerate(OUT[game].split(), start=t.shoe_index + 1):
        t.feed(CardDealt(device="shoe", card=card, index=n, quality=100, at=10.0))
    read_again(t, devices)
    return t, held_from


@pytest.mark.parametrize("hold", HOLDS)
@pytest.mark.parametrize("step", STEPS)
def test_cards_out_once_the_deal_began_keep_the_hold_until_the_supervisor_decides(step: str, hold: str) -> None:
    t, held_from = cards_out_and_back(step, hold)
    s = t.snapshot()
    assert s.step == "hold" and s.hold is not None and s.hold.cards_waiting == 2, (s.step, s.hold, s.recent[-3:])
    assert s.hold.held_from == held_from
    key(t, True)
    t.press("clear_fault")  # refused: the cards first
    assert t.snapshot().step == "hold"
    for _ in range(20):  # a notice on the screen (the void's returns) takes confirm first
        if not t.m.display.notices:
            break
        t.press("confirm")
    t.press("confirm")  # no place in the deal: burned, named in the card record
    s = t.snapshot()
    assert s.step == held_from and s.hold is None, (s.step, s.hold)
    out = OUT[STEPS[step][0]].split()
    assert [(e.card, e.to) for e in t.m.ledger.entries if e.card in out] == [(c, BURNED) for c in out]


@pytest.mark.parametrize("step", STUB_STEPS)
def test_cards_out_at_the_stub_count_after_a_misdeal_are_never_dropped_by_the_next_round(step: str) -> None:
    """Without the supervisor's word, the dealer's count would open the next round, whose card
    record starts empty: the two cards out of the shoe in no round's record."""
    t, _ = cards_out_and_back(step, "panel link down")
    for _ in range(20):
        if t.snapshot().step != "count_stub":
            break
        t.press("confirm")  # the dealer's count, or a notice
    s = t.snapshot()
    assert s.step == "hold" and s.hold is not None and s.hold.cards_waiting == 2, (s.step, s.hold)
    assert s.round_no == 1

"""A table machine fed events directly (no devices), keeping the events for replay checks; a clock the
test moves."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from controller.configuration import TableConfig, config_dir, load_table
from controller.game.record import RecordError
from controller.table.devices import RecordingDevices
from controller.table.events import OpenTable
from controller.table.game_tables import GAME_TABLES
from controller.table.snapshot import TableSnapshot
from controller.table.snapshot_build import build_snapshot
from drivers.bet_spots import SpotReport
from drivers.link import LinkUp
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, CardUnreadable
from drivers.state import PanelState, ShoeState, SpotsState

NOT_AT_THIS_TABLE = ((0, "ante"), (7, "ante"), (9, "ante"), (255, "ante"), (2, "pair_plus"))
"""Bet-spot reports (seat, spot) a six-seat Mississippi Stud table does not have, in the order the
outage tests send them (the fed table's and the HIL table's): each is a device fault, none a wager."""

SEATS_1_AND_4 = ("seat 1", "seat 1", "seat 4", "seat 4", "community", "community", "community")
"""Where a Mississippi Stud deal to seats 1 and 4 puts each card, in shoe order (35.9: a two-card
stack to each player from the dealer's left, then the three community cards)."""
UNREADABLE = "unreadable: read again or entered by the supervisor"


def seats_1_and_4_ledger(cards: str) -> list[tuple[int, str, str]]:
    """The card ledger, ``(shoe number, card, place)`` in shoe order, of a Mississippi Stud round
    whose seven ``cards`` were dealt to seats 1 and 4; a card ``??`` is one the shoe could not read
    (waiting to be read again or entered)."""
    dealt = zip(cards.split(), SEATS_1_AND_4, strict=True)
    return [(n, c, UNREADABLE if c == "??" else to) for n, (c, to) in enumerate(dealt, start=1)]


def bench_table(game: str) -> TableConfig:
    """``game``'s bench config (``config/bench``), read once per process: the tests that make a
    table in every state of a round each make it from this one config instead of reading its YAML
    again (about a tenth of a second each time). A config is frozen and nothing in a table changes
    it, as a table's rounds share one in production."""
    return _read_table(config_dir() / "bench" / f"{game}.yaml")


@cache
def _read_table(path: Path) -> TableConfig:
    return load_table(path)


class ManualClock:
    """A clock the test moves: ``clock.now`` is the time it tells (seconds since the epoch) until the
    test sets another."""

    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


class FedTable:
    """``cls(table, devices)`` opened for its first round; ``feed`` events into it."""

    def __init__(self, cls: type, table: Any) -> None:
        self.devices = RecordingDevices()
        self.m = cls(table, self.devices)
        self.m.handle(OpenTable())
        self.events: list[Any] = []
        self.shoe_index = 0
        """The shoe's count as the events fed say (its last card number; 0 when it started over)."""

    def snapshot(self) -> TableSnapshot:
        """The table's snapshot now (what everything outside the table reads)."""
        return build_snapshot(self.m, len(self.events))

    def feed(self, event: Any) -> None:
        self.events.append(event)
        if isinstance(event, (CardDealt, CardUnreadable)):
            self.shoe_index = event.index
        elif isinstance(event, ShoeState) and event.cards_out == 0:
            self.shoe_index = 0
        self.m.handle(event)

    def spot(self, seat: int, spot: str, cents: int) -> None:
        self.feed(SpotReport(device="spots", seat=seat, spot=spot, cents=cents))

    def press(self, *buttons: str) -> None:
        for b in buttons:
            self.feed(ButtonChanged(device="panel", button=b, pressed=True))

    def corrections_asked(self, *prompts: str) -> None:
        """Press "no more bets" on wagers the rules refuse: betting stays open (the step
        ``betting``) and the dealer is asked for each correction in ``prompts`` (read from the
        table's snapshot: its recent texts and what it asks now)."""
        self.press("no_more_bets")
        snap = self.snapshot()
        assert snap.step == "betting", snap.step
        shown = (*snap.recent, snap.asked)
        for prompt in prompts:
            assert prompt in shown, (prompt, shown)

    def devices_back(self, devices: Iterable[str], spots: tuple[tuple[int, str, int], ...]) -> None:
        """Each of ``devices`` back: its link up and its whole state read, nothing changed on it
        (the panel's key off, the shoe at its count, the bet spots reporting ``spots``)."""
        for device in devices:
            self.feed(LinkUp(device=device, boot_id=1, rebooted=False))
            if device == "panel":
                self.feed(PanelState(device="panel", key_on=False, held=()))
            elif device == "shoe":
                self.feed(ShoeState(device="shoe", status="ok", cards_out=self.shoe_index))
            else:
                self.feed(SpotsState(device="bet_spots", spots=spots))

    def deal(self, cards: str) -> None:
        """The shoe deals ``cards``, numbered on from its count (a repeated number holds)."""
        for i, c in enumerate(cards.split(), start=self.shoe_index + 1):
            self.feed(CardDealt(device="shoe", card=c, index=i, quality=100))


def closed_table(game: str, bets: Iterable[tuple[int, str, int]]) -> FedTable:
    """A fed table of ``game`` with ``bets`` (seat, spot, cents) on its spots, betting closed."""
    t = FedTable(GAME_TABLES[game], bench_table(game))
    for seat, spot, cents in bets:
        t.spot(seat, spot, cents)
    t.press("no_more_bets")
    return t


def at_step(t: FedTable, step: str) -> FedTable:
    """``t``, checked to be at ``step``."""
    assert t.snapshot().step == step, t.snapshot().step
    return t


def assert_refused(settle: Callable[[], object], *problems: str) -> None:
    """``settle()`` refuses its record (``RecordError``), naming each of ``problems`` among the
    problems it lists."""
    with pytest.raises(RecordError) as info:
        settle()
    listed = info.value.problems
    for expected in problems:
        assert expected in listed, (expected, listed)


def fill_journal(j: Any) -> None:
    """The journal's file made full (``PRAGMA max_page_count``): no page more, and the last pages
    filled with records no event record fits beside (what a full disk leaves)."""
    from controller.journal import JournalFull

    with j.lock:
        pages = j.db.execute("PRAGMA page_count").fetchone()[0]
        j.db.execute(f"PRAGMA max_page_count = {pages}")
        for size in (2000, 1000, 500, 200, 100, 50, 20, 0):
            try:
                while True:
                    j.append("DiskFiller", {"pad": "x" * size})
            except JournalFull:
                pass


def pai_gow_record(dealt: Any, wagers: dict[int, dict[str, int]]) -> dict[str, Any]:
    """A pai gow round record of the hands ``dealt`` (``controller.game.pai_gow._deal.deal``'s) with
    each seat's ``wagers``, every hand set by the house way."""
    from controller.game.pai_gow._deal import DEALER
    from controller.vocab import format_cards

    seats = {
        str(n): {"wagers": seat_wagers, "cards": format_cards(dealt.hands[n]), "set": "house_way"}
        for n, seat_wagers in wagers.items()
    }
    return {
        "game": "pai_gow",
        "start": {"method": "rng", "value": 1},
        "remaining": len(dealt.remaining),
        "seats": seats,
        "dealer": format_cards(dealt.hands[DEALER]),
    }

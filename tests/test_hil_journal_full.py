"""A full disk under the journal (issue 21), over real ptys: the real controller and drivers
against the simulators, the journal's SQLite file made full (``PRAGMA max_page_count``, no root
needed) while bets are placed and cards dealt. The table holds at once, saying why in words;
nothing is acknowledged to a device before it is journaled, so each device keeps what it sent
and sends it again; once there is room the events are taken in order and the round goes on with
the cards physically dealt. Each game, then the device's resend itself."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hil_table import HilTable, locked, shoe, wait
from table_helpers import fill_journal, seats_1_and_4_ledger
from test_hil_pai_gow import DICE, set_all_by_house_way, shoe_for

from controller.configuration import TableConfig, config_dir, load_table
from controller.journal import SqliteJournal, verify_journal
from controller.journal.recall import recall
from controller.table.base import RoundResult
from controller.table.runtime import TableRuntime
from drivers.messages import BUTTONS
from drivers.panel import ButtonChanged

BENCH = config_dir() / "bench"
MISSISSIPPI = load_table(BENCH / "mississippi_stud.yaml")
BOSTON5 = load_table(BENCH / "boston5.yaml")
PAI_GOW = load_table(BENCH / "pai_gow.yaml")
FULL = r"disk full: \d+ bytes free on /\S*"


def fill(t: HilTable) -> None:
    """Make the journal's file full: no page more, and the last pages filled with records no
    event record fits beside (what a full disk leaves). Waits until every device is acknowledged
    everything journaled before, so what a device holds after this was sent during the failure."""
    sims = (t.shoe, t.spots, t.panel)
    wait(lambda: all(not sim.pending for sim in sims) and t.runtime.engine.queue.empty(), "every event acknowledged")
    fill_journal(t.journal)


def bets_during_a_full_disk(t: HilTable, first: tuple[int, str, int], then: tuple[int, str, int]) -> None:
    """The journal full, a wager placed (``first``: seat, spot, cents): the table holds for the
    journal; another placed (``then``): the bet spots keep both reports unacknowledged; room again:
    both are taken, once each."""
    fill(t)
    before = t.count("SpotReport")
    t.spots.place(*first)
    held_for_the_journal(t)
    t.spots.place(*then)
    wait(lambda: len(t.spots.pending) == 2, "the bet spots to keep both reports unacknowledged")
    free(t)
    resumed(t, "SpotReport", before, 2)


def cards_during_a_full_disk(t: HilTable, cards: int) -> None:
    """The journal full, a card dealt: the table holds for the journal; the dealer goes on dealing
    (``cards`` in all): the shoe keeps them all unacknowledged; room again: they wait for the supervisor."""
    fill(t)
    before = t.count("CardDealt")
    t.shoe.deal(1)
    held_for_the_journal(t)
    t.shoe.deal(cards - 1)
    wait(lambda: len(t.shoe.pending) == cards, f"the shoe to keep the {cards} cards unacknowledged")
    free(t)
    cards_wait_for_the_supervisor(t, before, cards)


def free(t: HilTable) -> None:
    """Room again on the journal's disk."""
    with t.journal.lock:
        t.journal.db.execute("PRAGMA max_page_count = 1073741823")


def held_for_the_journal(t: HilTable) -> str:
    """Wait for the hold for the full journal; its reason, as the panel shows it."""
    wait(lambda: t.step == "hold", "the table to hold")
    reason = t.hold_reason
    assert re.fullmatch(f"journal: {FULL}", reason), reason
    wait(lambda: "disk full" in " ".join(t.shown()), f"the panel to say so ({t.shown()}, {t.snap.screen})")
    return reason


def resumed(t: HilTable, kind: str, before: int, new: int) -> None:
    """After room returns: the hold ends by itself and ``new`` more ``kind`` events are taken."""
    t.settled(kind, before, new)
    wait(lambda: t.step != "hold", "the hold for the journal to end")
    faults = [r.data for r in t.journal.records(t.first_seq) if r.kind == "JournalFault"]
    assert faults and faults[-1]["refused"] == 0 and faults[-1]["retaken"] >= 1


def cards_wait_for_the_supervisor(t: HilTable, before: int, new: int) -> None:
    """After room returns: the ``new`` cards dealt during the outage are taken (journaled, in the
    shoe's order), each device is read again, and the cards wait for the supervisor (issue 32: a
    journal outage is an outage of every device at once), who accepts them in dealing order."""
    t.settled("CardDealt", before, new)
    reason = f"{new} cards dealt while held: supervisor: confirm accepts, void declares a misdeal"
    wait(lambda: t.step == "hold" and t.hold_reason == reason, f"the hold for the cards ({t.hold_reason})")
    faults = [r.data for r in t.journal.records(t.first_seq) if r.kind == "JournalFault"]
    assert faults and faults[-1]["refused"] == 0 and faults[-1]["retaken"] >= 1
    t.key()
    t.press("confirm")
    wait(lambda: t.step != "hold", "the cards accepted")


def journaled(t: HilTable, kind: str) -> list[dict]:
    return [r.data for r in t.journal.records(t.first_seq) if r.kind == kind]


def chips_before_the_press(t: HilTable, placed: dict[int, int]) -> dict[int, int]:
    """Of the chips ``placed`` (seat: cents) during the last journal outage, those whose report
    the journal has before the "no more bets" pressed during it: in the journal's order the press
    closes betting for the chips after it (issue 40). The devices send their events again as
    polling brings them, so either order can happen."""
    records = list(t.journal.records(t.first_seq))
    fault = max(i for i, r in enumerate(records) if r.kind == "JournalFault")
    after = records[fault:]
    press = next(i for i, r in enumerate(after) if r.kind == "ButtonChanged" and r.data.get("button") == "no_more_bets")
    reported = {r.data["seat"] for r in after[:press] if r.kind == "SpotReport"}
    return {seat: cents for seat, cents in placed.items() if seat in reported}


def once_each(t: HilTable) -> None:
    """No device event journaled twice (device, event number)."""
    numbered = [
        (r.data["device"], r.data["event_no"]) for r in t.journal.records(t.first_seq) if r.data.get("event_no")
    ]
    assert len(numbered) == len(set(numbered))


def no_sqlite_text(caplog: pytest.LogCaptureFixture) -> None:
    text = "\n".join(r.getMessage() for r in caplog.records)
    assert re.search(FULL, text) and "rollback" not in text and "database or disk" not in text


def cards_recalled(path: Path) -> list[tuple[int, str, str]]:
    journal = SqliteJournal(path)
    try:
        assert verify_journal(journal).ok
        (round_one,) = recall(journal, round_no=1)
        return [(c["index"], c["card"], c["to"]) for c in round_one.data["cards"]]
    finally:
        journal.close()


def open_table(table: TableConfig, tmp_path: Path) -> tuple[HilTable, Path]:
    path = tmp_path / "journal.db"
    return HilTable(table, tmp_path / "run", SqliteJournal(path)), path


def pai_gow_finished(t: HilTable, cards: int) -> RoundResult:
    """Pai gow: the rest of the deal (``cards``) dealt, the shoe's count of the cards left taken,
    every hand set by the house way, the round finished."""
    status = t.count("ShoeStatus")
    t.deal(cards)
    t.settled("ShoeStatus", status, 1)
    set_all_by_house_way(t)
    return t.finish()


def dealt_in_order(path: Path, cards: list[str]) -> None:
    """The journal at ``path`` verifies and recalls round 1's cards as ``cards``, in dealing order."""
    assert [(i, c) for i, c, _ in cards_recalled(path)] == list(enumerate(cards, start=1))


@contextmanager
def full_disk_round(
    table: TableConfig, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> Iterator[tuple[HilTable, Path]]:
    """A HIL table of ``table`` and its journal's path (as ``open_table``), for a round played
    through a full disk: after it, no device event journaled twice, and the log says the disk is
    full in words (no SQLite text)."""
    caplog.set_level(logging.INFO)
    t, path = open_table(table, tmp_path)
    with t:
        yield t, path
        once_each(t)
    no_sqlite_text(caplog)


def test_mississippi_bets_and_cards_during_a_full_disk(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with full_disk_round(MISSISSIPPI, tmp_path, caplog) as (t, path):
        t.spot(1, "ante", 500)
        bets_during_a_full_disk(t, (4, "ante", 1000), (4, "bonus", 500))
        assert t.step == "betting"
        t.press("no_more_bets")
        t.load(shoe("As Ad 4c 5c 7h 8h 2c"))
        t.deal(2)
        cards_during_a_full_disk(t, 2)
        t.deal(3)
        assert t.step == "third_street"
        assert [str(c) for c in t.hands().of(4)] == ["4c", "5c"]
        for street in ("third", "fourth", "fifth"):
            t.spot(1, street, 500)
            t.spot(4, street, 1000)
            t.press("reveal")
        result = t.finish()
        assert result.settlement is not None and {w.spot for w in result.settlement.seat(4).wagers} >= {"ante", "bonus"}
    assert cards_recalled(path) == seats_1_and_4_ledger("As Ad 4c 5c 7h 8h 2c")


def test_boston5_bets_and_cards_during_a_full_disk(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with full_disk_round(BOSTON5, tmp_path, caplog) as (t, path):
        t.spot(1, "ante", 500)
        t.spot(1, "first", 1000)
        bets_during_a_full_disk(t, (3, "ante", 500), (3, "first", 1000))
        t.press("no_more_bets")
        cards = "As Ks Qs 2h 7d 9c 3c 4d 5h Js Ts 6h 6c 8c 9s"
        t.load(shoe(cards))
        t.deal(3)
        cards_during_a_full_disk(t, 3)
        t.deal(3)
        if t.step == "bonus":
            t.press("next")
        t.spot(1, "second", 1000)
        t.spot(3, "second", 1000)
        t.press("deal")
        t.deal(6)
        result = t.finish()
        assert result.settlement is not None and {"ante", "first", "second"} <= {
            w.spot for w in result.settlement.seat(3).wagers
        }
    dealt_in_order(path, cards.split())


def test_pai_gow_bets_and_cards_during_a_full_disk(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with full_disk_round(PAI_GOW, tmp_path, caplog) as (t, path):
        t.spot(2, "pai_gow", 1000)
        bets_during_a_full_disk(t, (5, "pai_gow", 2500), (2, "bonus", 500))
        t.spot(2, "envy_marker", 1)
        t.press("no_more_bets")
        t.press(*["next"] * (DICE - 3), "confirm")
        assert t.step == "dealing"
        cards = shoe_for({})
        t.load(cards)
        t.deal(10)
        cards_during_a_full_disk(t, 5)
        result = pai_gow_finished(t, 34)
        assert result.settlement is not None and {"pai_gow", "bonus"} <= {
            w.spot for w in result.settlement.seat(2).wagers
        }
        assert result.settlement.seat(5).wager("pai_gow") is not None
    dealt_in_order(path, cards[:49])


def test_the_shoe_sends_again_every_card_not_journaled_and_none_is_taken_twice(tmp_path: Path) -> None:
    """The resend itself: while the journal is full the shoe is never acknowledged (it still
    holds every card, and sends the first again on every poll), and once there is room each card
    arrives once, in order, under its own event number."""
    t, _ = open_table(MISSISSIPPI, tmp_path)
    with t:
        t.spot(1, "ante", 500)
        t.press("no_more_bets")
        t.load(shoe("As Ad Kc Qd 7h 8h 2c"))
        t.deal(1)
        fill(t)
        t.shoe.deal(2)
        held_for_the_journal(t)
        link = t.runtime.drivers["shoe"].link
        sent = link.stats.frames_ok
        wait(lambda: link.stats.frames_ok > sent + 10, "polls answered meanwhile")  # asked again and again
        held = [number for _, number, *_ in t.shoe.pending]
        assert len(held) == 2 and held[1] == held[0] + 1  # nothing acknowledged
        assert t.count("CardDealt") == 1 and link.protocol.ack_no == held[0] - 1
        free(t)
        t.settled("CardDealt", 1, 2)
        wait(lambda: not t.shoe.pending, "the shoe acknowledged")
        dealt = journaled(t, "CardDealt")
        assert [(d["index"], d["card"]) for d in dealt] == [(1, "As"), (2, "Ad"), (3, "Kc")]
        assert [d["event_no"] for d in dealt[1:]] == held
        assert link.stats.duplicates == 0 and link.stats.gaps == 0


def test_a_jump_in_the_shoes_card_numbers_holds_and_the_card_waits(tmp_path: Path) -> None:
    """Cards 3 and 4 leave the shoe unreported (acknowledged but never journaled, as before this
    was mended): the table sees the shoe's numbers jump from 2 to 5 and holds; card 5 is kept for
    the supervisor, who declares the misdeal."""
    t, path = open_table(MISSISSIPPI, tmp_path)
    with t:
        t.spot(1, "ante", 500)
        t.spot(2, "ante", 500)
        t.press("no_more_bets")
        t.load(shoe("As Ad 4c 5c 6c 7c 7h 8h 2c"))
        t.deal(2)
        with t.shoe.lock:
            t.shoe.position += 2  # two cards out, their reports lost
            t.shoe.count += 2
        t.deal(1)
        assert t.step == "hold"
        assert t.hold_reason == (
            "shoe card numbers jump from 2 to 5: shoe cards 3 to 4 never reported:"
            " supervisor: confirm accepts the cards, void declares a misdeal"
        )
        assert [str(c) for c in t.hands().of(2)] == []  # 6c is not seat 2's card
        t.key()
        t.press("void")
        wait(lambda: len(t.results) == 1, "the misdeal")
    assert cards_recalled(path) == [
        (1, "As", "seat 1"),
        (2, "Ad", "seat 1"),
        (5, "6c", "misdeal: the round is void"),
    ]


def test_a_controller_stopped_while_the_journal_is_full_loses_no_card(tmp_path: Path) -> None:
    """The controller stops (a restart, a power cut's SIGKILL) while cards it could not journal
    wait on the shoe: started again, on a journal with room, it is sent them and takes each once.
    A restart recovers as a journal outage does (issue 40 item 3): the cards the shoe sends before
    its state is read again wait for the supervisor, who accepts them in dealing order."""
    t, path = open_table(MISSISSIPPI, tmp_path)
    with t:
        locked(t, "As Ad 4c 5c 7h 8h 2c")
        t.deal(2)
        fill(t)
        t.shoe.deal(1)
        held_for_the_journal(t)
        t.shoe.deal(1)
        wait(lambda: len(t.shoe.pending) == 2, "the shoe to keep both cards unacknowledged")
        t.runtime.stop()
        assert len(t.shoe.pending) == 2  # nothing acknowledged at the stop either
        urls = {role: str(t.tmp_path / role) for role in t.servers}
        second = TableRuntime(MISSISSIPPI, urls, SqliteJournal(path))  # the limit was the old connection's
        second.latest.share_hands = True
        second.start()
        try:
            wait(lambda: not t.shoe.pending and second.engine.queue.empty(), "the shoe's cards taken")
            wait(
                lambda: second.snapshot.hold is not None and second.snapshot.hold.reason.startswith("2 cards dealt"),
                "the two cards to wait for the supervisor",
            )
            assert second.snapshot.dealt == 2  # not taken before the supervisor accepts them
            t.panel.emit(ButtonChanged, button=BUTTONS.index("supervisor_key") + 1, pressed=True)
            wait(lambda: second.snapshot.key_on, "the key on")
            t.panel.press("confirm")  # accepted in dealing order
            wait(lambda: second.snapshot.hold is None and second.snapshot.dealt == 4, "the cards accepted")
            t.shoe.deal(3)
            wait(lambda: second.snapshot.step == "third_street", "the deal to end")
            hands = second.latest.hands()
            assert hands is not None and [str(c) for c in hands.of(4)] == ["4c", "5c"]
            dealt = [r.data for r in second.journal.records() if r.kind == "CardDealt"]  # type: ignore[attr-defined]
            assert [(d["index"], d["card"]) for d in dealt] == list(enumerate("As Ad 4c 5c 7h 8h 2c".split(), start=1))
        finally:
            second.stop()


# --- issue 32: a journal outage is an outage of every device at once ---------------------------------


def test_mississippi_bets_a_press_and_cards_on_every_device_during_a_full_disk(tmp_path: Path) -> None:
    """Antes placed, "no more bets" pressed and two cards dealt while the journal is full, on the
    three devices at once: each device sends its own events again once there is room, and the
    links' polling interleaves them (an ante may come after the press, a card before the ante).
    The table reads every device again: an ante journaled before the press counts as placed
    (betting was open when the outage began), one journaled after it is a late bet (issue 40: the
    journal's order), the press is journaled and not acted on (the dealer presses it again), and
    the cards wait for the supervisor, who accepts them in dealing order once the deal begins."""
    t, path = open_table(MISSISSIPPI, tmp_path)
    with t:
        t.spot(1, "ante", 500)
        fill(t)
        spots, presses, cards = t.count("SpotReport"), t.count("ButtonChanged"), t.count("CardDealt")
        t.spots.place(4, "ante", 1000)
        held_for_the_journal(t)
        t.spots.place(2, "ante", 500)
        t.panel.press("no_more_bets")
        t.load(shoe("As Ad 4c 5c Kh Kd 7h 8h 2c"))
        t.shoe.deal(2)  # seat 1's two cards
        wait(
            lambda: len(t.spots.pending) == 2 and len(t.panel.pending) == 2 and len(t.shoe.pending) == 2,
            "every device to keep its events unacknowledged",
        )
        free(t)
        t.settled("SpotReport", spots, 2)
        t.settled("ButtonChanged", presses, 2)
        t.settled("CardDealt", cards, 2)
        wait(lambda: t.step == "betting" and not t.snap.links_pending, "every device read again")
        placed = {2: 500, 4: 1000}
        counted = chips_before_the_press(t, placed)
        assert t.snap.wagers() == {1: {"ante": 500}, **{n: {"ante": c} for n, c in counted.items()}}
        late = [f"late bet: seat {n} ante {c / 100:.2f} not accepted" for n, c in placed.items() if n not in counted]
        assert list(t.snap.late_notes) == late
        seats = sorted(t.snap.wagers())
        assert "no_more_bets pressed while the journal could not be written: not acted on, press again" in t.texts
        assert [str(c) for c in t.hands().of(1)] == []  # the cards wait
        t.press("no_more_bets")  # pressed again: now the cards go to the supervisor
        reason = "2 cards dealt while held: supervisor: confirm accepts, void declares a misdeal"
        wait(lambda: t.step == "hold" and t.hold_reason == reason, "the hold for the cards")
        assert not any("deal the cards" in line for line in t.screen())
        t.key()
        t.press("confirm")
        wait(lambda: t.step == "dealing", "the cards accepted")
        t.deal(2 * len(seats) + 3 - 2)
        assert t.step == "third_street"
        order = "As Ad 4c 5c Kh Kd".split()
        assert [[str(c) for c in t.hands().of(n)] for n in seats] == [
            order[2 * k : 2 * k + 2] for k in range(len(seats))
        ]
        antes = {1: 500, **counted}
        for street in ("third", "fourth", "fifth"):
            for seat in seats:
                t.spot(seat, street, antes[seat])
            t.press("reveal")
        result = t.finish()
        assert result.settlement is not None
        once_each(t)
    assert cards_recalled(path)[:2] == [(1, "As", "seat 1"), (2, "Ad", "seat 1")]  # the journal verifies too


def test_pai_gow_dice_and_cards_during_a_full_disk(tmp_path: Path) -> None:
    """Pai gow: a bet placed, "no more bets" and the dice pressed and cards dealt while the journal
    is full, on every device: the presses are not acted on (the dice entry starts again, never
    left half done), the bet counts if the journal has it before the press (else it is late), the
    cards wait for the supervisor until the deal begins."""
    t, path = open_table(PAI_GOW, tmp_path)
    with t:
        t.spot(2, "pai_gow", 1000)
        fill(t)
        presses, cards = t.count("ButtonChanged"), t.count("CardDealt")
        t.spots.place(5, "pai_gow", 2500)
        held_for_the_journal(t)
        for button in ("no_more_bets", *["next"] * (DICE - 3), "confirm"):
            t.panel.press(button)
        deck_order = shoe_for({})
        t.load(deck_order)
        t.shoe.deal(3)
        wait(lambda: len(t.shoe.pending) == 3, "the shoe to keep its cards")
        free(t)
        t.settled("ButtonChanged", presses, 2 * (DICE - 1))
        t.settled("CardDealt", cards, 3)
        wait(lambda: t.step == "betting" and not t.snap.links_pending, "every device read again")
        counted = chips_before_the_press(t, {5: 2500})  # after the press in the journal: a late bet
        assert t.snap.wagers() == {2: {"pai_gow": 1000}, **{n: {"pai_gow": c} for n, c in counted.items()}}
        t.press("no_more_bets")
        assert t.step == "no_more_bets"  # the dice entered again, from the start
        t.press(*["next"] * (DICE - 3), "confirm")
        reason = "3 cards dealt while held: supervisor: confirm accepts, void declares a misdeal"
        wait(lambda: t.step == "hold" and t.hold_reason == reason, "the hold for the cards")
        t.key()
        t.press("confirm")
        wait(lambda: t.step == "dealing", "the cards accepted")
        result = pai_gow_finished(t, 46)
        assert result.settlement is not None
        assert any(s.seat == 5 for s in result.settlement.seats) is (5 in counted)
        once_each(t)
    dealt_in_order(path, deck_order[:49])

"""A hold's ways out offer the supervisor's void only when the table would take it.

Found: once the settlement had paid or collected (a step confirmed, a Boston 5 bonus paid, a pai
gow hand settled as it was turned), or in the stub count after a settled round, ``void`` is
refused (``why_not_void``), yet a hold's prompt on the dealer's screen and what clears it on the
page and the pit still said ``or key: void``. Now both follow the round's ``why_not_void``; before
anything was paid the void is offered as before (the controls)."""

from __future__ import annotations

from typing import cast

import pytest
from table_helpers import FedTable, bench_table
from test_attack14_late_settled import boston5_bonus, pai_gow_turned
from test_attack14_void_settled import key, mississippi_round, table
from test_table_outages import Table

from controller.journal import Journal
from controller.table._card_intake import misread_prompt
from controller.table._hold_journal import HoldJournal
from controller.table._hold_ways import Ways
from controller.table._holds import CARDS_WAIT_PROMPT, HoldKind, cards_wait_reason, clears_ways, waits_for_clears
from controller.web.view import table_view
from drivers.link import LinkDown
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, Jam
from drivers.state import ShoeState

PAID = "round 1 is being settled: wagers already paid or collected"


def stub_count_after_five_rounds() -> FedTable:
    """A Mississippi Stud table in the stub count after its fifth round, settled and recorded."""
    t = table("mississippi_stud")
    for r in range(5):
        mississippi_round(t, 9 * r)
        while t.snapshot().step == "settlement":
            t.press("confirm")
    return t


def ways(t: FedTable) -> tuple[str, str, str]:
    """The held table's prompt (the screen's), what clears it (the page's), and the screen's lines."""
    s = t.snapshot()
    assert s.step == "hold" and s.hold is not None
    return s.asked, s.hold.clears, "\n".join(s.screen)


def void_refused(t: FedTable, why: str) -> None:
    """No text names the void, and the table refuses it for ``why`` (key on)."""
    asked, clears, screen = ways(t)
    assert "void" not in asked and "void" not in clears and "void" not in screen.replace("HOLD:", "")
    key(t)
    assert t.snapshot().why_not_void() == why


def void_offered(t: FedTable) -> None:
    asked, clears, _ = ways(t)
    assert "void" in asked and "void" in clears
    key(t)
    assert t.snapshot().why_not_void() is None


@pytest.mark.parametrize("fault", ["jam", "link"])
def test_no_void_offered_in_the_stub_count_after_a_settled_round(fault: str) -> None:
    t = stub_count_after_five_rounds()
    assert t.snapshot().step == "count_stub"
    t.feed(Jam(device="shoe") if fault == "jam" else LinkDown(device="bet_spots", reason="no reply"))
    void_refused(t, "round 5 is over: count the stub")


def test_a_card_waiting_in_the_stub_count_is_no_misdeal_on_the_screen() -> None:
    """A card out of the shoe during a jam in the stub count after a settled round waits for the
    supervisor: the screen's prompt and the reason it notes offer ``confirm`` alone (a misdeal's
    void is refused there)."""
    t = stub_count_after_five_rounds()
    t.feed(Jam(device="shoe"))
    t.feed(CardDealt(device="shoe", card="Ks", index=46, quality=100))
    t.feed(ShoeState(device="shoe", status="ok", cards_out=46))
    assert "1 card dealt while held: supervisor: confirm accepts" in t.snapshot().recent
    void_refused(t, "round 5 is over: count the stub")
    assert not any("void" in text for text in t.snapshot().recent if "dealt while held" in text)


class _Records:
    """A journal that keeps what is appended (the hold records)."""

    def __init__(self) -> None:
        self.records: list[tuple[str, dict[str, object]]] = []

    def append(self, kind: str, data: dict[str, object]) -> int:
        self.records.append((kind, data))
        return len(self.records)


@pytest.mark.parametrize("paid", [True, False], ids=["paid", "nothing paid"])
def test_the_page_and_the_hold_records_offer_the_void_as_the_table_does(paid: bool) -> None:
    """The table page's hold (its reason and what clears it) and the journal's hold record (what
    clears it, as the log and ``tablectl recall`` say it) after a settlement step paid, and before."""
    t = table("mississippi_stud")
    mississippi_round(t, 0, fold=paid)  # a fold's confirmed collection moved chips too (void16)
    if paid:
        t.press("confirm", "confirm")
    records = _Records()
    holds = HoldJournal(cast(Journal, records), clock=lambda: 0.0)
    holds.seen(t.snapshot())
    t.feed(CardDealt(device="shoe", card="Ks", index=20, quality=100))  # cards 10-19 never reported
    s = t.snapshot()
    holds.seen(s)
    assert s.hold is not None and s.hold.reason.endswith("confirm accepts the cards, void declares a misdeal")
    view = table_view(s, bench_table("mississippi_stud"), {}, ())["hold"]
    assert isinstance(view, dict)
    ((kind, began),) = records.records
    assert kind == "HoldBegan" and began["reason"] == s.hold.reason  # the journal's reason as it was
    texts = (str(began["clears"]), str(view["reason"]), str(view["clears"]), s.hold.shown_reason)
    assert all(("void" in text) is not paid for text in texts), texts


def test_no_void_offered_once_a_settlement_step_paid() -> None:
    t = table("mississippi_stud")
    mississippi_round(t, 0)
    t.press("confirm", "confirm")  # the community cards, then a seat paid or collected
    t.feed(Jam(device="shoe"))
    void_refused(t, PAID)


def test_no_void_offered_once_a_boston5_bonus_was_paid() -> None:
    t = table("boston5")
    boston5_bonus(t, exposed=True)
    t.feed(LinkDown(device="bet_spots", reason="no reply"))
    void_refused(t, PAID)


def test_no_void_offered_once_a_pai_gow_hand_was_settled() -> None:
    t = table("pai_gow")
    pai_gow_turned(t)
    t.feed(Jam(device="shoe"))
    void_refused(t, PAID)


@pytest.mark.parametrize("game", ["mississippi_stud", "boston5"])
def test_void_still_offered_before_anything_was_paid(game: str) -> None:
    """Controls: held at the settlement's first step (nothing confirmed), and after a Boston 5
    bonus only collected (a void returns it)."""
    t = table(game)
    if game == "boston5":
        boston5_bonus(t, exposed=False)
    else:
        mississippi_round(t, 0, fold=False)  # a fold's confirmed collection moved chips (void16)
    t.feed(Jam(device="shoe"))
    void_offered(t)
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=False))
    t.feed(LinkDown(device="bet_spots", reason="no reply"))
    void_offered(t)


WAYS: list[Ways] = (
    [kind.prompt for kind in HoldKind]
    + [CARDS_WAIT_PROMPT, misread_prompt("shoe: link down"), misread_prompt(None), cards_wait_reason(2)]
    + [waits_for_clears({"shoe": "down", "panel": "never connected"})]
    + [
        clears_ways(reason)
        for reason in (
            "never connected: shoe: no answer",
            "journal written again: each device's state is read again",
            "link down: shoe",
            "unreadable card: seat 1 (shoe card 3): read it again, or void",
            "card 4 was read again or entered: x",
            "shoe jammed: clear the jam",
            "misdeal check: the stub is 3",
            "misdeal: x",
            "journal: disk full",
            "journal: 2 events not recorded or acted on",
            "stub count 4, expected 3",
            "2 cards dealt while held: supervisor: confirm accepts, void declares a misdeal",
            "controller error: KeyError",
        )
    ]
)


@pytest.mark.parametrize("ways", WAYS, ids=[ways.words() for ways in WAYS])
def test_every_way_out_leaves_the_void_out_whole(ways: Ways) -> None:
    """Each hold's ways out, the void refused: no void offered, nothing half left; a hold whose only
    way out is the void says it is refused, and why."""
    assert "void" in ways.words()
    out = ways.words("why")
    assert "void" not in out.replace("void refused: why", "") and not out.endswith((",", ";", " or", ":"))
    assert ("void refused: why" in out) is all(way.void for way in ways.ways)


def test_the_void_alone_says_it_is_refused() -> None:
    assert clears_ways("misdeal: x").words() == "supervisor key on: void"
    assert clears_ways("misdeal: x").words("why") == "supervisor key on: void refused: why"


@pytest.mark.parametrize("paid", [True, False], ids=["paid", "nothing paid"])
def test_clear_fault_refused_while_a_card_waits_offers_the_void_as_the_table_does(paid: bool) -> None:
    """Found: with a card waiting for the supervisor, clear fault is refused with the hold's
    reason, which still said ``void declares a misdeal`` once the void was refused (a settlement
    step paid): on the dealer's screen, in the supervisor's options and in the journal's
    ``SupervisorRefused`` record. Now it offers the void only when the table takes it."""
    t = Table()  # its journaled records kept
    mississippi_round(t, 0, fold=paid)  # a fold's confirmed collection moved chips too (void16)
    if paid:
        t.press("confirm", "confirm")
    t.feed(Jam(device="shoe"))
    t.feed(CardDealt(device="shoe", card="Ks", index=10, quality=100))
    t.feed(ShoeState(device="shoe", status="ok", cards_out=10))
    key(t)
    t.press("clear_fault")
    s = t.snapshot()
    refusal = "1 card dealt while held: supervisor: confirm accepts" + ("" if paid else ", void declares a misdeal")
    assert f"clear fault refused: {refusal}" in s.recent
    option = s.option("clear_fault")
    assert option is not None and option.refused == refusal
    refused = t.records("SupervisorRefused")[-1]
    assert refused["action"] == "clear fault" and refused["reason"] == refusal
    assert (
        s.hold is not None
        and s.hold.reason == "1 card dealt while held: supervisor: confirm accepts, void declares a misdeal"
    )

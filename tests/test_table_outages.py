"""The table through device outages, restarts and bad reports (issue 11), event by event: the
devices faked at the device interface, the state snapshots of drivers/state.py posted directly."""

from __future__ import annotations

from typing import Any

from table_helpers import NOT_AT_THIS_TABLE, FedTable, seats_1_and_4_ledger

from controller.configuration import config_dir, load_table
from controller.game.boston5._machine import Boston5Table
from controller.game.mississippi_stud._machine import MississippiTable, Phase
from controller.table.engine import JournalFault
from controller.table.events import DevicesExpected
from controller.table.phases import Common
from controller.table.round import HoldKind
from controller.vocab import card
from drivers.bet_spots import SpotReport
from drivers.link import DeviceFault, LinkDown, LinkUp
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt
from drivers.state import PanelState, ShoeState, SpotsState

TABLE = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
CARDS = "As Ad Kc Qd 7h 8h 2c"


class Table(FedTable):
    """The Mississippi Stud machine fed events directly, its journaled records kept."""

    def __init__(self, cls: type = MississippiTable, table: Any = TABLE) -> None:
        super().__init__(cls, table)
        self.journal: list[tuple[str, dict[str, Any]]] = []
        self.m.audit = lambda kind, data: self.journal.append((kind, data))

    def records(self, kind: str) -> list[dict[str, Any]]:
        return [d for k, d in self.journal if k == kind]

    def key(self, on: bool = True) -> None:
        self.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=on))

    def cards(self, cards: str, first: int = 1) -> None:
        for i, c in enumerate(cards.split(), start=first):
            self.feed(CardDealt(device="shoe", card=c, index=i, quality=100))

    def down(self, device: str) -> None:
        self.feed(LinkDown(device=device, reason="no reply"))

    def up(self, device: str) -> None:
        self.feed(LinkUp(device=device, boot_id=1, rebooted=False))


BETS = ((1, "ante", 500), (4, "ante", 1000))
"""The antes of seats 1 and 4 that ``betting`` places: what the bet spots' state says after a link-up."""


def betting(t: Table) -> None:
    for seat, spot, cents in BETS:
        t.spot(seat, spot, cents)


def spots_back(t: Table) -> None:
    """The bet spots' link up again and their state read: the bets as ``betting`` placed them."""
    t.up("bet_spots")
    t.feed(SpotsState(device="bet_spots", spots=BETS))


def dealing(cards: str = "") -> Table:
    """A table whose seats 1 and 4 bet, no more bets, and ``cards`` dealt (in their order)."""
    t = Table()
    betting(t)
    t.press("no_more_bets")
    if cards:
        t.cards(cards)
    return t


# --- 1. the state read after a link-up ----------------------------------------------------------------


def test_spots_changed_while_the_link_was_down_count_as_their_reports_while_betting() -> None:
    t = Table()
    betting(t)
    t.down("bet_spots")
    assert t.m.phase is Common.HOLD
    t.up("bet_spots")
    # while down: seat 2 put an ante, seat 4 took its ante off, seat 9 does not exist
    t.feed(SpotsState(device="bet_spots", spots=((1, "ante", 500), (2, "ante", 700), (9, "ante", 500))))
    assert t.m.phase is Common.BETTING
    assert {n: s.wagers for n, s in t.m.seats.items() if s.wagers} == {1: {"ante": 500}, 2: {"ante": 700}}
    assert [d["seat"] for d in t.records("DeviceFault")] == [9]


def test_spots_changed_while_the_link_was_down_after_the_lock_are_late_and_removed_bets() -> None:
    t = dealing(CARDS)
    t.down("bet_spots")
    t.up("bet_spots")
    t.feed(SpotsState(device="bet_spots", spots=((1, "ante", 900), (2, "bonus", 100))))
    assert t.m.phase is Phase.THIRD_STREET
    assert t.m.late.noted == [
        "late bet: seat 1 ante 9.00 not accepted",
        "late bet: seat 2 bonus 1.00 not accepted",
        "removed bet: seat 4 ante 0.00 not accepted",
    ]
    assert t.m.seats[1].wagers == {"ante": 500} and t.m.seats[4].wagers == {"ante": 1000}
    assert ("lamp", (4, "ante", "flash_removed")) in t.devices.commands


def test_the_panels_state_replaces_the_key_the_table_believed() -> None:
    t = Table()
    betting(t)
    t.down("panel")
    t.up("panel")
    t.feed(PanelState(device="panel", key_on=True, held=()))
    assert t.m.phase is Common.BETTING and t.m.supervisor.key_on
    t.feed(PanelState(device="panel", key_on=False, held=()))
    assert not t.m.supervisor.key_on


def test_a_shoe_count_that_differs_from_the_cards_reported_holds() -> None:
    t = dealing("As Ad Kc")
    t.down("shoe")
    t.up("shoe")
    t.feed(ShoeState(device="shoe", status="ok", cards_out=5))  # two cards left it unreported
    assert (
        t.m.phase is Common.HOLD and t.m.holds.reason == "shoe: the shoe counts 5 cards out, the table has 3 reported"
    )
    assert t.records("DeviceFault")[-1]["cards_out"] == 5
    t.key()
    t.press("void")
    assert t.m.rounds[-1].settlement is None


# --- 2. the key after a panel link-down ------------------------------------------------------------------


def test_the_key_counts_as_off_after_a_panel_link_down_and_a_refused_void_is_journaled() -> None:
    t = dealing(CARDS)
    t.key()
    t.down("panel")
    t.up("panel")
    t.feed(PanelState(device="panel", key_on=False, held=()))
    assert t.m.phase is Phase.THIRD_STREET
    t.press("void")
    assert t.m.phase is Phase.THIRD_STREET and t.m.rounds == []
    assert t.records("SupervisorRefused") == [
        {"round": 1, "action": "void", "button": "void", "reason": "the supervisor's key is needed"}
    ]
    t.key()  # turned on again: the panel reports it
    t.press("void")
    assert t.m.rounds[-1].settlement is None and t.records("SupervisorAction")[-1]["action"] == "void"


def test_a_late_bet_decision_without_the_key_is_refused_and_journaled() -> None:
    t = dealing(CARDS)
    t.spot(1, "bonus", 100)
    t.press("next")
    assert t.records("SupervisorRefused")[-1]["action"] == "accept late bet" and "bonus" not in t.m.seats[1].wagers


# --- 3. a hold for a device ends only when it is back and read ----------------------------------------------


def test_clear_fault_is_refused_while_the_device_is_gone_or_unread_and_the_hold_ends_when_it_is_read() -> None:
    t = dealing("As Ad")
    t.key()
    t.down("bet_spots")
    t.press("clear_fault")
    assert t.m.phase is Common.HOLD and t.records("SupervisorRefused")[-1]["reason"] == (
        "a device is not back: bet_spots: link down"
    )
    t.up("bet_spots")
    t.press("clear_fault")
    assert t.m.phase is Common.HOLD and "its state not read yet" in t.records("SupervisorRefused")[-1]["reason"]
    t.feed(SpotsState(device="bet_spots", spots=BETS))
    assert t.m.phase is Phase.DEALING and t.m.display.prompts[-1] == "bet_spots back: resume"


def test_the_supervisor_may_void_while_the_device_is_gone() -> None:
    t = dealing()
    t.key()
    t.down("bet_spots")
    t.press("void")
    assert t.m.rounds[-1].settlement is None and t.m.round_no == 2
    # the next round opens held for the device still gone (issue 32: never "deal" with one missing)
    assert t.m.phase is Common.HOLD and t.m.holds.reason == "link down: bet_spots"
    spots_back(t)
    assert t.m.phase is Common.BETTING


def test_two_devices_down_the_hold_ends_when_both_are_back() -> None:
    t = dealing("As Ad")
    t.down("shoe")
    t.down("bet_spots")
    t.up("shoe")
    t.feed(ShoeState(device="shoe", status="ok", cards_out=2))
    assert t.m.phase is Common.HOLD
    spots_back(t)
    assert t.m.phase is Phase.DEALING


# --- 4. every device gets its whole state on every link-up ----------------------------------------------------


def test_on_link_up_the_panel_gets_its_screen_and_lamps_and_the_spots_every_lamp_and_the_lock() -> None:
    t = dealing("As Ad")
    t.down("panel")
    t.devices.commands.clear()
    t.up("panel")
    shown = [args for name, args in t.devices.commands if name in ("display", "screen")]
    assert shown and "link down: panel" in str(shown[-1])  # its whole screen: the hold
    assert ("panel_lamp", ("clear_fault", True)) in t.devices.commands
    t.devices.commands.clear()
    t.up("bet_spots")
    assert t.devices.commands == [
        ("lock", (True,)),
        ("lamp", (1, "ante", "accepted")),
        ("lamp", (4, "ante", "accepted")),
    ]


# --- 5. cards dealt while held ---------------------------------------------------------------------------------


def held_with_cards(t: Table) -> None:
    betting(t)
    t.press("no_more_bets")
    t.cards("As Ad Kc")
    t.down("panel")
    t.cards("Qd 7h 8h 2c", first=4)  # the dealer goes on dealing: the cards left the shoe
    assert t.m.phase is Common.HOLD and len(t.m.ledger.waiting) == 4
    t.up("panel")
    t.feed(PanelState(device="panel", key_on=False, held=()))
    assert t.m.phase is Common.HOLD
    assert t.m.holds.reason == "4 cards dealt while held: supervisor: confirm accepts, void declares a misdeal"


def test_cards_dealt_while_held_wait_and_are_accepted_in_their_place() -> None:
    t = Table()
    held_with_cards(t)
    t.press("confirm")  # without the key: refused
    assert t.m.phase is Common.HOLD and t.records("SupervisorRefused")[-1]["action"] == "accept cards"
    t.press("clear_fault")
    t.key()
    t.press("clear_fault")  # the cards must be decided on first
    assert t.m.phase is Common.HOLD and "confirm accepts" in t.records("SupervisorRefused")[-1]["reason"]
    t.press("confirm")
    assert t.m.phase is Phase.THIRD_STREET
    assert [str(c) for c in t.m.seats[4].cards] == ["Kc", "Qd"] and [str(c) for c in t.m.community] == CARDS.split()[4:]
    assert [(c["index"], c["card"], c["to"]) for c in t.m.card_log] == seats_1_and_4_ledger(CARDS)
    assert t.records("SupervisorAction")[-1]["action"] == "cards accepted"


def test_cards_dealt_while_held_can_be_declared_a_misdeal() -> None:
    t = Table()
    held_with_cards(t)
    t.key()
    t.press("void")
    assert t.m.rounds[-1].settlement is None and t.records("SupervisorAction")[-1]["action"] == "misdeal"
    assert t.m.rounds[-1].record["seats"]["4"]["cards"] == "Kc" and t.m.phase is Common.BETTING


def test_the_ledger_of_a_voided_round_lists_the_waiting_cards_as_a_misdeal() -> None:
    t = Table()
    seen: list[list[dict[str, Any]]] = []
    t.m.on_round = lambda result: seen.append(t.m.card_log)
    held_with_cards(t)
    t.key()
    t.press("void")
    assert [(c["index"], c["to"]) for c in seen[-1]] == [
        (1, "seat 1"),
        (2, "seat 1"),
        (3, "seat 4"),
        *((i, "misdeal: the round is void") for i in range(4, 8)),
    ]


def test_a_duplicate_among_the_waiting_cards_holds_again_and_the_rest_keep_waiting() -> None:
    t = dealing("As Ad")
    t.down("panel")
    t.cards("Kc As Qd", first=3)  # the shoe misreads the fourth card as As
    t.up("panel")
    t.feed(PanelState(device="panel", key_on=True, held=()))
    t.press("confirm")
    assert t.m.phase is Common.HOLD and t.m.holds.reason.startswith("duplicate card:")
    assert "shoe card 4" in t.m.holds.reason
    assert [i for i, _ in t.m.ledger.waiting] == [5]
    assert [c["index"] for c in t.m.card_log] == [1, 2, 3, 4, 5]


# --- 6. reports for seats and spots the table does not have ---------------------------------------------------------


def test_reports_for_seats_the_table_does_not_have_are_refused_as_device_faults() -> None:
    t = Table()
    for seat, spot in NOT_AT_THIS_TABLE:
        t.spot(seat, spot, 500)
    t.spot(1, "ante", 500)
    faults = t.records("DeviceFault")
    assert [(d["device"], d["seat"], d["spot"]) for d in faults] == [("spots", *s) for s in NOT_AT_THIS_TABLE]
    assert "no seat 9 at this table" in faults[2]["error"]
    assert list(t.m.seats) == [1]
    t.press("no_more_bets")
    assert t.m.phase is Common.NO_MORE_BETS


def test_a_boston5_second_wager_spot_is_a_spot_of_that_game() -> None:
    t = Table(Boston5Table, load_table(config_dir() / "bench" / "boston5.yaml"))
    t.spot(1, "second", 1000)
    t.spot(1, "third", 1000)
    assert [d["spot"] for d in t.records("DeviceFault")] == ["third"]


def test_cards_dealt_behind_an_unreadable_card_wait_until_it_is_entered() -> None:
    t = dealing("As Ad")
    from drivers.shoe import CardUnreadable

    t.feed(CardUnreadable(device="shoe", index=3))
    t.cards("Qd 7h 8h 2c", first=4)
    t.key()
    t.press("confirm")  # the unreadable card comes first: confirm enters a card, none is chosen yet
    assert t.m.phase is Common.HOLD and t.records("SupervisorAction") == []
    t.press("next")
    assert t.m.intake.entry_card == card("2c")  # the deck's first: none skipped (holds16)
    t.press("confirm")  # the 2c waits: out of the shoe already, not entered
    assert t.m.phase is Common.HOLD and t.records("SupervisorAction") == [] and t.m.intake.card_to_enter()
    t.press("next")
    assert t.m.intake.entry_card == card("3c")
    t.press("confirm")
    assert t.m.phase is Common.HOLD and t.m.holds.reason.startswith("4 cards dealt while held")
    t.press("confirm")
    assert t.m.phase is Phase.THIRD_STREET
    ledger = [*seats_1_and_4_ledger("As Ad ?? Qd 7h 8h 2c"), (3, "3c", "seat 4")]
    assert [(c["index"], c["to"]) for c in t.m.card_log] == [(n, to) for n, _, to in ledger]


def test_cards_the_shoe_delivers_late_after_its_own_link_returns_go_to_their_places() -> None:
    t = dealing("As Ad Kc")
    t.down("shoe")
    t.up("shoe")
    t.cards("Qd 7h 8h 2c", first=4)  # dealt while its link was down, delivered before its state
    assert t.m.phase is Common.HOLD
    t.feed(ShoeState(device="shoe", status="ok", cards_out=7))
    assert t.m.phase is Phase.THIRD_STREET and [str(c) for c in t.m.community] == ["7h", "8h", "2c"]
    assert [c["index"] for c in t.m.card_log] == list(range(1, 8))
    assert t.records("SupervisorAction") == []


def test_after_a_controller_restart_the_key_counts_as_off_until_the_panel_reports_it() -> None:
    t = Table()
    betting(t)
    t.key()
    state = t.m.snapshot_state()
    again = Table()
    again.m = MississippiTable(TABLE, again.devices)
    again.m.audit = lambda kind, data: again.journal.append((kind, data))
    again.m.restore(state)
    again.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))  # replayed from the journal
    again.m.resend_requests()  # recovery done: the replayed key is not evidence of now
    again.press("no_more_bets")
    again.press("void")
    assert again.m.rounds == [] and again.records("SupervisorRefused")[-1]["action"] == "void"


# --- a command the round depends on that finally fails --------------------------------------------------


def test_a_lock_command_that_finally_fails_holds_and_clear_fault_sends_the_spots_their_state() -> None:
    from drivers.link import DeviceFault

    t = dealing()
    t.feed(
        DeviceFault(
            device="bet_spots", kind="command_failed", command="lock", error="command lock failed: busy after 4 tries"
        )
    )
    assert t.m.phase is Common.HOLD and t.m.holds.reason == "bet_spots: command lock failed: busy after 4 tries"
    t.feed(DeviceFault(device="shoe", kind="events_gap", error="events 4-5 missing"))  # journaled, no hold of its own
    t.key()
    t.devices.commands.clear()
    t.press("clear_fault")
    assert t.m.phase is Common.NO_MORE_BETS
    assert ("lock", (True,)) in t.devices.commands and ("lamp", (4, "ante", "accepted")) in t.devices.commands


# --- issue 32: a device never connected since start -----------------------------------------------

NO_SHOE = "cannot open port /dev/ttyNOSHOE: No such file or directory"
NO_PANEL = "port /dev/ttyNOPANEL opened but the device does not answer (no reply for 1.0 s)"
RETRIED = " (tried again with backoff; reported again only if the reason changes)"


def started(t: Table, *connected: str) -> None:
    """The controller started (every device expected), ``connected`` up and their state read."""
    t.feed(DevicesExpected(("bet_spots", "panel", "shoe")))
    for device in connected:
        t.up(device)
        t.feed(STATES[device])


STATES: dict[str, Any] = {
    "bet_spots": SpotsState(device="bet_spots", spots=()),
    "panel": PanelState(device="panel", key_on=False, held=()),
    "shoe": ShoeState(device="shoe", status="ok", cards_out=0),
}


def cannot_connect(t: Table, device: str, error: str, kind: str = "open_failed") -> None:
    t.feed(DeviceFault(device=device, kind=kind, error=error + RETRIED))


def test_two_devices_never_connected_hold_the_table_at_open_with_their_reasons() -> None:
    """Issue 32: the shoe and the panel missing from start-up, two at once: the table holds in
    betting naming each with why; "no more bets" is never taken (the panel never says deal);
    bets placed meanwhile count; the hold ends by itself once both are up and read."""
    t = Table()
    started(t, "bet_spots")
    assert t.m.phase is Common.BETTING  # nothing said yet: the links are still trying
    cannot_connect(t, "shoe", NO_SHOE)
    # the panel has said nothing yet (its link is still trying): named too
    assert t.m.phase is Common.HOLD and t.m.holds.reason == f"never connected: panel; shoe: {NO_SHOE}"
    cannot_connect(t, "panel", NO_PANEL, "no_answer")
    reason = f"never connected: panel: {NO_PANEL}; shoe: {NO_SHOE}"
    snap = t.snapshot()
    assert t.m.phase is Common.HOLD and snap.hold is not None and snap.hold.reason == reason
    assert snap.hold.clears == "by itself when the panel and shoe links come up; or supervisor key on: void"
    assert snap.hold.by_itself and dict(snap.links_pending)["shoe"] == f"never connected: {NO_SHOE}"
    betting(t)  # bets placed while held in betting count
    t.press("no_more_bets")
    assert t.m.phase is Common.HOLD
    t.up("panel")
    t.feed(STATES["panel"])
    assert t.m.phase is Common.HOLD  # the shoe is still missing
    t.up("shoe")
    t.feed(STATES["shoe"])
    assert t.m.phase is Common.BETTING and t.m.seats[1].wagers == {"ante": 500}
    assert not any("deal" in line for line in t.m.display.prompts if not line.startswith("HOLD"))
    t.press("no_more_bets")
    assert t.m.phase is Common.NO_MORE_BETS and t.m.display.prompt == "no more bets: deal the cards"


def test_no_more_bets_is_not_taken_while_a_device_has_not_connected() -> None:
    """A device still connecting (its link has said nothing yet) when the dealer presses "no more
    bets": the table holds for it instead of saying deal; once it is up and read, betting goes on."""
    t = Table()
    started(t, "bet_spots", "panel")
    betting(t)
    t.press("no_more_bets")
    assert t.m.phase is Common.HOLD and t.m.holds.reason == "never connected: shoe"
    assert "deal the cards" not in t.m.display.prompts
    t.up("shoe")
    assert t.m.phase is Common.HOLD  # up, its state not read yet
    t.feed(STATES["shoe"])
    assert t.m.phase is Common.BETTING
    t.press("no_more_bets")
    assert t.m.phase is Common.NO_MORE_BETS


def test_a_device_missing_after_a_restart_mid_round_holds_where_the_round_is() -> None:
    """After a restart mid-round (every device expected again), the shoe's link cannot come up
    while the bet spots' goes down as well, two at once: the round holds in dealing; it resumes
    there once both are back."""
    t = Table()
    started(t, "bet_spots", "panel", "shoe")
    betting(t)
    t.press("no_more_bets")
    t.deal("As Ad Kc")
    started(t, "panel", "bet_spots")  # the controller restarted: the panel and the spots are back at once
    cannot_connect(t, "shoe", NO_SHOE)
    t.down("bet_spots")
    assert t.m.phase is Common.HOLD and t.m.holds.reason == f"never connected: shoe: {NO_SHOE}"
    assert t.m.holds.held_from is Phase.DEALING
    t.up("shoe")
    t.feed(ShoeState(device="shoe", status="ok", cards_out=3))
    assert t.m.phase is Common.HOLD  # the bet spots are still down
    spots_back(t)
    assert t.m.phase is Phase.DEALING
    t.deal("Qd 7h 8h 2c")
    assert t.m.phase is Phase.THIRD_STREET


# --- issue 32: a journal outage is an outage of every device at once ---------------------------------

JOURNAL_BACK = "journal written again: each device's state is read again"


def outage(t: Table, retaken: int) -> None:
    """The journal cannot be written, then takes records again (nothing lost)."""
    t.m.journal_failed("disk full: 0 bytes free on /")
    assert t.m.phase is Common.HOLD and t.m.holds.kind is HoldKind.JOURNAL
    t.feed(JournalFault("disk full: 0 bytes free on /", 0, retaken))
    assert t.m.phase is Common.HOLD and t.m.holds.reason == JOURNAL_BACK and t.m.holds.kind is HoldKind.LINK


def test_a_journal_outage_in_betting_reads_every_device_again() -> None:
    """Betting open when the journal fails; meanwhile an ante is placed, "no more bets" pressed
    and a card dealt, and the devices send them again as polling brings them: the ante, then the
    press, then the card. The press is not acted on (the dealer presses it again), the ante
    (journaled before the press) counts once the spots are read again, the card waits for the
    supervisor until the deal begins, then goes to its place in dealing order."""
    t = Table()
    betting(t)
    outage(t, 3)
    t.feed(SpotReport(device="bet_spots", seat=2, spot="ante", cents=500))  # until the state is read: not acted on
    t.press("no_more_bets")
    assert (
        "no_more_bets pressed while the journal could not be written: not acted on, press again"
        in t.m.display.state().notes
    )
    t.feed(CardDealt(device="shoe", card="As", index=1, quality=100))
    assert 2 not in t.m.seats and t.m.phase is Common.HOLD
    t.feed(PanelState(device="panel", key_on=False, held=()))
    t.feed(ShoeState(device="shoe", status="ok", cards_out=1))
    assert t.m.phase is Common.HOLD  # the bet spots are not read yet
    t.feed(SpotsState(device="bet_spots", spots=((1, "ante", 500), (2, "ante", 500), (4, "ante", 1000))))
    assert t.m.phase is Common.BETTING and t.m.seats[2].wagers == {"ante": 500}  # counted as placed, not late
    assert t.m.ledger.waiting and t.m.seats[1].cards == []
    t.press("no_more_bets")
    assert t.m.phase is Common.HOLD and t.m.holds.reason.startswith("1 card dealt while held")
    assert t.m.hold_prompt() == "supervisor: key, then confirm accepts the cards, or void"
    t.key()
    t.press("confirm")
    assert t.m.phase is Phase.DEALING and [str(c) for c in t.m.seats[1].cards] == ["As"]
    t.deal("Ad Kc Kd 4c 5c 7h 8h 2c")
    assert t.m.phase is Phase.THIRD_STREET and [str(c) for c in t.m.seats[4].cards] == ["4c", "5c"]


def test_a_journal_outage_at_a_street_takes_bets_from_the_state_and_no_press() -> None:
    """At third street: a street bet placed and "reveal" and a fold pressed during the outage: the
    presses are not acted on, the street bet counts from the spots' state read (as after a link
    outage); the round goes on from third street."""
    t = dealing()
    t.deal("As Ad Kc Kd 7h 8h 2c")
    assert t.m.phase is Phase.THIRD_STREET
    outage(t, 4)
    t.press("seat_4", "fold", "reveal")
    t.feed(SpotReport(device="bet_spots", seat=1, spot="third", cents=500))
    t.feed(ShoeState(device="shoe", status="ok", cards_out=7))
    t.feed(PanelState(device="panel", key_on=False, held=()))
    # the spots read last: the hold ends with them, and their change is the street bet (read while
    # the table still held, it would be a late bet for the supervisor, as after a link outage)
    t.feed(SpotsState(device="bet_spots", spots=((1, "ante", 500), (4, "ante", 1000), (1, "third", 500))))
    assert t.m.phase is Phase.THIRD_STREET and t.m.seats[4].folded_at is None
    assert t.m.seats[1].wagers["third"] == 500
    t.spot(4, "third", 1000)
    t.press("reveal")
    assert t.m.phase is Phase.FOURTH_STREET


def test_cards_waiting_before_a_misread_card_take_their_places_before_it_is_entered() -> None:
    """Found by the reference model (Mississippi Stud seed 146 of six rounds, every CI fault
    kind): the first community card waited for the supervisor (its count started over), the next
    came out unreadable. The supervisor entered the unreadable card first and the table made it
    community card 1, the waiting card community card 2: at fourth street the table showed the card
    that came out second. Cards that came out before the misread one are accepted first (confirm),
    then the misread one is entered in its own place."""
    from drivers.shoe import CardUnreadable

    t = dealing()
    t.cards("As Ad Kc Kd")  # the seats' cards
    t.feed(CardDealt(device="shoe", card="7h", index=1, quality=100))  # the count starts over: it waits
    t.feed(CardUnreadable(device="shoe", index=6))  # the count jumps: it waits to be entered
    assert t.m.phase is Common.HOLD and t.m.ledger.waiting
    t.key()
    t.press("next", "confirm")  # the card that came out first takes its place first
    assert [str(c) for c in t.m.community] == ["7h"]
    assert t.m.phase is Common.HOLD and t.m.holds.reason.startswith("unreadable card: community card 2 (shoe card 6)")
    t.press("next", "confirm")  # then the misread one is entered in its own place
    assert len(t.m.community) == 2 and str(t.m.community[0]) == "7h"
    t.feed(CardDealt(device="shoe", card="9s", index=7, quality=100))
    assert t.m.phase is Phase.THIRD_STREET and [str(c) for c in t.m.community][::2] == ["7h", "9s"]

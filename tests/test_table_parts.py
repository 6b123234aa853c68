"""The table's parts, each on its own: the supervisor's action table and key, the card ledger,
the bet board, and the device state sent again on every link-up."""

from __future__ import annotations

from enum import Enum
from typing import Any

from controller.table._bet_board import BetBoard
from controller.table._device_state import BET_SPOTS, PANEL, SHOE, DeviceLinks, ShownState
from controller.table._round_state import RoundState
from controller.table._supervisor import IN_PLAY, Action, Supervisor, SupervisorKey
from controller.table.card_ledger import BURNED, MISDEAL, WAITING, CardLedger
from controller.table.devices import RecordingDevices
from controller.vocab import card

# --- the supervisor -------------------------------------------------------------------------------


class Phase(Enum):
    BETTING = "betting"
    DEALING = "dealing"
    HOLD = "hold"


class FakeTable:
    """Just what the supervisor needs: a round's state (its phase and number), a display and two actions."""

    def __init__(self) -> None:
        self.state = RoundState(Phase.HOLD, round_no=3)
        self.said: list[str] = []
        self.done: list[str] = []
        self.blocked: str | None = None
        self.dealer_next = False

    def say(self, text: str) -> None:
        self.said.append(text)

    def dealer_button(self, button: str) -> bool:
        return self.dealer_next and button == "next"

    def do_void(self, button: str, record: Any) -> None:
        record("voided")
        self.done.append("void")

    def do_clear(self, button: str, record: Any) -> None:
        record("cleared")
        self.done.append("clear")

    def do_next(self, button: str, record: Any) -> None:
        self.done.append("next")

    def why_blocked(self) -> str | None:
        return self.blocked

    def always(self) -> bool:
        return True

    def actions(self) -> tuple[Action, ...]:
        return (
            Action("void", ("void",), (IN_PLAY, "hold"), self.do_void, "void"),
            Action(
                "clear fault", ("clear_fault",), ("hold",), self.do_clear, "fault cleared", allowed=self.why_blocked
            ),
            Action("late", ("next",), (), self.do_next, "late bet accepted", when=self.always),
        )


def supervisor() -> tuple[FakeTable, Supervisor, list[tuple[str, dict]]]:
    journal: list[tuple[str, dict]] = []
    table = FakeTable()
    sup = Supervisor(
        table.state,
        SupervisorKey(),
        table.actions(),
        ["betting", "dealing"],
        lambda k, d: journal.append((k, d)),
        table.say,
        table.dealer_button,
    )
    return table, sup, journal


def test_every_action_needs_the_key_and_a_refusal_is_journaled() -> None:
    table, sup, journal = supervisor()
    for button in ("void", "clear_fault", "next"):
        assert sup.press(button)  # a supervisor button: taken, and refused
    assert table.done == []
    assert [(k, d["action"], d["reason"]) for k, d in journal] == [
        ("SupervisorRefused", "void", "the supervisor's key is needed"),
        ("SupervisorRefused", "clear fault", "the supervisor's key is needed"),
        ("SupervisorRefused", "late", "the supervisor's key is needed"),
    ]
    assert table.said[0] == "void refused: the supervisor's key is needed"
    sup.key_reported(True)
    assert sup.press("void") and table.done == ["void"]
    assert journal[-1] == ("SupervisorAction", {"round": 3, "action": "void", "reason": "voided"})
    assert table.said[-1] == "supervisor: void: voided"


def test_the_key_is_off_after_a_panel_link_loss_until_reported_again() -> None:
    table, sup, journal = supervisor()
    sup.key_reported(True)
    sup.key_lost()
    sup.press("void")
    assert table.done == []
    assert journal[-1][0] == "SupervisorRefused"
    sup.key_reported(True)
    sup.press("void")
    assert table.done == ["void"]


def test_states_conditions_and_the_tables_own_refusal() -> None:
    table, sup, journal = supervisor()
    sup.key_reported(True)
    table.state.phase = Phase.DEALING
    assert not sup.press("clear_fault")  # not a supervisor action outside a hold: the dealer's button
    assert sup.press("void") and table.done == ["void"]  # IN_PLAY covers dealing
    table.state.phase = Phase.HOLD
    table.blocked = "bet_spots: link down"
    sup.press("clear_fault")
    assert table.done == ["void"] and journal[-1][1]["reason"] == "bet_spots: link down"
    assert not sup.attempt("clear fault")


def test_a_shared_button_keeps_its_dealer_meaning_without_the_key() -> None:
    table, sup, journal = supervisor()
    table.dealer_next = True
    assert not sup.press("next") and journal == []  # the dealer's next
    sup.key_reported(True)
    assert sup.press("next") and table.done == ["next"]


def test_the_game_tables_actions_are_bound_methods_and_each_needs_the_key() -> None:
    from controller.configuration import config_dir, load_table
    from controller.game.boston5._machine import Boston5Table
    from controller.game.mississippi_stud._machine import MississippiTable
    from controller.game.pai_gow._machine import PaiGowTable

    for cls, game in ((MississippiTable, "mississippi_stud"), (Boston5Table, "boston5"), (PaiGowTable, "pai_gow")):
        table = cls(load_table(config_dir() / "bench" / f"{game}.yaml"), RecordingDevices())
        actions = table.supervisor.actions
        assert len({a.name for a in actions}) == len(actions), game
        assert all(a.key for a in actions), game
        for a in actions:  # each row does its work by a bound method, never a name looked up
            assert all(f is None or callable(f) for f in (a.handler, a.when, a.allowed)), (game, a.name)


# --- the card ledger -------------------------------------------------------------------------------


def test_the_ledger_keeps_every_card_in_dealt_order_with_where_it_went() -> None:
    ledger = CardLedger()
    ledger.placed(1, card("As"), "seat 1")
    ledger.wait(2, card("Kd"), "dealt while held")
    ledger.wait(3, card("9c"), "dealt while held")
    assert ledger.records()[1] == {"index": 2, "card": "Kd", "to": f"{WAITING} (dealt while held)"}
    cards = ledger.take_waiting()
    assert [(i, str(c)) for i, c in cards] == [(2, "Kd"), (3, "9c")]
    ledger.not_used(7, "??", "unreadable")  # a later report comes after them
    ledger.placed(2, card("Kd"), "seat 1")  # the waiting cards keep their places
    ledger.not_used(3, "9c", BURNED)
    assert [(e["index"], e["to"]) for e in ledger.records()] == [
        (1, "seat 1"),
        (2, "seat 1"),
        (3, BURNED),
        (7, "unreadable"),
    ]
    assert ledger.shoe_count == 7


def test_a_misdeal_settles_the_waiting_cards_and_a_new_round_starts_empty() -> None:
    ledger = CardLedger()
    ledger.placed(1, card("As"), "seat 1")
    ledger.wait(2, card("Kd"), "dealt while held")
    assert [str(c) for _, c in ledger.settle_waiting(MISDEAL)] == ["Kd"]
    assert ledger.records()[-1]["to"] == MISDEAL and not ledger.waiting
    ledger.start_round()
    assert ledger.records() == [] and ledger.shoe_count == 2


def test_the_shoes_count_is_compared_with_the_reports() -> None:
    ledger = CardLedger()
    for i, c in enumerate(("As", "Kd", "9c"), start=1):
        ledger.placed(i, card(c), "seat 1")
    assert ledger.count_differs(3) is None
    assert ledger.count_differs(5) == "the shoe counts 5 cards out, the table has 3 reported"
    assert ledger.count_differs(0) is None and ledger.shoe_count == 0  # the shoe started over


# --- the bet board ----------------------------------------------------------------------------------


def test_the_board_refuses_seats_and_spots_the_table_does_not_have() -> None:
    board = BetBoard(6, ("ante", "bonus"))
    assert board.problem(1, "ante") is None and board.problem(6, "bonus") is None
    assert board.problem(0, "ante") == "seat 0 ante: no seat 0 at this table (seats 1-6)"
    assert board.problem(7, "ante") == "seat 7 ante: no seat 7 at this table (seats 1-6)"
    assert board.problem(255, "ante") is not None
    assert board.problem(2, "pair_plus") == "seat 2 pair_plus: no spot 'pair_plus' at this game (spots: ante, bonus)"


def test_the_board_gives_the_reports_a_state_read_stands_for() -> None:
    board = BetBoard(6, ("ante", "bonus"))
    board.report(1, "ante", 500)
    board.report(2, "ante", 500)
    board.report(2, "bonus", 100)
    board.report(2, "bonus", 0)
    assert board.levels == {(1, "ante"): 500, (2, "ante"): 500}
    now = [(1, "ante", 500), (2, "ante", 1000), (3, "bonus", 200), (3, "ante", 500), (9, "ante", 5)]
    assert board.changes(now) == [(2, "ante", 1000), (3, "ante", 500), (3, "bonus", 200), (9, "ante", 5)]
    assert board.changes([(2, "ante", 500)]) == [(1, "ante", 0)]


# --- the device state ---------------------------------------------------------------------------------


def test_each_device_gets_its_whole_state_again() -> None:
    devices = RecordingDevices()
    shown = ShownState(devices)
    shown.display(1, "old prompt")
    shown.display(1, "HOLD: link down: panel")
    shown.display(2, "seat 3")
    shown.panel_lamp("clear_fault", True)
    shown.lamp(1, "ante", "open")
    shown.lamp(1, "ante", "accepted")
    shown.lamp(2, "bonus", "flash_late")
    shown.lock_spots(True)
    shown.request_stub_count()
    devices.commands.clear()
    assert shown.resend(PANEL) == 3
    assert devices.commands == [
        ("display", (1, "HOLD: link down: panel")),
        ("display", (2, "seat 3")),
        ("panel_lamp", ("clear_fault", True)),
    ]
    devices.commands.clear()
    shown.resend(BET_SPOTS)
    assert devices.commands == [
        ("lock", (True,)),
        ("lamp", (1, "ante", "accepted")),
        ("lamp", (2, "bonus", "flash_late")),
    ]
    devices.commands.clear()
    shown.resend(SHOE)
    assert devices.commands == [("stub_count", ())]
    shown.stub_count_answered()
    assert shown.resend(SHOE) == 0


def test_a_device_is_back_only_once_up_and_its_state_read() -> None:
    links = DeviceLinks()
    links.up(PANEL)
    links.state_read(PANEL)
    assert links.why_not_back() is None  # never down: nothing to wait for
    links.down(BET_SPOTS)
    assert links.why_not_back() == "bet_spots: link down"
    links.state_read(BET_SPOTS)  # a state from before the link went down does not count
    assert links.why_not_back() == "bet_spots: link down"
    links.up(BET_SPOTS)
    assert links.why_not_back() == "bet_spots: back, its state not read yet"
    links.down(BET_SPOTS)
    links.up(BET_SPOTS)
    links.state_read(BET_SPOTS)
    assert links.why_not_back() is None


def test_a_refused_spot_read_again_unchanged_is_not_refused_twice() -> None:
    board = BetBoard(6, ("ante",))
    board.report(9, "ante", 500)  # refused by the table, remembered as refused
    assert board.levels == {} and board.refused == {(9, "ante"): 500}
    assert board.changes([(9, "ante", 500)]) == []
    assert board.changes([(9, "ante", 700)]) == [(9, "ante", 700)]
    assert board.changes([]) == [(9, "ante", 0)]


def test_a_report_is_noted_on_the_board_or_refused_for_a_seat_or_spot_the_table_lacks() -> None:
    """Each report is noted at one look when the table has the spot, and refused (noted apart,
    with why) for seat 0, a seat past the table's last and a spot the game does not have."""
    board = BetBoard(6, ("ante", "bonus"))
    assert board.report(1, "ante", 500) is None and board.report(6, "bonus", 100) is None
    assert board.report(0, "ante", 5) == "seat 0 ante: no seat 0 at this table (seats 1-6)"
    assert board.report(7, "bonus", 5) == "seat 7 bonus: no seat 7 at this table (seats 1-6)"
    assert board.report(2, "pair_plus", 5) == "seat 2 pair_plus: no spot 'pair_plus' at this game (spots: ante, bonus)"
    assert board.levels == {(1, "ante"): 500, (6, "bonus"): 100}
    assert board.refused == {(0, "ante"): 5, (7, "bonus"): 5, (2, "pair_plus"): 5}
    assert board.report(6, "bonus", 0) is None and board.report(7, "bonus", 0) is not None
    assert board.levels == {(1, "ante"): 500} and (7, "bonus") not in board.refused
    assert board.reports == 7

"""Sign-in (issue 45 item 1): dealers and supervisors sign in at the panel by PIN or badge, checked
against the table's roster; with a roster, "no more bets" needs a signed-in dealer and every
supervisor act a signed-in supervisor (as it needs the key), each act names who authorized it and
each round its dealer; wrong PINs lock an id out for a while, by the events' own times. Each rule
in every state a round is played in, for each game, held or not; the games' machines fed
directly (the rounds of tests/test_table_shoe_faults.py)."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
import time
from dataclasses import replace
from datetime import UTC
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import cli
from table_helpers import ManualClock
from test_table_shoe_faults import BET_SPOT, GAMES, IDS, PAI_GOW_SHOE, PAID, ROUNDS, STATES, Table, at

from controller.configuration import Person, Roster, config_dir, hash_pin, load_table, pin_matches
from controller.journal import SqliteJournal
from controller.table._sign_in import BACK_OFF_S, MAX_BACK_OFF_S
from controller.table.events import OpenTable, SignIn
from controller.table.runtime import RuntimePorts, TableRuntime
from drivers.bet_spots import SpotReport
from drivers.link import LinkDown
from drivers.panel import BadgeRead, ButtonChanged, PinEntered, SignOff
from drivers.shoe import CardDealt, CardUnreadable, Jam
from drivers.state import ShoeState

NOW = 1_800_000_000.0
PINS = {"D-0001": "2468", "D-0002": "1357", "S-0001": "9753"}
HASHES = {person: hash_pin(pin, n=2**14) for person, pin in PINS.items()}
PEOPLE = {
    "D-0001": Person("D-0001", "Ann Lee", "dealer", HASHES["D-0001"]),
    "D-0002": Person("D-0002", "Cy Park", "dealer", HASHES["D-0002"]),
    "S-0001": Person("S-0001", "Bo Diaz", "supervisor", HASHES["S-0001"]),
    "S-0002": Person("S-0002", "Di Roe", "supervisor", None, ("BADGE-77",)),
}
ROSTER = Roster("roster.yaml", PEOPLE, {"BADGE-77": "S-0002"}, lockout_attempts=3, lockout_s=300.0)
NEEDS_SUPERVISOR = "a supervisor must sign in at the panel"


class SignedTable(Table):
    """A game's machine with the roster above, fed directly; ``dealer``: D-0001 signs in first."""

    def __init__(self, game: str, dealer: bool = True) -> None:
        super().__init__(game, roster=ROSTER)
        self.now = NOW
        if dealer:
            self.pin("D-0001")

    def pin(self, person: str, pin: str | None = None, *, waits: bool = True) -> None:
        """``person`` keys ``pin`` (their own: None) at the panel: once the panel takes PIN
        entries again (every checked one keeps it from the next for a while), unless not ``waits``."""
        until = self.m.signins.backed_off_until("panel", self.now) if waits else None
        self.now = until if until is not None else self.now
        self.feed(PinEntered(device="panel", at=self.now, person=person, pin=pin or PINS[person]))

    def badge(self, badge: str) -> None:
        self.feed(BadgeRead(device="panel", at=self.now, badge=badge))

    def wrong_pins(self, person: str, times: int, pin: str = "0000") -> None:
        """``times`` wrong PINs for ``person``, each once the panel's back-off after the one before
        is over, the last at ``now`` (the panel had no wrong PIN before)."""
        gaps = [min(BACK_OFF_S * 2**i, MAX_BACK_OFF_S) for i in range(times - 1)]
        self.now -= sum(gaps)
        for gap in [*gaps, 0.0]:
            self.pin(person, pin)
            self.now += gap

    def acts(self) -> list[dict[str, Any]]:
        return self.records("SupervisorAction")

    def refused(self) -> list[str]:
        return [d["reason"] for d in self.records("SupervisorRefused")]

    def refused_signin(self) -> list[str]:
        return [d["reason"] for d in self.records("SignInRefused")]


def signed_at(game: str, steps: int) -> SignedTable:
    t = at(game, steps, SignedTable)
    assert isinstance(t, SignedTable)
    return t


def test_a_pin_is_hashed_with_scrypt_and_checked_in_constant_time() -> None:
    text = hash_pin("2468", n=2**14)
    assert text.startswith("scrypt$16384$8$1$") and "2468" not in text
    assert pin_matches("2468", text) and not pin_matches("2469", text) and not pin_matches("24680", text)
    assert hash_pin("2468", n=2**14) != text  # a fresh salt each time
    assert not pin_matches("abcd", text) and not pin_matches("", text)
    with pytest.raises(ValueError):
        hash_pin("12")


# --- the dealer ------------------------------------------------------------------------------


@pytest.mark.parametrize("game", list(GAMES))
def test_no_more_bets_is_refused_until_a_dealer_signs_in_and_the_round_records_its_dealer(game: str) -> None:
    t = SignedTable(game, dealer=False)
    steps = ROUNDS[game](t)
    steps[0]()
    steps[1]()
    t.press("no_more_bets")
    assert t.phase == "betting" and "no dealer signed in" in t.snapshot().recent[-1]
    t.pin("D-0002")
    assert t.records("SignedIn") == [{"round": 1, "person": "D-0002", "role": "dealer", "method": "pin"}]
    for step in steps[2:]:
        step()
        if t.m.rounds:
            break
    assert t.m.rounds[-1].settlement is not None and t.m.signins.dealer_of(1) == "D-0002"


@pytest.mark.parametrize(("game", "phase", "steps"), STATES, ids=IDS)
def test_a_dealer_signing_in_during_a_dealt_round_deals_from_the_next_and_the_round_keeps_its_own(
    game: str, phase: str, steps: int
) -> None:
    """After "no more bets" the round's dealer is fixed: a new dealer takes over at the next round;
    the round's own dealer signing off meanwhile still dealt it."""
    t = signed_at(game, steps)
    t.pin("D-0002")
    if phase == "betting":  # nothing dealt yet: D-0002 replaces D-0001 at once
        assert t.m.signins.dealer is PEOPLE["D-0002"] and t.records("SignedIn")[-1]["replaces"] == "D-0001"
        return
    assert t.m.signins.dealer is PEOPLE["D-0001"] and t.m.signins.next_dealer is PEOPLE["D-0002"]
    assert t.records("SignedIn")[-1]["from_round"] == 2
    t.feed(SignOff(device="panel", person="D-0001"))
    assert t.m.signins.dealer is None and t.m.signins.dealer_of(1) == "D-0001"
    for step in ROUNDS[game](t)[steps:]:
        step()
        if t.m.rounds:
            break
    assert t.m.rounds and t.m.signins.dealer_of(1) == "D-0001"
    assert t.m.signins.dealer is PEOPLE["D-0002"] and t.snapshot().signed_in.dealer_id == "D-0002"  # type: ignore[union-attr]


def test_a_dealer_who_signs_off_mid_round_leaves_the_next_round_without_a_dealer() -> None:
    t = signed_at("mississippi_stud", 5)
    t.feed(SignOff(device="panel", person="D-0001"))
    assert t.records("SignedOff") == [{"round": 1, "person": "D-0001", "role": "dealer"}]
    for step in ROUNDS["mississippi_stud"](t)[5:]:
        step()
        if t.m.rounds:
            break
    assert t.m.rounds[-1].settlement is not None and t.m.signins.dealer_of(1) == "D-0001"
    t.spot(1, "ante", 500)
    t.press("no_more_bets")
    assert t.phase == "betting" and t.m.round_no == 2


# --- the supervisor: every act, in every state, held or not -------------------------------------


@pytest.mark.parametrize("held", [False, True], ids=["free", "held"])
@pytest.mark.parametrize(("game", "phase", "steps"), STATES, ids=IDS)
def test_a_void_needs_a_signed_in_supervisor_and_names_them(game: str, phase: str, steps: int, held: bool) -> None:
    t = signed_at(game, steps)
    if held:
        t.feed(Jam(device="shoe"))
    t.key()
    t.press("void")
    assert t.refused() == [NEEDS_SUPERVISOR] and t.acts() == [] and not t.m.rounds
    assert t.phase == ("hold" if held else phase)
    t.pin("S-0001")
    t.press("void")
    if (game, phase) in PAID:  # no void once chips were paid (a pai gow hand turned, a Boston 5 bonus)
        assert t.refused()[-1] == "round 1 is being settled: wagers already paid or collected" and not t.m.rounds
        return
    assert [a["supervisor_id"] for a in t.acts()] == ["S-0001"] and t.m.rounds[-1].settlement is None


def _cards_waiting(t: Table, game: str) -> None:
    t.feed(Jam(device="shoe"))
    t.card(PAI_GOW_SHOE[50] if game == "pai_gow" else "3d")
    t.shoe_state("ok")
    t.key()


def _late_bet(t: Table, game: str) -> None:
    t.spot(6, BET_SPOT[game], 1000)
    t.key()


def offered(act: Any, button: str) -> list[tuple[str, str, int]]:
    """The states in which the act is done on ``button`` at a table without a roster (by the key
    alone): there it needs a signed-in supervisor too. (Pai gow's setting and settlement read a
    step first: confirm and next take it, the supervisor's act waits.)"""
    out = []
    for game, phase, steps in STATES:
        t = at(game, steps)
        act(t, game)
        t.press(button)
        if t.records("SupervisorAction"):
            out.append((game, phase, steps))
    return out


ACCEPT = offered(_cards_waiting, "confirm")
LATE = offered(_late_bet, "next")


def test_the_acts_are_offered_in_most_states() -> None:
    assert len(ACCEPT) >= len(STATES) - 2 and len(LATE) >= len(STATES) - 2 - len(GAMES)  # not while betting


@pytest.mark.parametrize(("game", "phase", "steps"), ACCEPT, ids=[f"{g}-{p}" for g, p, _ in ACCEPT])
def test_accepting_cards_dealt_while_held_needs_a_signed_in_supervisor(game: str, phase: str, steps: int) -> None:
    t = signed_at(game, steps)
    _cards_waiting(t, game)
    t.press("confirm")
    assert t.refused() == [NEEDS_SUPERVISOR] and len(t.m.ledger.waiting) == 1
    t.badge("BADGE-77")  # S-0002 signs in by badge
    t.press("confirm")
    assert t.acts()[-1]["action"] == "cards accepted" and t.acts()[-1]["supervisor_id"] == "S-0002"


@pytest.mark.parametrize("held", [False, True], ids=["free", "held"])
@pytest.mark.parametrize(("game", "phase", "steps"), STATES, ids=IDS)
def test_entering_an_unreadable_card_and_clearing_the_fault_name_the_supervisor(
    game: str, phase: str, steps: int, held: bool
) -> None:
    t = signed_at(game, steps)
    if held:
        t.feed(Jam(device="shoe"))
    t.index += 1
    t.feed(CardUnreadable(device="shoe", index=t.index))
    t.key()
    if held:
        t.shoe_state("ok")
    t.press("next", "confirm", "clear_fault")
    assert t.acts() == [] and t.phase == "hold" and set(t.refused()) == {NEEDS_SUPERVISOR}
    t.pin("S-0001")
    t.press("next", "confirm")
    if t.phase == "hold":
        t.press("clear_fault")
    assert t.phase != "hold" and t.acts() and all(a["supervisor_id"] == "S-0001" for a in t.acts())


@pytest.mark.parametrize("accept", [True, False], ids=["accepted", "refused"])
@pytest.mark.parametrize(("game", "phase", "steps"), LATE, ids=[f"{g}-{p}" for g, p, _ in LATE])
def test_a_late_bet_accepted_or_refused_names_the_supervisor(game: str, phase: str, steps: int, accept: bool) -> None:
    t = signed_at(game, steps)
    _late_bet(t, game)
    assert t.m.late.pending
    button = "next" if accept else "previous"
    t.press(button)
    assert t.refused() == [NEEDS_SUPERVISOR] and t.m.late.pending
    t.pin("S-0001")
    t.press(button)
    (act,) = t.acts()
    assert act["action"] == ("late bet accepted" if accept else "late bet refused") or act["action"].startswith("late")
    assert act["supervisor_id"] == "S-0001" and not t.m.late.pending


def test_without_a_roster_the_key_alone_authorizes_and_no_one_is_named() -> None:
    t = Table("mississippi_stud")
    for step in ROUNDS["mississippi_stud"](t)[:5]:
        step()
    t.key()
    t.press("void")
    (act,) = t.records("SupervisorAction")
    assert "supervisor_id" not in act and t.m.rounds[-1].settlement is None
    assert t.snapshot().signed_in is None and "signin" not in t.m.snapshot_state()


def test_a_supervisor_is_signed_off_when_the_key_goes_off_or_the_panel_link_goes_down() -> None:
    t = signed_at("mississippi_stud", 5)
    t.key()
    t.pin("S-0001")
    t.key(False)
    assert t.m.signins.supervisor is None and t.records("SignedOff")[-1]["reason"] == "key off"
    t.key()
    t.pin("S-0001")
    t.feed(LinkDown(device="panel", reason="no reply"))
    assert t.m.signins.supervisor is None and t.m.signins.dealer is PEOPLE["D-0001"]  # the dealer stays


# --- wrong PINs ----------------------------------------------------------------------------------


@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Asia/Kolkata"])
def test_a_lockout_is_journaled_the_same_in_every_time_zone(zone: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The journal is evidence read anywhere: the lockout's end is in UTC there (the panel shows
    the table's local time)."""
    monkeypatch.setenv("TZ", zone)
    time.tzset()
    try:
        t = SignedTable("mississippi_stud", dealer=False)
        t.wrong_pins("D-0001", 3)
        t.now = NOW + 10
        t.pin("D-0001")
        until = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(NOW + 300))
        assert t.refused_signin()[-1] == f"locked out until {until} after wrong PINs"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_wrong_pins_lock_the_id_out_for_a_while_by_the_events_times_and_are_journaled() -> None:
    t = SignedTable("mississippi_stud", dealer=False)
    t.wrong_pins("D-0001", 3)
    assert [d["attempt"] for d in t.records("SignInRefused")] == [1, 2, 3]
    (locked,) = t.records("SignInLocked")
    assert locked == {"person": "D-0001", "attempts": 3, "until": NOW + 300}
    t.now = NOW + 299
    t.pin("D-0001")  # the right PIN while locked out: refused, not even checked
    assert t.m.signins.dealer is None and "locked out until" in t.refused_signin()[-1]
    t.pin("D-0002")  # another id is not locked
    assert t.m.signins.dealer is PEOPLE["D-0002"]
    t.now = NOW + 300
    t.pin("D-0001")
    assert t.m.signins.dealer is PEOPLE["D-0001"]
    text = (
        repr(t.journal) + repr(t.events) + repr(t.m.snapshot_state()) + repr(t.snapshot()) + repr(t.snapshot().recent)
    )
    for secret in (*PINS.values(), *HASHES.values(), "BADGE-77"):
        assert secret not in text


def test_a_wrong_pin_never_matches_an_id_not_on_the_roster_and_a_wrong_badge_is_refused() -> None:
    t = SignedTable("mississippi_stud", dealer=False)
    t.pin("X-9999", "2468")
    t.badge("BADGE-00")
    assert t.refused_signin() == ["wrong PIN or id", "badge not on the roster"] and t.m.signins.dealer is None


def test_a_lockout_while_a_hold_is_open_keeps_the_hold_until_another_supervisor_clears_it() -> None:
    """Two faults at once: the shoe jams while dealing, and the supervisor who comes keys wrong PINs
    until locked out; the hold stays, nothing is voided, and a second supervisor (by badge) voids."""
    t = signed_at("boston5", 8)
    t.feed(Jam(device="shoe"))
    t.key()
    t.wrong_pins("S-0001", 3, "1111")
    t.press("void")
    assert t.phase == "hold" and t.m.holds.reason.startswith("shoe jammed") and not t.m.rounds
    assert t.records("SignInLocked")[0]["person"] == "S-0001" and t.refused() == [NEEDS_SUPERVISOR]
    t.now += MAX_BACK_OFF_S
    t.pin("S-0001")  # the right PIN, still locked out
    assert "locked out until" in t.refused_signin()[-1]
    t.press("void")
    assert not t.m.rounds
    t.badge("BADGE-77")
    t.press("void")
    assert t.acts()[-1]["supervisor_id"] == "S-0002" and t.m.rounds[-1].settlement is None


def test_the_round_start_snapshot_carries_the_supervisor_only_into_the_replay_of_the_round() -> None:
    """The dealer and lockouts carry on; the supervisor signed in (and the key) is taken from the
    snapshot for the replay of the open round only (issue 41, seed 139: the replay must do the
    acts the journal shows done), and signed off with the key once recovery is done."""
    t = signed_at("mississippi_stud", 5)
    t.key()
    t.pin("S-0001")
    t.now = last = NOW + 20  # the last of the wrong PINs, well after the sign-ins' gaps
    t.wrong_pins("D-0002", 3)
    state = t.m.snapshot_state()
    assert state["signin"] == {
        "dealer": "D-0001",
        "next_dealer": None,
        "lockouts": {"D-0002": [0, last + 300]},
        "panels": {"panel": [3, last + 4 * BACK_OFF_S]},
        "supervisor": "S-0001",
    }
    assert state["supervisor"] is True
    fresh = SignedTable("mississippi_stud", dealer=False)
    fresh.m.restore(state)
    assert fresh.m.signins.dealer is PEOPLE["D-0001"] and fresh.m.signins.locked_until("D-0002", last) == last + 300
    assert fresh.m.signins.backed_off_until("panel", last) == last + 4 * BACK_OFF_S
    assert fresh.m.signins.supervisor is PEOPLE["S-0001"] and fresh.m.supervisor.key_on  # for the replay
    fresh.m.resend_requests()  # the replay is over: authority never outlives its evidence
    assert fresh.m.signins.supervisor is None and not fresh.m.supervisor.key_on
    assert fresh.records("SignedOff")[-1] == {
        "person": "S-0001",
        "role": "supervisor",
        "reason": "panel link down or restart",
    }


def test_an_id_not_on_the_roster_is_journaled_as_unknown_never_as_keyed_and_locks_no_one() -> None:
    """Found from outside: a dealer who keyed their PIN into the id field had it journaled in
    clear (``SignIn`` and ``SignInRefused``, both sent to the floor), and any text at all was."""
    t = SignedTable("mississippi_stud", dealer=False)
    for _ in range(5):  # past the roster's 3 attempts, each after the panel's back-off
        t.pin(PINS["D-0001"], PINS["D-0001"])
        t.now += MAX_BACK_OFF_S
        t.pin("\x1b[2JFAKE S-0001", "1234")
        t.now += MAX_BACK_OFF_S
    assert t.refused_signin() == ["wrong PIN or id"] * 10
    assert {d["person"] for d in t.records("SignInRefused")} == {""} and not t.records("SignInLocked")
    text = repr(t.journal) + repr(t.m.snapshot_state()) + repr(t.snapshot())  # t.events: what the panel sent
    assert PINS["D-0001"] not in text and "FAKE" not in text
    t.pin("D-0001")  # the real id still signs in: the unknown ids locked no one
    assert t.m.signins.dealer is PEOPLE["D-0001"]


@pytest.mark.parametrize("n", [2**14, 2**15])
def test_every_cost_a_roster_may_name_is_checked_and_a_dearer_one_is_refused_at_load(n: int) -> None:
    """Found from outside: a hash at N = 2**18 passed the roster's check, then the first sign-in
    with it raised "memory limit exceeded" and the table stopped journaling."""
    text = hash_pin("2468", n=n)
    assert pin_matches("2468", text) and not pin_matches("2469", text)
    for dear in (text.replace(f"scrypt${n}$", "scrypt$262144$"), text.replace(f"scrypt${n}$", "scrypt$\uff11\uff16$")):
        with pytest.raises(ValueError):
            pin_matches("2468", dear)


def test_the_check_journals_who_and_whether_never_the_pin() -> None:
    t = SignedTable("mississippi_stud", dealer=False)
    checked = t.m.signins.check(PinEntered(device="panel", at=NOW, event_no=7, person="D-0001", pin="2468"))
    assert checked == SignIn(device="panel", at=NOW, event_no=7, person="D-0001", method="pin", verified=True)
    wrong = t.m.signins.check(PinEntered(device="panel", at=NOW, person="D-0001", pin="1"))
    assert not wrong.verified and wrong.person == "D-0001"
    noise = t.m.signins.check(PinEntered(device="panel", at=NOW, person="D-0001\x07" + "x" * 300, pin="1"))
    assert not noise.verified and noise.person == ""  # not on the roster: journaled as unknown
    badge = t.m.signins.check(BadgeRead(device="panel", at=NOW, badge="BADGE-77"))
    assert (badge.person, badge.method, badge.verified) == ("S-0002", "badge", True)
    assert "2468" not in repr(PinEntered(device="panel", person="D-0001", pin="2468"))


# --- the runtime: checked before journaled, the round's dealer and each act's person in recall --


class OnRuntime:
    """The round steps of tests/test_table_shoe_faults.py, each event journaled and handled by a
    runtime's engine (as the controller thread takes them)."""

    def __init__(self, runtime: Any, clock: ManualClock) -> None:
        self.runtime, self.clock, self.index = runtime, clock, 0

    def feed(self, event: Any) -> None:
        self.clock.now += 1
        self.runtime.engine.step(event)

    def spot(self, seat: int, spot: str, cents: int) -> None:
        self.feed(SpotReport(device="bet_spots", at=self.clock.now, seat=seat, spot=spot, cents=cents))

    def press(self, *buttons: str) -> None:
        for b in buttons:
            self.feed(ButtonChanged(device="panel", at=self.clock.now, button=b, pressed=True))

    def card(self, text: str) -> None:
        self.index += 1
        self.feed(CardDealt(device="shoe", at=self.clock.now, card=text, index=self.index, quality=100))

    def pin(self, person: str, pin: str | None = None) -> None:
        self.feed(PinEntered(device="panel", at=self.clock.now, person=person, pin=pin or PINS[person]))


def _runtime(path: Path, clock: ManualClock) -> TableRuntime:
    table = replace(load_table(config_dir() / "bench" / "mississippi_stud.yaml"), roster=ROSTER)
    return TableRuntime(
        table,
        {role: "loop://" for role in table.devices},
        SqliteJournal(path, clock=clock),
        ports=RuntimePorts(wall=clock),
    )


def pin_in(raw: bytes, pin: str) -> bool:
    """Whether ``raw`` (a journal's files) holds ``pin`` as a token of its own: a record's hash or
    time may hold its four digits by chance (the hashes depend on the checkout's path)."""
    return re.search(rb"(?<![0-9A-Za-z.])" + re.escape(pin.encode()) + rb"(?![0-9A-Za-z])", raw) is not None


def test_a_pin_is_checked_before_it_is_journaled_and_recall_and_export_name_the_dealer_and_supervisor(
    tmp_path: Path,
) -> None:
    clock = ManualClock(NOW)
    runtime = _runtime(tmp_path / "j.db", clock)
    t = OnRuntime(runtime, clock)
    t.feed(OpenTable())
    t.pin("D-0001", "1111")  # a wrong PIN first
    clock.now += BACK_OFF_S
    t.pin("D-0001")
    steps = ROUNDS["mississippi_stud"](t)  # type: ignore[arg-type]
    for step in steps[:5]:
        step()
    t.press("supervisor_key")
    t.pin("S-0001")
    t.feed(Jam(device="shoe", at=clock.now))
    t.press("void")  # a misdeal? no card waits: the round is voided, by S-0001
    runtime.journal.close()  # type: ignore[attr-defined]
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("j.db"))
    for secret in HASHES.values():
        assert secret.encode() not in raw
    for pin in PINS.values():
        assert not pin_in(raw, pin), pin
    journal = SqliteJournal.open_readonly(tmp_path / "j.db")
    try:
        checked = [r.data for r in journal.records() if r.kind == "SignIn"]
        kinds = [r.kind for r in journal.records()]
    finally:
        journal.close()
    assert [(c["person"], c["verified"]) for c in checked] == [("D-0001", False), ("D-0001", True), ("S-0001", True)]
    assert all(set(c) == {"device", "at", "event_no", "person", "method", "verified"} for c in checked)
    assert "PinEntered" not in kinds and "SignInRefused" in kinds
    code, out, err = cli("recall", "--journal", str(tmp_path / "j.db"), "--json")
    assert code == 0, err
    told = json.loads(out)["recall"]
    assert told["dealer_id"] == "D-0001"
    assert [(a["action"], a["person"]) for a in told["supervisor_acts"]] == [("void", "S-0001")]
    code, out, err = cli("recall", "--journal", str(tmp_path / "j.db"))
    assert code == 0 and "  dealer: D-0001\n" in out and "(by S-0001)" in out and "SIGNED IN supervisor S-0001" in out
    code, out, err = cli("export", "--journal", str(tmp_path / "j.db"), "--since", "2020-01-01")
    assert code == 0, err
    header, *rows = list(csv.reader(io.StringIO(out)))
    assert rows and all(row[header.index("dealer")] == "D-0001" for row in rows)
    assert all("void by S-0001" in row[header.index("supervisor")] for row in rows)


def test_after_a_restart_the_dealer_is_still_signed_in_and_the_supervisor_must_sign_in_again(tmp_path: Path) -> None:
    clock = ManualClock(NOW)
    runtime = _runtime(tmp_path / "j.db", clock)
    t = OnRuntime(runtime, clock)
    t.feed(OpenTable())
    t.pin("D-0002")
    for step in ROUNDS["mississippi_stud"](t):  # type: ignore[arg-type]
        step()  # round 1, to its end: round 2's start snapshot is what a restart starts from
    assert runtime.round.round_no == 2
    t.index = 0
    t.feed(ShoeState(device="shoe", at=clock.now, status="ok", cards_out=0))
    for step in ROUNDS["mississippi_stud"](t)[:5]:  # type: ignore[arg-type]
        step()
    t.press("supervisor_key")
    t.pin("S-0001")
    for back_off in (BACK_OFF_S, BACK_OFF_S, 2 * BACK_OFF_S):  # each once the panel takes PINs again
        clock.now += back_off
        t.pin("D-0001", "0000")
    runtime.journal.close()  # type: ignore[attr-defined]
    again = _runtime(tmp_path / "j.db", clock)
    assert again.recover()
    signins = again.round.signins
    assert signins.dealer is PEOPLE["D-0002"] and signins.supervisor is None
    assert signins.locked_until("D-0001", clock.now) is not None  # the lockout was replayed
    again.journal.close()  # type: ignore[attr-defined]


def test_tablectl_roster_hash_pin_reads_the_pin_from_stdin_never_from_its_arguments(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "controller", "roster", "hash-pin"], input="4321\n", capture_output=True, text=True
    )
    assert done.returncode == 0 and pin_matches("4321", done.stdout.strip()) and "4321" not in done.stdout
    done = subprocess.run(
        [sys.executable, "-m", "controller", "roster", "hash-pin", "4321"], capture_output=True, text=True, input=""
    )
    assert done.returncode == 2 and "unrecognized arguments" in done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "controller", "roster", "hash-pin"], input="12\n", capture_output=True, text=True
    )
    assert done.returncode == 2 and "4 to 12 digits" in done.stderr and not done.stdout
    roster = tmp_path / "roster.yaml"
    roster.write_text(
        f"people:\n  - id: D-0001\n    name: Ann Lee\n    role: dealer\n    pin_hash: {HASHES['D-0001']}\n"
        "    badges: [BADGE-01]\n"
    )
    roster.chmod(0o600)  # a roster others can read is refused
    code, out, err = cli("roster", "check", str(roster))
    assert code == 0 and "D-0001" in out and "PIN and badge" in out and "BADGE-01" not in out and "scrypt" not in out
    table = tmp_path / "table.yaml"
    base = (config_dir() / "bench" / "mississippi_stud.yaml").read_text()
    table.write_text(base.replace("paytables_dir: ../paytables", f"paytables_dir: {config_dir() / 'paytables'}"))
    table.write_text(table.read_text() + "roster: roster.yaml\n")
    loaded = load_table(table)
    assert loaded.roster is not None and loaded.roster.people["D-0001"].name == "Ann Lee"
    assert "scrypt" not in repr(loaded.roster) and "BADGE-01" not in repr(loaded.roster)


def test_the_bench_signs_its_dealer_in_by_badge_and_refuses_a_roster_without_one(tmp_path: Path) -> None:
    table = tmp_path / "table.yaml"
    base = (config_dir() / "bench" / "mississippi_stud.yaml").read_text()
    table.write_text(base.replace("paytables_dir: ../paytables", f"paytables_dir: {config_dir() / 'paytables'}"))
    table.write_text(table.read_text() + "roster: roster.yaml\n")
    (tmp_path / "roster.yaml").write_text(
        f"people:\n  - {{id: D-0001, name: Ann Lee, role: dealer, pin_hash: '{HASHES['D-0001']}'}}\n"
    )
    (tmp_path / "roster.yaml").chmod(0o600)
    code, out, err = cli(
        "bench", "--config", str(table), "--rounds", "1", "--quiet", "--journal", str(tmp_path / "j.db")
    )
    assert code == 2 and "roster.yaml" in err and "no dealer on the roster has one" in err
    (tmp_path / "roster.yaml").write_text("people:\n  - {id: D-0007, name: Ann Lee, role: dealer, badges: [B-0007]}\n")
    code, out, err = cli(
        "bench", "--config", str(table), "--rounds", "2", "--quiet", "--journal", str(tmp_path / "j.db")
    )
    assert code == 0, err
    code, out, err = cli("recall", "--journal", str(tmp_path / "j.db"), "--json")
    assert code == 0 and [json.loads(line)["recall"]["dealer_id"] for line in out.splitlines()] == ["D-0007"] * 2


def test_the_pit_says_who_deals_from_the_last_dealer_record() -> None:
    from datetime import datetime

    from controller.web.pit_app import table_row
    from controller.web.pit_store import TableState, dealer_signed_in

    assert dealer_signed_in("SignedIn", {"person": "D-0001", "role": "dealer"}) == "D-0001"
    assert dealer_signed_in("SignedIn", {"person": "D-0002", "from_round": 7}) == "D-0002 from the next round"
    assert dealer_signed_in("SignedOff", {"person": "D-0001"}) is None
    now = datetime.now(UTC)
    state = TableState("t1", "mississippi_stud", now, 4, True, "dealing", None, [], 4, 0, 0, 0, dealer="D-0001")
    assert table_row(state, None)["detail"].endswith("; dealer D-0001")
    assert "dealer" not in table_row(replace(state, dealer=None), None)["detail"]


def test_a_secret_field_is_never_in_an_events_journal_record() -> None:
    """Defence in depth: were a PIN entry or badge read ever journaled as it came (not checked
    first), its record would still leave out the PIN and the badge id."""
    from controller.journal.records import event_record

    kind, data = event_record(PinEntered(device="panel", at=NOW, event_no=3, person="D-0001", pin="2468"))
    assert kind == "PinEntered" and data == {"device": "panel", "at": NOW, "event_no": 3, "person": "D-0001"}
    assert event_record(BadgeRead(device="panel", at=NOW, badge="BADGE-77"))[1] == {
        "device": "panel",
        "at": NOW,
        "event_no": 0,
    }


def test_a_pin_entered_while_the_journal_cannot_be_written_is_asked_of_the_panel_again() -> None:
    """Two faults at once: the disk is full when a PIN is keyed in. The check's result is not
    journaled, so not acted on; the panel's own event (what its link delivered) is what is refused,
    so the panel sends it again; once the journal takes records the PIN is checked again and
    journaled as a sign-in, and the event acknowledged is the panel's."""
    from controller.journal.records import MemoryJournal
    from controller.journal.store import JournalFull
    from controller.table.engine import Engine

    class Full(MemoryJournal):
        full = True

        def append(self, kind: str, data: dict[str, Any], event: bool = False) -> int:
            if self.full:
                raise JournalFull(Path("j.db"), "disk full: 0 bytes free")
            return super().append(kind, data, event)

    t = SignedTable("mississippi_stud", dealer=False)
    journal = Full()
    refused: list[object] = []
    recorded: list[object] = []

    def asked_again(event: object) -> bool:
        refused.append(event)
        return True

    engine = Engine(
        t.m.handle,
        journal,
        on_recorded=recorded.append,
        on_refused=asked_again,
        start_timer=lambda delay, call: lambda: None,
        prepare=lambda e: t.m.signins.check(e) if isinstance(e, PinEntered) else e,
    )
    entered = PinEntered(device="panel", at=NOW, event_no=4, person="D-0001", pin=PINS["D-0001"])
    engine.step(entered)
    assert refused == [entered] and t.m.signins.dealer is None and not list(journal.records())
    journal.full = False
    again = PinEntered(device="panel", at=NOW + 1, event_no=4, person="D-0001", pin=PINS["D-0001"])
    engine.step(again)  # the panel sends it again
    assert recorded[-1] is again and t.m.signins.dealer is PEOPLE["D-0001"]
    kinds = [(r.kind, r.data.get("verified")) for r in journal.records()]
    assert kinds == [("JournalFault", None), ("SignIn", True)]
    assert PINS["D-0001"] not in repr([r.data for r in journal.records()])

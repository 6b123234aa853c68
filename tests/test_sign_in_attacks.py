"""Sign-in under attack (issue 45 item 1, found from outside on 2026-12-06): a storm of PIN
entries, wrong PINs that lock every supervisor out, a sign-off without a credential, a journal
outage, and a roster others can read or whose ids differ only in case. The games' machines fed
directly (tests/test_sign_in.py's table), and a runtime on a durable journal for the replay."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from cli_helpers import cli
from table_helpers import ManualClock
from test_sign_in import HASHES, NOW, PEOPLE, PINS, ROSTER, OnRuntime, SignedTable, _runtime, signed_at
from test_table_shoe_faults import IDS, STATES

import controller.table._sign_in as sign_in_module
from controller.configuration import ConfigError, Person, config_dir, hash_pin, load_roster
from controller.journal.recall import describe_event
from controller.journal.records import JournalRecord
from controller.table._sign_in import BACK_OFF_S, DECAY_S, MAX_BACK_OFF_S, TOO_SOON, SignIns
from controller.table.engine import JournalFault
from controller.table.events import OpenTable
from drivers.panel import ButtonChanged, PinEntered, SignOff

STORM = 40


def _counting_checks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """One entry for every PIN check (scrypt) the table runs."""
    checked: list[str] = []
    real = sign_in_module.pin_matches

    def counted(pin: str, pin_hash: str) -> bool:
        checked.append("scrypt")
        return real(pin, pin_hash)

    monkeypatch.setattr(sign_in_module, "pin_matches", counted)
    return checked


# --- 1. a storm of PIN entries ---------------------------------------------------------------------


@pytest.mark.parametrize(("game", "phase", "steps"), STATES, ids=IDS)
def test_a_storm_of_wrong_pins_costs_one_check_and_the_rest_are_refused_too_soon_in_every_state(
    game: str, phase: str, steps: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """40 wrong PINs keyed within a second cost one scrypt check (each up to about a second on the
    controller thread), not 40: the rest are refused unchecked as too soon and journaled so."""
    t = signed_at(game, steps)
    checked = _counting_checks(monkeypatch)
    before = len(t.records("SignInRefused"))
    start = t.now = max(t.now, t.m.signins.backed_off_until("panel", t.now) or t.now)
    for i in range(STORM):
        t.now = start + i / STORM
        t.pin("S-0001" if i % 2 else "X-0000", "1111", waits=False)
    assert len(checked) == 1
    reasons = [d["reason"] for d in t.records("SignInRefused")[before:]]
    assert reasons == ["wrong PIN or id"] + [TOO_SOON] * (STORM - 1)
    assert not t.records("SignInLocked") and t.m.signins.locked_until("S-0001", t.now) is None
    assert t.m.signins.dealer is PEOPLE["D-0001"]  # the dealer signed in stays
    t.now = start + BACK_OFF_S
    t.pin("S-0001", waits=False)  # the back-off is over: checked; a match keeps the panel's level
    assert len(checked) == 2 and t.m.signins.supervisor is PEOPLE["S-0001"]
    assert t.m.signins.backed_off_until("panel", t.now) == t.now + BACK_OFF_S


def test_the_back_off_doubles_with_each_wrong_pin_in_a_row_up_to_a_limit_and_is_per_panel(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    t = SignedTable("mississippi_stud", dealer=False)
    checked = _counting_checks(monkeypatch)
    gaps = []
    for _ in range(8):
        t.pin("X-0000", "1111")
        until = t.m.signins.backed_off_until("panel", t.now)
        assert until is not None
        gaps.append(until - t.now)
        t.now = until
    assert gaps == [min(BACK_OFF_S * 2**i, MAX_BACK_OFF_S) for i in range(8)] and len(checked) == 8
    t.feed(PinEntered(device="panel_2", at=t.now - 1, person="D-0001", pin=PINS["D-0001"]))
    assert t.m.signins.dealer is PEOPLE["D-0001"]  # another panel's entries are its own


def test_a_storm_through_the_runtime_is_journaled_and_a_replay_never_runs_scrypt_and_refuses_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The refusals are decided from the journaled sign-ins' own times: a restart replays them into
    the same back-off and lockouts without checking a PIN."""
    clock = ManualClock(NOW)
    runtime = _runtime(tmp_path / "j.db", clock)
    t = OnRuntime(runtime, clock)
    t.feed(OpenTable())
    checked = _counting_checks(monkeypatch)
    for i in range(STORM):
        t.feed(PinEntered(device="panel", at=NOW + i / STORM, person="S-0001", pin="1111"))
        t.feed(ButtonChanged(device="panel", at=NOW + i / STORM, button="seat_1", pressed=True))
    assert len(checked) == 1
    state = runtime.round.signins.snapshot()
    kinds = [r.data.get("reason") for r in runtime.store.records() if r.kind == "SignInRefused"]  # type: ignore[union-attr]
    assert kinds == ["wrong PIN or id"] + [TOO_SOON] * (STORM - 1)
    runtime.journal.close()  # type: ignore[attr-defined]

    def no_scrypt(pin: str, pin_hash: str) -> bool:
        raise AssertionError("a replay checked a PIN")

    monkeypatch.setattr(sign_in_module, "pin_matches", no_scrypt)
    again = _runtime(tmp_path / "j.db", clock)
    assert again.recover() and again.recovered >= 2 * STORM
    assert again.round.signins.snapshot() == state
    again.journal.close()  # type: ignore[attr-defined]


# --- 2. a way out when wrong PINs locked people out -------------------------------------------


def _lock_out(t: SignedTable, *people: str) -> None:
    """Each of ``people`` locked out by the roster's 3 wrong PINs, each after the panel's back-off."""
    for person in people:
        for _ in range(3):
            t.pin(person, "0000")
            t.now = t.m.signins.backed_off_until("panel", t.now) or t.now
    for person in people:
        assert t.m.signins.locked_until(person, t.now) is not None


@pytest.mark.parametrize(("game", "phase", "steps"), STATES, ids=IDS)
def test_a_badge_still_signs_in_a_supervisor_whose_pin_is_locked_out_and_that_ends_every_lockout(
    game: str, phase: str, steps: int
) -> None:
    """Anyone at the panel can lock every id out with wrong PINs: a supervisor's badge (something
    they hold, not a guess) still signs them in, and a supervisor signed in ends every lockout at
    the table, journaled with who ended them; then the locked-out dealer's PIN signs in again."""
    t = signed_at(game, steps)
    _lock_out(t, "S-0002", "S-0001", "D-0002")
    t.key()
    t.pin("S-0001")  # the right PIN: still locked out
    assert t.m.signins.supervisor is None and "locked out until" in t.refused_signin()[-1]
    t.badge("BADGE-77")  # S-0002's badge: S-0002 is locked out for PINs
    assert t.m.signins.supervisor is PEOPLE["S-0002"]
    assert t.records("SignedIn")[-1] == {
        "round": 1,
        "person": "S-0002",
        "role": "supervisor",
        "method": "badge",
        "lockout_ended": True,
    }
    assert t.records("SignInUnlocked") == [{"people": ["D-0002", "S-0001"], "by": "S-0002"}]  # its own: in its SignedIn
    t.pin("D-0002")
    assert t.m.signins.locked_until("D-0002", t.now) is None
    assert t.records("SignedIn")[-1]["person"] == "D-0002"
    t.pin("S-0001")
    assert t.m.signins.supervisor is PEOPLE["S-0001"]


def test_a_supervisor_signing_in_by_pin_ends_the_lockouts_and_without_one_they_last_their_time() -> None:
    t = SignedTable("mississippi_stud")
    _lock_out(t, "D-0002")
    t.pin("D-0002")
    assert "locked out until" in t.refused_signin()[-1]
    t.pin("S-0001")
    assert t.records("SignInUnlocked") == [{"people": ["D-0002"], "by": "S-0001"}]
    t.pin("D-0002")
    assert t.m.signins.next_dealer is PEOPLE["D-0002"] or t.m.signins.dealer is PEOPLE["D-0002"]


# --- 3. a sign-off carries no credential ------------------------------------------------------


@pytest.mark.parametrize(("game", "phase", "steps"), STATES, ids=IDS)
def test_a_sign_off_of_the_supervisor_needs_the_key_on_and_the_dealer_signs_themselves_off(
    game: str, phase: str, steps: int
) -> None:
    """0x43 carries only an id: anyone at the panel could sign anyone off. The dealer (at the
    panel's place) signs themselves off; the supervisor only with the key on (or by turning it
    off); a refused sign-off of the supervisor is journaled, and an id not signed in changes nothing."""
    t = signed_at(game, steps)
    t.key()
    t.pin("S-0001")
    t.key(False)  # the key off signs the supervisor off, as always
    assert t.m.signins.supervisor is None
    t.key()
    t.pin("S-0001")
    t.m.supervisor.key.on = False  # the key counted off without a change (a link-down's re-read)
    t.feed(SignOff(device="panel", person="S-0001"))
    assert t.m.signins.supervisor is PEOPLE["S-0001"]
    assert t.records("SignOffRefused")[-1]["person"] == "S-0001"
    t.m.supervisor.key.on = True
    t.feed(SignOff(device="panel", person="D-0002"))  # not signed in: nothing happens
    t.feed(SignOff(device="panel", person="S-0001"))
    assert t.m.signins.supervisor is None and t.records("SignedOff")[-1] == {
        "round": 1,
        "person": "S-0001",
        "role": "supervisor",
    }
    t.feed(SignOff(device="panel", person="D-0001"))
    assert t.m.signins.dealer is None and t.records("SignedOff")[-1]["role"] == "dealer"


# --- 4. a journal outage ends the supervisor's sign-in ----------------------------------------


@pytest.mark.parametrize(("game", "phase", "steps"), STATES, ids=IDS)
def test_a_journal_outage_signs_the_supervisor_off_as_a_link_down_does_and_the_dealer_stays(
    game: str, phase: str, steps: int
) -> None:
    """Authority never outlives its evidence: after the journal could not be written (the
    ``JournalFault`` taken first once it can), the supervisor signs in again; with events lost too."""
    for refused in (0, 3):
        t = signed_at(game, steps)
        t.key()
        t.pin("S-0001")
        t.feed(JournalFault("disk full", refused, 0))
        assert t.m.signins.supervisor is None and t.m.signins.dealer is PEOPLE["D-0001"]
        assert t.records("SignedOff")[-1] == {"person": "S-0001", "role": "supervisor", "reason": "journal outage"}
        t.press("void")
        assert not t.acts()


def test_a_journal_outage_through_the_engine_signs_the_supervisor_off_live_and_in_the_replay(
    tmp_path: Path,
) -> None:
    """On a durable journal: the outage's ``JournalFault`` is journaled, so the restart's replay
    signs the supervisor off where the table did."""
    clock = ManualClock(NOW)
    runtime = _runtime(tmp_path / "j.db", clock)
    t = OnRuntime(runtime, clock)
    t.feed(OpenTable())
    t.pin("D-0001")
    t.press("supervisor_key")
    t.pin("S-0001")
    assert runtime.round.signins.supervisor is PEOPLE["S-0001"]
    t.feed(JournalFault("disk full", 0, 1))
    assert runtime.round.signins.supervisor is None
    state = runtime.round.signins.snapshot()
    runtime.journal.close()  # type: ignore[attr-defined]
    again = _runtime(tmp_path / "j.db", clock)
    assert again.recover()
    assert again.round.signins.snapshot() == state and again.round.signins.dealer is PEOPLE["D-0001"]
    again.journal.close()  # type: ignore[attr-defined]


# --- 5. and 6. the roster file: its mode, and ids or badges differing only in case ------------


def _roster_file(tmp_path: Path, text: str, mode: int = 0o600) -> Path:
    path = tmp_path / "roster.yaml"
    path.write_text(text)
    path.chmod(mode)
    return path


GOOD = f"people:\n  - id: D-0001\n    name: Ann Lee\n    role: dealer\n    pin_hash: {HASHES['D-0001']}\n"


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o644, 0o444])
def test_a_roster_its_group_or_others_can_read_is_refused_at_load_exit_2(tmp_path: Path, mode: int) -> None:
    """The PIN hashes of 4-digit PINs are guessed offline in minutes: a roster others can read is
    refused as the journal's HMAC key file is, by ``roster check`` and by the table's config."""
    roster = _roster_file(tmp_path, GOOD, mode)
    code, out, err = cli("roster", "check", str(roster))
    assert code == 2 and f"{roster}:1:" in err and f"readable by others (mode {mode:04o})" in err
    assert "chmod 600" in err and "Traceback" not in err
    with pytest.raises(ConfigError, match="readable by others"):
        load_roster(roster)
    table = tmp_path / "table.yaml"
    base = (config_dir() / "bench" / "mississippi_stud.yaml").read_text()
    table.write_text(base.replace("paytables_dir: ../paytables", f"paytables_dir: {config_dir() / 'paytables'}"))
    table.write_text(table.read_text() + "roster: roster.yaml\n")
    code, out, err = cli("run", "--config", str(table), "--journal", str(tmp_path / "j.db"))
    assert code == 2 and "readable by others" in err and "Traceback" not in err
    roster.chmod(0o600)
    assert load_roster(roster).people["D-0001"].name == "Ann Lee"
    roster.chmod(0o400)
    assert load_roster(roster).people["D-0001"].name == "Ann Lee"


@pytest.mark.parametrize("mode", [0o602, 0o620, 0o622, 0o660])
def test_a_roster_its_group_or_others_can_write_is_refused_at_load_exit_2(tmp_path: Path, mode: int) -> None:
    """Whoever can write the roster puts themselves on it as a supervisor (found from outside on
    2026-12-06: modes 0602 and 0620 were accepted): refused as a readable one is."""
    roster = _roster_file(tmp_path, GOOD, mode)
    code, out, err = cli("roster", "check", str(roster))
    assert code == 2 and f"{roster}:1:" in err and "Traceback" not in err, err
    assert f"by others (mode {mode:04o})" in err and f"chmod 600 {roster}" in err
    with pytest.raises(ConfigError, match="(writable|readable) by others"):
        load_roster(roster)


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        (GOOD + GOOD.split("\n", 1)[1].replace("D-0001", "d-0001"), 6, "given twice (as D-0001"),
        (
            GOOD + "    badges: [CARD-00a1]\n  - id: D-0002\n    name: Cy\n    role: dealer\n    badges: [card-00A1]\n",
            10,
            "also D-0001's (but for letter case",
        ),
    ],
    ids=["id", "badge"],
)
def test_ids_or_badges_differing_only_in_case_are_refused_at_load_with_file_and_line(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    roster = _roster_file(tmp_path, text)
    code, out, err = cli("roster", "check", str(roster))
    assert code == 2 and f"{roster}:{line}:" in err and message in err, err


def test_an_id_or_badge_keyed_in_another_letter_case_signs_in_as_the_roster_writes_it() -> None:
    """A panel that keys letters in one case only: ``d-0001`` is D-0001 (journaled so), a badge
    read in lower case is its holder's; text that only folds to an id (not ASCII) is unknown."""
    t = SignedTable("mississippi_stud", dealer=False)
    t.pin("d-0001", PINS["D-0001"])
    assert t.m.signins.dealer is PEOPLE["D-0001"] and t.records("SignedIn")[-1]["person"] == "D-0001"
    t.key()
    t.badge("badge-77")
    assert t.m.signins.supervisor is PEOPLE["S-0002"]
    t.feed(SignOff(device="panel", person="s-0002"))
    assert t.m.signins.supervisor is None
    t.now += 1
    t.pin("\u017f-0001", PINS["S-0001"])  # LATIN SMALL LETTER LONG S: folds to "s" in Unicode
    assert t.m.signins.supervisor is None and t.records("SignInRefused")[-1]["person"] == ""


@pytest.mark.parametrize(("game", "phase", "steps"), STATES, ids=IDS)
def test_a_storm_of_the_right_pin_of_someone_signed_in_costs_no_check_in_every_state(
    game: str, phase: str, steps: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The back-off follows wrong PINs: the right PIN keyed again and again by whoever is signed in
    (the dealer, the next dealer, the supervisor) is refused unchecked too, and changes nothing."""
    t = signed_at(game, steps)
    t.key()
    t.pin("S-0001")
    checked = _counting_checks(monkeypatch)
    start = t.m.signins.backed_off_until("panel", t.now) or t.now  # after the sign-in's own gap
    for i in range(STORM):
        t.now = start + i / STORM
        t.pin(("D-0001", "S-0001")[i % 2], waits=False)
    assert not checked and t.refused_signin()[-STORM:] == ["already signed in"] * STORM
    assert t.m.signins.dealer is PEOPLE["D-0001"] and t.m.signins.supervisor is PEOPLE["S-0001"]
    t.pin("D-0002")  # someone else still signs in, checked
    assert len(checked) == 1 and PEOPLE["D-0002"] in (t.m.signins.dealer, t.m.signins.next_dealer)


# --- 4. what a sign-off journals (issue 45 item 1, found from outside on 2026-12-06) -----------


def test_a_sign_off_is_journaled_by_roster_id_and_an_id_not_on_it_as_unknown_never_as_keyed(tmp_path: Path) -> None:
    """A PIN keyed into the sign-off's id field (``4444``) is journaled as unknown (""), as a
    sign-in's id is: it never reaches the journal, ``recall --json`` or the floor. An id keyed in
    another letter case is journaled as the roster writes it, and signs its holder off."""
    clock = ManualClock(NOW)
    runtime = _runtime(tmp_path / "j.db", clock)
    t = OnRuntime(runtime, clock)
    t.feed(OpenTable())
    t.pin("D-0001")
    t.feed(SignOff(device="panel", at=clock.now, person="4444"))
    assert runtime.round.signins.dealer is PEOPLE["D-0001"]
    t.feed(SignOff(device="panel", at=clock.now, person="d-0001"))
    assert runtime.round.signins.dealer is None
    journaled = [r.data for r in runtime.store.records() if r.kind == "SignOff"]  # type: ignore[union-attr]
    runtime.journal.close()  # type: ignore[attr-defined]
    assert [d["person"] for d in journaled] == ["", "D-0001"]
    code, out, err = cli("recall", "--journal", str(tmp_path / "j.db"), "--json")
    assert code == 0 and "4444" not in out, err


# --- 5. every checked PIN costs its panel a gap; the back-off decays only with time --------------


@pytest.mark.parametrize(("game", "phase", "steps"), STATES, ids=IDS)
def test_right_pins_keyed_in_a_storm_cost_one_check_per_gap_in_every_state(
    game: str, phase: str, steps: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two dealers alternating their right PINs (each sign-in replaces the other), or one signing
    off and keying the PIN again, ran scrypt for every entry on the controller thread (20
    alternating sign-ins: the bet spots' reports 8 s late, found from outside on 2026-12-06): a
    checked PIN, right or wrong, keeps the panel from the next check for the back-off."""
    t = signed_at(game, steps)
    start = t.m.signins.backed_off_until("panel", t.now) or t.now
    checked = _counting_checks(monkeypatch)
    for i in range(20):
        t.now = start + i / 20
        t.pin(("D-0002", "D-0001")[i % 2], waits=False)
    assert len(checked) == 1 and t.refused_signin()[-19:] == [TOO_SOON] * 19
    for i in range(10):  # signing off and keying the PIN again and again
        t.now = start + BACK_OFF_S + i / 10
        t.feed(SignOff(device="panel", at=t.now, person="D-0002"))
        t.pin("D-0002", waits=False)
    assert len(checked) == 2 and t.refused_signin()[-9:] == [TOO_SOON] * 9


def test_a_right_pin_between_wrong_ones_does_not_reset_the_back_off_which_decays_only_with_quiet_minutes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An insider alternating guesses with valid PINs kept the back-off at 2 s (about 70 guesses in
    5 minutes across the roster, found from outside on 2026-12-06): a matching PIN no longer lowers
    the panel's level; it drops one step per quiet minute after the back-off ends."""
    t = SignedTable("mississippi_stud", dealer=False)
    gaps = []
    for i in range(4):
        t.pin("S-0001", "0000")  # a guess
        until = t.m.signins.backed_off_until("panel", t.now)
        assert until is not None
        gaps.append(until - t.now)
        t.pin(("D-0001", "D-0002")[i % 2])  # then a valid PIN (the insider's own, or a colleague's)
        assert t.records("SignedIn")[-1]["person"] == ("D-0001", "D-0002")[i % 2]
        t.now = t.m.signins.backed_off_until("panel", t.now) or t.now
        t.m.signins._failures.clear()  # guesses at many ids: no id's lockout interferes
    assert gaps == [BACK_OFF_S * 2**i for i in range(4)]
    t.now += DECAY_S  # one quiet minute: one step down
    t.pin("S-0001", "0000")
    assert t.m.signins.backed_off_until("panel", t.now) == t.now + BACK_OFF_S * 2**3
    t.now += BACK_OFF_S * 2**3 + 4 * DECAY_S  # quiet long enough: from the start again
    t.m.signins._failures.clear()
    t.pin("S-0001", "0000")
    assert t.m.signins.backed_off_until("panel", t.now) == t.now + BACK_OFF_S


def test_a_supervisor_signing_in_ends_lockouts_but_keeps_the_wrong_pins_counted_toward_one() -> None:
    """A supervisor signing in cleared every id's wrong-PIN count, so wrong PINs never added up to a
    lockout while supervisors came and went: it ends lockouts only."""
    t = SignedTable("mississippi_stud")
    t.wrong_pins("D-0002", 2)  # 2 of the roster's 3
    t.key()
    t.pin("S-0001")
    assert t.m.signins.supervisor is PEOPLE["S-0001"]
    t.pin("D-0002", "0000")
    assert t.m.signins.locked_until("D-0002", t.now) is not None and t.records("SignInLocked")


# --- 6. what a PIN check may cost ------------------------------------------------------------------


@pytest.mark.parametrize(("n", "p", "ok"), [(2**14, 2, True), (2**15, 1, True), (2**15, 2, False), (2**16, 4, False)])
def test_a_pin_hash_costing_more_work_than_hash_pin_writes_is_refused_at_load(
    tmp_path: Path, n: int, p: int, ok: bool
) -> None:
    """N = 65536 at p = 4 passed the roster's check and took 2.3 s a sign-in, longer than the panel's
    2 s back-off (found from outside on 2026-12-06): the work N*r*p is bounded by the default's."""
    text = GOOD.replace(HASHES["D-0001"], hash_pin("2468", n=min(n, 2**15), p=min(p, 2)))
    text = text.replace(f"scrypt${min(n, 2**15)}$8${min(p, 2)}$", f"scrypt${n}$8${p}$")
    roster = _roster_file(tmp_path, text)
    code, out, err = cli("roster", "check", str(roster))
    assert (code, "Traceback" in err) == ((0, False) if ok else (2, False)), err
    assert ok or (f"{roster}:5:" in err and ("N*r*p must be at most 262144" in err or "to 32768" in err))


def test_an_id_not_on_the_roster_is_checked_at_the_rosters_own_dearest_cost(monkeypatch: pytest.MonkeyPatch) -> None:
    """An unknown id was checked against a dummy hash of a fixed cost: on a roster of cheaper (or
    dearer) hashes a wrong id was told apart from a wrong PIN by time."""
    costs: list[str] = []
    real = sign_in_module.pin_matches

    def cost_of(pin: str, pin_hash: str) -> bool:
        costs.append("$".join(pin_hash.split("$")[1:4]))
        return real(pin, pin_hash)

    monkeypatch.setattr(sign_in_module, "pin_matches", cost_of)
    people = {**PEOPLE, "D-0003": Person("D-0003", "Cy", "dealer", hash_pin("1111", n=2**14, p=2))}
    t = SignedTable("mississippi_stud", dealer=False)
    t.m.signins = SignIns(replace(ROSTER, people=people), t.m.audit, lambda _: None)
    t.pin("X-0000", "1111")
    t.pin("D-0001", "1111")
    assert costs == ["16384$8$2", "16384$8$1"]


# --- 7. what a roster says, and what recall says of an unknown id ---------------------------------

SUPERVISOR = f"  - id: S-0001\n    name: Bo Ray\n    role: supervisor\n    pin_hash: {HASHES['S-0001']}\n"


def test_roster_check_warns_of_a_supervisor_without_a_badge_and_still_accepts_the_roster(tmp_path: Path) -> None:
    """The docs say give every supervisor a badge (it signs them in when their PINs are locked out):
    ``roster check`` says so on stderr for each one without, and exits 0 (not a refusal)."""
    roster = _roster_file(tmp_path, GOOD + SUPERVISOR)
    code, out, err = cli("roster", "check", str(roster))
    assert code == 0 and "warning: supervisor S-0001 has no badge" in err and "D-0001" not in err, err
    roster.write_text(GOOD + SUPERVISOR + "    badges: ['B-7777']\n")
    code, out, err = cli("roster", "check", str(roster))
    assert code == 0 and "warning" not in err, err


def test_a_badge_equal_to_anyones_id_is_refused_at_load_since_ids_are_public(tmp_path: Path) -> None:
    """Ids are in the journal, recall and exports: a badge id equal to one (letter case ignored)
    lets anyone who reads them sign in with it."""
    roster = _roster_file(tmp_path, GOOD + SUPERVISOR + "    badges: ['d-0001']\n")
    code, out, err = cli("roster", "check", str(roster))
    assert code == 2 and f"{roster}:10:" in err and "is the id D-0001" in err and "Traceback" not in err, err


def test_an_unquoted_id_of_digits_read_as_a_number_says_to_quote_it(tmp_path: Path) -> None:
    roster = _roster_file(tmp_path, GOOD.replace("id: D-0001", "id: 0042"))
    code, out, err = cli("roster", "check", str(roster))
    assert code == 2 and f"{roster}:2:" in err and "id: '0042'" in err and "in quotes" in err, err


@pytest.mark.parametrize(("method", "label"), [("pin", "(unknown id)"), ("badge", "(unknown badge)")])
def test_recall_labels_an_unknown_id_by_how_it_was_entered(method: str, label: str) -> None:
    refused = JournalRecord(1, NOW, "SignInRefused", {"person": "", "method": method, "reason": "wrong PIN or id"})
    assert describe_event(refused) == f"SIGN-IN REFUSED {label}: wrong PIN or id"

"""Sign-in over real ptys (issue 45 item 1): the panel simulator keys in PINs, reads a badge and
signs off through the protocol's events 0x41-0x43; the real drivers and controller check each
sign-in before it is journaled, refuse "no more bets" until a dealer is signed in, and let only a
signed-in supervisor void; the journal on disk holds no PIN, no hash and no badge id."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from deadlines import STATE_TIMEOUT_S
from hil_table import HilTable, wait
from table_helpers import ManualClock
from test_sign_in import HASHES, NOW, PINS, ROSTER, pin_in

from controller.configuration import config_dir, load_table
from controller.journal import SqliteJournal
from controller.table._sign_in import BACK_OFF_S


def refusals(journal: SqliteJournal) -> list[str]:
    """Why each sign-in was refused, in order."""
    return [str(r.data["reason"]) for r in journal.records() if r.kind == "SignInRefused"]


def test_signing_in_at_the_simulated_panel_over_ptys(tmp_path: Path) -> None:
    table = replace(load_table(config_dir() / "bench" / "mississippi_stud.yaml"), roster=ROSTER)
    journal = SqliteJournal(tmp_path / "j.db")
    clock = ManualClock(NOW)
    with HilTable(table, tmp_path / "devices", journal, wall=clock) as t:
        assert t.snap.signed_in is not None and t.snap.signed_in.dealer_id is None
        t.spot(1, "ante", 500)
        t.press("no_more_bets")
        assert t.step == "betting" and any("no dealer signed in" in text for text in t.texts)
        before = t.count("SignIn")
        t.panel.enter_pin("D-0001", "0000")
        t.settled("SignIn", before, 1)
        assert refusals(journal) == ["wrong PIN or id"]
        # The panel refuses PIN entries unchecked for a while after a wrong one, by the entries' own
        # times: the link stamps each with the clock less the delay the device's clock says it
        # waited, so the clock is moved past the back-off by more than any wait of this test.
        (wrong,) = [r.data for r in journal.records(t.first_seq) if r.kind == "SignIn"]
        clock.now = float(wrong["at"]) + BACK_OFF_S + STATE_TIMEOUT_S
        t.panel.enter_pin("D-0001", PINS["D-0001"])
        t.settled("SignIn", before, 2)
        assert refusals(journal) == ["wrong PIN or id"], "the PIN keyed after the back-off was checked"
        assert t.snap.signed_in is not None and t.snap.signed_in.dealer_id == "D-0001"
        assert any("dealer Ann Lee signed in" in line for line in t.panel.screen + tuple(t.texts))
        t.press("no_more_bets")
        assert t.step != "betting"
        t.key()
        t.press("void")
        assert t.count("SupervisorAction") == 0 and t.count("SupervisorRefused") == 1
        before = t.count("SignIn")
        t.panel.read_badge("BADGE-77")
        t.settled("SignIn", before, 1)
        t.press("void")
        wait(lambda: bool(t.results), "the round voided")
        (act,) = [r.data for r in journal.records() if r.kind == "SupervisorAction"]
        assert act["supervisor_id"] == "S-0002"
        before = t.count("SignOff")
        t.panel.sign_off("D-0001")
        t.settled("SignOff", before, 1)
        assert t.snap.signed_in is not None and t.snap.signed_in.dealer_id is None
        (settled,) = [r.data for r in journal.records() if r.kind == "RoundSettled"]
        assert settled["dealer_id"] == "D-0001"
    journal.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("j.db"))
    for secret in (*HASHES.values(), "BADGE-77"):
        assert secret.encode() not in raw
    for pin in PINS.values():
        assert not pin_in(raw, pin), pin

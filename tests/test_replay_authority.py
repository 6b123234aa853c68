"""The replay of an open round after a restart does the supervisor's acts the journal shows done
(issue 41, Three Card Poker swarm seed 139): the key turned on (and, with a roster, the supervisor
signed in) before the round's first record is taken from the round's start snapshot for the
replay, and counts as off (signed off) once it is over. Every game, with and without a roster,
on the runtime with its SQLite journal."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from table_helpers import ManualClock
from test_sign_in import PINS, ROSTER

from controller.configuration import config_dir, load_table
from controller.game.registry import table_names
from controller.journal import SqliteJournal
from controller.table.events import OpenTable
from controller.table.runtime import RuntimePorts, TableRuntime
from drivers.bet_spots import SpotReport
from drivers.panel import ButtonChanged, PinEntered
from drivers.state import ShoeState

GAMES = sorted(table_names())
BETS = {"boston5": (("ante", 500), ("first", 1000)), "pai_gow": (("pai_gow", 1000),)}
"""What seat 1 bets before "no more bets", where it is not the ante alone."""


class Fed:
    """A table's runtime on a SQLite journal, each event journaled and handled by its engine."""

    def __init__(self, game: str, path: Path, clock: ManualClock, roster: bool) -> None:
        table = load_table(config_dir() / "bench" / f"{game}.yaml")
        if roster:
            table = replace(table, roster=ROSTER)
        self.clock, self.game = clock, game
        self.runtime = TableRuntime(
            table,
            {role: "loop://" for role in table.devices},
            SqliteJournal(path, clock=clock),
            ports=RuntimePorts(wall=clock),
        )

    def feed(self, event: Any) -> None:
        self.clock.now += 1
        self.runtime.engine.step(event)

    def press(self, button: str, pressed: bool = True) -> None:
        self.feed(ButtonChanged(device="panel", at=self.clock.now, button=button, pressed=pressed))

    def pin(self, person: str) -> None:
        self.feed(PinEntered(device="panel", at=self.clock.now, person=person, pin=PINS[person]))

    @property
    def phase(self) -> str:
        return str(self.runtime.round.phase.value)

    def records(self, kind: str) -> list[dict[str, Any]]:
        journal = SqliteJournal.open_readonly(self.runtime.store.path)  # type: ignore[union-attr]
        try:
            return [r.data for r in journal.records() if r.kind == kind]
        finally:
            journal.close()

    def close(self) -> None:
        self.runtime.journal.close()  # type: ignore[attr-defined]


@pytest.mark.parametrize("released", [True, False], ids=["key-released", "key-on-at-the-stop"])
@pytest.mark.parametrize("roster", [False, True], ids=["key", "roster"])
@pytest.mark.parametrize("game", GAMES)
def test_an_act_done_with_the_key_turned_on_before_the_round_started_is_done_again_in_the_replay(
    tmp_path: Path, game: str, roster: bool, released: bool
) -> None:
    clock = ManualClock(1_800_000_000.0)
    path = tmp_path / "j.db"
    live = Fed(game, path, clock, roster)
    try:
        phase, round_no = _played_live(live, game, roster, released)
    finally:
        live.close()
    again = Fed(game, path, clock, roster)
    try:
        _recovered(again, phase, round_no, roster, released)
    finally:
        again.close()


def _played_live(live: Fed, game: str, roster: bool, released: bool) -> tuple[str, int]:
    """Key on, the round started (its snapshot), a hold the supervisor clears; then (``released``)
    key off and no more bets, or the controller stops with the key on."""
    clock = live.clock
    if roster:
        live.pin("D-0001")
    live.press("supervisor_key")
    if roster:
        live.pin("S-0001")
    live.feed(OpenTable())  # the round's start snapshot: the key on (and S-0001 signed in)
    for spot, cents in BETS.get(game, (("ante", 1000),)):
        live.feed(SpotReport(device="bet_spots", at=clock.now, seat=1, spot=spot, cents=cents))
    live.feed(ShoeState(device="shoe", at=clock.now, status="ok", cards_out=1))  # a card the table never had
    assert live.phase == "hold"
    live.press("clear_fault")
    live.press("clear_fault", pressed=False)
    assert live.phase == "betting"
    acts = live.records("SupervisorAction")
    assert [a["action"] for a in acts] == ["fault cleared"]
    assert ("supervisor_id" in acts[0]) is roster
    if released:
        live.press("supervisor_key", pressed=False)  # the dealer's buttons are the dealer's again
        live.press("no_more_bets")
        assert live.phase not in ("betting", "hold")
    return live.phase, live.runtime.round.round_no


def _recovered(again: Fed, phase: str, round_no: int, roster: bool, released: bool) -> None:
    assert again.runtime.recover()
    assert (again.phase, again.runtime.round.round_no) == (phase, round_no)  # not held in betting
    # the replay's authority ends with it: the key counts as off, the supervisor signs in again
    assert not again.runtime.round.supervisor.key_on
    assert again.runtime.round.signins.supervisor is None
    if roster:  # signed off once: live with the key, or by the restart (the replay journals nothing again)
        why = "key off" if released else "panel link down or restart"
        assert [(d["person"], d["reason"]) for d in again.records("SignedOff")] == [("S-0001", why)]
    again.press("void")  # the key replayed is not evidence of now
    assert again.records("SupervisorRefused")[-1]["reason"] == "the supervisor's key is needed"

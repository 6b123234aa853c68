"""A bench started again on a journal with a round open waits for the table to hold for its
devices before dealing (the crash test's failure under load: the players dealt from the
recovered round's first snapshot, published before the table held to read each device again,
and the card arrived in that hold: "1 cards dealt while held", a supervisor's hold).

The order is forced, never timed: the table handles its start only once the players went on from
the first snapshot they saw (dealt a card, or waited for a state it does not show), and the panel
leaves the table's state request unanswered (so the table holds for its devices) until the table
has handled that card or the players waited before dealing."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from hil_helpers import second_shoe_dealt

from controller.configuration import TableConfig, config_dir, load_table
from controller.table.events import DevicesExpected
from controller.table.runtime import TableRuntime
from drivers.framing import Frame, MsgType
from drivers.shoe import CardDealt
from hil.bench import BenchView, Player, run_bench
from hil.devices import PanelSim, ShoeSim

GAME = "mississippi_stud"


def _stopped_mid_deal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A bench journal whose second round stopped mid-deal: two of its cards left the shoe, the
    rest never came (the bench's wait for them ran out, so it stopped with the round open)."""
    journal = tmp_path / "bench.db"
    with monkeypatch.context() as m:
        second_shoe_dealt(m, lambda shoe, n, dealt: dealt(shoe, min(n, 2)))
        m.setattr(Player, "WAIT_S", 2.0)  # the rest of the cards cannot come: a short wait is no race
        summary = run_bench(_table(), seats=3, rounds=5, seed=7, progress=False, journal_path=journal)
    assert summary.failure is not None and "waiting for the cards" in summary.failure, summary.failure
    assert summary.rounds == 1
    return journal


def _either(a: threading.Event, b: threading.Event) -> bool:
    """Wait until ``a`` or ``b`` is set (generous: one of them is set as soon as the players go on)."""
    deadline = time.monotonic() + 120
    while not (a.is_set() or b.is_set()):
        if time.monotonic() > deadline:
            return False
        a.wait(0.01)
    return True


def _table() -> TableConfig:
    return load_table(config_dir() / "bench" / f"{GAME}.yaml")


def test_a_bench_started_again_mid_round_deals_only_after_the_table_held_for_its_devices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = _stopped_mid_deal(tmp_path, monkeypatch)

    waited = threading.Event()  # the players waited for a state the table did not show yet, before dealing
    dealt = threading.Event()  # a card left the shoe after the start
    card_in = threading.Event()  # the table handled that card
    view_wait, shoe_deal, panel_reply, dispatch = (
        BenchView.wait,
        ShoeSim.deal,
        PanelSim.reply_to,
        TableRuntime._dispatch,
    )

    def watched_wait(self: BenchView, cond: Any, what: str, timeout: float = 60.0) -> Any:
        current = self.latest.current()
        if current is not None and not cond(current) and not dealt.is_set():
            waited.set()
        return view_wait(self, cond, what, timeout)

    def watched_deal(self: ShoeSim, n: int = 1) -> None:
        shoe_deal(self, n)
        dealt.set()

    def gated_dispatch(self: TableRuntime, event: object, seq: int) -> None:
        if isinstance(event, DevicesExpected) and not self.replaying:
            # the table handles its start once the players went on from what they saw first
            assert _either(waited, dealt), "the players neither dealt nor waited"
        dispatch(self, event, seq)
        if isinstance(event, CardDealt) and not self.replaying:
            card_in.set()

    def held_reply(self: PanelSim, frame: Frame) -> bytes | None:
        if frame.type is MsgType.STATE_REQ and not (waited.is_set() or card_in.is_set()):
            return None  # not yet (unanswered, asked again): the table goes on holding for the panel
        return panel_reply(self, frame)

    monkeypatch.setattr(BenchView, "wait", watched_wait)
    monkeypatch.setattr(ShoeSim, "deal", watched_deal)
    monkeypatch.setattr(TableRuntime, "_dispatch", gated_dispatch)
    monkeypatch.setattr(PanelSim, "reply_to", held_reply)
    summary = run_bench(_table(), seats=3, rounds=3, seed=7, progress=False, journal_path=journal, resume=True)
    assert summary.failure is None, summary.failure
    assert summary.rounds == 2 and summary.mismatches == 0  # round 2 finished, then round 3

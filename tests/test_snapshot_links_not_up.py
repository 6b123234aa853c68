"""The round snapshot names the devices not up as the round opened, and why, under one key
(``links_not_up``: link down, never connected with or without its reason, back but its state not
read yet, to be read again after a journal outage). Older snapshots named those down in
``links_down`` (a list) and the others in ``links_not_back``: a journal written before replays
exactly as it did. A ``links_not_up`` the table could not have written is refused at the start,
the journal, the snapshot's record and the value named (docs/journal.md, "Recovery")."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from table_helpers import ManualClock
from test_attackB13_snapshot_links_down import refused_at_the_start
from test_replay_authority import BETS, Fed

from controller.table.events import DevicesExpected, OpenTable
from drivers.bet_spots import SpotReport
from drivers.link_events import DeviceFault, LinkDown, LinkUp

GAME = "three_card_poker"
START = 1_800_000_000.0
NOT_UP = {
    "bet_spots": "link down",
    "panel": "back, its state not read yet",
    "shoe": "never connected: no such port",
}


def _opened_with_devices_not_up(path: Path) -> dict[str, Any]:
    """A round that opens with the shoe never connected (its port would not open), the bet
    spots' link down and the panel back but not read again; a wager and a refused "no more
    bets"; then a stop. The snapshot journaled as the round opened."""
    clock = ManualClock(START)
    live = Fed(GAME, path, clock, False)
    try:
        live.feed(DevicesExpected(devices=("shoe",)))
        live.feed(DeviceFault(device="shoe", at=clock.now, kind="open_failed", error="no such port"))
        live.feed(LinkDown(device="bet_spots", at=clock.now, reason="no answer"))
        live.feed(LinkDown(device="panel", at=clock.now, reason="no answer"))
        live.feed(LinkUp(device="panel", at=clock.now, boot_id=9, rebooted=False))
        live.feed(OpenTable())
        for spot, cents in BETS.get(GAME, (("ante", 1000),)):
            live.feed(SpotReport(device="bet_spots", at=clock.now, seat=1, spot=spot, cents=cents))
        live.press("no_more_bets")
        live.press("no_more_bets", pressed=False)
        assert live.phase == "hold"
    finally:
        live.close()
    return _snapshot(path)


def _snapshot(path: Path) -> dict[str, Any]:
    db = sqlite3.connect(path)
    try:
        (state,) = db.execute("SELECT state FROM snapshots").fetchone()
    finally:
        db.close()
    snapshot: dict[str, Any] = json.loads(state)
    return snapshot


def _write(path: Path, snapshot: dict[str, Any]) -> None:
    db = sqlite3.connect(path)
    try:
        with db:
            db.execute("UPDATE snapshots SET state = ?", (json.dumps(snapshot),))
    finally:
        db.close()


def _records(path: Path) -> list[tuple[object, ...]]:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT * FROM records ORDER BY seq").fetchall()
    finally:
        db.close()


def _recovered(path: Path) -> tuple[object, ...]:
    """A restart on ``path``: the table as it stands after the replay, and every record."""
    again = Fed(GAME, path, ManualClock(START + 1000.0), False)
    try:
        assert again.runtime.recover()
        round_ = again.runtime.round
        after = (again.phase, round_.round_no, round_.holds.reason, again.runtime.snapshot)
    finally:
        again.close()
    return (*after, _records(path))


def test_the_snapshot_names_each_device_not_up_and_why_under_one_key(tmp_path: Path) -> None:
    snapshot = _opened_with_devices_not_up(tmp_path / "j.db")
    assert snapshot["links_not_up"] == NOT_UP
    assert "links_down" not in snapshot and "links_not_back" not in snapshot


def test_a_journal_of_the_older_form_replays_as_one_of_the_new_form(tmp_path: Path) -> None:
    """The same journal with its snapshot in the older form (``links_down``, ``links_not_back``)
    and in the new: the replay leaves the table the same and journals the same records."""
    new, old = tmp_path / "new.db", tmp_path / "old.db"
    snapshot = _opened_with_devices_not_up(new)
    shutil.copy(new, old)
    older = {key: value for key, value in snapshot.items() if key != "links_not_up"}
    older["links_down"] = ["bet_spots"]
    older["links_not_back"] = {d: why for d, why in NOT_UP.items() if d != "bet_spots"}
    _write(old, older)
    replayed = _recovered(new)
    assert replayed[:3] == ("hold", 1, "link down: bet_spots")
    assert _recovered(old) == replayed


@pytest.mark.parametrize(
    "not_up",
    [
        ["bet_spots"],
        {"printer": "link down"},
        {"bet_spots": None},
        {"bet_spots": "link down", "shoe": 3},
        {"bet_spots": "asleep"},
        {"shoe": "never connected:"},
    ],
    ids=["a-list", "unknown-device", "null", "a-number", "a-why-not-written", "never-connected-cut"],
)
def test_a_links_not_up_the_table_could_not_have_written_is_refused_at_the_start(
    tmp_path: Path, not_up: object
) -> None:
    path = tmp_path / "j.db"
    snapshot = _opened_with_devices_not_up(path)
    snapshot["links_not_up"] = not_up
    _write(path, snapshot)
    text = refused_at_the_start(path, ManualClock(START + 1000.0), GAME)
    assert str(path) in text and "snapshot" in text and "links_not_up" in text, text
    assert json.dumps(not_up) in text and "bet_spots, panel, shoe" in text, text

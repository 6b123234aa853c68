"""Attack on the round snapshot's ``links_down`` (CHANGELOG 2026-12-07 evening: a round that
opened held for a device's link down resumes as it was after a restart).

The snapshot is journal input read back at a restart: a controller started again on a journal
whose last snapshot names a device the table does not have (a journal damaged or edited, a
config of another table) held the round for it for ever ("link down: printer", clears "by
itself when the printer link is back"), or for a device named ``None``; and a ``links_down``
that is not a list was dropped silently, so the round replayed free. Every boundary checks its
input (docs/journal.md, "Recovery"): the start is refused with the journal, the snapshot's record
and what is wrong named, and the journal is left as it was (nothing recorded lost)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from table_helpers import ManualClock
from test_replay_authority import Fed

from controller.journal import JournalError
from controller.table.events import OpenTable
from drivers.link_events import LinkDown

GAME = "three_card_poker"


def _opened_held_for_the_bet_spots(path: Path, clock: ManualClock) -> dict[str, object]:
    """A round that opens held for the bet spots' link (its snapshot names them), then a stop."""
    live = Fed(GAME, path, clock, False)
    try:
        live.feed(LinkDown(device="bet_spots", at=clock.now, reason="no answer"))
        live.feed(OpenTable())
        assert live.phase == "hold"
    finally:
        live.close()
    with sqlite3.connect(path) as db:
        (state,) = db.execute("SELECT state FROM snapshots").fetchone()
    snapshot: dict[str, object] = json.loads(state)
    assert snapshot["links_not_up"] == {"bet_spots": "link down"}  # (older snapshots: links_down)
    return snapshot


def _rows(path: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as db:
        return db.execute("SELECT * FROM records ORDER BY seq").fetchall()


def refused_at_the_start(path: Path, clock: ManualClock, game: str) -> str:
    """The text of the :class:`JournalError` a restart on ``path`` refuses with; the journal's
    records checked unchanged (nothing recorded lost or added)."""
    before = _rows(path)
    again = Fed(game, path, clock, False)
    try:
        with pytest.raises(JournalError) as refused:
            again.runtime.recover()
    finally:
        again.close()
    assert _rows(path) == before  # nothing recorded lost or added
    return str(refused.value)


@pytest.mark.parametrize(
    "links_down",
    [["printer"], [None], ["bet_spots", "printer"], "bet_spots", {"bet_spots": True}, [["bet_spots"]]],
    ids=["unknown-device", "null", "one-unknown-of-two", "a-string", "an-object", "nested"],
)
def test_a_snapshot_naming_no_device_of_the_table_in_links_down_is_refused_at_the_start(
    tmp_path: Path, links_down: object
) -> None:
    clock = ManualClock(1_800_000_000.0)
    path = tmp_path / "j.db"
    snapshot = _opened_held_for_the_bet_spots(path, clock)
    snapshot["links_down"] = links_down
    with sqlite3.connect(path) as db:
        db.execute("UPDATE snapshots SET state = ?", (json.dumps(snapshot),))
    text = refused_at_the_start(path, clock, GAME)
    assert str(path) in text and "snapshot" in text and "links_down" in text, text
    assert "bet_spots, panel, shoe" in text, text  # the devices the table has


def test_a_snapshot_naming_the_tables_devices_replays_the_round_held_for_them(tmp_path: Path) -> None:
    """The good input still passes the check: the round replays held for the bet spots."""
    clock = ManualClock(1_800_000_000.0)
    path = tmp_path / "j.db"
    _opened_held_for_the_bet_spots(path, clock)
    again = Fed(GAME, path, clock, False)
    try:
        assert again.runtime.recover()
        assert again.phase == "hold"
        assert again.runtime.round.holds.reason == "link down: bet_spots"
    finally:
        again.close()

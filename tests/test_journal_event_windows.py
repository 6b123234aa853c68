"""A controller started again takes each device's event window from its journal
(``controller.table.journal_files.journaled_event_windows``): the boot of the device's last
``LinkUp`` or ``EventsOfBoot`` and the number of the last event journaled after it."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from journal_blocks import fold
from journal_helpers import events_journal

from controller.table.journal_files import journaled_event_windows

OLD, NEW = 0x1111, 0x2222


def journal_of(path: Path, records: list[tuple[str, dict[str, object]]]) -> None:
    """A journal of the panel's ``records``."""
    events_journal(path, records, "panel")


def press(no: int) -> tuple[str, dict[str, object]]:
    return "ButtonChanged", {"event_no": no, "button": "next", "pressed": True}


def test_the_events_after_a_link_up_are_of_its_boot(tmp_path: Path) -> None:
    journal_of(tmp_path / "j.db", [("LinkUp", {"boot_id": OLD, "rebooted": False}), press(1), press(2)])
    assert journaled_event_windows(tmp_path / "j.db", {"panel"}) == {"panel": (OLD, 2)}


def test_events_kept_across_a_reboot_are_of_the_boot_that_made_them(tmp_path: Path) -> None:
    """After a reboot the device sends the events it kept first: journaled after the new boot's
    LinkUp, they are the old boot's (an EventsOfBoot before them says so); the window named the
    new boot with the old boot's number, and the first POLL acknowledged the new boot's events."""
    kept = [("LinkUp", {"boot_id": OLD, "rebooted": False}), press(1)]
    kept += [("LinkUp", {"boot_id": NEW, "rebooted": True}), ("EventsOfBoot", {"boot_id": OLD}), press(2), press(3)]
    journal_of(tmp_path / "kept.db", kept)
    assert journaled_event_windows(tmp_path / "kept.db", {"panel"}) == {"panel": (OLD, 3)}
    then = [*kept, ("EventsOfBoot", {"boot_id": NEW}), press(1)]
    journal_of(tmp_path / "then.db", then)
    assert journaled_event_windows(tmp_path / "then.db", {"panel"}) == {"panel": (NEW, 1)}


@pytest.mark.parametrize(
    ("after", "window"),
    [
        ([], (OLD, 3)),
        ([("EventsOfBoot", {"boot_id": NEW}), press(1)], (NEW, 1)),
        ([("EventsOfBoot", {"boot_id": NEW})], (NEW, 0)),
    ],
)
def test_the_windows_read_from_blocks_are_those_read_from_rows(
    tmp_path: Path, after: list[tuple[str, dict[str, object]]], window: tuple[int, int]
) -> None:
    """The closed rounds' records kept as compact blocks: each window is read from them as from
    the rows (newest first, from the rows after the blocks back into them)."""
    path = tmp_path / "j.db"
    kept = [("LinkUp", {"boot_id": OLD, "rebooted": False}), press(1)]
    kept += [("LinkUp", {"boot_id": NEW, "rebooted": True}), ("EventsOfBoot", {"boot_id": OLD}), press(2), press(3)]
    journal_of(path, [*kept, *after])
    assert journaled_event_windows(path, {"panel"}) == {"panel": window}
    db = sqlite3.connect(path)
    try:
        fold(db, 1, 2)
        fold(db, 3, 5)
    finally:
        db.close()
    assert journaled_event_windows(path, {"panel"}) == {"panel": window}


def test_a_record_whose_data_is_not_json_is_passed_over(tmp_path: Path) -> None:
    """A damaged file's record (its data not JSON) does not stop the controller starting: the
    window is read from the records around it."""
    path = tmp_path / "j.db"
    journal_of(path, [("LinkUp", {"boot_id": OLD, "rebooted": False}), press(1), press(2)])
    db = sqlite3.connect(path)
    try:
        with db:
            db.execute("UPDATE records SET data = '{\"event_no\": 7, not json' WHERE seq = 3")
    finally:
        db.close()
    assert journaled_event_windows(path, {"panel"}) == {"panel": (OLD, 1)}

"""A controller started again takes each device's event window from its journal
(``controller.table.journal_files.journaled_event_windows``): the boot of the device's last
``LinkUp`` or ``EventsOfBoot`` and the number of the last event journaled after it."""

from __future__ import annotations

from pathlib import Path

from controller.journal import SqliteJournal
from controller.table.journal_files import journaled_event_windows

OLD, NEW = 0x1111, 0x2222


def journal_of(path: Path, records: list[tuple[str, dict[str, object]]]) -> None:
    journal = SqliteJournal(path)
    try:
        for kind, data in records:
            journal.append(kind, {"device": "panel", "at": 1.0, "event_no": 0, **data}, event=True)
    finally:
        journal.close()


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

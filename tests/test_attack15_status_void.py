"""Attack on the void offered only when the table takes it (CHANGELOG 2026-12-07 night, branch
voidtext14), on `tablectl status`: the hold's reason as status prints it.

Found: the page and the screen show a hold's reason with the void left out once it is refused (the
settlement paid or collected), but `tablectl status` printed the reason as recorded: `HOLD from
settlement: shoe card numbers jump ...: supervisor: confirm accepts the cards, void declares a
misdeal; clears: supervisor key on: confirm accepts the cards`, telling the supervisor to do what
the table refuses. Now status shows the reason as the page does; before anything is paid the void
is named as before."""

from __future__ import annotations

from pathlib import Path

import pytest
from table_helpers import FedTable, closed_table

from controller.cli import main as tablectl
from controller.journal import SqliteJournal
from controller.table._snapshot_file import snapshot_path, write_snapshot_file
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, CardUnreadable


def settlement(paid: bool) -> FedTable:
    """Mississippi Stud at its settlement, seats 1 and 2 with every street bet; with ``paid`` a
    seat's step confirmed (the void refused from then)."""
    t = closed_table("mississippi_stud", ((1, "ante", 500), (2, "ante", 500)))
    t.deal("As Ad Kc Qd 7h 8h 2c")
    for street in ("third", "fourth", "fifth"):
        t.spot(1, street, 500)
        t.spot(2, street, 500)
        t.press("reveal")
    if paid:
        t.press("confirm", "confirm")  # the community cards, then a seat paid or collected
    return t


FAULTS = {
    "count jumps": lambda t: t.feed(CardDealt(device="shoe", card="Jc", index=10, quality=100)),
    "unreadable after the last card": lambda t: t.feed(CardUnreadable(device="shoe", index=8)),
}


@pytest.mark.parametrize("key", [False, True], ids=["key off", "key on"])
@pytest.mark.parametrize("fault", FAULTS)
@pytest.mark.parametrize("paid", [False, True], ids=["nothing paid", "paid"])
def test_status_names_the_void_only_when_the_table_takes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], paid: bool, fault: str, key: bool
) -> None:
    t = settlement(paid)
    FAULTS[fault](t)
    if key:
        t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    s = t.snapshot()
    assert s.step == "hold" and s.hold is not None
    path = tmp_path / "mississippi_stud.db"
    SqliteJournal(path).close()
    write_snapshot_file(snapshot_path(path), s)
    assert tablectl(["status", "--journal", str(path)]) == 0
    shown = next(line for line in capsys.readouterr().out.splitlines() if "HOLD from settlement" in line)
    assert s.hold.shown_reason in shown  # the reason as the page shows it
    assert ("void" in shown.replace("void refused", "")) is not paid, shown

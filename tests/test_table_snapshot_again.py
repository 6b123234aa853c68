"""The snapshot after an event the table does not act on (a device's reply to a command, a button
let go) is the one before it, published again with the next version and not built again (issue 42
item 5)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import controller.table.runtime as runtime_module
from controller.configuration import config_dir, load_table
from controller.journal import SqliteJournal
from controller.table.events import OpenTable
from controller.table.runtime import RuntimePorts, TableRuntime
from controller.table.snapshot_build import build_hands, build_snapshot
from controller.vocab import deck
from drivers.bet_spots import SpotReport
from drivers.link import CommandResult
from drivers.panel import ButtonChanged
from drivers.shoe import CardDealt, DoorChanged, ShoeStatus

GAMES = ("mississippi_stud", "pai_gow")


def press(button: str) -> ButtonChanged:
    return ButtonChanged(device="panel", button=button, pressed=True)


def release(button: str) -> ButtonChanged:
    return ButtonChanged(device="panel", button=button, pressed=False)


def round_events(game: str) -> Iterator[object]:
    """One round of ``game`` with two seats, a door opened and closed while dealing (a hold), and
    the settlement's steps confirmed: the table in each of its states."""
    spot = "ante" if game == "mississippi_stud" else "pai_gow"
    yield OpenTable()
    for seat in (1, 4):
        yield SpotReport(device="bet_spots", seat=seat, spot=spot, cents=1000)
    yield press("no_more_bets")
    cards = list(deck(joker=game == "pai_gow"))
    if game == "mississippi_stud":
        dealt = cards[:7]
        for i, c in enumerate(dealt[:3], start=1):
            yield CardDealt(device="shoe", card=str(c), index=i, quality=100)
        yield DoorChanged(device="shoe", open=True)
        yield DoorChanged(device="shoe", open=False)
        for i, c in enumerate(dealt[3:], start=4):
            yield CardDealt(device="shoe", card=str(c), index=i, quality=100)
        for street in ("third", "fourth", "fifth"):
            for seat in (1, 4):
                yield SpotReport(device="bet_spots", seat=seat, spot=street, cents=1000)
            yield press("reveal")
    else:
        yield from (press("next"), press("next"), press("confirm"))
        for i, c in enumerate(cards[:49], start=1):
            yield CardDealt(device="shoe", card=str(c), index=i, quality=100)
            if i == 3:
                yield DoorChanged(device="shoe", open=True)
                yield DoorChanged(device="shoe", open=False)
        yield ShoeStatus(device="shoe", stub_count=4, deck_size=53)
        yield from [press("confirm")] * 3
    yield from [press("confirm")] * 10


@pytest.mark.parametrize("game", GAMES)
def test_a_reply_to_a_command_publishes_the_snapshot_of_the_state_not_built_again(
    game: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After every event of a round (each state, held or not, before and after a bet), a device's
    reply and a button let go: the snapshot published is the one the table's state builds (with the players' hands),
    its version the next, and the builder is not called for the reply."""
    table = load_table(config_dir() / "bench" / f"{game}.yaml")
    runtime = TableRuntime(
        table,
        {role: "loop://" for role in table.devices},
        SqliteJournal(tmp_path / "j.db"),
        ports=RuntimePorts(share_hands=True),
    )
    built = [0]

    def counted(*args: object) -> object:
        built[0] += 1
        return build_snapshot(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(runtime_module, "build_snapshot", counted)
    try:
        _replies_after_each_event(runtime, game, built)
    finally:
        runtime.journal.close()  # type: ignore[attr-defined]


def _replies_after_each_event(runtime: TableRuntime, game: str, built: list[int]) -> None:
    runtime.publish()
    replies = 0
    steps = set()
    for event in round_events(game):
        runtime._handle(event)
        steps.add(runtime.snapshot.step)
        button = event.button if isinstance(event, ButtonChanged) else "confirm"
        for quiet in (CommandResult(device="panel", command="SHOW", status=0), release(button)):
            before, calls = runtime.snapshot.version, built[0]
            runtime._handle(quiet)
            replies += 1
            snapshot, hands = runtime.snapshot, runtime.latest.hands()
            assert built[0] == calls, f"the snapshot was built again for {quiet}"
            assert snapshot.version == before + 1
            assert snapshot == build_snapshot(runtime.round, snapshot.version)
            assert hands == build_hands(runtime.round, snapshot.version)
    assert {"betting", "hold", "settlement"} <= steps, steps
    assert replies > 40


def test_the_supervisors_key_let_go_builds_the_snapshot_again(tmp_path: Path) -> None:
    """The key turned off is a release the table acts on: the snapshot after it is built (the
    key shown off), not the one before it published again."""
    table = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
    runtime = TableRuntime(table, {role: "loop://" for role in table.devices}, SqliteJournal(tmp_path / "j.db"))
    try:
        runtime._handle(OpenTable())
        runtime._handle(press("supervisor_key"))
        assert runtime.snapshot.key_on
        runtime._handle(release("supervisor_key"))
        assert not runtime.snapshot.key_on
    finally:
        runtime.journal.close()  # type: ignore[attr-defined]


def test_a_table_set_again_is_built_before_it_is_published_again(tmp_path: Path) -> None:
    """A runtime given another table (a replay's rebuilt one) does not publish the last one's
    snapshot after a reply."""
    table = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
    runtime = TableRuntime(table, {role: "loop://" for role in table.devices}, SqliteJournal(tmp_path / "j.db"))
    other = TableRuntime(table, {role: "loop://" for role in table.devices}, SqliteJournal(tmp_path / "k.db"))
    try:
        runtime.publish()
        other._handle(OpenTable())
        runtime.table = other.table
        runtime._handle(CommandResult(device="panel", command="SHOW", status=0))
        assert runtime.snapshot.step == "betting"
        assert runtime.snapshot == build_snapshot(other.table, runtime.snapshot.version)
    finally:
        runtime.journal.close()  # type: ignore[attr-defined]
        other.journal.close()  # type: ignore[attr-defined]

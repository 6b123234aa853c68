"""The refactor guard (hil/simulate/guard.py, issue 42 item 4): the same seeds on two trees give the
same journals, and a change that alters what a journal holds is named, seed by seed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from controller.game.registry import table_names
from hil.simulate.faults import CI_KINDS
from hil.simulate.guard import GAMES, SideResult, compare, main

ROOT = Path(__file__).resolve().parent.parent


def _copy(into: Path) -> Path:
    shutil.copytree(
        ROOT, into, symlinks=True, ignore=shutil.ignore_patterns(".git", ".venv", "__pycache__", "*.db*", ".*cache")
    )
    return into


def test_compare_names_each_difference() -> None:
    same = SideResult("a" * 64, "")
    assert compare({1: same}, {1: same}) == []
    assert compare({1: same}, {1: SideResult("b" * 64, "")}) == ["seed 1: the journals differ"]
    assert compare({1: same}, {1: SideResult("a" * 64, "cards")}) == ["seed 1: base broke nothing, head broke cards"]
    assert compare({1: same}, {}) == ["seed 1: played on one side only"]


def test_guards_every_game_dealt_at_a_table() -> None:
    # the games come from the registry: Three Card Poker, dealt at the table since issue 43, is guarded
    assert GAMES == table_names()
    assert "three_card_poker" in GAMES


@pytest.mark.parametrize("alter", [False, True], ids=["unchanged", "config-changed"])
def test_the_guard_passes_the_same_code_and_catches_a_changed_journal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], alter: bool
) -> None:
    base = _copy(tmp_path / "base")
    head = _copy(tmp_path / "head")
    if alter:  # the table's configuration is hashed into every round's record: its bytes change the journal
        bench = head / "config" / "bench" / "mississippi_stud.yaml"
        bench.write_text(bench.read_text() + "\n# changed\n")
    code = main(
        ["--base", str(base), "--head", str(head), "--game", "mississippi_stud", "--seeds", "1", "--rounds", "1"]
        + ["--faults", ",".join(CI_KINDS), "--workers", "1", "--repo", str(ROOT)]
    )
    out = capsys.readouterr().out
    assert code == (1 if alter else 0), out
    assert ("seed 1: the journals differ" in out) == alter

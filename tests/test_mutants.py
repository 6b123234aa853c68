"""The mutation score's list of mutants stays in step with the code (issue 41 item 7): each
mutant's text occurs exactly once where it says, and one mutant is applied to a copy and reverted
byte for byte (the whole score runs by hand: ``python -m hil.simulate.mutants``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from hil.simulate.mutants import EXPECTED_SURVIVORS, MUTANTS, Mutant, MutantError, apply, main, revert

ROOT = Path(__file__).resolve().parents[1]


def test_there_are_at_least_twenty_mutants_with_unique_names() -> None:
    names = [m.name for m in MUTANTS]
    assert len(names) >= 20 and len(set(names)) == len(names)
    assert set(EXPECTED_SURVIVORS) <= set(names)


@pytest.mark.parametrize("mutant", MUTANTS, ids=lambda m: m.name)
def test_each_mutants_text_occurs_exactly_once_in_the_code(mutant: Mutant) -> None:
    text = (ROOT / mutant.path).read_text(encoding="utf-8")
    assert text.count(mutant.old) == 1, f"{mutant.name}: {mutant.path} no longer holds its text exactly once"
    assert mutant.new != mutant.old and mutant.bug
    compile(text.replace(mutant.old, mutant.new, 1), mutant.path, "exec")  # the mutant is still Python


def test_a_mutant_is_applied_to_a_copy_and_reverted_exactly(tmp_path: Path) -> None:
    mutant = next(m for m in MUTANTS if m.name == "pg_joker_wild")
    copy = tmp_path / mutant.path
    copy.parent.mkdir(parents=True)
    shutil.copy(ROOT / mutant.path, copy)
    original = copy.read_bytes()
    before = apply(tmp_path, mutant)
    mutated = copy.read_text(encoding="utf-8")
    assert mutant.new in mutated and mutant.old not in mutated
    revert(tmp_path, mutant, before)
    assert copy.read_bytes() == original
    assert (ROOT / mutant.path).read_bytes() == original  # the checkout is never written
    copy.write_text(mutated, encoding="utf-8")  # the code moved on: its text is gone
    with pytest.raises(MutantError, match="occurs 0 times"):
        apply(tmp_path, mutant)


def test_revert_refuses_a_file_changed_since_the_mutant(tmp_path: Path) -> None:
    mutant = MUTANTS[0]
    copy = tmp_path / mutant.path
    copy.parent.mkdir(parents=True)
    shutil.copy(ROOT / mutant.path, copy)
    before = apply(tmp_path, mutant)
    copy.write_text(copy.read_text(encoding="utf-8") + "# more\n", encoding="utf-8")
    with pytest.raises(MutantError, match="changed since"):
        revert(tmp_path, mutant, before)


def test_bad_arguments_exit_2_naming_what(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--only", "no_such_mutant"])
    assert exc.value.code == 2 and "unknown mutant(s): no_such_mutant" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["--workers", "8"])
    assert exc.value.code == 2 and "--workers 1 or 2" in capsys.readouterr().err
    assert main(["--list"]) == 0 and "pg_joker_wild" in capsys.readouterr().out


def test_a_mutant_whose_text_is_gone_stops_the_run_before_anything_is_played(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The code moved on (the games' packages): a mutant whose text no longer occurs is neither
    caught nor missed: the score stops, exit 2, naming the mutant and its file."""
    import hil.simulate.mutants as mutants

    gone = Mutant("gone", "controller/table/engine.py", "no such text in the engine", "x", "a rotted mutant")
    monkeypatch.setattr(mutants, "MUTANTS", (*MUTANTS, gone))
    assert main(["--only", "gone"]) == 2
    assert "mutant gone: controller/table/engine.py: its text: occurs 0 times, not once" in capsys.readouterr().err


@pytest.mark.slow
def test_a_mutant_in_a_file_the_simulation_does_not_import_did_not_run(tmp_path: Path) -> None:
    """A mutant's text may still occur in a file the simulation no longer runs (code moved into a
    game's package, the old module left behind): its survival would say nothing. The player checks
    the mutated file was imported; if not, the mutant did not run (not caught, not missed), and the
    score fails."""
    from hil.simulate.mutants import Outcome, copy_tree, run_mutant

    tree = tmp_path / "tree"
    copy_tree(ROOT, tree)
    path = "controller/docgen/guide.py"  # the dealer guide's generator: nothing the table runs
    text = (ROOT / path).read_text(encoding="utf-8")
    old = next(line for line in text.splitlines() if line.startswith('"""')) + "\n"
    assert text.count(old) == 1
    unrun = Mutant("unrun", path, old, old + "# mutated\n", "a mutant in code the simulation never runs", ("boston5",))
    outcome = run_mutant(tree, unrun, seeds=1)
    assert isinstance(outcome, Outcome) and not outcome.caught and "not imported by the simulation" in outcome.failed
    assert (tree / path).read_text(encoding="utf-8") == text  # reverted
    ran = run_mutant(tree, next(m for m in MUTANTS if m.name == "b5_ante_paid"), seeds=1)
    assert ran.caught and not ran.failed, ran

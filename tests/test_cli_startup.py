"""``tablectl`` starts fast: registering the sub-commands imports nothing heavy, each sub-command
imports what it needs when it runs, and the names the sub-commands offer as choices (written out
in ``controller/cli/_choices.py`` for that) are the registries' own. The start-up time itself is
measured by ``benchmarks/bench_startup.py``, never here."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from controller.cli import _choices as choices

HEAVY = ("numpy", "controller.par", "controller.table", "controller.journal", "hil", "yaml", "asyncio", "transitions")
"""What no sub-command's registration may import: each is tens of milliseconds or more."""


def _loaded_after(code: str) -> list[str]:
    """The heavy modules loaded in a fresh interpreter after running ``code``."""
    probe = (
        "import sys, contextlib, io\n"
        f"{code}\n"
        f"heavy = {HEAVY!r}\n"
        "print(__import__('json').dumps(sorted(m for m in sys.modules if m.split('.')[0] in heavy "
        "or any(m == h or m.startswith(h + '.') for h in heavy))))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120)
    loaded: list[str] = json.loads(done.stdout.splitlines()[-1])
    return loaded


def _parse(argv: list[str]) -> str:
    return (
        "from controller.cli import build_parser\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):\n"
        f"    build_parser().parse_args({argv!r})"
    )


def test_registering_every_sub_command_imports_nothing_heavy() -> None:
    assert _loaded_after("from controller.cli import build_parser\nbuild_parser()") == []


@pytest.mark.parametrize(
    "argv",
    [["--help"], ["--version"], ["rank", "--help"], ["settle", "--help"], ["journal", "verify", "--help"]],
    ids=" ".join,
)
def test_help_imports_nothing_heavy(argv: list[str]) -> None:
    assert _loaded_after(_parse(argv)) == []


def _commands_loaded_after(code: str) -> list[str]:
    """The sub-command modules (``controller.cli._bench``, ...) loaded in a fresh interpreter after ``code``."""
    from controller.cli import COMMANDS

    modules = sorted({c.where for top in COMMANDS for c in (top, *top.commands) if c.where})
    probe = (
        "import sys, contextlib, io\n"
        f"{code}\n"
        f"print(__import__('json').dumps([m for m in {modules!r} if m in sys.modules]))\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120)
    loaded: list[str] = json.loads(done.stdout.splitlines()[-1])
    return loaded


@pytest.mark.parametrize(
    ("argv", "loaded"),
    [
        (["--help"], []),
        (["bogus"], []),
        (["rank", "--help"], ["controller.cli._rank"]),
        (["web", "token", "--help"], ["controller.cli._webtoken"]),
        (["floor", "--help"], ["controller.cli._floor"]),
        (["floor", "web", "--help"], ["controller.cli._floor", "controller.cli._floorweb"]),
    ],
    ids=" ".join,
)
def test_a_command_line_imports_only_the_command_it_names(argv: list[str], loaded: list[str]) -> None:
    code = (
        "from controller.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), "
        "contextlib.suppress(SystemExit):\n"
        f"    main({argv!r})"
    )
    assert _commands_loaded_after(code) == loaded


def test_ranking_a_hand_loads_neither_numpy_nor_the_par_solver() -> None:
    code = (
        "from controller.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main(['rank', '--game', 'boston5', 'As Kd Qh Jc Ts']) == 0"
    )
    loaded = _loaded_after(code)
    assert not [m for m in loaded if m == "numpy" or m.startswith(("numpy.", "controller.par"))], loaded


def test_the_written_out_choices_are_the_registries() -> None:
    from controller.docgen.diagram import MACHINES
    from controller.game.pai_gow._house_way import HOUSE_WAYS
    from controller.game.record import SPECS
    from controller.game.record._settle import GAMES
    from controller.game.registry import names
    from controller.hands import Kind
    from controller.journal.retention import KEEP_LAST
    from hil.bench import FAULT_PROFILES, PLAYERS, STRATEGIES

    for games in (PLAYERS, MACHINES):
        assert choices.GAMES == tuple(sorted(games))
    for games in (names(), GAMES, SPECS):
        assert choices.RULES_GAMES == tuple(sorted(games))
    assert set(choices.GAMES) <= set(choices.RULES_GAMES)
    assert choices.HAND_KINDS == tuple(k.value for k in Kind)
    assert choices.HOUSE_WAYS == tuple(sorted(HOUSE_WAYS))
    assert choices.FAULT_PROFILES == tuple(sorted(FAULT_PROFILES))
    assert choices.STRATEGIES == tuple(STRATEGIES)
    assert choices.KEEP_LAST == KEEP_LAST

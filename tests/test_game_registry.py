"""The games' registry (issue 42 item 1): one lazy registry of one definition per game.

Every registered game's definition loads and says what the game is; asking for one game imports
none of the others; and no code outside a game's own modules and the rules layer switches on a
game's name (the former per-game registries and ``if game ==`` are the definitions' answers).
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.game.definition import GameDefinition, Holder, Shown
from controller.game.registry import GAMES, definition, names, table_names

ROOT = Path(__file__).resolve().parent.parent

OWN_PREFIXES: dict[str, tuple[str, ...]] = {
    "mississippi_stud": ("mississippi",),
    "pai_gow": ("pai_gow", "paigow", "house_way"),
}
"""Module names (beyond the game's own name) that belong to a game: a module any part of whose
dotted name starts with one of them is that game's."""

SWITCH_FREE = ("controller", "hil", "drivers")
"""Where no code may compare a value with a game's name."""

MAY_SWITCH: dict[str, str] = {
    "controller/game/": "each game's own package (controller/game/<name>/: its rules, record and machine) names itself",
    "controller/hands/": "the rules layer: hand ranking",
    "controller/par/": "the rules layer: the par sheets and their solvers",
    "hil/reference/": "the simulation's reference model: a checker never shares code with what it checks",
    "hil/simulate/model_check.py": "the reference model's checks: written from the rules, not from the definitions",
}
"""Where a comparison with a game's name is allowed, each with why."""


def _owner(module: str) -> str | None:
    """The game a module of controller/hil belongs to, by its name (``None``: shared)."""
    parts = module.split(".")
    for game in GAMES:
        prefixes = (game, *OWN_PREFIXES.get(game, ()))
        if any(p.startswith(prefixes) for p in parts[1:]):
            return game
    return None


@pytest.mark.parametrize("game", names())
def test_every_registered_definition_loads_and_says_what_the_game_is(game: str) -> None:
    found = definition(game)
    assert isinstance(found, GameDefinition) and found.name == game
    assert found.catalog.game == game and found.rules.game == game and found.spec.name == game
    assert found.title and found.regulation and found.guide_title
    assert set(found.required_spots) <= set(found.bet_spots) <= set(found.spot_names)
    assert set(found.catalog.wager_spots) <= set(found.spot_names) | set(found.page_spots)
    assert found.deck in (52, 53)
    plan = found.deal
    assert plan.steps and all(c.count > 0 and c.cite for s in plan.steps for c in s.cards)
    assert plan.cards_to(Holder.SEAT) > 0 and plan.cards_to(plan.shared) > 0
    assert all(r.cite for r in plan.reveals) and all(s.cite for s in found.steps)
    assert found.strategy and callable(found.read_round) and callable(found.settle)
    if found.at_table:
        machine = found.machine()
        assert machine.BET_SPOTS == found.bet_spots and machine.REQUIRED_SPOTS == found.required_spots
        assert machine.SPOT_NAMES == found.spot_names and machine.DECK == found.deck
        assert found.phases() == machine.STATES and found.phases()[0].value == "closed"
        assert callable(found.guide()) and isinstance(found.player(), type)
        hooks = found.hooks()
        assert callable(hooks.holdings) and callable(hooks.turned) and callable(hooks.game_view)
    else:
        with pytest.raises(LookupError, match="not dealt at a table"):
            found.machine()


@pytest.mark.parametrize("game", names())
def test_every_card_is_face_down_until_its_plan_turns_it(game: str) -> None:
    """Before any reveal step nothing is face up; at settlement every hand in play turned is (a
    hand not turned yet is face down but in pai gow, whose settlement comes after every hand was
    turned: 11.9; 24.10(f), 35.10(i), Three Card Poker inferred: each at its own step)."""
    plan = definition(game).deal
    seat = (1, ("As", "Kd", "Qh")[: plan.cards_to(Holder.SEAT)], False, False)
    dealer = ("2c", "3d", "4h")
    first = plan.steps[0].step
    assert plan.shown(first, [seat], dealer) == Shown(((1, (None,) * len(seat[1])),), (None,) * 3, plan.shared.value)
    assert plan.shown("betting", [seat], dealer) == Shown((), (), plan.shared.value)
    settled = plan.shown("settlement", [seat], dealer, turned=(1,))
    assert settled.seats == ((1, seat[1]),) and settled.dealer == dealer
    not_turned = plan.shown("settlement", [seat], dealer)
    down = seat[1] if game == "pai_gow" else (None,) * len(seat[1])
    assert not_turned.seats == ((1, down),) and not_turned.dealer == dealer


def test_names_are_the_registry_and_the_table_games_a_part_of_it() -> None:
    assert names() == tuple(sorted(GAMES))
    assert set(table_names()) <= set(names())
    assert all(definition(n).at_table for n in table_names())
    with pytest.raises(KeyError, match=r"unknown game 'poker' \(known: boston5, mississippi_stud"):
        definition("poker")


def _loaded_by(game: str) -> list[str]:
    code = (
        "import json, sys\n"
        "from controller.game.registry import definition\n"
        f"d = definition({game!r})\n"
        "d.strategy and d.spec and d.catalog\n"
        "if d.at_table:\n"
        "    d.machine(), d.hooks(), d.phases()\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    loaded: list[str] = json.loads(out.stdout)
    return loaded


@pytest.mark.parametrize("game", names())
def test_one_definition_imports_no_other_game(game: str) -> None:
    loaded = [m for m in _loaded_by(game) if m.startswith(("controller.", "hil.", "drivers."))]
    others = sorted(m for m in loaded if _owner(m) not in (None, game))
    assert not others, f"asking for {game} imported other games' modules: {others}"
    assert f"controller.game.{game}" in loaded


def test_the_owner_of_a_module_is_told_by_its_name() -> None:
    """The check above sees a game's modules (it would fail if a definition imported another's)."""
    assert _owner("controller.game.pai_gow._deal") == "pai_gow"
    assert _owner("controller.par.mississippi") == "mississippi_stud"
    assert _owner("controller.game.boston5._machine") == "boston5"
    assert _owner("controller.game.three_card_poker._catalog") == "three_card_poker"
    assert _owner("controller.table.round") is None


def _name_switches(tree: ast.AST, games: frozenset[str]) -> list[int]:
    """Lines comparing something with a game's name (``==``, ``!=``, ``in``, ``not in``)."""

    def names_a_game(node: ast.expr) -> bool:
        if isinstance(node, ast.Constant):
            return node.value in games
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(names_a_game(e) for e in node.elts)
        return False

    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            if any(names_a_game(e) for e in (node.left, *node.comparators)):
                lines.append(node.lineno)
        elif isinstance(node, ast.match_case) and isinstance(node.pattern, ast.MatchValue):
            if names_a_game(node.pattern.value):
                lines.append(node.pattern.lineno)
    return lines


def test_no_code_outside_a_games_own_modules_switches_on_its_name() -> None:
    games = frozenset(names())
    found = []
    for top in SWITCH_FREE:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if any(rel.startswith(allowed) for allowed in MAY_SWITCH):
                continue
            for line in _name_switches(ast.parse(path.read_text(), rel), games):
                found.append(f"{rel}:{line}")
    assert not found, f"switches on a game's name (read the game's definition instead): {found}"


def test_the_switch_check_sees_each_form() -> None:
    games = frozenset({"boston5", "pai_gow"})
    code = 'if game == "boston5": pass\nx = "pai_gow" != g\ny = g in ("boston5", "z")\nz = g == "other"\n'
    assert _name_switches(ast.parse(code), games) == [1, 2, 3]
    assert _name_switches(ast.parse('match g:\n    case "pai_gow":\n        pass\n'), games) == [2]


def test_the_command_lines_light_lists_are_the_registrys() -> None:
    from controller.cli import _choices as choices

    assert choices.RULES_GAMES == names()
    assert choices.GAMES == tuple(sorted(table_names()))

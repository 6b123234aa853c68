"""The layers of DEVELOPERS.md, every rule: the rules never import drivers and drivers never import
rules; the table is the only place they meet; nothing imports upward; the floor and the web only
read snapshots and journals and post the same events a device would; and no import cycle, between
the layers or between modules."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("controller", "drivers", "hil")

RULES = "rules"
"""The pure rules and their configuration: every module of ``controller`` outside the sub-packages below."""

LAYERS = ("table", "journal", "floor", "web", "cli", "docgen")
"""The sub-packages of ``controller`` that are layers of their own (``controller.<name>``)."""

GAME_PARTS = {"_machine": "controller.table", "_guide": "controller.docgen"}
"""A game's package (``controller.game.<name>``) may hold its parts in other layers, each in the
module of this name: its round machine (the table layer) and its dealer guide round (docgen).
The game's definition names them lazily (``"module:attribute"``): the rules never import them."""

MAY_IMPORT: dict[str, set[str]] = {
    RULES: set(),
    "drivers": set(),
    "controller.journal": set(),
    "controller.table": {RULES, "drivers", "controller.journal"},
    "controller.floor": {RULES, "controller.journal"},
    # The web reads the table's snapshot, the journal and the floor store, and posts device events.
    "controller.web": {RULES, "drivers", "controller.journal", "controller.floor", "controller.table"},
    "hil": {RULES, "drivers", "controller.journal", "controller.table"},
    "controller.docgen": {RULES, "drivers", "controller.table"},
    "controller.cli": {
        RULES,
        "drivers",
        "hil",
        *(f"controller.{name}" for name in LAYERS if name != "cli"),
    },
}
"""For each layer, the other layers it may import (a layer always imports itself)."""


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(module: str) -> str:
    parts = module.split(".")
    if parts[0] != "controller":
        return parts[0]
    if len(parts) > 3 and parts[1] == "game" and parts[3] in GAME_PARTS:
        return GAME_PARTS[parts[3]]
    if len(parts) > 1 and parts[1] in LAYERS:
        return f"controller.{parts[1]}"
    if len(parts) > 1 and parts[1] == "__main__":
        return "controller.cli"  # `python -m controller` is the command line
    return RULES


def sources() -> Iterator[Path]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if path.relative_to(ROOT).parts[1:2] != ("config",):
                yield path


def imports(path: Path, *, top_level_only: bool = False) -> set[str]:
    """The project modules ``path`` imports (absolute names); with ``top_level_only``, only the
    imports run when the module loads (not those inside functions or ``TYPE_CHECKING``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes: list[ast.AST]
    if top_level_only:
        nodes = [n for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom)]
    else:
        nodes = list(ast.walk(tree))
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return {n for n in names if n.split(".")[0] in PACKAGES}


def test_every_layer_imports_only_what_it_may() -> None:
    bad = []
    for path in sources():
        own = layer_of(module_name(path))
        assert own in MAY_IMPORT, f"{path}: layer {own} has no rule in MAY_IMPORT"
        for name in sorted(imports(path)):
            other = layer_of(name)
            if other != own and other not in MAY_IMPORT[own]:
                bad.append(f"{path.relative_to(ROOT)} ({own}) imports {name} ({other})")
    assert not bad, "\n".join(bad)


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of ``graph`` (its nodes, the first repeated at the end), or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return stack[stack.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_layers_form_no_cycle() -> None:
    graph = {layer: set(allowed) for layer, allowed in MAY_IMPORT.items()}
    assert find_cycle(graph) is None


def test_no_module_imports_itself_round_a_circle_when_loading() -> None:
    modules = {module_name(p): p for p in sources()}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for imported in imports(path, top_level_only=True):
            # `from a.b import c` names a module a.b.c or a name c in a.b: keep the module it is.
            while imported not in modules and "." in imported:
                imported = imported.rsplit(".", 1)[0]
            if imported in modules and imported != name:
                targets.add(imported)
        graph[name] = targets
    # A package's __init__ importing its own modules is no cycle of concern.
    for name in graph:
        graph[name] = {t for t in graph[name] if not name.startswith(t + ".")}
    assert (found := find_cycle(graph)) is None, " -> ".join(found or [])


@pytest.mark.parametrize(
    ("module", "layer"),
    [
        ("controller.vocab._cards", RULES),
        ("controller.par.sheets", RULES),
        ("controller.table.round", "controller.table"),
        ("controller.game.some_game", RULES),
        ("controller.game.some_game.hooks", RULES),
        ("controller.game.some_game._machine", "controller.table"),
        ("controller.game.pai_gow._machine", "controller.table"),
        ("controller.game.pai_gow._rules", RULES),
        ("controller.game.some_game._guide", "controller.docgen"),
        ("controller.__main__", "controller.cli"),
        ("hil.bench", "hil"),
        ("drivers.link", "drivers"),
    ],
)
def test_modules_are_placed_in_their_layers(module: str, layer: str) -> None:
    assert layer_of(module) == layer


def test_the_check_catches_a_rule_importing_a_driver(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("from drivers.shoe import CardDealt\n")
    assert "drivers" not in MAY_IMPORT[layer_of("controller.vocab._cards")]
    assert {layer_of(n) for n in imports(bad)} == {"drivers"}

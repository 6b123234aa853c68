"""The layers: nothing imports upward. The journal depends on nothing above it (not the table,
the games, the CLI, the drivers or the simulators); the rules never import drivers, and drivers
never import rules."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def imports_of(folder: str) -> dict[str, set[str]]:
    """Every module imported by each file under ``folder`` (absolute names)."""
    out: dict[str, set[str]] = {}
    for path in sorted((ROOT / folder).rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
        out[str(path.relative_to(ROOT))] = names
    return out


@pytest.mark.parametrize(
    ("folder", "forbidden"),
    [
        ("controller/journal", ("controller.table", "controller.games", "controller.cli", "drivers", "hil")),
        ("drivers", ("controller", "hil")),
    ],
)
def test_nothing_imports_upward(folder: str, forbidden: tuple[str, ...]) -> None:
    bad = [
        f"{path} imports {name}"
        for path, names in imports_of(folder).items()
        for name in sorted(names)
        if any(name == f or name.startswith(f + ".") for f in forbidden)
    ]
    assert not bad, "\n".join(bad)

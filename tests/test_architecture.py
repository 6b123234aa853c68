"""The architecture's measures and rules (issue 42): benchmarks/architecture.py (item 7's measures)
runs on this checkout and prints each measure (it asserts nothing about the figures, which
docs/architecture.md records); and the table's shape (item 2): no collaborator holds the round,
nothing is dispatched by a dotted string, and the table's modules import one another in no circle,
not even under ``TYPE_CHECKING`` or inside a function."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_layers import find_cycle

ROOT = Path(__file__).resolve().parent.parent

MEASURES = (
    "reaches through a hub (self.table): ",
    "import circles (every import, TYPE_CHECKING and in functions included): ",
    "dotted dispatch: ",
    "Any in controller/: ",
    "functions over C901 15: ",
    "exported names in controller/: ",
    "private modules: ",
    "duplicates pairs (whole tree): ",
)


def test_prints_each_measure() -> None:
    script = ROOT / "benchmarks" / "architecture.py"
    proc = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    for measure in MEASURES:
        found = [line for line in lines if line.startswith(measure)]
        assert found, f"{measure!r} missing from:\n{proc.stdout}"
        figure = found[0][len(measure) :].split()[0]
        assert figure.isdigit() or figure == "n/a", found[0]


def test_refuses_a_folder_without_the_packages(tmp_path: Path) -> None:
    script = ROOT / "benchmarks" / "architecture.py"
    proc = subprocess.run(
        [sys.executable, str(script), "--root", str(tmp_path)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert "has no controller/ folder" in proc.stderr
    assert "Traceback" not in proc.stderr


# --- the table's shape (issue 42 item 2) ---------------------------------------------------------
TABLE = ("controller", "table")
"""The table package, whose modules are checked here."""


def table_modules(root: Path = ROOT) -> dict[str, Path]:
    """Every module of the table package, by its dotted name."""
    return package_modules(TABLE, root)


def package_modules(package: tuple[str, ...], root: Path = ROOT) -> dict[str, Path]:
    """Every module of ``package`` (its folder's parts), by its dotted name."""
    folder = root.joinpath(*package)
    out = {}
    for path in sorted(folder.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def every_import(path: Path) -> set[str]:
    """Every module ``path`` imports (absolute names), wherever the import is: at the top, inside
    a function, under ``if TYPE_CHECKING``."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{a.name}" for a in node.names)
    return names


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for imported in every_import(path):
            while imported not in modules and "." in imported:  # `from a.b import c`: the module a.b
                imported = imported.rsplit(".", 1)[0]
            if imported in modules and imported != name and not name.startswith(imported + "."):
                targets.add(imported)
        graph[name] = targets
    return graph


def hub_reaches(modules: dict[str, Path]) -> list[str]:
    """Every ``self.table`` in the table's modules, one line each: a collaborator reaching back
    through the round (the round names its configuration ``config``, the runtime its round
    ``round``)."""
    out = []
    for name, path in modules.items():
        text = path.read_text(encoding="utf-8")
        out += [f"{name}:{n}: {line.strip()}" for n, line in enumerate(text.splitlines(), 1) if "self.table" in line]
    return out


DOTTED = re.compile(r"\battrgetter\b|\bvia\(|\bROUTES\b|getattr\(self, f\"on_")
"""Dispatch by a name looked up at run time: ``attrgetter``, ``via("walk.settle")``, a routes table of
dotted strings, ``on_<kind>`` found by the event's class name."""


def dotted_dispatch(modules: dict[str, Path]) -> list[str]:
    out = []
    for name, path in modules.items():
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if DOTTED.search(line):
                out.append(f"{name}:{n}: {line.strip()}")
    return out


def test_the_tables_modules_import_each_other_in_no_circle_type_checking_included() -> None:
    found = find_cycle(import_graph(table_modules()))
    assert found is None, "import circle: " + " -> ".join(found or [])


def test_the_controllers_modules_import_each_other_in_no_circle_type_checking_included() -> None:
    """Not only the table's: the journal's store, checkpoint, stored records and block codec once
    did, through imports inside functions (the hashes now live below them all)."""
    found = find_cycle(import_graph(package_modules(("controller",))))
    assert found is None, "import circle: " + " -> ".join(found or [])


def test_no_collaborator_reaches_back_through_the_round() -> None:
    reaches = hub_reaches(table_modules())
    assert not reaches, "a collaborator holds the round (give it what it uses instead):\n" + "\n".join(reaches)


def test_nothing_in_the_table_is_dispatched_by_a_dotted_string() -> None:
    found = dotted_dispatch(table_modules())
    assert not found, "dispatch by a name (use a typed table of bound methods):\n" + "\n".join(found)


def package_imports_of_tests(folder: Path) -> list[str]:
    """Each import in ``folder``'s Python files of a tests module through a package ``tests``
    (``from tests.x import``, ``from tests import x``, ``import tests.x``), as file:line."""
    out = []
    for path in sorted(folder.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            if any(n == "tests" or n.startswith("tests.") for n in names):
                out.append(f"{path.relative_to(folder)}:{getattr(node, 'lineno', 0)}")
    return out


def test_the_tests_import_their_helpers_one_way_by_bare_name() -> None:
    """tests/ is no package: pytest imports each test module by its bare name (``test_x``) with
    tests/ on the path, as conftest puts it for the helpers; a helper or test module imported as
    ``tests.x`` too would be a second copy of it, with its own globals and fixtures. The
    benchmarks that borrow a helper put tests/ on their path and import it the same way."""
    found = [f"{part}/{at}" for part in ("tests", "benchmarks") for at in package_imports_of_tests(ROOT / part)]
    assert not found, "import it by its bare name (from x import ...), never as tests.x:\n" + "\n".join(found)


def test_the_one_way_check_sees_each_form(tmp_path: Path) -> None:
    forms = ["from tests.deadlines import STATE_TIMEOUT_S", "from tests import web_helpers", "import tests.hil_table"]
    (tmp_path / "test_x.py").write_text("\n".join(["from deadlines import STATE_TIMEOUT_S", *forms]) + "\n")
    assert package_imports_of_tests(tmp_path) == ["test_x.py:2", "test_x.py:3", "test_x.py:4"]


# --- the checks catch what they name ---------------------------------------------------------------


def _package(tmp_path: Path, files: dict[str, str]) -> dict[str, Path]:
    folder = tmp_path.joinpath(*TABLE)
    folder.mkdir(parents=True)
    for name, text in {"__init__": "", **files}.items():
        (folder / f"{name}.py").write_text(text, encoding="utf-8")
    return table_modules(tmp_path)


@pytest.mark.parametrize("guarded", [False, True])
def test_the_circle_check_sees_an_import_under_type_checking(tmp_path: Path, guarded: bool) -> None:
    back = "from controller.table.round import RoundTable\n"
    if guarded:
        back = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    " + back
    modules = _package(tmp_path, {"round": "from controller.table.holds import Holds\n", "holds": back})
    assert find_cycle(import_graph(modules)) == [
        "controller.table.holds",
        "controller.table.round",
        "controller.table.holds",
    ]


def test_the_reach_check_sees_a_collaborator_holding_the_round(tmp_path: Path) -> None:
    holds = "class Holds:\n    def __init__(self, table):\n        self.table = table\n    def on(self):\n        return self.table.phase\n"
    wagers = "class Wagers:\n    def __init__(self, state):\n        self._state = state\n"
    modules = _package(tmp_path, {"holds": holds, "wagers": wagers})
    assert [r.split(":")[0] for r in hub_reaches(modules)] == ["controller.table.holds"] * 2


def test_the_dispatch_check_sees_attrgetter_and_via(tmp_path: Path) -> None:
    modules = _package(
        tmp_path, {"round": 'from operator import attrgetter\nmore_steps = via("walk.more_steps")\nROUTES = {}\n'}
    )
    assert len(dotted_dispatch(modules)) == 3

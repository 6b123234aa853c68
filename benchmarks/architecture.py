"""The shape of the code, measured: the figures of issue 42 item 7 for the whole repository.

Run ``python benchmarks/architecture.py`` from a checkout (``--detail`` lists what each figure
counts). It reads the source as text and syntax trees (nothing is imported or run, except
``ruff`` for the complexity and, when it is on the PATH, the ``duplicates`` command) and prints:

* reaches through a hub: attribute reads through ``self.table`` in the table's collaborators
  (``self.table.x`` and ``t.x`` after ``t = self.table``) under controller/table and controller/round;
* import circles: the groups of modules of controller/, drivers/ and hil/ that import each other,
  counting every import (at module level, under ``TYPE_CHECKING`` and inside functions);
* dotted dispatch: ``via("a.b")``, ``attrgetter(...)``, ``ROUTES`` entries naming a handler by a
  string, and supervisor actions whose handler or predicate is a string;
* ``Any``: the name ``Any`` in the code of controller/ (imports left out), and ``event: Any``;
* functions over C901 15 (``ruff --select C901``, max-complexity 15) in the whole repository;
* exported names: module-level public names of the public modules of controller/ (a module's
  ``__all__`` when it has one), in total and per package;
* private modules (``_name.py``) in controller/, drivers/ and hil/;
* ``duplicates`` pairs in the whole tree (when the command is on the PATH).

It is a measure, not a gate: it asserts nothing and exits 0.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("controller", "drivers", "hil")
HUBS = ("controller/table", "controller/round")
C901_MAX = 15


@dataclass(frozen=True)
class Module:
    """One source file of the product packages."""

    name: str
    path: Path
    tree: ast.Module

    @property
    def is_package(self) -> bool:
        """Whether this is a package's ``__init__.py``."""
        return self.path.name == "__init__.py"

    @property
    def private(self) -> bool:
        """Whether this module or a package above it is private (``_name``, not ``__init__``)."""
        return any(part.startswith("_") and not part.startswith("__") for part in self.name.split("."))


def modules(root: Path, packages: Iterable[str] = PACKAGES) -> dict[str, Module]:
    """Every module of ``packages`` under ``root``, by dotted name."""
    found: dict[str, Module] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            rel = path.relative_to(root).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts.pop()
            name = ".".join(parts)
            found[name] = Module(name, path, ast.parse(path.read_text(encoding="utf-8"), str(path)))
    return found


def _imported(module: Module, node: ast.Import | ast.ImportFrom, known: dict[str, Module]) -> Iterator[str]:
    """The known modules one import statement names."""
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name in known:
                yield alias.name
        return
    base = node.module or ""
    if node.level:
        anchor = module.name.split(".")
        if not module.is_package:
            anchor = anchor[:-1]
        anchor = anchor[: len(anchor) - (node.level - 1)]
        base = ".".join([*anchor, base] if base else anchor)
    for alias in node.names:
        sub = f"{base}.{alias.name}"
        if sub in known:
            yield sub
        elif base in known:
            yield base


def import_graph(known: dict[str, Module]) -> dict[str, set[str]]:
    """Module -> the modules it imports anywhere in its text (module level, ``TYPE_CHECKING``,
    inside functions). Importing ``a.b.c`` is an edge to ``a.b.c`` only, not to its packages."""
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, module in known.items():
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                graph[name].update(t for t in _imported(module, node, known) if t != name)
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            advanced = False
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return sorted(found, key=lambda g: (-len(g), g))


def _is_self_table(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "table"
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    )


def hub_reaches(known: dict[str, Module], hubs: Iterable[str] = HUBS) -> Counter[str]:
    """Per module under ``hubs``: attribute reads through ``self.table`` (``self.table.x``, and
    ``t.x`` in a function that set ``t = self.table``)."""
    prefixes = tuple(h.replace("/", ".") for h in hubs)
    out: Counter[str] = Counter()
    for name, module in known.items():
        if not name.startswith(prefixes):
            continue
        for func in ast.walk(module.tree):
            if not isinstance(func, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            aliases = {
                target.id
                for node in ast.walk(func)
                if isinstance(node, ast.Assign) and _is_self_table(node.value)
                for target in node.targets
                if isinstance(target, ast.Name)
            }
            for node in ast.walk(func):
                if not isinstance(node, ast.Attribute):
                    continue
                if _is_self_table(node.value) or (isinstance(node.value, ast.Name) and node.value.id in aliases):
                    out[name] += 1
    return out


def _call_name(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _is_str(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def dotted_dispatch(known: dict[str, Module]) -> Counter[str]:
    """Handlers named by strings: ``via("...")``, ``attrgetter(...)`` calls, ``ROUTES`` string
    values, and ``Action``/``SupervisorAction`` handlers and predicates given as strings."""
    out: Counter[str] = Counter()
    for module in known.values():
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Call):
                called = _call_name(node)
                if called == "via" and node.args and _is_str(node.args[0]):
                    out["via(...)"] += 1
                elif called == "attrgetter":
                    out["attrgetter(...)"] += 1
                elif called in ("Action", "SupervisorAction"):
                    handler = node.args[3] if len(node.args) > 3 else None
                    named = [handler] + [k.value for k in node.keywords if k.arg in ("handler", "when", "allowed")]
                    out["supervisor action strings"] += sum(1 for n in named if _is_str(n))
            elif isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == "ROUTES" for t in targets):
                    if isinstance(node.value, ast.Dict):
                        out["ROUTES entries"] += sum(1 for v in node.value.values if _is_str(v))
    return out


def any_counts(known: dict[str, Module], package: str = "controller") -> tuple[int, int]:
    """The name ``Any`` in ``package``'s code (imports left out), and ``event: Any`` annotations."""
    total = events = 0
    for name, module in known.items():
        if name.split(".")[0] != package:
            continue
        for node in ast.walk(module.tree):
            if isinstance(node, ast.Name) and node.id == "Any":
                total += 1
            elif isinstance(node, ast.Attribute) and node.attr == "Any":
                total += 1
            elif isinstance(node, ast.arg) and node.arg == "event" and node.annotation is not None:
                if ast.unparse(node.annotation) in ("Any", "typing.Any"):
                    events += 1
    return total, events


_C901 = re.compile(r"`(?P<name>[^`]+)` is too complex \((?P<n>\d+) > \d+\)")


def over_c901(root: Path, limit: int = C901_MAX) -> list[tuple[int, str]]:
    """(complexity, ``file:line name``) of every function over ``limit``, most complex first."""
    cmd = [sys.executable, "-m", "ruff", "check", "--select", "C901", "--output-format", "json", "--exit-zero"]
    cmd += ["--config", f"lint.mccabe.max-complexity={limit}", "."]
    proc = subprocess.run(cmd, cwd=root, capture_output=True, text=True, check=True)
    found = []
    for item in json.loads(proc.stdout):
        match = _C901.search(item["message"])
        if match:
            where = Path(item["filename"]).resolve().relative_to(root.resolve())
            found.append((int(match["n"]), f"{where}:{item['location']['row']} {match['name']}"))
    return sorted(found, key=lambda f: (-f[0], f[1]))


def _static_all(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        value: ast.expr | None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        else:
            continue
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and isinstance(
            value, ast.List | ast.Tuple
        ):
            return [e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return None


def public_names(module: Module) -> list[str]:
    """A module's exported names: its ``__all__`` when it spells one out, else every public
    (no leading underscore) function, class and variable it defines at module level."""
    declared = _static_all(module.tree)
    if declared is not None:
        return declared
    names: list[str] = []
    for node in module.tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            names.append(node.target.id)
    return sorted({n for n in names if not n.startswith("_")})


def exported(known: dict[str, Module], package: str = "controller") -> Counter[str]:
    """Exported names of ``package``'s public modules, per subpackage (``controller.web``) or
    ``controller`` itself for its loose modules."""
    out: Counter[str] = Counter()
    for name, module in known.items():
        if name.split(".")[0] != package or module.private:
            continue
        parts = name.split(".")
        group = ".".join(parts[:2]) if len(parts) > 2 or (module.is_package and len(parts) == 2) else parts[0]
        out[group] += len(public_names(module))
    return out


def private_modules(known: dict[str, Module]) -> list[str]:
    """Modules whose own name is private (``_name.py``; ``__init__``/``__main__`` are not)."""
    return sorted(n for n, m in known.items() if m.path.stem.startswith("_") and not m.path.stem.startswith("__"))


def duplicate_pairs(root: Path) -> str:
    """The ``duplicates`` command's count line for the whole tree, or why there is none."""
    command = shutil.which("duplicates")
    if command is None:
        return "n/a (the duplicates command is not on the PATH)"
    proc = subprocess.run([command, "--most", "1", "--seconds", "120"], cwd=root, capture_output=True, text=True)
    first = proc.stdout.splitlines()[0] if proc.stdout else proc.stderr.strip()
    match = re.match(r"(\d+) pairs?", first)
    return match[1] if match else first


def _revision(root: Path) -> str:
    """The checkout's commit (with ``+changes`` when its tracked files differ), or ``?``."""
    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True)
        dirty = subprocess.run(["git", "status", "--porcelain", "-uno"], cwd=root, capture_output=True, text=True)
    except OSError:
        return "?"
    if rev.returncode != 0:
        return "?"
    return rev.stdout.strip() + (" +changes" if dirty.stdout.strip() else "")


def report(root: Path, detail: bool) -> list[str]:
    """The lines this script prints."""
    known = modules(root)
    lines = [f"architecture at {_revision(root)}: {len(known)} modules in {', '.join(PACKAGES)}"]

    reaches = hub_reaches(known)
    lines.append(f"reaches through a hub (self.table): {sum(reaches.values())}")
    if detail:
        lines += [f"    {n:4d}  {name}" for name, n in reaches.most_common()]

    groups = circles(import_graph(known))
    sizes = ", ".join(str(len(g)) for g in groups) or "-"
    lines.append(
        f"import circles (every import, TYPE_CHECKING and in functions included): {len(groups)} (sizes {sizes})"
    )
    for group in groups:
        lines.append(f"    {len(group):3d} modules: {' '.join(group) if detail else ', '.join(group[:4])}")
        if not detail and len(group) > 4:
            lines[-1] += ", ..."

    dispatch = dotted_dispatch(known)
    parts = ", ".join(f"{k} {v}" for k, v in sorted(dispatch.items()) if v) or "-"
    lines.append(f"dotted dispatch: {sum(dispatch.values())} ({parts})")

    total, events = any_counts(known)
    lines.append(f"Any in controller/: {total} (event: Any {events})")

    complex_functions = over_c901(root)
    lines.append(f"functions over C901 {C901_MAX}: {len(complex_functions)}")
    shown = complex_functions if detail else complex_functions[:10]
    lines += [f"    {n:3d}  {where}" for n, where in shown]
    if len(shown) < len(complex_functions):
        lines.append(f"    ... {len(complex_functions) - len(shown)} more (--detail)")

    names = exported(known)
    lines.append(f"exported names in controller/: {sum(names.values())}")
    lines += [f"    {n:4d}  {group}" for group, n in sorted(names.items(), key=lambda i: (-i[1], i[0]))]

    private = private_modules(known)
    lines.append(f"private modules: {len(private)}")
    if detail:
        lines += [f"    {name}" for name in private]

    lines.append(f"duplicates pairs (whole tree): {duplicate_pairs(root)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    """Print the measures for the checkout at ``--root`` (this one by default)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--root", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    parser.add_argument("--detail", action="store_true", help="list what each figure counts")
    args = parser.parse_args(argv)
    for package in PACKAGES:
        if not (args.root / package).is_dir():
            print(f"architecture.py: {args.root} has no {package}/ folder", file=sys.stderr)
            return 2
    print("\n".join(report(args.root, args.detail)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

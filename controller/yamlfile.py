"""Reading YAML config files with the line of every key kept, for errors that say where.

The data comes from ``yaml.safe_load``; the lines from composing the same text into nodes
(also with the safe loader), so both see exactly the same document.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

__all__ = ["YamlDoc", "ConfigError", "Problem", "load_yaml", "dotted"]

KeyPath = tuple[object, ...]


def dotted(path: Iterable[object]) -> str:
    """``("paytables", 0, "rows")`` -> ``"paytables[0].rows"``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(top level)"


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong in a config file: where (file, line, key) and what."""

    file: str
    line: int
    key: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.key}: {self.message}"


class ConfigError(ValueError):
    """A config file (or set of files) is invalid; ``problems`` lists every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


@dataclass(slots=True)
class YamlDoc:
    """A loaded YAML file: its data and the 1-based line of each key path."""

    path: Path
    data: Any
    lines: dict[KeyPath, int] = field(default_factory=dict)

    def line(self, path: KeyPath) -> int:
        """The line of ``path``, or of its nearest enclosing key that has one."""
        path = tuple(path)
        while path and path not in self.lines:
            path = path[:-1]
        return self.lines.get(path, 1)

    def problem(self, path: KeyPath, message: str) -> Problem:
        """A :class:`Problem` at ``path`` in this file."""
        return Problem(str(self.path), self.line(path), dotted(path), message)


def _walk(node: yaml.Node, path: KeyPath, lines: dict[KeyPath, int]) -> None:
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value
            try:
                key = yaml.safe_load(key_node.value) if key_node.tag.endswith(":int") else key
            except yaml.YAMLError:  # pragma: no cover - the data load already succeeded
                pass
            child = path + (key,)
            lines[child] = key_node.start_mark.line + 1
            _walk(value_node, child, lines)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, path + (i,), lines)


def load_yaml(path: Path | str) -> YamlDoc:
    """Load ``path``; a YAML syntax error becomes a :class:`ConfigError` with its line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError([Problem(str(path), 0, "(file)", f"cannot read: {exc.strerror or exc}")]) from exc
    try:
        data = yaml.safe_load(text)
        node = yaml.compose(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else 1
        raise ConfigError([Problem(str(path), line, "(syntax)", str(exc.problem or exc))]) from exc
    except yaml.YAMLError as exc:
        raise ConfigError([Problem(str(path), 1, "(syntax)", str(exc))]) from exc
    lines: dict[KeyPath, int] = {}
    if node is not None:
        _walk(node, (), lines)
    return YamlDoc(path, data, lines)

"""Reading YAML config files with the line of every key kept, for errors that say where.

The text is parsed once with PyYAML's safe loader, composed into nodes (which give the lines)
and constructed into data from those same nodes. Config files are small and written by hand,
so the loader refuses, each with a :class:`ConfigError` naming file and line:

- files over :data:`MAX_CONFIG_BYTES` (checked before reading), binary files (a NUL byte),
  text that is not UTF-8;
- anchors and aliases (``&name``, ``*name``, so also ``<<: *name`` merges): an alias can
  expand a small file into gigabytes ("billion laughs"), and a table config gains nothing
  from them;
- nesting deeper than :data:`MAX_DEPTH` and more than :data:`MAX_NODES` values;
- a key given twice in one mapping (YAML itself says keys are unique; PyYAML keeps the last).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

__all__ = ["YamlDoc", "ConfigError", "Problem", "load_yaml", "dotted", "MAX_CONFIG_BYTES", "MAX_DEPTH", "MAX_NODES"]

MAX_CONFIG_BYTES = 256 * 1024
"""The largest config or paytable file read (the shipped ones are under 4 KiB)."""
MAX_DEPTH = 32
"""The deepest nesting of mappings and lists in a config file."""
MAX_NODES = 50_000
"""The most values (keys, scalars, mappings, lists) in one config file."""

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
    data: object
    lines: dict[KeyPath, int] = field(default_factory=dict)
    sha256: str = ""
    """The SHA-256 of the file's bytes, as read."""

    def line(self, path: KeyPath) -> int:
        """The line of ``path``, or of its nearest enclosing key that has one."""
        path = tuple(path)
        while path and path not in self.lines:
            path = path[:-1]
        return self.lines.get(path, 1)

    def problem(self, path: KeyPath, message: str) -> Problem:
        """A :class:`Problem` at ``path`` in this file."""
        return Problem(str(self.path), self.line(path), dotted(path), message)

    def mapping(self, refusal: str) -> dict[object, object]:
        """The file's data, which must be a mapping: else a :class:`ConfigError` with ``refusal``
        (what the file must be) at its first line."""
        if not isinstance(self.data, dict):
            raise ConfigError([self.problem((), refusal)])
        return self.data

    def section(
        self, key: str, raw: object, refusal: str, problems: list[Problem], known: Iterable[str] | None = None
    ) -> dict[object, object] | None:
        """The optional mapping ``raw`` under the top-level ``key``: ``None`` when it is absent, or
        when it is no mapping (then ``refusal`` is a problem, added to ``problems``); with ``known``,
        each of its keys not in ``known`` is a problem too. Its values as YAML read them."""
        if raw is None:
            return None
        if not isinstance(raw, dict):
            problems.append(self.problem((key,), refusal))
            return None
        if known is not None:
            problems += self.unknown_keys((key,), raw, known)
        return raw

    def unknown_keys(self, path: KeyPath, keys: Iterable[object], known: Iterable[str]) -> list[Problem]:
        """A problem for each of ``keys`` (of the mapping at ``path``) not in ``known``, naming the
        known ones in alphabetical order."""
        known = frozenset(known)
        names = ", ".join(sorted(known))
        return [self.problem((*path, key), f"unknown key '{key}' (known: {names})") for key in keys if key not in known]


def _refused(event: yaml.Event, message: str) -> yaml.composer.ComposerError:
    mark = event.start_mark if isinstance(event.start_mark, yaml.error.Mark) else None
    return yaml.composer.ComposerError(None, None, message, mark)


class _ConfigLoader(yaml.SafeLoader):
    """The safe loader with the limits above: no anchors or aliases, bounded depth and size,
    no duplicate keys."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._depth = 0
        self._nodes = 0

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        peek: Callable[[], yaml.Event] = self.peek_event  # untyped in the PyYAML stubs
        event = peek()
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise _refused(
                event,
                "anchors and aliases (&name, *name, <<: *name) are not allowed in tablectl config files: "
                "write each value out",
            )
        self._nodes += 1
        if self._nodes > MAX_NODES:
            raise _refused(event, f"more than {MAX_NODES} values: not a tablectl config file")
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                raise _refused(event, f"nested deeper than {MAX_DEPTH} levels: not a tablectl config file")
            node: yaml.Node | None = super().compose_node(parent, index)
            return node
        finally:
            self._depth -= 1

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[object, object]:
        seen: dict[object, int] = {}
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            try:
                first = seen.get(key)
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    None, None, f"a key must be plain text or a number, got {key_node.tag}", key_node.start_mark
                ) from None
            if first is not None:
                raise yaml.constructor.ConstructorError(
                    None, None, f"duplicate key {key!r} (first given on line {first})", key_node.start_mark
                )
            seen[key] = key_node.start_mark.line + 1
        mapping: dict[object, object] = super().construct_mapping(node, deep=deep)
        return mapping


def _walk(node: yaml.Node, path: KeyPath, lines: dict[KeyPath, int]) -> None:
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value
            if isinstance(key, str) and key_node.tag.endswith(":int"):
                try:
                    key = yaml.safe_load(key)
                except (yaml.YAMLError, ValueError):  # pragma: no cover - the data load already succeeded
                    pass
            child = path + (key,) if isinstance(key, str | int) else path + (str(key),)
            lines[child] = key_node.start_mark.line + 1
            _walk(value_node, child, lines)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _walk(item, path + (i,), lines)


def _file_problem(path: Path, line: int, message: str) -> ConfigError:
    return ConfigError([Problem(str(path), line, "(file)", message)])


def _read_text(path: Path) -> tuple[str, str]:
    try:
        with path.open("rb") as f:
            size = os.fstat(f.fileno()).st_size
            if size > MAX_CONFIG_BYTES:
                raise _file_problem(path, 0, f"{size} bytes: a config file is at most {MAX_CONFIG_BYTES} bytes")
            raw = f.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise _file_problem(path, 0, f"cannot read: {exc.strerror or exc}") from exc
    if len(raw) > MAX_CONFIG_BYTES:  # a pipe or device, whose size stat does not tell
        raise _file_problem(path, 0, f"more than {MAX_CONFIG_BYTES} bytes: a config file is at most that")
    if b"\0" in raw:
        nul = raw.index(b"\0")
        raise _file_problem(path, raw.count(b"\n", 0, nul) + 1, f"a binary file (a NUL byte at offset {nul}), not YAML")
    try:
        text: str = raw.decode("utf-8")
        return text, hashlib.sha256(raw).hexdigest()
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise _file_problem(path, line, f"not UTF-8 text: byte 0x{raw[exc.start]:02x} at offset {exc.start}") from exc


def load_yaml(path: Path | str) -> YamlDoc:
    """Load ``path``; a YAML syntax error, or anything the loader refuses (see the module
    docstring), becomes a :class:`ConfigError` with its line."""
    path = Path(path)
    text, digest = _read_text(path)
    try:
        loader = _ConfigLoader(text)
    except yaml.reader.ReaderError as exc:  # a character YAML does not allow
        line = text.count("\n", 0, exc.position) + 1
        raise ConfigError([Problem(str(path), line, "(syntax)", str(exc).splitlines()[0])]) from exc
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except yaml.MarkedYAMLError as exc:
        line = exc.problem_mark.line + 1 if exc.problem_mark else 1
        raise ConfigError([Problem(str(path), line, "(syntax)", str(exc.problem or exc))]) from exc
    except yaml.YAMLError as exc:
        raise ConfigError([Problem(str(path), 1, "(syntax)", str(exc))]) from exc
    except (ValueError, TypeError, OverflowError, RecursionError) as exc:  # e.g. an integer of 5000 digits
        raise ConfigError([Problem(str(path), 1, "(syntax)", f"cannot read a value: {exc}")]) from exc
    finally:
        loader.dispose()
    lines: dict[KeyPath, int] = {}
    if node is not None:
        _walk(node, (), lines)
    return YamlDoc(path, data, lines, digest)

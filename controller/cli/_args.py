"""What every ``tablectl`` parser shares: the parser class and its help formatter (plain text,
every default shown), descriptions taken from a module's docstring, and argument types for bounded
whole numbers, refused by argparse with its usual message (the option, the value, exit status 2)."""

from __future__ import annotations

import argparse
import importlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

__all__ = ["Command", "Parser", "add_command", "bounded_int", "description", "positive_int"]

_ROLE = re.compile(r":[\w.:-]+:`([^`]*)`")
"""A Sphinx role, :mod:`x`: its text."""
_LINK = re.compile(r"`([^`]+)`_")
"""An RST link, `x`_: its text."""
_LITERAL = re.compile(r"``(.+?)``|`([^`]+)`", re.DOTALL)
"""An RST literal (``x``) or a Markdown one (`x`): its text in quotes."""
_USAGE_PREFIX = re.compile(r"^``tablectl [^`]*``:\s*")
"""A module docstring's leading ``tablectl CMD ...``: the usage line already says it."""


def plain_text(text: str) -> str:
    """``text`` with the RST and Markdown markup of docstrings and help strings made plain: roles and
    links become their text, literals their text in double quotes."""
    text = _ROLE.sub(r"\1", text)
    text = _LINK.sub(r"\1", text)
    return _LITERAL.sub(lambda m: f'"{m.group(1) or m.group(2)}"', text)


def description(doc: str | None, paragraphs: int = 1) -> str | None:
    """A sub-command's description from its module's docstring: its first ``paragraphs`` whole
    paragraphs (never a line, which cuts a sentence), without a leading usage in double backticks
    (the usage line says it), capitalised."""
    if not doc:
        return None
    text = _USAGE_PREFIX.sub("", " ".join(" ".join(doc.strip().split("\n\n")[:paragraphs]).split()))
    return text[:1].upper() + text[1:]


def shows_default(action: argparse.Action) -> bool:
    """Whether the help of ``action`` should name its default: an option (or an optional positional)
    taking a value, whose default is a value (not None, not an empty list, not a flag's False)."""
    if action.default is None or action.default is argparse.SUPPRESS or action.nargs == 0:
        return False
    if isinstance(action.default, list | tuple) and not action.default:
        return False
    return bool(action.option_strings) or action.nargs in (argparse.OPTIONAL, argparse.ZERO_OR_MORE)


class HelpFormatter(argparse.HelpFormatter):
    """The help of every ``tablectl`` page: plain text (no RST or Markdown markup, whatever the
    docstring or help string holds), "(default: X)" after each option's help unless the help
    already names its default, and lines never broken at a hyphen (``make-certs``, a path)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        if shows_default(action) and "default" not in text.lower():
            text += " (default: %(default)s)"
        return text

    def _expand_help(self, action: argparse.Action) -> str:
        return plain_text(super()._expand_help(action))

    def _format_text(self, text: str) -> str:
        return super()._format_text(plain_text(text))

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap  # as argparse does: only when help is shown

        return textwrap.wrap(" ".join(text.split()), width, break_on_hyphens=False)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap

        return textwrap.fill(
            " ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent, break_on_hyphens=False
        )


class Parser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` with :class:`HelpFormatter` and sub-commands that can be completed
    when chosen (:func:`add_command`); sub-command parsers are made of this class too
    (``add_subparsers`` uses the parent's class), so every page of ``tablectl`` shares it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", "parsers", _LazySubParsers)

    def _get_formatter(self) -> argparse.HelpFormatter:
        return HelpFormatter(prog=self.prog)


def bounded_int(lowest: int, highest: int) -> Callable[[str], int]:
    """An argparse ``type`` for a whole number from ``lowest`` to ``highest``."""

    def parse(text: str) -> int:
        if len(text) > 20:
            raise argparse.ArgumentTypeError(f"{text[:20]}...: not a whole number from {lowest} to {highest}")
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: not a whole number") from None
        if not lowest <= value <= highest:
            raise argparse.ArgumentTypeError(f"{value}: must be from {lowest} to {highest}")
        return value

    parse.__name__ = "whole number"
    return parse


def positive_int(highest: int) -> Callable[[str], int]:
    """An argparse ``type`` for a whole number from 1 to ``highest``."""
    return bounded_int(1, highest)


@dataclass(frozen=True)
class Command:
    """One entry of ``tablectl``'s table of commands: its ``name``, its one-line ``help`` (what the page
    above it lists), and ``where`` it lives: the module that gives its ``options(parser)`` and, but
    for a command made of sub-commands only, its ``run(args)``, and whose docstring's first
    ``paragraphs`` are its page's description. That module is imported only when the command is
    chosen (or every page is built). ``commands`` are sub-commands of its own (added after any the
    module adds itself); a command without ``where`` is their group alone."""

    name: str
    help: str
    where: str | None = None
    commands: tuple[Command, ...] = ()
    paragraphs: int = 1


if TYPE_CHECKING:
    _SubParsers = argparse._SubParsersAction[argparse.ArgumentParser]
else:  # not subscriptable at run time
    _SubParsers = argparse._SubParsersAction


class _LazySubParsers(_SubParsers):
    """argparse's sub-commands whose parsers are completed only when chosen: a command's name and
    help are known without importing it; its module is imported when the command line names it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pending: dict[str, Callable[[], None]] = {}
        """A chosen command's name: what completes its parser."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        if isinstance(values, Sequence) and values and (complete := self.pending.pop(values[0], None)):
            complete()
        super().__call__(parser, namespace, values, option_string)


def add_command(sub: argparse._SubParsersAction[Any], command: Command, lazy: bool) -> None:
    """Add ``command``'s parser to ``sub``, completed now, or (``lazy``) once the command is chosen."""
    p = sub.add_parser(command.name, help=command.help)
    if lazy and isinstance(sub, _LazySubParsers):
        sub.pending[command.name] = lambda: _complete(p, command, lazy)
    else:
        _complete(p, command, lazy)


def _complete(p: argparse.ArgumentParser, command: Command, lazy: bool) -> None:
    """Give ``p`` what ``command``'s module says: its description, its options, its ``run``; then its
    own sub-commands."""
    if command.where is not None:
        module = importlib.import_module(command.where)
        p.description = description(module.__doc__, command.paragraphs)
        module.options(p)
        if (run := getattr(module, "run", None)) is not None:
            p.set_defaults(run=run)
    if command.commands:
        sub = next((a for a in p._actions if isinstance(a, argparse._SubParsersAction)), None)
        if sub is None:
            sub = p.add_subparsers(dest=f"{command.name}_command", required=True, metavar="SUBCOMMAND")
        for each in command.commands:
            add_command(sub, each, lazy)

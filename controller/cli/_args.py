"""What every ``tablectl`` parser shares: the parser class and its help formatter (plain text,
every default shown), descriptions taken from a module's docstring, and argument types for bounded
whole numbers, refused by argparse with its usual message (the option, the value, exit status 2)."""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable
from typing import TypeAlias

__all__ = ["Parser", "Subparsers", "bounded_int", "command", "description", "positive_int"]

Subparsers: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"
"""What ``tablectl``'s sub-commands are added to (each module's ``register``)."""

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
    """``argparse.ArgumentParser`` with :class:`HelpFormatter`; sub-command parsers are made of this
    class too (``add_subparsers`` uses the parent's class), so every page of ``tablectl`` shares it."""

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


def command(
    sub: Subparsers, name: str, run: Callable[[argparse.Namespace], int], help: str, description: str | None = None
) -> argparse.ArgumentParser:
    """The parser of sub-command ``name``, added to ``sub`` with its one-line ``help`` and its
    ``description``; parsing it sets ``args.run`` to ``run``."""
    p = sub.add_parser(name, help=help, description=description)
    p.set_defaults(run=run)
    return p

"""Every ``tablectl`` help page reads as plain text: no sentence cut off, no ``%%`` printed, no RST
or Markdown markup, every option with a help text and its default shown (issue #31). The pages
are found by walking the parser, so a sub-command added later is checked as well, and each page is
made by the one formatter in ``controller/cli/_args.py``."""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from controller.cli import build_parser
from controller.cli._args import HelpFormatter, description, plain_text, shows_default

PAGES_AT_LEAST = {"tablectl", "tablectl bench", "tablectl journal prune", "tablectl floor web", "tablectl web token"}
"""Pages the walk must reach: the top, a sub-command, and sub-sub-commands of three modules."""
MARKUP = re.compile(r"`|%%|:[a-z]+:`")
SENTENCE_END = (".", ")", "!", "?")
CUT_HELP_END = re.compile(r"(?:[,;:(-]|\b(?:and|or|the|a|of))$")
"""How a help text that was cut off ends."""


def pages(parser: argparse.ArgumentParser, name: str = "tablectl") -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every page under ``parser``: (its command line, its parser), sub-commands at any depth."""
    yield name, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub in action.choices.items():
                yield from pages(sub, f"{name} {sub_name}")


def help_actions(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    """What a page lists with a help text: its options and positionals, and its sub-commands."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            yield from action._get_subactions()
        elif not isinstance(action, argparse._HelpAction | argparse._VersionAction):
            yield action


ALL = sorted(pages(build_parser()), key=lambda page: page[0])


@pytest.fixture(autouse=True)
def _width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")


def _balanced(text: str) -> bool:
    return text.count("(") == text.count(")") and text.count('"') % 2 == 0


def test_the_walk_reaches_every_level() -> None:
    assert PAGES_AT_LEAST <= {name for name, _ in ALL}


@pytest.mark.parametrize(("name", "parser"), ALL, ids=[name for name, _ in ALL])
def test_a_help_page_is_plain_text_with_every_option_explained(name: str, parser: argparse.ArgumentParser) -> None:
    assert isinstance(parser._get_formatter(), HelpFormatter), f"{name}: not made by controller.cli._args.Parser"
    page = parser.format_help()
    assert not MARKUP.search(page), f"{name}: markup or %% in its help page:\n{page}"
    if parser.description:
        text = " ".join(description_block(page).split())
        assert text.endswith(SENTENCE_END) and _balanced(text), f"{name}: its description is cut off: {text!r}"
    for action in help_actions(parser):
        what = f"{name} {'/'.join(action.option_strings) or action.metavar or action.dest}"
        assert action.help and action.help is not argparse.SUPPRESS, f"{what}: no help text"
        shown = HelpFormatter(name)._expand_help(action)
        assert _balanced(shown) and not CUT_HELP_END.search(shown), f"{what}: its help is cut off: {shown!r}"
        if action.default not in (None, False, argparse.SUPPRESS, []) and action.nargs != 0:
            assert "default" in shown.lower(), f"{what}: its default ({action.default!r}) is not shown: {shown!r}"
            assert " ".join(shown.split()) in " ".join(page.split()), f"{what}: not on its page"


def description_block(page: str) -> str:
    """The description of a rendered page: the paragraph after the usage."""
    return page.split("\n\n")[1]


@pytest.mark.parametrize("argv", [["soak"], ["floor"], ["status"], ["journal", "prune"]])
def test_the_command_prints_the_walked_page(argv: list[str]) -> None:
    """``tablectl ... --help`` as a person runs it prints the page walked above, whole."""
    done = subprocess.run(
        [sys.executable, "-m", "controller", *argv, "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "100"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == dict(ALL)[" ".join(["tablectl", *argv])].format_help()


@pytest.mark.parametrize(("name", "parser"), ALL, ids=[name for name, _ in ALL])
def test_a_page_completed_when_chosen_is_the_walked_page(
    name: str, parser: argparse.ArgumentParser, capsys: pytest.CaptureFixture[str]
) -> None:
    """``tablectl`` completes a sub-command's parser only once it is chosen: every page it prints
    that way is the page built whole, word for word."""
    with pytest.raises(SystemExit) as exited:
        build_parser(lazy=True).parse_args([*name.split()[1:], "--help"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == parser.format_help()


def test_plain_text_drops_rst_and_markdown_markup() -> None:
    text = "``tablectl run``: see :mod:`controller.table` and `the docs`_, marked `approved: false`"
    assert plain_text(text) == '"tablectl run": see controller.table and the docs, marked "approved: false"'


def test_a_description_is_the_whole_first_paragraph_without_the_usage() -> None:
    doc = """``tablectl status --config FILE | --journal FILE``: a running table's round, step,
    hold and key.

    More detail that stays in the module."""
    assert description(doc) == "A running table's round, step, hold and key."
    assert (
        description(doc, paragraphs=2)
        == "A running table's round, step, hold and key. More detail that stays in the module."
    )
    assert description(None) is None


@pytest.mark.parametrize(
    ("kwargs", "shown"),
    [
        ({"default": 3}, True),
        ({"default": None}, False),
        ({"action": "store_true"}, False),
        ({"action": "append", "default": []}, False),
        ({"default": "floor"}, True),
    ],
)
def test_a_default_is_shown_when_it_is_a_value(kwargs: dict[str, Any], shown: bool) -> None:
    parser = argparse.ArgumentParser()
    action = parser.add_argument("--x", help="an option", **kwargs)
    assert shows_default(action) is shown
    assert ("(default: " in HelpFormatter("p")._expand_help(action)) is shown


def test_a_help_that_names_its_default_gets_no_second_one() -> None:
    parser = argparse.ArgumentParser()
    action = parser.add_argument("--days", type=int, default=825, help="validity (default 825 days)")
    assert HelpFormatter("p")._expand_help(action) == "validity (default 825 days)"

"""The dealer's screen: a pure function from what the table knows to the lines the panel shows.

One whole screen per state, never a stream of lines: a status line (round, step, hold), the
prompt (what the dealer must do next, naming the button), and details. Every line fits the
display's width; details that do not fit are paged (``next`` / ``previous``), the page shown in
the status line. A notice (a list that must be read, such as the wagers to return after a void)
takes the prompt's place until the dealer confirms it, page by page.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from controller.vocab import Card, format_cards

__all__ = [
    "DisplaySize",
    "Notice",
    "ScreenState",
    "render",
    "page_count",
    "fits",
    "seats_named",
    "seats_line",
    "cards_line",
]


@dataclass(frozen=True, slots=True)
class DisplaySize:
    """The panel's display: how many lines of how many characters."""

    lines: int = 4
    columns: int = 40

    def __post_init__(self) -> None:
        if self.lines < 3 or self.columns < 16:
            raise ValueError(f"display {self.lines} x {self.columns}: at least 3 lines of 16 characters")


DEFAULT_SIZE = DisplaySize()
"""The size when neither the table config nor the panel says otherwise."""


@dataclass(frozen=True, slots=True)
class Notice:
    """Something the dealer must read (and do) before going on: ``title`` then ``lines``;
    confirmed with ``confirm``. A ``blocking`` notice is a procedure step: the round does not go
    on (no next card, no reveal) until it is confirmed."""

    title: str
    lines: tuple[str, ...] = ()
    blocking: bool = False


class ScreenState(NamedTuple):
    """What the screen is made from: the table's state as the dealer needs it. (A named tuple,
    not a frozen dataclass: the table makes one after every event, and a tuple is made and
    compared several times faster.)"""

    round_no: int
    step: str
    prompt: str
    details: tuple[str, ...] = ()
    hold: str = ""
    """Why the table holds ("" when it does not)."""
    notice: Notice | None = None
    page: int = 0
    notes: tuple[str, ...] = ()
    """Answers to the dealer's last action, shown first."""


def _wrap(text: str, width: int) -> tuple[str, ...]:
    """``textwrap.wrap`` (long words broken, not at hyphens), fast for the screen's usual text:
    printable, single spaces, no word wider than the display (anything else goes to textwrap)."""
    if not text or not text.isprintable() or text.strip() != text or "  " in text:
        return _wrap_long(text, width)
    if len(text) <= width:
        return (text,)
    lines: list[str] = []
    rest = text
    while len(rest) > width:
        # greedy: the longest run of whole words that fits ends at the last space within width + 1
        cut = rest.rfind(" ", 0, width + 1)
        if cut <= 0:  # a word wider than the display
            return _wrap_long(text, width)
        lines.append(rest[:cut])
        rest = rest[cut + 1 :]
    lines.append(rest)
    return tuple(lines)


@lru_cache(maxsize=8192)
def _wrap_long(text: str, width: int) -> tuple[str, ...]:
    # a table shows the same few hundred texts over and over: wrapping is most of a screen's cost
    return tuple(textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False)) or ("",)


def _width_of(text: str) -> int:
    """``len(text)`` when ``_wrap`` takes it as it is when it fits (printable, single spaces, no
    space at either end; an empty text is one empty line too), else a width no display has."""
    if not text or (text.isprintable() and text.strip() == text and "  " not in text):
        return len(text)
    return 1 << 30


_WIDTHS: dict[str, int] = {}
"""``_width_of`` by text: a screen's texts come back event after event."""


def _one_page(state: ScreenState, size: DisplaySize) -> tuple[str, ...] | None:
    """The usual screen's lines under the status line: not held, the prompt (or a notice's title)
    wrapped, then details (or the notice's lines) of one line each, all on one page: what
    :func:`_layout` makes, made without it (the details change at most events, and each new
    combination would be laid out and kept); None for any other screen."""
    _, _, prompt, items, hold, notice, _, notes = state
    if hold:
        return None
    if notice is not None:
        prompt, items = f"{notice.title} (confirm)", notice.lines
    elif notes:
        items = notes + items
    width, height = size.columns, size.lines
    wrapped = _WRAPPED.get(prompt)
    prompted = wrapped[1] if wrapped is not None and wrapped[0] == width else _wrapped(prompt, width)
    room = height - 1 - len(prompted)  # what a long prompt leaves of the page goes on below
    if len(items) > room:
        return None
    widths = _WIDTHS
    for text in items:
        n = widths.get(text)
        if n is None:
            if len(widths) >= 8192:
                widths.clear()
            n = widths[text] = _width_of(text)
        if n > width:
            return None
    return (*prompted, *items, *("",) * (room - len(items)))


def _wrapped(text: str, width: int) -> tuple[str, ...]:
    """``_wrap(text, width)``, kept for the prompts: a step's prompt is asked whether it fits, then
    laid out, then shown again at each event of the step."""
    wrapped = _WRAPPED.get(text)
    if wrapped is None or wrapped[0] != width:
        if len(_WRAPPED) >= 8192:
            _WRAPPED.clear()
        wrapped = _WRAPPED[text] = (width, _wrap(text, width))
    return wrapped[1]


_WRAPPED: dict[str, tuple[int, tuple[str, ...]]] = {}
"""A prompt's lines (``_wrap``) and the width they were wrapped to, by prompt."""


def _parts(state: ScreenState, size: DisplaySize) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """The fixed lines under the status line (the prompt) and the pages of detail lines (a
    detail is not split over two pages unless it is longer than a page)."""
    lines = _one_page(state, size)
    if lines is not None:
        prompt = state.prompt if state.notice is None else f"{state.notice.title} (confirm)"
        fixed = min(len(_wrapped(prompt, size.columns)), max(1, size.lines - 2))
        return lines[:fixed], (lines[fixed:],)
    return _laid_out(state, size)


def _laid_out(state: ScreenState, size: DisplaySize) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    """:func:`_parts` of a screen that is not :func:`_one_page`."""
    if state.notice is not None and state.hold:  # held: what clears the hold first, why, then the notice
        notice = (f"{state.notice.title} (confirm)", *state.notice.lines)
        return _layout(state.prompt, (*state.notes, *notice), state.hold, len(state.notes), size.lines, size.columns)
    if state.notice is not None:
        return _layout(f"{state.notice.title} (confirm)", state.notice.lines, state.hold, 0, size.lines, size.columns)
    items = state.notes + state.details if state.notes else state.details
    return _layout(state.prompt, items, state.hold, len(state.notes), size.lines, size.columns)


@lru_cache(maxsize=4096)
def _layout(
    prompt: str, items: tuple[str, ...], hold: str, notes: int, height: int, width: int
) -> tuple[tuple[str, ...], tuple[tuple[str, ...], ...]]:
    # cached: the same prompt and details come back round after round
    if hold:  # after what answers the dealer's last action, before the rest
        items = (*items[:notes], f"why: {hold}", *items[notes:])
    wrapped = _wrapped(prompt, width)
    fixed = wrapped[: max(1, height - 2)]
    room = height - 1 - len(fixed)
    blocks = [wrapped[len(fixed) :]] if len(wrapped) > len(fixed) else []  # a long prompt goes on below
    blocks += [_wrap(item, width) for item in items]
    pages: list[list[str]] = [[]]
    for lines in blocks:
        if pages[-1] and len(pages[-1]) + len(lines) > room:
            pages.append([])
        for line in lines:
            if len(pages[-1]) == room:
                pages.append([])
            pages[-1].append(line)
    # every line is at most ``width`` (wrapped), and a page at most ``room`` lines
    blanks = ("",) * room
    return fixed, tuple((*page, *blanks[len(page) :]) for page in pages)


def seats_named(numbers: Iterable[int | str]) -> str:
    """Seats as the screen names them: ``seat 2``, ``seats 2, 5`` (``numbers``: an iterable of
    seat numbers, in the order shown)."""
    shown = [str(n) for n in numbers]
    return f"seat {shown[0]}" if len(shown) == 1 else f"seats {', '.join(shown)}"


@lru_cache(maxsize=1024)
def seats_line(label: str, numbers: tuple[int, ...]) -> str:
    """``label: seats 2, 5`` (:func:`seats_named` after a label), kept: a game's details name the
    same few sets of seats (those still to act) event after event."""
    return f"{label}: {seats_named(numbers)}"


def cards_line(label: str, cards: list[Card]) -> str:
    """``label: As Kd 2c`` (``cards`` in their text form), kept for each label until the cards
    change: a game's details show the same cards event after event."""
    known = _CARDS_SHOWN.get(label)
    if known is None or known[0] != cards:  # cards are one instance each: compared by identity first
        known = _CARDS_SHOWN[label] = (list(cards), f"{label}: {format_cards(cards)}")
    return known[1]


_CARDS_SHOWN: dict[str, tuple[list[Card], str]] = {}
"""The cards each label last showed, and their line (a pair: a table's thread reads it whole)."""


def fits(text: str, lines: int, columns: int) -> bool:
    """Whether ``text`` wraps into at most ``lines`` lines of ``columns``."""
    if len(text) >= lines * (columns + 1) and _width_of(text) == len(text):
        # k lines of at most ``columns`` hold at most k * (columns + 1) - 1 characters of such a
        # text (one space goes at each break): too long for ``lines`` lines, told without
        # wrapping it (a settlement step's prompt is asked once a round, and most do not fit)
        return False
    return len(_wrapped(text, columns)) <= lines


def page_count(state: ScreenState, size: DisplaySize = DEFAULT_SIZE) -> int:
    """How many pages the details take (at least one)."""
    return len(_parts(state, size)[1])


def render(state: ScreenState, size: DisplaySize = DEFAULT_SIZE) -> tuple[str, ...]:
    """The screen's lines (exactly ``size.lines``, none wider than ``size.columns``)."""
    columns = size.columns
    lines = _one_page(state, size)
    if lines is not None:  # one page, not held
        status = _STATUS.get((state.round_no, state.step, False, columns, 0, 1))
        return (status or _status(state.round_no, state.step, False, columns, 0, 1), *lines)
    fixed, pages = _laid_out(state, size)
    page = min(max(state.page, 0), len(pages) - 1)
    return (_status(state.round_no, state.step, state.hold != "", columns, page, len(pages)), *fixed, *pages[page])


def _status(round_no: int, step: str, held: bool, columns: int, page: int, pages: int) -> str:
    """The status line: the round, held or not, the step, and the page shown when there are more
    than one (kept: a round shows each of its steps many times)."""
    key = (round_no, step, held, columns, page, pages)
    line = _STATUS.get(key)
    if line is None:
        if len(_STATUS) >= 1024:  # the rounds before go by: only the recent ones come back
            _STATUS.clear()
        line = f"R{round_no} {'HOLD ' if held else ''}{step.replace('_', ' ')}"
        if pages > 1:
            marker = f" {page + 1}/{pages}"
            line = line[: columns - len(marker)].ljust(columns - len(marker)) + marker
        else:
            line = line[:columns].rstrip()
        _STATUS[key] = line
    return line


_STATUS: dict[tuple[int, str, bool, int, int, int], str] = {}
"""``_status`` by its arguments."""

"""The dealer's screen as a pure function: status, prompt, details; widths; paging; notices."""

from __future__ import annotations

import textwrap

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from screen_reference import reference_screen

from controller.table.screen import DisplaySize, Notice, ScreenState, fits, page_count, render

SMALL = DisplaySize(4, 20)


def test_status_prompt_details_in_that_order_padded_to_the_display() -> None:
    lines = render(ScreenState(7, "third_street", "reveal", ("waiting: seats 2",)))
    assert lines == ("R7 third street", "reveal", "waiting: seats 2", "")


def test_every_line_fits_the_width_and_nothing_is_lost() -> None:
    long = "seat 6: straight_flush (9s 8s 7s 6s 5s): pay ante 100.00, third 300.00, fourth 300.00"
    state = ScreenState(12, "settlement", long, ("dealer: community cards 9s 8s 7s",))
    text = []
    for page in range(page_count(state, SMALL)):
        lines = render(ScreenState(**{**_fields(state), "page": page}), SMALL)
        assert len(lines) == 4 and all(len(line) <= 20 for line in lines)
        text += lines[1:]
    joined = " ".join(line for line in text if line)
    assert long.split()[0] in joined and "300.00" in joined and "9s 8s 7s" in joined


def test_a_hold_shows_in_the_status_line_and_why_in_the_details() -> None:
    lines = render(ScreenState(3, "dealing", "wait for the device; or key: void", hold="link down: shoe"))
    assert lines[0] == "R3 HOLD dealing" and "why: link down: shoe" in lines


def test_the_answer_to_the_last_action_comes_before_the_hold_reason() -> None:
    state = ScreenState(3, "dealing", "key", hold="duplicate card", notes=("community card 2 read again",))
    assert render(state)[2:] == ("community card 2 read again", "why: duplicate card")


def test_long_details_are_paged_with_the_page_in_the_status_line() -> None:
    details = tuple(f"void: seat {n}: return ante 5.00" for n in range(1, 8))
    state = ScreenState(5, "betting", "place bets", details)
    pages = page_count(state, DisplaySize(4, 40))
    assert pages == 4
    first, last = render(state, DisplaySize(4, 40)), render(ScreenState(**{**_fields(state), "page": 3}))
    assert first[0].endswith("1/4") and last[0].endswith("4/4") and last[2] == "void: seat 7: return ante 5.00"


def test_a_notice_takes_the_prompt_until_confirmed() -> None:
    notice = Notice("round 4 void: return every wager", ("void: seat 1: return ante 5.00",))
    lines = render(ScreenState(5, "betting", "place bets", ("x",), notice=notice))
    assert lines[1] == "round 4 void: return every wager" and lines[2] == "(confirm)"
    assert "place bets" not in " ".join(lines)


def test_a_display_too_small_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 3 lines"):
        DisplaySize(2, 40)


def _fields(state: ScreenState) -> dict[str, object]:
    return state._asdict()


_WORDS = st.lists(st.text(alphabet="abcXYZ019-:,.", min_size=0, max_size=14), max_size=16)
_GAPS = st.sampled_from([" ", " ", " ", "  ", "\t", "\n", "\u00a0"])


@settings(max_examples=400)
@given(st.tuples(_WORDS, _GAPS).map(lambda wg: wg[1].join(wg[0])) | _WORDS.map(" ".join), st.integers(16, 45))
def test_wrapping_is_what_textwrap_gives(text: str, width: int) -> None:
    # the fast path for ordinary text must not change a screen
    from controller.table.screen import _wrap

    expected = tuple(textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False)) or ("",)
    assert _wrap(text, width) == expected


_TEXTS = st.tuples(_WORDS, _GAPS).map(lambda wg: wg[1].join(wg[0])) | _WORDS.map(" ".join)


_LONG_WORDS = st.lists(st.text(alphabet="ab", min_size=1, max_size=50), max_size=8)
"""Words up to longer than a display is wide (broken across lines)."""


@settings(max_examples=600)
@given(_TEXTS | _LONG_WORDS.map(" ".join), st.integers(0, 6), st.integers(16, 45))
@example("a" * 40 + " " + "b" * 40, 2, 40)  # as long as two full lines can hold: fits
@example("a" * 40 + " " + "b" * 41, 2, 40)
@example("a" * 81, 2, 40)  # a word broken over three lines
@example("a" * 80, 2, 40)
@example("", 0, 16)
def test_whether_a_text_fits_is_whether_its_wrapped_lines_do(text: str, lines: int, columns: int) -> None:
    # a confirm step's prompt too long for the lines left is told without wrapping it: the same
    # answer as the count of the lines textwrap makes of it
    wrapped = textwrap.wrap(text, columns, break_long_words=True, break_on_hyphens=False) or [""]
    assert fits(text, lines, columns) == (len(wrapped) <= lines)


_SCREEN_TEXTS = (
    _TEXTS,
    st.lists(_TEXTS, max_size=7),
    st.lists(_TEXTS, max_size=2),
    st.sampled_from(["", "", "link down: shoe"]),
)
"""A screen's texts: its prompt, details, notes and hold reason."""
_SIZES = (st.integers(3, 8), st.integers(16, 45))
"""A display's lines and columns."""


@settings(max_examples=400)
@given(*_SCREEN_TEXTS, *_SIZES)
def test_the_usual_screen_is_laid_out_as_the_general_layout_does(
    prompt: str, details: list[str], notes: list[str], hold: str, lines: int, columns: int
) -> None:
    # a one-line prompt with one-line details on one page is made without the layout cache:
    # the same lines as the general layout, whatever the texts
    from controller.table.screen import _layout, _parts

    state = ScreenState(1, "betting", prompt, tuple(details), hold, None, 0, tuple(notes))
    size = DisplaySize(lines, columns)
    expected = _layout(prompt, (*notes, *details), hold, len(notes), lines, columns)
    assert _parts(state, size) == expected


_NOTICES = st.none() | st.builds(Notice, _TEXTS, st.lists(_TEXTS, max_size=4).map(tuple))


@settings(max_examples=600)
@given(*_SCREEN_TEXTS, _NOTICES, st.integers(0, 3), *_SIZES)
def test_every_screen_is_the_screen_made_from_scratch(
    prompt: str,
    details: list[str],
    notes: list[str],
    hold: str,
    notice: Notice | None,
    page: int,
    lines: int,
    columns: int,
) -> None:
    # the kept prompts, status lines and layouts, and the one-page screen made without the
    # layout: the lines a screen made from scratch has, whatever the texts (twice: kept the second time)
    state = ScreenState(14, "third_street", prompt, tuple(details), hold, notice, page, tuple(notes))
    size = DisplaySize(lines, columns)
    expected, pages = reference_screen(state, size)
    assert render(state, size) == expected
    assert render(state, size) == expected
    assert page_count(state, size) == pages


def test_a_long_prompt_or_notice_title_goes_on_below_on_the_same_page() -> None:
    long = "count the stub: 4 cards expected, then confirm"
    assert render(ScreenState(2, "count_stub", long), DisplaySize(4, 30)) == (
        "R2 count stub",
        "count the stub: 4 cards",
        "expected, then confirm",
        "",
    )
    title = "seat 2: high Qh Qd 5c 4d 2s / low Ad Jc: pay pai gow 10.00; discard the cards"
    lines = render(ScreenState(2, "setting", "confirm", notice=Notice(title)), DisplaySize(4, 30))
    assert lines[1:] == (
        "seat 2: high Qh Qd 5c 4d 2s /",
        "low Ad Jc: pay pai gow 10.00;",
        "discard the cards (confirm)",
    )

"""The dealer's screen made from scratch, for the tests that check the screen sent: written from
the rules in :mod:`controller.table.screen`'s docstring and ``render``'s contract with textwrap,
sharing nothing with the code it checks (no cache, no fast path)."""

from __future__ import annotations

import textwrap

from controller.table.screen import DisplaySize, ScreenState


def reference_screen(state: ScreenState, size: DisplaySize) -> tuple[tuple[str, ...], int]:
    """The screen made from scratch, from the rules in :mod:`controller.table.screen`'s docstring and
    ``render``'s contract (textwrap, no cache, no fast path): the status line; the prompt (a notice's
    title in its place, after it when held) wrapped, its first lines fixed and the rest on the page
    below; the notes, why the table holds, then the details (or the notice's lines); a detail kept
    whole on a page when it fits one. The lines and the number of pages."""
    height, width = size.lines, size.columns

    def wrap(text: str) -> list[str]:
        return textwrap.wrap(text, width, break_long_words=True, break_on_hyphens=False) or [""]

    notes = list(state.notes)
    if state.notice is not None:
        title = [f"{state.notice.title} (confirm)", *state.notice.lines]
        prompt, items = (state.prompt, [*notes, *title]) if state.hold else (title[0], title[1:])
        notes = notes if state.hold else []
    else:
        prompt, items = state.prompt, [*notes, *state.details]
    if state.hold:
        items.insert(len(notes), f"why: {state.hold}")
    prompted = wrap(prompt)
    keep = max(1, height - 2)
    fixed, below = prompted[:keep], prompted[keep:]
    room = height - 1 - len(fixed)
    pages: list[list[str]] = [[]]
    for block in ([below] if below else []) + [wrap(item) for item in items]:
        if pages[-1] and len(pages[-1]) + len(block) > room:
            pages.append([])
        for line in block:
            if len(pages[-1]) == room:
                pages.append([])
            pages[-1].append(line)
    status = f"R{state.round_no} {'HOLD ' if state.hold else ''}{state.step.replace('_', ' ')}"
    page = min(max(state.page, 0), len(pages) - 1)
    if len(pages) > 1:
        marker = f" {page + 1}/{len(pages)}"
        status = status[: width - len(marker)].ljust(width - len(marker)) + marker
    else:
        status = status[:width].rstrip()
    return (status, *fixed, *pages[page], *[""] * (room - len(pages[page]))), len(pages)

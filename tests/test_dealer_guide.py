"""docs/dealer-guide.md is what the table machines show today (as the diagrams are)."""

from __future__ import annotations

from pathlib import Path

from controller.docgen.guide import dealer_guide

GUIDE = Path(__file__).resolve().parent.parent / "docs" / "dealer-guide.md"


def test_the_dealer_guide_is_current() -> None:
    assert GUIDE.read_text() == dealer_guide(), f"{GUIDE} is stale: run python -m controller.docgen.guide > {GUIDE}"


def test_every_screen_in_the_guide_fits_its_display() -> None:
    inside, rows = False, []
    for line in GUIDE.read_text().splitlines():
        if line.startswith("+-"):
            inside = not inside
        elif inside:
            rows.append(line)
    assert rows and all(len(row) == 42 and row[0] == row[-1] == "|" for row in rows)  # 40 columns

"""Money and payout odds: integer cents everywhere, never floats.

``Odds`` is a paytable line's payout: ``"N to M"`` pays N for every M staked (``"40 to 1"``),
and the stake is returned besides. A payout that is not a whole number of cents is rounded
down to the cent (the house never pays a fraction it cannot hand over); with odds "to 1",
the only kind in our shipped tables, nothing is ever rounded.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Odds", "OddsError", "PUSH", "format_cents", "parse_odds", "MAX_CENTS", "MAX_ODDS"]

MAX_CENTS = 1_000_000_000
"""The largest amount a config may give (a table limit, a payout cap, a fixed pay): $10,000,000.
With odds of at most :data:`MAX_ODDS` to 1 every payout stays below 2**53, well inside the
64-bit integers SQLite and the floor store keep."""
MAX_ODDS = 1_000_000
"""The largest number either side of ``N to M`` odds may have."""


class OddsError(ValueError):
    """A payout text is not ``"N to M"`` with whole N >= 0 and M >= 1, nor ``push``."""


@dataclass(frozen=True, slots=True)
class Odds:
    """Payout odds ``numerator`` to ``denominator``; ``push`` means neither paid nor collected."""

    numerator: int
    denominator: int = 1
    push: bool = False

    def payout(self, stake: int) -> int:
        """What a winning ``stake`` (cents) is paid, in cents, besides the stake returned."""
        if self.push:
            return 0
        return stake * self.numerator // self.denominator

    def __str__(self) -> str:
        return "push" if self.push else f"{self.numerator} to {self.denominator}"

    @property
    def value(self) -> float:
        """The odds as a number, for ordering paytable lines only (never for money)."""
        return 0.0 if self.push else self.numerator / self.denominator


PUSH = Odds(0, 1, push=True)
_ODDS = re.compile(r"^\s*(\d+)\s+to\s+(\d+)\s*$", re.IGNORECASE)


def parse_odds(text: object) -> Odds:
    """Read ``"N to M"`` or ``push``; raises :class:`OddsError` saying what is wrong."""
    if isinstance(text, str) and text.strip().lower() == "push":
        return PUSH
    if isinstance(text, str):
        if re.match(r"^\s*-", text) or re.search(r"\bto\s+-", text):
            raise OddsError(f"odds may not be negative: {text!r}")
        m = _ODDS.match(text)
        if m:
            if max(len(m.group(1).lstrip("0")), len(m.group(2).lstrip("0"))) > len(str(MAX_ODDS)):
                raise OddsError(f"odds '{text.strip()[:40]}' are out of range: each number is at most {MAX_ODDS:,}")
            n, d = int(m.group(1)), int(m.group(2))
            if n > MAX_ODDS or d > MAX_ODDS:
                raise OddsError(f"odds '{text.strip()}' are out of range: each number is at most {MAX_ODDS:,}")
            if d == 0:
                raise OddsError(f"odds '{text}' divide by zero")
            return Odds(n, d)
        if re.search(r"\bfor\b", text):
            raise OddsError(f"odds must be written 'N to M', not 'for' (N.J.A.C. 13:69F-29.11(a)): {text!r}")
    raise OddsError(f"odds must be 'N to M' (e.g. '40 to 1') or 'push', got {text!r}")


def format_cents(cents: int) -> str:
    """``12345`` -> ``"123.45"``; negative amounts keep their sign."""
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}{whole:,}.{part:02d}"

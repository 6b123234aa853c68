"""The dealer's procedure: the steps that settle a round in the regulated order, each the actions
on its wagers (collect, pay, push, return) and what becomes of the cards.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from controller.hands import HandValue
from controller.vocab import format_cards, format_cents
from controller.wagers._quick import quick_init
from controller.wagers._results import Result, WagerResult

__all__ = ["Action", "Step", "DISCARD", "DISCARD_UNEXPOSED", "actions_for", "hand_summary"]


@quick_init
@dataclass(frozen=True, slots=True)
class Action:
    """One thing the dealer does with one wager: collect, pay, push or return it."""

    verb: str
    spot: str
    cents: int

    def to_json(self) -> dict[str, object]:
        return {"verb": self.verb, "spot": self.spot, "cents": self.cents}


DISCARD = "discard the cards"
"""The cards of a settled or folded hand: collected in order to the discard rack (24.10(f),
35.10(i), 11.15(d)2), so each hand can be rebuilt in a dispute (24.10(g), 35.10(j))."""
DISCARD_UNEXPOSED = "discard the cards unexposed"
"""A folded Boston 5 hand: collected without exposing its cards (24.10(b))."""


@quick_init
@dataclass(frozen=True, slots=True)
class Step:
    """One line of the dealer's procedure, in the regulated order (``text`` is for the display)."""

    phase: str
    seat: int | None
    actions: tuple[Action, ...]
    note: str = ""
    after: str = ""
    """What the dealer does once the wagers are settled (the cards: ``discard the cards``, to the discard rack)."""
    _text: str = field(default="", init=False, repr=False, compare=False)

    @property
    def text(self) -> str:
        if not self._text:  # made once: the table reads a step's text several times a round
            object.__setattr__(self, "_text", self._make_text())
        return self._text

    def _make_text(self) -> str:
        who = f"seat {self.seat}" if self.seat is not None else "dealer"
        runs: list[tuple[str, list[Action]]] = []
        for a in self.actions:  # consecutive actions with the same verb share one clause
            if runs and runs[-1][0] == a.verb:
                runs[-1][1].append(a)
            else:
                runs.append((a.verb, [a]))
        parts = [
            verb + " " + ", ".join(f"{a.spot.replace('_', ' ')} {format_cents(a.cents)}" for a in items)
            for verb, items in runs
        ]
        body = "; ".join(parts)
        if self.note:
            body = f"{self.note}: {body}" if body else self.note
        if self.after:
            body = f"{body}; {self.after}" if body else self.after
        return f"{who}: {body}"

    def to_json(self) -> dict[str, object]:
        return {
            "phase": self.phase,
            "seat": self.seat,
            "text": self.text,
            "actions": [a.to_json() for a in self.actions],
        }


def actions_for(wagers: Iterable[WagerResult]) -> tuple[Action, ...]:
    """The dealer's actions that settle ``wagers``."""
    out = []
    for w in wagers:
        if w.result is Result.LOSE:
            out.append(Action("collect", w.spot, w.stake))
        elif w.result is Result.WIN:
            out.append(Action("pay", w.spot, w.net + w.commission))
            if w.commission:
                out.append(Action("collect", "commission", w.commission))
        elif w.result is Result.PUSH:
            out.append(Action("push", w.spot, w.stake))
        else:
            out.append(Action("return", w.spot, w.stake))
    return tuple(out)


def hand_summary(value: HandValue) -> dict[str, str]:
    """A ranked hand as recall and settlement show it."""
    return {"category": value.category._value_, "best": format_cards(value.best)}

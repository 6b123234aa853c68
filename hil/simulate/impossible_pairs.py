"""The (step, fault kind) pairs of a swarm that cannot occur, each with why (issue 41 item 5).

A swarm fault counts at the step where it *acted* (docs/simulate.md, "When a fault acted"). Every
game's pairs are its places (each step of :data:`.swarm.STEPS`, held or not) times the kinds a CI
swarm draws (the CI kinds but ``never_connected``, a fault of the start, and the swarm's ``void``).
Some cannot occur at all: the fault, by what it is, does nothing there that a real table could
meet. They are listed here, each with a one-line why; every other pair can occur, and either the CI
set reaches it (``tests/ci_swarm_pairs.json``) or it is a gap (``tests/ci_swarm_gaps.json``),
both recorded by ``python -m hil.simulate.ci_pairs --write``. A pair listed here that a run
reaches is an error of this list (the recording refuses to write).
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.game.definition import GameDefinition
from controller.game.registry import ByGame
from hil.simulate.faults import CI_KINDS, SWARM_KINDS
from hil.simulate.swarm import STEPS

__all__ = ["Rule", "RULES", "KINDS", "IMPOSSIBLE", "every_pair"]

KINDS: tuple[str, ...] = (*(k for k in CI_KINDS if k != "never_connected"), *SWARM_KINDS)
"""The kinds a CI swarm draws at a step (``never_connected`` is a fault of the start, at no step)."""

_CARD_FIRST = ("mississippi_stud", "boston5", "three_card_poker")
"""Games whose deal starts with its first card as "no more bets" shows (pai gow's dice total comes first)."""


@dataclass(frozen=True, slots=True)
class Rule:
    """Pairs that cannot occur: ``kind`` at each of ``places`` (``step`` or ``step (held)``) in
    each of ``games`` (empty: every game that has the place), and why."""

    kind: str
    places: tuple[str, ...]
    why: str
    games: tuple[str, ...] = ()


RULES: tuple[Rule, ...] = (
    Rule(
        "early_card",
        ("dealing", "first_deal", "final_deal"),
        "a card out of the shoe at a deal step not held is the deal's next card, one the table expects: none is early",
    ),
    Rule(
        "early_card",
        ("no_more_bets",),
        'the card that comes as "no more bets" shows is the deal\'s first (the deal starts with it), an ordinary card',
        _CARD_FIRST,
    ),
    Rule("late_bet", ("betting",), "chips placed while betting is open are a bet, not a late one"),
    Rule(
        "void",
        ("count_stub", "count_stub (held)"),
        "the round is over and settled when its stub is counted, held or not: its void is refused (why_not_void)",
    ),
)
"""Why each impossible pair cannot occur, kind by kind."""


def _impossible(definition: GameDefinition) -> dict[str, dict[str, str]]:
    game = definition.name
    places = {*STEPS[game], *(f"{s} (held)" for s in STEPS[game])}
    out: dict[str, dict[str, str]] = {}
    for rule in RULES:
        if rule.games and game not in rule.games:
            continue
        for where in rule.places:
            if where in places:
                out.setdefault(where, {})[rule.kind] = rule.why
    return out


IMPOSSIBLE: ByGame[dict[str, dict[str, str]]] = ByGame(_impossible)
"""Per game, place and kind: why the pair cannot occur (:data:`RULES`)."""


def every_pair(game: str) -> list[tuple[str, str]]:
    """Every (place, kind) pair of ``game``: each step, then each step held, times :data:`KINDS`."""
    steps = STEPS[game]
    return [(where, kind) for where in (*steps, *(f"{s} (held)" for s in steps)) for kind in KINDS]

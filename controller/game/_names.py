"""Plain names for everything a person reads (the dealer's screen, ``tablectl settle`` and
``recall``, the web views): games, hands, house-way rules and wagers, and the wagers in the order
the game's layout has them (:mod:`controller.wagers._catalog`). Codes (``one_pair``,
``foxwoods.straight_or_flush``) stay in the records and JSON; what is shown is ``one pair``,
``Foxwoods: straight or flush``."""

from __future__ import annotations

from collections.abc import Iterable

from controller.game.registry import GAMES, definition

__all__ = ["game_name", "hand_name", "wager_name", "wager_order"]

HOUSE_WAYS = {"foxwoods": "Foxwoods", "ballys_ac": "Bally's AC"}
WAGERS = {"pai_gow": "pai gow", "envy_marker": "envy marker", "pair_plus": "pair plus", "ante_bonus": "ante bonus"}


def _words(code: str) -> str:
    return code.replace("_", " ").strip()


def game_name(code: object) -> str:
    """``boston5`` gives ``Boston 5`` (the game's definition's title); an unknown code its words."""
    text = str(code) if code is not None else "?"
    return definition(text).title if text in GAMES else _words(text)


def hand_name(code: object) -> str:
    """A hand category or a house-way rule in words: ``one_pair`` gives ``one pair``,
    ``foxwoods.no_pair`` gives ``Foxwoods: no pair``."""
    text = str(code)
    found = _HAND_NAMES.get(text)
    if found is None:
        way, sep, rule = text.partition(".")
        found = f"{HOUSE_WAYS.get(way, _words(way))}: {_words(rule)}" if sep else _words(text)
        if len(_HAND_NAMES) < 4096:  # a few dozen categories and rules: bounded all the same
            _HAND_NAMES[text] = found
    return found


_HAND_NAMES: dict[str, str] = {}
""":func:`hand_name` by code, each worked out once (a settlement names every hand it settles)."""


def wager_name(code: object) -> str:
    """A wager spot in words (``pai_gow`` gives ``pai gow``)."""
    text = str(code)
    return WAGERS.get(text, _words(text))


def wager_order(game: object, spots: Iterable[str]) -> list[str]:
    """``spots`` in the game's layout order (its catalog's wager spots), others after, by name."""
    order = list(definition(str(game)).catalog.wager_spots) if str(game) in GAMES else []
    known = [s for s in order if s in spots]
    return known + sorted(s for s in spots if s not in order)

"""The table as the web page sees it: a read-only view model built from revealed information only.

:func:`table_view` reads a table machine (never calls it) and returns plain JSON-ready data:
seats with their wagers by spot and lamps, the cards the table has revealed (a face-down card is
``None``: only that a card is there), the dealer's or community cards as revealed, the dealer's
panel screen, the step, any hold with what clears it, the last settlement (nets only) and the
device links. It runs on the controller thread (see :mod:`controller.web.feed`), so what it reads is
consistent.

When a card is face up (:func:`revealed`), from the regulations (N.J.A.C. 13:69F):

- Mississippi Stud: the players' two cards are face down (35.9(d)); the community cards are
  turned one by one: the first on 4th street (35.10(d)), the second on 5th (35.10(f)), the third
  at settlement (35.10(h)), when the hands still in play are turned for settlement (35.10(i)).
  A folded hand is collected unexposed (35.10(a)).
- Boston 5: every card is dealt face down (24.8(c), 24.10(d)); a bonus hand the player chose to
  expose is face up from then (24.10(a)); at settlement the dealer reveals all five of his cards
  at once (24.10(e)), only when a player is still in play, and turns each hand in play (24.10(f)).
  A folded hand is collected unexposed (24.10(b)).
- Pai gow: every hand is dealt face down (31.8); once the hands are set the dealer exposes and
  sets his own hand, then turns each player's hand counterclockwise from his right (11.9, 11.15(d)):
  the table shows a seat's set while the dealer records it, so a seat is face up from its turn
  in "setting". Hands at positions without a wager are collected unexposed (31.8).

Any text the page shows (the panel screen, a hold reason) has every card that is not face up
masked, so a card never leaks through a line of text either (:func:`mask_cards`).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping
from typing import Any

from controller.games.pai_gow_deal import DEALER

__all__ = [
    "SPOTS",
    "revealed",
    "mask_cards",
    "hold_clears",
    "step_label",
    "table_view",
    "HIDDEN",
]

HIDDEN = "\u25a0\u25a0"
"""What a masked card looks like in a line of text."""

SPOTS: dict[str, tuple[str, ...]] = {
    "mississippi_stud": ("ante", "third", "fourth", "fifth", "bonus"),
    "boston5": ("ante", "first", "second", "bonus"),
    "pai_gow": ("pai_gow", "bonus", "insurance", "envy_marker"),
}
"""The bet spots of each seat, in the order the layout shows them."""

_CARD = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][cdhs]|JK)(?![A-Za-z0-9])")

_LABELS = {
    "closed": "Table closed",
    "betting": "Place your bets",
    "no_more_bets": "No more bets",
    "dealing": "Dealing",
    "first_deal": "Dealing three cards",
    "final_deal": "Dealing the final two cards",
    "third_street": "3rd street: bet or fold",
    "fourth_street": "4th street: bet or fold",
    "fifth_street": "5th street: bet or fold",
    "bonus": "Bonus hands: expose or not",
    "bonus_settlement": "Settling the bonus wagers",
    "second_wager": "Second wager or fold",
    "check_deal": "Counting the cards left",
    "setting": "Setting the hands",
    "settlement": "Settlement",
    "round_complete": "Round complete",
    "count_stub": "Counting the stub",
    "hold": "HOLD",
    "void": "Round void",
}

_SETTLED = {"settlement", "round_complete", "count_stub"}


def step_label(step: str) -> str:
    """The step's name in words, for the page's large type."""
    return _LABELS.get(step, step.replace("_", " ").capitalize())


def hold_clears(reason: str) -> str:
    """What clears a hold with ``reason`` (the table's ``hold_reason``), in words for the pit."""
    if reason.startswith("link down:"):
        return f"by itself when the {reason.split(':', 1)[1].strip()} link is back; or supervisor key on: void"
    if reason.startswith(("unreadable card", "duplicate card")):
        return "supervisor key on: read the card again, or enter it (next / previous, confirm); or void"
    if reason.startswith("misdeal"):
        return "supervisor key on: void"
    if reason.startswith("journal:"):
        return "the journal must take records again; then supervisor key on: clear fault"
    if reason.startswith("stub count"):
        return "recount the stub; supervisor key on: clear fault, or void"
    return "supervisor key on: clear fault, or void"


def _effective_step(table: Any) -> str:
    """The step whose reveals apply: where a hold was entered from, else the current one."""
    step = str(table.phase.value)
    if step == "hold" and table.held_from is not None:
        return str(table.held_from.value)
    return step


def revealed(table: Any, game: str) -> dict[str, Any]:
    """The face-up cards now: ``{"seats": {n: [card or None, ...]}, "dealer": [...]}`` with
    ``None`` for a face-down card (so the page knows a card is there, not which)."""
    step = _effective_step(table)
    out: dict[str, Any] = {"seats": {}, "dealer": [], "dealer_label": "dealer"}
    if step in ("closed", "betting", "no_more_bets", "void"):
        return out

    def cards(hand: Iterable[Any], shown: int) -> list[str | None]:
        hand = list(hand)
        return [str(c) if i < shown else None for i, c in enumerate(hand)]

    settled = step in _SETTLED
    if game == "mississippi_stud":
        community = list(getattr(table, "community", []))
        shown = {"fourth_street": 1, "fifth_street": 2}.get(step, 3 if settled else 0)
        out["dealer"], out["dealer_label"] = cards(community, shown), "community"
        for n, seat in table.seats.items():
            face_up = settled and seat.folded_at is None
            out["seats"][n] = [] if seat.folded_at else cards(seat.cards, len(seat.cards) if face_up else 0)
    elif game == "boston5":
        in_play = [s for s in table.seats.values() if s.folded_at is None]
        dealer = list(getattr(table, "dealer", []))
        out["dealer"] = cards(dealer, len(dealer) if settled and in_play else 0)
        for n, seat in table.seats.items():
            if seat.folded_at is not None:
                out["seats"][n] = []
                continue
            shown = len(seat.cards) if settled else (3 if seat.exposed else 0)
            out["seats"][n] = cards(seat.cards, shown)
    elif game == "pai_gow":
        hands = getattr(table, "hands", {})
        setting = step == "setting"
        dealer = list(hands.get(DEALER, []))
        out["dealer"] = cards(dealer, len(dealer) if setting or settled else 0)
        turned = set(getattr(table, "sets", {}))
        order = list(getattr(table, "setting", []))
        if setting and len(turned) < len(order):
            turned.add(order[len(turned)])
        for n in table.seats:
            hand = list(hands.get(n, []))
            out["seats"][n] = cards(hand, len(hand) if settled or n in turned else 0)
    return out


def mask_cards(text: str, face_up: set[str]) -> str:
    """``text`` with every card not in ``face_up`` replaced by :data:`HIDDEN`."""
    return _CARD.sub(lambda m: m.group(0) if m.group(0) in face_up else HIDDEN, text)


def _settlement(result: Any) -> dict[str, Any] | None:
    """The last finished round: each seat's net and wagers' results (never its cards)."""
    if result is None:
        return None
    s = result.settlement
    if s is None:
        return {"round": result.number, "void": True, "seats": {}, "house_net": 0}
    return {
        "round": result.number,
        "void": False,
        "house_net": s.house_net,
        "seats": {
            str(seat.seat): {
                "net": seat.net,
                "wagers": {w.spot: {"result": w.result.value, "net": w.net, "stake": w.stake} for w in seat.wagers},
            }
            for seat in s.seats
        },
    }


def table_view(
    table: Any,
    config: Any,
    commands: Any,
    links: Mapping[str, str],
    faults: Iterable[Mapping[str, Any]],
    screen: list[str] | None = None,
) -> dict[str, Any]:
    """The whole page's data for ``table`` (a table machine), read only.

    ``commands`` is what the table last sent its devices (:class:`controller.web.feed.CommandTee`: lamps,
    display, panel lamps, lock); ``links`` each device's link state; ``faults`` the recent device
    faults; ``screen`` the dealer's screen lines (default: the panel display as commanded)."""
    game = config.game
    shown = revealed(table, game)
    face_up = {c for hand in shown["seats"].values() for c in hand if c} | {c for c in shown["dealer"] if c}
    step = str(table.phase.value)
    seats = []
    for n in range(1, config.seats + 1):
        seat = table.seats.get(n)
        lamps = {spot: commands.lamps.get((n, spot), "off") for spot in SPOTS.get(game, ())}
        seats.append(
            {
                "number": n,
                "wagers": dict(seat.wagers) if seat else {},
                "lamps": lamps,
                "cards": shown["seats"].get(n, []),
                "folded": bool(seat and seat.folded_at is not None),
                "in_round": seat is not None and step not in ("betting", "closed"),
                "exposed": bool(seat and getattr(seat, "exposed", False)),
                "envy_marker": n in getattr(table, "markers", ()),
            }
        )
    if screen is not None:
        lines = screen
    elif getattr(commands, "screen_lines", None) is not None:  # the dealer's whole screen (controller.table.screen)
        lines = list(commands.screen_lines)
    else:
        lines = [commands.lines.get(k, "") for k in sorted(commands.lines) or [1]]
    hold = None
    if step == "hold":
        hold = {
            "reason": mask_cards(table.hold_reason, face_up),
            "clears": hold_clears(table.hold_reason),
            "from": str(table.held_from.value) if table.held_from is not None else None,
        }
    rounds = list(table.rounds)
    return {
        "table": {"name": config.name, "game": game, "seats": config.seats, "spots": list(SPOTS.get(game, ()))},
        "round": table.round_no,
        "step": step,
        "step_label": (
            f"Held: {step_label(str(table.held_from.value)).lower()}"
            if step == "hold" and table.held_from is not None
            else step_label(step)
        ),
        "hold": hold,
        "supervisor": bool(table.supervisor),
        "locked": bool(commands.locked),
        "seats": seats,
        "dealer": {"label": shown["dealer_label"], "cards": shown["dealer"]},
        "screen": [mask_cards(line, face_up) for line in lines],
        "recent": [mask_cards(line, face_up) for line in list(getattr(table, "prompts", []))[-6:]],
        "panel_lamps": dict(commands.panel_lamps),
        "last_settlement": _settlement(rounds[-1] if rounds else None),
        "links": dict(links),
        "faults": [dict(f) for f in faults],
        "at": time.time(),
    }

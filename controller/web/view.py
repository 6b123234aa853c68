"""The table as the web page sees it: a read-only view model made from the table's snapshot.

:func:`table_view` turns a :class:`~controller.table.snapshot.TableSnapshot` (published by the
controller thread after each event; read by the feed's publisher thread, :mod:`controller.web._feed`) into plain JSON-ready data:
seats with their wagers by spot and lamps, the cards the table has revealed (a face-down card is
``None``: only that a card is there), the dealer's or community cards as revealed, the dealer's
panel screen, the step, any hold with what clears it, the live supervisor key, the last
settlement (nets only) and the device links. It never reads the table itself.

When a card is face up is the table's knowledge (:mod:`controller.table.reveal`, from the
regulations in the seeds); the snapshot carries only face-up cards, and every line of text in it
(the panel screen, a hold reason, the recent texts) has every card not face up masked already.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from controller.game import game_name
from controller.game.registry import ByGame
from controller.table.reveal import HIDDEN, mask_cards
from controller.table.snapshot import LastRound, TableSnapshot, hold_clears

if TYPE_CHECKING:
    from controller.configuration import TableConfig

__all__ = ["SPOTS", "mask_cards", "hold_clears", "table_view", "HIDDEN"]

SPOTS: ByGame[tuple[str, ...]] = ByGame(lambda game: game.page_spots if game.at_table else None)
"""The bet spots of each seat, in the order the layout shows them, for each game dealt at a table
(each game's definition's ``page_spots``)."""

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
    "set_hands": "Players setting their hands",
    "setting": "Dealer's hand; turning the players' hands",
    "settlement": "Settlement",
    "round_complete": "Round complete",
    "count_stub": "Counting the stub",
    "hold": "HOLD",
    "void": "Round void",
}


def step_label(step: str) -> str:
    """The step's name in words, for the page's large type."""
    return _LABELS.get(step, step.replace("_", " ").capitalize())


def _settlement(last: LastRound | None) -> dict[str, object] | None:
    """The last finished round: each seat's net and wagers' results (never its cards)."""
    if last is None:
        return None
    if last.void:
        return {"round": last.number, "void": True, "seats": {}, "house_net": 0}
    return {
        "round": last.number,
        "void": False,
        "house_net": last.house_net,
        "seats": {
            str(seat.seat): {
                "net": seat.net,
                "wagers": {w.spot: {"result": w.result, "net": w.net, "stake": w.stake} for w in seat.wagers},
            }
            for seat in last.seats
        },
    }


def _signed_in(s: TableSnapshot) -> dict[str, str | None] | None:
    who = s.signed_in
    if who is None:
        return None
    return {
        "dealer": f"{who.dealer_name} ({who.dealer_id})" if who.dealer_id else None,
        "supervisor": f"{who.supervisor_name} ({who.supervisor_id})" if who.supervisor_id else None,
        "next_dealer": who.next_dealer_id,
    }


def table_view(
    snapshot: TableSnapshot,
    config: TableConfig,
    links: Mapping[str, str],
    faults: Iterable[Mapping[str, object]],
) -> dict[str, object]:
    """The whole page's data for the table in ``snapshot``.

    ``config`` is the table config (name, game, seats); ``links`` each device's link state;
    ``faults`` the recent device faults. Lamps, the spot lock, panel lamps and the screen are
    what the table last told its devices (in the snapshot)."""
    s = snapshot
    game = config.game
    step = s.step
    lamps_of = dict(s.spot_lamps)
    markers = set(s.game_view.markers)
    seats = []
    for n in range(1, config.seats + 1):
        seat = s.seat(n)
        seats.append(
            {
                "number": n,
                "wagers": seat.wager_map() if seat else {},
                "lamps": {spot: lamps_of.get((n, spot), "off") for spot in SPOTS.get(game, ())},
                "cards": list(seat.cards) if seat else [],
                "folded": bool(seat and seat.folded_at is not None),
                "in_round": seat is not None and step not in ("betting", "closed"),
                "exposed": bool(seat and seat.exposed),
                "envy_marker": n in markers,
            }
        )
    hold = None
    if s.hold is not None:
        # one instruction, the panel's: its prompt while held says what clears the hold
        hold = {"reason": s.hold.shown_reason, "clears": s.asked or s.hold.clears, "from": s.hold.held_from}
    held_from = s.held_from
    notice = s.notices[0] if s.notices else None
    return {
        "table": {
            "name": config.name,
            "game": game,
            "game_name": game_name(game),
            "seats": config.seats,
            "spots": list(SPOTS.get(game, ())),
        },
        "round": s.round_no,
        "step": step,
        # what the panel's prompt says: a notice to read and confirm (the wagers to return after a
        # void) takes the step's place there, and here, until it is confirmed
        "step_label": (
            f"Read and confirm: {notice.title}"
            if notice is not None and step != "hold"
            else f"Held: {step_label(held_from).lower()}"
            if step == "hold" and held_from is not None
            else step_label(step)
        ),
        "notice": {"title": notice.title, "lines": list(notice.lines)} if notice is not None else None,
        "hold": hold,
        "supervisor": s.key_on,
        # who is signed in (a table with a roster; None: nobody signs in here): ids and names only
        "signed_in": _signed_in(s),
        "locked": s.locked,
        "seats": seats,
        "dealer": {"label": s.dealer_label, "cards": list(s.dealer)},
        "screen": list(s.screen),
        "recent": list(s.recent[-6:]),
        "panel_lamps": dict(s.panel_lamps),
        "last_settlement": _settlement(s.last_round),
        "links": dict(links),
        "faults": [dict(f) for f in faults],
        "at": time.time(),
    }

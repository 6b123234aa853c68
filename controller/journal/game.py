"""A journal belongs to one table and one game: the game is kept in its signed ``meta`` (``game``),
bound by the first writer, and a writer of another game is refused. A change of game is an
explicit act between rounds (``tablectl journal change-game``): a ``GameChanged`` record with its
reason, the new game in ``meta`` and the new game's first snapshot, in one transaction.

A journal written before the game was bound names its game in its round records: the last one
decides (it is bound then, on its first open by a writer).
"""

from __future__ import annotations

import json
from typing import Any

from controller.journal.store import JournalError, SqliteJournal
from controller.journal.stored import read_records

__all__ = ["GAME_META", "bound_game", "bind_game", "round_in_play", "next_round_no"]

GAME_META = "game"
"""The ``meta`` key holding the game a journal belongs to."""

GAME_CHANGED = "GameChanged"
"""The record kind of a change of game (from, to, the new config, the reason)."""


class GameMismatch(JournalError):
    """The journal belongs to another game than the table that would write it."""


def bound_game(journal: SqliteJournal) -> str | None:
    """The game ``journal`` belongs to: its ``meta`` ``game``, else the game of its last round
    record (a journal written before the game was bound), else None (nothing played yet)."""
    game = journal.meta(GAME_META)
    if game:
        return game
    with journal.lock:
        row = next(read_records(journal.db, kinds=("RoundSettled",), key=journal.key, newest_first=True, limit=1), None)
    if row is None:
        return None
    try:
        found = json.loads(row.data).get("game")
    except (ValueError, AttributeError):
        return None
    return found if isinstance(found, str) else None


def bind_game(journal: SqliteJournal, game: str, config: str) -> None:
    """Check that ``journal`` belongs to ``game`` (the table config ``config`` plays it) and bind
    it when it is bound to none; raises :class:`GameMismatch` (nothing written) for another game."""
    found = bound_game(journal)
    if found is not None and found != game:
        raise GameMismatch(
            f"{journal.path}: a journal of {found}, and {config} plays {game}: one journal holds one game; "
            f"name another journal (--journal), or change its game between rounds with "
            f"`tablectl journal change-game --journal {journal.path} --config {config} --reason TEXT`"
        )
    if journal.meta(GAME_META) != game:
        journal.set_meta({GAME_META: game})


def round_in_play(journal: SqliteJournal) -> str | None:
    """Why a round is in play in ``journal`` (None between rounds): since the open round's start
    (its snapshot) a card or a draw was taken, a button pressed, or chips added to a spot. Chips
    left on the layout from the round before are not a round in play."""
    snapshot = journal.last_snapshot()
    start: dict[tuple[int, str], int] = {}
    after = 0
    if snapshot is not None:
        after = snapshot.seq
        for seat, spot, cents in snapshot.state.get("spots", []):
            start[(int(seat), str(spot))] = int(cents)
    for r in journal.records(after):
        if not r.event:
            continue
        data: dict[str, Any] = r.data
        if r.kind in ("CardDealt", "CardUnreadable", "StartDrawn"):
            return f"record {r.seq}: {r.kind}"
        if r.kind == "ButtonChanged" and data.get("pressed"):
            return f"record {r.seq}: {data.get('button')} pressed"
        reported = []
        if r.kind == "SpotReport":
            reported = [(data.get("seat", 0), data.get("spot"), data.get("cents", 0))]
        elif r.kind == "SpotsState":
            reported = list(data.get("spots", []))
        for seat, spot, cents in reported:
            if int(cents) > start.get((int(seat), str(spot)), 0):
                return f"record {r.seq}: chips placed on seat {seat} {spot}"
    return None


def next_round_no(journal: SqliteJournal) -> int:
    """The number the next round played on ``journal`` gets: never one a round already has."""
    snapshot = journal.last_snapshot()
    rounds = journal.round_seqs()
    return max(snapshot.round_no if snapshot else 1, (rounds[-1][0] + 1) if rounds else 1)

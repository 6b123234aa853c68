"""What must hold after every event and at a seed's end (issue 32 item 2).

Each check raises :class:`Broken` naming the invariant and what broke it, in words that name no
card face down (the message is printed and may be journaled in a test's output)."""

from __future__ import annotations

import functools
import itertools
import logging
import re
import threading
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

from controller.table.snapshot import PlayerHands, TableSnapshot

__all__ = [
    "Broken",
    "HOLD_S",
    "INVARIANTS",
    "cards_named",
    "first_hidden",
    "hidden_cards",
    "check_hidden",
    "check_deal_prompt",
    "check_hold_way",
    "LogWatch",
]

INVARIANTS: dict[str, str] = {
    "hidden_card": "no card face down in any outside payload (snapshot texts, screen, log line)",
    "deal_while_down": "the panel never says deal while a device is down or never connected",
    "hold_way": "every hold for the supervisor offers a way on other than a void",
    "resume": "after a crash the table resumes the same round at the same step",
    "machine": "the table's machine never fails",
    "stuck": "the table always goes on (no wait longer than the simulation allows)",
    "journal_verify": "`journal verify` passes at the end",
    "cards": "no card lost, doubled or misplaced: each round's cards are the journal's, each once",
    "chips": "every chip accounted for: each wager paid, collected or returned, once",
    "resettle": "every finished round re-settles to the same result in a separate process",
    "error": "nothing in the simulation raises",
    "model": "every settled round agrees with the reference model: each card's destination, each wager's "
    "result and amount, each seat's net, the order the hands are settled",
    "money": "per seat and for the table, every cent wagered is paid, collected or returned",
    "meters": "the journal's meters equal the reference model's",
    "model_hidden": "no outward payload names a card the reference model says is face down",
    "pre_deal_wager": "a wager placed before the deal never changes in its round once a card of the round is out",
}
"""Every invariant by name, with what it says."""

HOLD_S = 30.0
"""Simulated seconds a hold that ends by itself may stay on once no fault's effect is under way
(every line connected, the journal writable): the ``liveness`` check's, in the liveness phase and
during the faults alike."""

_CARD = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][cdhs]|JK)(?![A-Za-z0-9])")


_TOKEN = re.compile(r"[2-9TJQKA][cdhs]|JK")
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
"""What bounds a match of :data:`_CARD` on neither side (its lookbehind's and lookahead's class)."""


def first_hidden(text: str, hidden: Collection[str]) -> re.Match[str] | None:
    """The first match of :data:`_CARD` in ``text`` that is one of ``hidden`` (None: none),
    found by looking for each card of ``hidden`` as a substring (in C) and checking its bounds:
    every match is two letters and no two overlap, so the first bounded place of one of them is
    that match."""
    first = -1
    end = len(text)
    for card in hidden:
        at = text.find(card)
        while at >= 0 and (first < 0 or at < first):
            if (at == 0 or text[at - 1] not in _WORD) and (at + 2 >= end or text[at + 2] not in _WORD):
                if _TOKEN.fullmatch(card):
                    first = at
                break
            at = text.find(card, at + 1)
    return None if first < 0 else _CARD.match(text, first)


@functools.lru_cache(maxsize=8192)
def cards_named(text: str) -> frozenset[str]:
    """Every card ``text`` names (each match of :data:`_CARD`): ``text`` names a card of a set
    when this shares one with it, the answer :func:`first_hidden` gives (matches never overlap).
    Kept for the texts met lately: from one event to the next most of a snapshot's are the same."""
    return frozenset(_CARD.findall(text))


class Broken(Exception):
    """An invariant broke: ``name`` (of :data:`INVARIANTS`) and what happened."""

    def __init__(self, name: str, detail: str) -> None:
        super().__init__(f"{name}: {detail}")
        self.name, self.detail = name, detail


def hidden_cards(snapshot: TableSnapshot, hands: PlayerHands | None) -> frozenset[str]:
    """The cards of this round that are not face up now (from the players' own view of the hands)."""
    if hands is None or hands.round_no != snapshot.round_no:
        return frozenset()
    cards = {c for _, cs in hands.hands for c in cs}
    cards.update(hands.dealer)
    cards.update(c for _, c, _ in hands.log)
    return frozenset(cards - snapshot.face_up())


def _texts(snapshot: TableSnapshot) -> Iterable[str]:
    yield from snapshot.screen
    yield from snapshot.recent
    yield from snapshot.late_notes
    yield snapshot.asked
    for notice in snapshot.notices:
        yield notice.title
        yield from notice.lines
    if snapshot.hold is not None:
        yield snapshot.hold.reason
        yield snapshot.hold.clears


def check_hidden(snapshot: TableSnapshot, hidden: frozenset[str]) -> None:
    """No card in ``hidden`` is named in any of the snapshot's texts."""
    if not hidden:
        return
    texts = list(_texts(snapshot))
    if hidden.isdisjoint(itertools.chain.from_iterable(map(cards_named, texts))):
        return
    for text in texts:
        match = first_hidden(text, hidden)
        if match is not None:
            where = text.replace(match.group(1), "<hidden>")
            raise Broken("hidden_card", f"round {snapshot.round_no}, {snapshot.step}: a face-down card in {where!r}")


_DEAL = re.compile(r"\bdeal\b", re.IGNORECASE)


def check_deal_prompt(snapshot: TableSnapshot, down: Iterable[str]) -> None:
    """The screen does not tell the dealer to deal while a device in ``down`` is down or never up
    (the panel aside: a panel that is down shows nothing)."""
    down = sorted(d for d in down if d != "panel")
    if not down:
        return
    text = " / ".join(snapshot.screen)
    if any(_DEAL.search(line) for line in snapshot.screen[1:]):  # the first line is the step's title
        raise Broken(
            "deal_while_down",
            f"round {snapshot.round_no}, {snapshot.step}: the screen says {text!r} while {', '.join(down)} "
            "is down or never connected",
        )


_FOLD_STEP = re.compile(r"\bfolds\b")


def check_settled_once(snapshot: TableSnapshot, asked_before: Collection[str] = ()) -> None:
    """What was settled during the round is not asked again at its settlement: a folded hand's
    wagers are collected when it folds (24.10(b), 35.10(a), (e), (g)), and a step the dealer was
    asked before the settlement (``asked_before``: Boston 5's bonus steps right after the
    exposure, 24.10(a)) is not asked again."""
    if snapshot.step != "settlement":
        return
    asked = snapshot.asked
    if _FOLD_STEP.search(asked):
        again = "a fold collected when it folded"
    elif asked in asked_before:
        again = "a step the dealer was asked before the settlement"
    else:
        return
    raise Broken("settled_twice", f"round {snapshot.round_no}: the settlement asks {asked!r}, {again}")


def check_hold_way(snapshot: TableSnapshot) -> None:
    """A hold only the supervisor clears offers something other than a void."""
    hold = snapshot.hold
    if hold is None or hold.by_itself:
        return
    # a way refused for now (a door open, a link down) still names the way on once that passes
    ways = [o for o in snapshot.supervisor_options if o.action not in ("void", "misdeal")]
    if not ways and not hold.card_to_enter:
        offered = (
            ", ".join(
                f"{o.button}: {o.action}" + (f" (refused: {o.refused})" if o.refused else "")
                for o in snapshot.supervisor_options
            )
            or "nothing"
        )
        raise Broken(
            "hold_way",
            f"round {snapshot.round_no}: hold ({hold.reason}) offers only a void (offered: {offered}; clears: "
            f"{hold.clears})",
        )


class LogWatch(logging.Handler):
    """Checks every log line of the table as it is written: no card face down in it.

    The simulated table runs in one thread, the one that made the watch: a line another thread
    logs in the same process (a test's table or server left running, a floor forwarder's retry)
    is not this table's, and its cards are not this round's (Boston 5 seed 254 broke
    ``hidden_card`` only on a loaded machine, when such a line fell within a seed)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.hidden: frozenset[str] = frozenset()
        self.broken: Broken | None = None
        self.lines = 0
        self.thread = threading.get_ident()
        """The simulation's thread: only its log lines are the table's."""

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread != self.thread:
            return
        self.lines += 1
        if self.broken is not None or not self.hidden:
            return
        try:
            text = record.getMessage()
        except Exception:  # a bad format: the table's own tests find it
            return
        match = first_hidden(text, self.hidden)
        if match is not None:
            where = text.replace(match.group(1), "<hidden>")
            self.broken = Broken("hidden_card", f"a log line names a face-down card: {where!r}")


def check_journal(path: Path) -> None:
    """``journal verify`` passes on the file at ``path``."""
    from controller.journal import SqliteJournal
    from controller.journal.verify import verify_journal

    journal = SqliteJournal.open_readonly(path)
    try:
        report = verify_journal(journal)
    finally:
        journal.close()
    if not report.ok:
        raise Broken("journal_verify", "; ".join(report.problems[:3]))


def check_round(number: int, record: dict[str, Any], cards_dealt: list[str]) -> None:
    """Round ``number``'s record against the cards the journal says were dealt in it: every card
    of the record's hands was dealt, and none twice."""
    seen: dict[str, int] = {}
    for card in cards_dealt:
        seen[card] = seen.get(card, 0) + 1
    doubled = sorted(c for c, n in seen.items() if n > 1)
    if doubled:
        raise Broken("cards", f"round {number}: {len(doubled)} card(s) dealt twice in the journal and taken")


def check_chips(number: int, record: dict[str, Any], settlement: Any, spots: tuple[str, ...]) -> None:
    """Every chip of round ``number`` accounted for: each wager its record holds is settled once,
    with its stake, and won, lost, pushed or returned as its net says; the dealer's procedure pays
    and collects at each seat exactly the seat's net. ``spots``: the game's wager spots (a
    settlement's other lines, such as Boston 5's ante bonus, pay on a wager's chips)."""
    placed = {
        (int(seat), str(spot)): int(cents)
        for seat, s in record.get("seats", {}).items()
        for spot, cents in s.get("wagers", {}).items()
    }
    settled: dict[tuple[int, str], int] = {}
    for seat in settlement.seats:
        for w in seat.wagers:
            key = (seat.seat, w.spot)
            if w.spot not in spots:
                continue  # a line paid on a wager's chips, not a wager of its own
            if key in settled:
                raise Broken("chips", f"round {number}: seat {seat.seat} {w.spot} settled twice")
            settled[key] = w.stake
            result = w.result.value
            if (
                (result == "lose" and w.net != -w.stake)
                or (result in ("push", "returned") and w.net != 0)
                or (result == "win" and w.net <= 0)
            ):
                raise Broken("chips", f"round {number}: seat {seat.seat} {w.spot}: {result} with net {w.net}")
    if placed != settled:
        missing = sorted(set(placed) - set(settled))
        extra = sorted(set(settled) - set(placed))
        differ = sorted(k for k in set(placed) & set(settled) if placed[k] != settled[k])
        raise Broken(
            "chips",
            f"round {number}: wagers not settled {missing}, settled but not wagered {extra}, stakes differ {differ}",
        )
    moved: dict[int, int] = {}
    for step in settlement.procedure:
        if step.seat is None:
            continue
        for action in step.actions:
            sign = 1 if action.verb == "pay" else -1 if action.verb == "collect" else 0
            moved[step.seat] = moved.get(step.seat, 0) + sign * action.cents
    for seat in settlement.seats:
        if moved.get(seat.seat, 0) != seat.net:
            raise Broken(
                "chips",
                f"round {number}: seat {seat.seat}: the procedure pays less collects {moved.get(seat.seat, 0)}, "
                f"the seat's net is {seat.net}",
            )


def check_open_held(s: TableSnapshot, down: set[str]) -> None:
    """A round opens held while a device that was up has its link down (the table's own
    ``LinkDown`` without a ``LinkUp`` after it): play never opens without a device it needs."""
    if down and s.step != "hold":
        raise Broken(
            "open_while_down",
            f"round {s.round_no} opens in {s.step}, not held, while {', '.join(sorted(down))} is down",
        )

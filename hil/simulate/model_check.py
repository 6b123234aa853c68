"""The simulation against the reference model (issue 41 items 1-4): every settled round of the
journal compared with :mod:`hil.reference` (each card's destination, each wager's result and
amount, each seat's net, the order the hands are settled), the money of the whole run (per seat
and for the table: every cent wagered is paid, collected or returned), the journal's meters
against the model's, and, after every event, the outward payloads against the cards the model
says are face down (:class:`VisibilityWatch`)."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from hil.reference import Expected, RefTable, expect_round, load_ref_table, visible_cards
from hil.reference.games import SeatState, WagerOutcome
from hil.simulate.invariants import Broken, cards_named, first_hidden
from hil.simulate.seed_journal import SeedJournal
from hil.simulate.turning import TURNED_GAMES, TurningClock

__all__ = ["ref_table", "check_round", "check_rounds", "VisibilityWatch", "seat_states", "round_inputs"]

_TABLES: dict[Path, RefTable] = {}

_REREAD = ("unreadable", "read as")
"""A read the table set aside until the card is read again or entered by the supervisor."""

_WAITING = "waiting for the supervisor"
"""A card dealt while held: placed where it came out once the supervisor accepts it."""

_MISREAD = ("unreadable", "read as", "burned", "waiting for the supervisor", "misdeal")
"""A read the table set aside (a card unreadable or read twice, a card out of turn burned or
held for the supervisor) is not a card dealt to anyone: the model checks the others' places."""


def ref_table(path: Path | str) -> RefTable:
    """The model's reading of the table at ``path`` (once per process)."""
    path = Path(path)
    if path not in _TABLES:
        _TABLES[path] = load_ref_table(path)
    return _TABLES[path]


def seat_states(game: str, seats: Mapping[str, Mapping[str, Any]]) -> dict[int, SeatState]:
    """The seats of a round record as the model's inputs (wagers and decisions)."""
    out = {}
    for n, s in seats.items():
        folded = s.get("folded_at")
        if game == "boston5" and s.get("folded"):
            folded = "second"
        out[int(n)] = SeatState(
            dict(s.get("wagers", {})),
            folded,
            bool(s.get("exposed_bonus", False)),
            str(s.get("high", "") or ""),
            str(s.get("low", "") or ""),
            bool(s.get("communication_violation", False)),
        )
    return out


def in_deal_order(entries: Iterable[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
    """The cards of a round, (shoe number, card, the table's destination), in the order they came
    out of the shoe: a read set aside is dropped; a card read again (or entered by the supervisor)
    for one read as unreadable or as a card already dealt takes that read's place, and so does a
    card dealt while held once the supervisor accepts it. A shoe whose count starts over (a card
    numbered 1 after others, none waiting under 1: a shuffle) numbers its cards anew: a read set
    aside before it is no longer the place of a card after it that has the same number; a card
    dealt while held keeps its place (accepted after the count started over, it comes with its
    own number and face, which no card of the new count repeats). A read set aside in this round
    before the count started over (the number after the card before it) still takes the card the
    supervisor enters for it (its number, out of the new count's sequence); a card that goes on
    the new count (the number after the last) is that count's own."""
    out: list[tuple[int, str, str] | None] = []
    places: dict[object, list[int]] = {}  # a read waiting for its card: the places it holds
    earlier: dict[int, list[int]] = {}  # reads set aside before the count started over: their places
    in_count: set[int] = set()  # the places of reads set aside that went on the round's count
    last = 0
    for index, card, to in entries:
        if index == 1 and last > 1 and not places.get(1) and not places.get((1, card)):
            # the count started over: a read set aside before holds no place of the new count
            for number, at in places.items():
                if isinstance(number, int):
                    earlier.setdefault(number, []).extend(a for a in at if a in in_count)
            places = {k: at for k, at in places.items() if isinstance(k, tuple)}
        goes_on = index == last + 1
        last = index
        if str(to).startswith(_REREAD) or str(to).startswith(_WAITING):
            key: object = index if str(to).startswith(_REREAD) else (index, card)
            if goes_on:
                in_count.add(len(out))
            places.setdefault(key, []).append(len(out))
            out.append(None)
        elif str(to).startswith(_MISREAD) or card == "??":
            continue
        elif places.get((index, card)) or places.get(index):
            out[(places.get((index, card)) or places[index]).pop(0)] = (index, card, to)
        elif earlier.get(index) and not goes_on:  # entered for a read set aside before the count started over
            out[earlier[index].pop(0)] = (index, card, to)
        else:
            out.append((index, card, to))
    return [e for e in out if e is not None]


def round_inputs(data: Mapping[str, Any]) -> tuple[list[str], list[str], dict[str, Any]]:
    """From a journaled round (``RoundSettled``): the cards dealt in order, the table's
    destination of each, and what else the model reads (the start, the dealer's set hands)."""
    dealt = in_deal_order((int(c["index"]), str(c["card"]), str(c["to"])) for c in data.get("cards", []))
    extra: dict[str, Any] = {"start": (data.get("record") or {}).get("start") or {}}
    dealer = (data.get("settlement") or {}).get("dealer") or {}
    if "high" in dealer and "low" in dealer:
        extra["dealer_set"] = {"high": dealer["high"], "low": dealer["low"]}
        extra["dealer_cards"] = (data.get("record") or {}).get("dealer", "")
    return [c for _, c, _ in dealt], [to for _, _, to in dealt], extra


def _result(text: str) -> str:
    return "even" if text in ("push", "returned") else text


def _compare(number: int, exp: Expected, settlement: Mapping[str, Any]) -> None:
    if exp.dealer_low is not None:
        low = frozenset(str((settlement.get("dealer") or {}).get("low", "")).split())
        if low != exp.dealer_low:
            raise Broken(
                "model",
                f"round {number}: the dealer's front hand set {' '.join(sorted(low))}, the house way sets "
                f"{' '.join(sorted(exp.dealer_low))}",
            )
    seats = settlement.get("seats", {})
    for n, out in exp.outcomes.items():
        got = seats.get(str(n), {})
        if n not in exp.capped:
            _compare_wagers(number, n, exp, out, got.get("wagers", {}))
        if exp.settled and int(got.get("net", 0)) != exp.nets[n]:
            raise Broken(
                "model", f"round {number}: seat {n}: the table's net {got.get('net')}, the model's {exp.nets[n]}"
            )
    steps = [(str(step.get("phase")), step.get("seat")) for step in settlement.get("procedure", [])]
    order = [int(seat) for phase, seat in steps if seat is not None and phase in ("settle", "pai_gow")]
    if order != exp.order:
        raise Broken("model", f"round {number}: hands settled in the order {order}, the rules say {exp.order}")
    _compare_envy_pass(number, exp, steps)


def _compare_wagers(
    number: int, n: int, exp: Expected, out: Mapping[str, WagerOutcome], wagers: Mapping[str, Any]
) -> None:
    """Seat ``n``'s wagers as the table settled them (``wagers``) against the model's (``out``)."""
    for spot, o in out.items():
        w = wagers.get(spot)
        if w is None:
            raise Broken(
                "model", f"round {number}: seat {n} {spot}: the model settles it ({o.why}), the table does not"
            )
        if _result(str(w["result"])) != o.result or int(w["net"]) != o.net:
            raise Broken(
                "model",
                f"round {number}: seat {n} {spot}: the table {w['result']} {w['net']}, the model "
                f"{o.result} {o.net} ({o.why})",
            )
    if exp.settled:
        extra = sorted(set(wagers) - set(out) - {"commission"})
        if extra:
            raise Broken("model", f"round {number}: seat {n}: the table settles {extra}, the model does not")


def _compare_envy_pass(number: int, exp: Expected, steps: list[tuple[str, Any]]) -> None:
    """Pai gow's envy pass (11.15(d)3): its seats' order, and after every bonus and insurance wager."""
    last_pass = ("envy", "premium")  # 11.15(d)3: i. an envy marker, ii. a premium hand's bonus wager
    if not exp.envy_order and not any(phase in last_pass for phase, _ in steps):
        return
    envy: list[int] = []
    for phase, seat in steps:  # a seat with both is settled with once: (d)3i then (d)3ii
        if phase in last_pass and seat is not None and envy[-1:] != [int(seat)]:
            envy.append(int(seat))
    if envy != exp.envy_order:
        raise Broken(
            "model", f"round {number}: the envy pass (11.15(d)3) settles {envy}, the rules say {exp.envy_order}"
        )
    phases = [phase for phase, _ in steps]
    first = min(i for i, phase in enumerate(phases) if phase in last_pass)
    if "bonus_insurance" in phases and first < len(phases) - phases[::-1].index("bonus_insurance"):
        raise Broken("model", f"round {number}: an envy step before every bonus and insurance wager is settled")


def _model_meters(
    rounds: Iterable[tuple[Mapping[str, Any], Expected | None]],
) -> dict[tuple[str, str], int]:
    """The meters the model expects: rounds and voids, the stakes by spot, the cents paid and collected."""
    out: dict[tuple[str, str], int] = defaultdict(int)
    for record, exp in rounds:
        out[("table", "rounds")] += 1
        if exp is None:
            out[("table", "voids")] += 1
        for n, s in record.get("seats", {}).items():
            scope = f"seat {n}"
            out[(scope, "rounds")] += 1
            for spot, cents in s.get("wagers", {}).items():
                for where in (scope, "table"):
                    out[(where, f"wagered:{spot}")] += int(cents)
            if exp is None:
                continue
            for o in exp.outcomes.get(int(n), {}).values():
                for where in (scope, "table"):
                    if o.net > 0:
                        out[(where, "paid")] += o.net
                    elif o.net < 0:
                        out[(where, "collected")] += -o.net
    return dict(out)


def check_round(table: RefTable, data: Mapping[str, Any]) -> Expected | None:
    """One journaled round (``RoundSettled``'s data) against the model: each card's destination,
    each wager's result and amount, each seat's net, the order of settlement. What the model
    expects (``None`` for a void: every wager returned, the cards in no hand)."""
    number, record, settlement = int(data["round"]), data["record"], data.get("settlement")
    if settlement is None:
        return None
    seats = seat_states(table.game, record.get("seats", {}))
    cards, where, extra = round_inputs(data)
    try:
        exp = expect_round(table, cards, seats, extra)
    except ValueError as exc:
        raise Broken("model", f"round {number}: the model cannot settle the round's cards: {exc}") from None
    if where != exp.destinations:
        first = next((i for i, (a, b) in enumerate(zip(where, exp.destinations, strict=False)) if a != b), None)
        if first is None:
            first = min(len(where), len(exp.destinations))
        raise Broken(
            "model",
            f"round {number}: card {first + 1} of {len(where)} went to "
            f"{where[first] if first < len(where) else 'nowhere'}, the rules send it to "
            f"{exp.destinations[first] if first < len(exp.destinations) else 'nowhere'}",
        )
    _compare(number, exp, settlement)
    return exp


def check_rounds(journal: SeedJournal, table_path: Path | str) -> int:
    """Every round of a seed's ``journal`` (read at its end) against the model of the table at
    ``table_path``, then the run's money and meters; raises :class:`Broken` on the first
    difference. How many rounds were compared."""
    table = ref_table(table_path)
    rounds: list[Mapping[str, Any]] = []
    reports: Counter[tuple[int, str]] = Counter()  # the shoe's reports journaled, less those a record took
    for r in journal.records:
        if r.kind == "RoundSettled":
            rounds.append(r.data)
            _take_reports(int(r.data["round"]), r.data.get("cards", []), reports)
        elif r.kind in ("CardDealt", "CardUnreadable") and r.data.get("device") == "shoe":
            reports[(int(r.data["index"]), str(r.data.get("card", "??")))] += 1
    meters = journal.meters
    seen: list[tuple[Mapping[str, Any], Expected | None]] = []
    money: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])  # wagered, paid, collected, returned
    every_modelled = True
    for data in rounds:
        _money(int(data["round"]), data["record"], data.get("settlement"), money)
        exp = check_round(table, data)
        every_modelled &= exp is None or (exp.settled and not exp.capped)  # a cap's cut: the nets only
        seen.append((data["record"], exp))
    for scope, (wagered, paid, collected, returned) in sorted(money.items()):
        if wagered != paid + collected + returned:
            raise Broken(
                "money",
                f"{scope}: wagered {wagered} but paid {paid} + collected {collected} + returned {returned}",
            )
    want = _model_meters(seen)
    kept = ("rounds", "voids", "paid", "collected")
    for key in sorted(set(want) | {k for k in meters if k[1] in kept or k[1].startswith("wagered:")}):
        if key[1] in ("paid", "collected") and not every_modelled:
            continue
        if meters.get(key, 0) != want.get(key, 0):
            raise Broken(
                "meters",
                f"{key[0]} {key[1]}: the journal's meter {meters.get(key, 0)}, the model's {want.get(key, 0)}",
            )
    return len(seen)


def _take_reports(number: int, cards: Iterable[Mapping[str, Any]], reports: Counter[tuple[int, str]]) -> None:
    """Round ``number``'s ``cards`` (its record's, as the table's ledger has them) each take one of
    the shoe's ``reports`` journaled before the record: a card in a round's record is a report the
    journal holds, and each report is one entry (an event acted on though the journal refused it,
    then sent again by its device, would be two). A card the supervisor entered for a misread one
    (unreadable, or read as a card already dealt) is the one entry no report of its face gives."""
    entered: Counter[int] = Counter()
    for c in cards:
        if str(c["to"]).startswith(_REREAD):
            entered[int(c["index"])] += 1
    for c in cards:
        index, face = int(c["index"]), str(c["card"])
        if face == "??":
            continue
        if reports[(index, face)] > 0:
            reports[(index, face)] -= 1
        elif entered[index] > 0:
            entered[index] -= 1
        else:
            raise Broken(
                "cards",
                f"round {number}: its record has shoe card {index} more often than the journal's reports of it",
            )


def _money(
    number: int,
    record: Mapping[str, Any],
    settlement: Mapping[str, Any] | None,
    money: dict[str, list[int]],
) -> None:
    """Adds round ``number``'s stakes to ``money``: each wagered, then paid (won), collected
    (lost) or returned (pushed, returned, voided) as the table settled it."""
    for n, s in record.get("seats", {}).items():
        settled = ((settlement or {}).get("seats") or {}).get(str(n), {}).get("wagers", {})
        for spot, cents in s.get("wagers", {}).items():
            cents = int(cents)
            verdict = "returned" if settlement is None else str(settled.get(spot, {}).get("result", "none"))
            if settlement is not None and int(settled.get(spot, {}).get("stake", -1)) != cents:
                raise Broken(
                    "money", f"round {number}: seat {n} {spot}: {cents} wagered, settled as {settled.get(spot)}"
                )
            slot = {"win": 1, "lose": 2, "push": 3, "returned": 3}.get(verdict)
            if slot is None:
                raise Broken("money", f"round {number}: seat {n} {spot}: {cents} wagered, settled as {verdict!r}")
            for scope in (f"seat {n}", "table"):
                money[scope][0] += cents
                money[scope][slot] += cents


class VisibilityWatch:
    """After every event: no outward payload names a card of the open round that the model says
    is face down. The payloads: the snapshot's JSON (its ``game_view``, texts, notices, hold; the
    status file ``tablectl status`` reads and the web's pages are this JSON), the panel's display
    as the panel shows it, and (through :class:`~hil.simulate.invariants.LogWatch`) every log line."""

    def __init__(self, table_path: Path | str) -> None:
        self.table = ref_table(table_path)
        self.clock = TurningClock()
        """How far the dealer has got turning the hands at the settlement."""
        self.hidden: frozenset[str] = frozenset()
        self.scanned = 0
        self._key: tuple[Any, ...] = ()
        self._last: Any = None
        self._named: list[tuple[Any, frozenset[str]]] = []
        """Each field's value last looked at (by place) and the cards its repr names."""
        self._parts: dict[Any, frozenset[str]] = {}
        """The cards each element of a tuple field of records names in its repr, by the element."""

    def update(
        self,
        cards: list[str],
        seats: Mapping[int, SeatState],
        start: Mapping[str, Any] | None,
        hands_set: bool = True,
        turning: float | None = None,
    ) -> None:
        """The open round's cards dealt so far and its seats (pai gow: whether the players' hands
        are set; the others: the seat the dealer has reached turning the hands, :mod:`.turning`):
        which are face down now."""
        try:
            seen = visible_cards(self.table, cards, seats, start, hands_set, turning)
        except ValueError:
            seen = set()
        self.hidden = frozenset(cards) - seen

    def observe(self, snapshot: Any, hands: Any, panel: Mapping[int, str]) -> None:
        """One event handled: the open round's face-down cards by the model (from the cards the
        players' own view has dealt and the seats' wagers and decisions in ``snapshot``), then
        every payload scanned for them."""
        if hands is None or hands.round_no != snapshot.round_no:
            self.hidden = frozenset()
            return
        dice = getattr(snapshot.game_view, "dice", None)
        step = snapshot.hold.held_from if snapshot.step == "hold" and snapshot.hold is not None else snapshot.step
        hands_set = step in _HANDS_SET
        turning = None
        if self.table.game in TURNED_GAMES:
            asked = snapshot.asked if snapshot.step == "settlement" else None  # a hold asks for the fault
            turning = self.clock.turning(snapshot.round_no, step, asked)
        key = (len(hands.log), snapshot.seats, dice, hands_set, turning)
        if key != self._key:  # the model's answer changes only with the cards, the seats or the start
            self._key, self._last = key, None
            cards = [c for _, c, _ in in_deal_order((int(i), str(c), str(to)) for i, c, to in hands.log)]
            seats = {
                v.number: SeatState(dict(v.wagers), v.folded_at, bool(v.exposed), violation=bool(v.violation))
                for v in snapshot.seats
            }
            self.update(cards, seats, {"value": dice} if dice is not None else None, hands_set, turning)
        if not self.hidden or snapshot is self._last:
            return
        self._last = snapshot
        self.scanned += 1
        where = f"round {snapshot.round_no}, {snapshot.step}"
        # every field of the snapshot, as its JSON (the status file, the web's pages and events) carries it
        if self._names_hidden(snapshot):
            self.check(where, (("snapshot", repr(snapshot)),))  # raises, naming the card in its context
        self.check(where, (("panel display", " | ".join(panel.values())),))

    def _names_hidden(self, snapshot: Any) -> bool:
        """Whether the snapshot's repr names a face-down card, value by value: the cards each
        field's value names in its repr (for a tuple, the seats, the screen's lines, the recent
        lines, the lamps: each element's repr) are found once while an equal value stays, and
        shared with the face-down cards (the snapshot's values are immutable, and equal values
        have reprs naming the same cards: a card is only ever in a text; the table builds each
        snapshot anew, its seats too, but from one event to the next most values are equal). The
        same answer as the whole repr's: a match lies within one value's repr (the field names
        hold no card, and what joins the values, ``=``, ``, ``, ``(``, ``)``, bounds a match as a
        text's ends do). Anything but a named tuple: its whole repr."""
        if not isinstance(snapshot, tuple) or not hasattr(snapshot, "_fields"):
            return first_hidden(repr(snapshot), self.hidden) is not None
        if len(self._named) != len(snapshot):
            self._named = [(None, frozenset())] * len(snapshot)
        named, parts, hidden = self._named, self._parts, self.hidden
        if len(parts) > 4096:  # the elements of rounds long gone
            parts.clear()
        found = False
        for i, field in enumerate(snapshot):
            if field is None or field.__class__ in _NO_CARD:
                continue  # None, a number, a truth value: no card in its repr
            was, cards = named[i]
            if was is not field and (was is None or was != field):
                if field.__class__ is tuple:
                    cards = self._tuple_part(field)
                else:
                    cards = cards_named(repr(field))
                named[i] = (field, cards)
            if cards and not found:
                found = not cards.isdisjoint(hidden)
        return found

    def _tuple_part(self, field: tuple[Any, ...]) -> frozenset[str]:
        """The cards a tuple field's elements name in their reprs, together (each element's found
        once while it is kept in :attr:`_parts`: a text's hash is kept by the text, so looking one
        up again costs no repr)."""
        parts, found = self._parts, _NONE
        for value in field:
            if value.__class__ in _BARE:
                continue
            try:
                cards = parts.get(value)
            except TypeError:  # not hashable
                cards = cards_named(repr(value))
            else:
                if cards is None:
                    cards = parts[value] = cards_named(repr(value))
            if cards:
                found = found | cards if found else cards
        return found

    def check(self, where: str, payloads: Iterable[tuple[str, str]]) -> None:
        """Each (name, text) of ``payloads``: no face-down card in it."""
        if not self.hidden:
            return
        for name, text in payloads:
            match = first_hidden(text, self.hidden)
            if match is not None:
                at = max(0, match.start() - 60)
                shown = text[at : match.end() + 20].replace(match.group(1), "<hidden>")
                raise Broken("model_hidden", f"{where}: the {name} names a card the rules keep face down: {shown!r}")


_NO_CARD = frozenset({int, bool, float})
"""Values whose repr names no card (digits, a sign, a point, ``True``, ``False``)."""

_NONE: frozenset[str] = frozenset()

_BARE = frozenset({int, bool, float, type(None)})
"""Values whose repr names no card (digits, a sign, a point, ``True``, ``False``, ``None``)."""

_HANDS_SET = frozenset({"setting", "settlement", "round_complete", "count_stub"})
"""Pai gow: the steps after the dealer confirmed every player's hands set (the table's step is
the clock here: when the confirm was taken; what may be seen then is the model's)."""


def dumps(value: Any) -> str:
    """A payload as the outside sees it (JSON)."""
    return json.dumps(value, sort_keys=True, default=str)

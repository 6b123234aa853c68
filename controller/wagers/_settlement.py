"""What a settled round looks like: every wager's result, each seat's net, the dealer's steps.

Game modules (``controller.game.*``) produce a :class:`Settlement`; the state machine, game
recall and ``tablectl settle`` all read it. Money is integer cents. ``net`` is what the
player gains: positive when paid, the negated stake when collected, zero otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Protocol

from controller.hands import HandValue
from controller.vocab import format_cards, format_cents
from controller.wagers._quick import quick_init

__all__ = [
    "Result",
    "WagerResult",
    "CapReport",
    "Action",
    "Step",
    "DISCARD",
    "DISCARD_UNEXPOSED",
    "SeatSettlement",
    "Settlement",
    "apply_cap",
    "apply_caps",
    "PayoutCaps",
    "actions_for",
    "hand_summary",
    "settlement_for",
]


class Result(Enum):
    """How one wager ended."""

    WIN = "win"
    LOSE = "lose"
    PUSH = "push"
    """Neither paid nor collected (a tie, a pushing paytable line)."""
    RETURNED = "returned"
    """Handed back without being in action to the end (Boston 5 ante with no ante bonus; a void)."""


@quick_init
@dataclass(frozen=True, slots=True)
class WagerResult:
    """The result of one wager spot, or of a payout line such as Boston 5's ``ante_bonus``."""

    spot: str
    stake: int
    result: Result
    net: int
    why: str
    capped_from: int | None = None
    commission: int = 0
    """Commission taken from a winning payout (pai gow): ``net`` is the payout less this."""

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"result": self.result._value_, "net": self.net, "stake": self.stake, "why": self.why}
        if self.capped_from is not None:
            out["capped_from"] = self.capped_from
        if self.commission:
            out["commission"] = self.commission
        return out


@dataclass(frozen=True, slots=True)
class CapReport:
    """An aggregate payout cap that bit: what would have been paid, what is paid, and from where."""

    label: str
    cap: int
    uncapped: int
    reduced: tuple[tuple[str, int], ...]

    @property
    def paid(self) -> int:
        return self.uncapped - sum(n for _, n in self.reduced)

    def to_json(self) -> dict[str, object]:
        return {
            "cap": self.label,
            "limit": self.cap,
            "uncapped": self.uncapped,
            "paid": self.paid,
            "reduced": dict(self.reduced),
        }


def apply_cap(
    wagers: Sequence[WagerResult], cap: int | None, label: str, spots: Iterable[str] | None = None
) -> tuple[list[WagerResult], CapReport | None]:
    """Limit the payouts of ``wagers`` (those in ``spots``, or all) to ``cap`` cents in total.

    The excess is taken from the largest payouts first (ties by spot name), so the choice
    never depends on the order the wagers are listed in. Collected stakes are untouched.
    """
    if cap is None:
        return list(wagers), None
    chosen = set(spots) if spots is not None else None
    winners = [w for w in wagers if w.net > 0 and (chosen is None or w.spot in chosen)]
    total = sum(w.net for w in winners)
    if total <= cap:
        return list(wagers), None
    excess = total - cap
    cuts: dict[str, int] = {}
    for w in sorted(winners, key=lambda w: (-w.net, w.spot)):
        cut = min(w.net, excess)
        if cut:
            cuts[w.spot] = cut
            excess -= cut
    out = [
        replace(w, net=w.net - cuts[w.spot], capped_from=w.capped_from if w.capped_from is not None else w.net)
        if w.spot in cuts
        else w
        for w in wagers
    ]
    return out, CapReport(label, cap, total, tuple(sorted(cuts.items())))


_SMALLEST: dict[tuple[int, int, int | None], tuple[object, object, int | None]] = {}
"""The smallest cap of each paytables' and spots' mappings (by identity) and table cap, found
once while both mappings live: a table settles every seat of every round under the same ones."""


def _smallest_cap(
    paytables: Mapping[str, object], paid_by: Mapping[str, Iterable[str]], payout_cap: int | None
) -> int | None:
    """The smallest of the caps of ``paid_by``'s paytables and ``payout_cap`` (``None``: no cap)."""
    key = (id(paytables), id(paid_by), payout_cap)
    kept = _SMALLEST.get(key)
    if kept is not None and kept[0] is paytables and kept[1] is paid_by:
        return kept[2]
    caps = [cap for cap in (getattr(paytables.get(spot), "cap", None) for spot in paid_by) if cap is not None]
    if payout_cap is not None:
        caps.append(payout_cap)
    smallest = min(caps) if caps else None
    if len(_SMALLEST) > 64:
        _SMALLEST.clear()
    _SMALLEST[key] = (paytables, paid_by, smallest)
    return smallest


def apply_caps(
    wagers: Sequence[WagerResult],
    paytables: Mapping[str, object],
    paid_by: Mapping[str, Iterable[str]],
    payout_cap: int | None,
) -> tuple[list[WagerResult], tuple[CapReport, ...]]:
    """Apply each paytable's own cap to the wagers it pays (``paid_by``: paytable spot ->
    wager spots), then the table's aggregate ``payout_cap`` to everything."""
    smallest = _smallest_cap(paytables, paid_by, payout_cap)
    if smallest is None or sum([w.net for w in wagers if w.net > 0]) <= smallest:
        return list(wagers), ()  # no cap bites: every one limits a part of these payouts
    reports = []
    out = list(wagers)
    for spot, spots in paid_by.items():
        table = paytables.get(spot)
        cap = getattr(table, "cap", None)
        if cap is not None:
            out, report = apply_cap(out, cap, f"paytable {getattr(table, 'name', spot)}", spots)
            reports += [report] if report else []
    if payout_cap is not None:
        out, report = apply_cap(out, payout_cap, "table payout_cap")
        reports += [report] if report else []
    return out, tuple(reports)


@quick_init
@dataclass(frozen=True, slots=True)
class PayoutCaps:
    """The caps of one table on one game's payouts, their smallest found once (:meth:`of`): a
    settlement applies them to every seat of its round."""

    paytables: Mapping[str, object]
    paid_by: Mapping[str, Iterable[str]]
    payout_cap: int | None
    smallest: int | None
    """The smallest of them (``None``: no cap): payouts within it are never reduced."""

    @classmethod
    def of(
        cls, paytables: Mapping[str, object], paid_by: Mapping[str, Iterable[str]], payout_cap: int | None
    ) -> PayoutCaps:
        """The caps of ``paytables`` (``paid_by``: paytable spot -> wager spots) and ``payout_cap``."""
        return cls(paytables, paid_by, payout_cap, _smallest_cap(paytables, paid_by, payout_cap))

    def apply(self, wagers: Sequence[WagerResult]) -> tuple[Sequence[WagerResult], tuple[CapReport, ...]]:
        """:func:`apply_caps` on one seat's ``wagers`` (the same sequence when no cap bites)."""
        smallest = self.smallest
        if smallest is None or sum([w.net for w in wagers if w.net > 0]) <= smallest:
            return wagers, ()
        return apply_caps(wagers, self.paytables, self.paid_by, self.payout_cap)


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


@quick_init
@dataclass(frozen=True, slots=True)
class SeatSettlement:
    """Everything settled at one seat."""

    seat: int
    wagers: tuple[WagerResult, ...]
    hands: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    caps: tuple[CapReport, ...] = ()

    @property
    def net(self) -> int:
        return sum(w.net for w in self.wagers)

    def wager(self, spot: str) -> WagerResult | None:
        """The result of ``spot`` at this seat, if it had one."""
        return next((w for w in self.wagers if w.spot == spot), None)

    def to_json(self) -> dict[str, object]:
        return {
            "wagers": {w.spot: w.to_json() for w in self.wagers},
            "net": self.net,
            "hands": {k: dict(v) for k, v in self.hands.items()},
            "caps": [c.to_json() for c in self.caps],
        }


@quick_init
@dataclass(frozen=True, slots=True)
class Settlement:
    """A whole round settled: per seat, the dealer's hand, and the dealer's procedure."""

    game: str
    table: str
    paytables: Mapping[str, str]
    seats: tuple[SeatSettlement, ...]
    procedure: tuple[Step, ...]
    dealer: Mapping[str, object] = field(default_factory=dict)

    @property
    def house_net(self) -> int:
        """What the house gains: the negated sum of the seats' nets."""
        return -sum(s.net for s in self.seats)

    def seat(self, number: int) -> SeatSettlement:
        """The settlement of seat ``number``."""
        return next(s for s in self.seats if s.seat == number)

    def to_json(self) -> dict[str, object]:
        return {
            "game": self.game,
            "table": self.table,
            "paytables": dict(self.paytables),
            "dealer": dict(self.dealer),
            "seats": {str(s.seat): s.to_json() for s in self.seats},
            "house_net": self.house_net,
            "procedure": [step.to_json() for step in self.procedure],
        }


class _Named(Protocol):
    @property
    def name(self) -> str: ...


class TableFacts(Protocol):
    """What a settlement reads of its table (a ``TableConfig``): its file and its paytables' names."""

    @property
    def path(self) -> str: ...

    @property
    def paytables(self) -> Mapping[str, _Named]: ...


_NAMES: dict[int, tuple[Mapping[str, _Named], dict[str, str]]] = {}
"""Each table's paytables' names by spot, by the paytables' mapping (its identity), made once while
it lives: a table settles every round under the same paytables."""


def settlement_for(
    game: str,
    table: TableFacts,
    seats: Mapping[int, SeatSettlement],
    procedure: Iterable[Step],
    dealer: Mapping[str, object],
) -> Settlement:
    """A :class:`Settlement` for ``table`` (a TableConfig): seats in seat order, the paytables by name."""
    paytables = table.paytables
    kept = _NAMES.get(id(paytables))
    if kept is None or kept[0] is not paytables:
        if len(_NAMES) > 64:
            _NAMES.clear()
        kept = _NAMES[id(paytables)] = (paytables, {spot: p.name for spot, p in paytables.items()})
    return Settlement(
        game=game,
        table=table.path,
        paytables=dict(kept[1]),
        seats=tuple([seats[n] for n in sorted(seats)]),
        procedure=tuple(procedure),
        dealer=dealer,
    )

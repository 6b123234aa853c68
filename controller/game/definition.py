"""What a game is, in one frozen value: :class:`GameDefinition`.

A definition owns the game's name and title, its wager spots and settings (its
:class:`~controller.wagers._catalog.GameCatalog`), its hand rules, the deal as data (:class:`DealPlan`:
who gets which card, face down, and the step from which each is face up, as pokerkit's streets
describe a deal), the deck, the round's steps with the rules they follow, the rules layer's
record reader and settlement (:class:`~controller.game.record._spec.GameSpec`), and the names of what
lives in other layers: the table machine, the bench player, the simulation's player, the dealer
guide's scripted round, the par strategy rows and the few table-reading hooks
(``"module:attribute"``, imported on first use, as python-can's ``BACKENDS``): naming them costs
nothing until they are used, and the rules layer never imports the table or the bench.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from functools import cache
from importlib import import_module
from typing import TYPE_CHECKING, Any, Protocol

from controller.game.hooks import TableHooks
from controller.hands import HandRules
from controller.wagers import GameCatalog

if TYPE_CHECKING:
    from controller.wagers import Settlement

__all__ = [
    "Holder",
    "When",
    "CardPlan",
    "DealStep",
    "Reveal",
    "DealPlan",
    "Shown",
    "Step",
    "GameDefinition",
    "SETTLED_STEPS",
    "NOTHING_SHOWN",
    "load",
]

SETTLED_STEPS = frozenset({"settlement", "round_complete"})
"""Steps in which every hand still in play has been turned."""

NOTHING_SHOWN = frozenset({"closed", "betting", "no_more_bets", "void"})
"""Steps in which no card of the round is face up (none dealt yet, or the round voided)."""


@cache
def load(where: str) -> Any:
    """The object ``where`` names (``"package.module:attribute"``), its module imported on the
    first call (then kept: the snapshot builder asks for a game's hooks on every event)."""
    module, sep, attribute = where.partition(":")
    if not sep or not module or not attribute:
        raise ValueError(f"{where!r} is not 'module:attribute'")
    return getattr(import_module(module), attribute)


class Holder(Enum):
    """Who a card is dealt to."""

    SEAT = "seat"
    """Each player's position (with a wager)."""
    DEALER = "dealer"
    """The dealer's own hand."""
    COMMUNITY = "community"
    """Cards every player shares (Mississippi Stud), dealt to the dealer's area."""


class When(Enum):
    """The condition under which a :class:`Reveal` applies, beyond its steps."""

    ALWAYS = "always"
    IN_PLAY = "in_play"
    """Some player's hand is still in play (not folded)."""
    EXPOSED = "exposed"
    """The seat chose to expose its hand (Boston 5's bonus hand, 24.10(a))."""
    TURNED = "turned"
    """The dealer has turned the seat's hand: pai gow's one by one (11.9); the others' at its own
    settlement step, after the dealer's reveal (24.10(f), 35.10(i), Three Card Poker inferred)."""


@dataclass(frozen=True, slots=True)
class CardPlan:
    """Cards dealt in one step to one holder: how many, face up or down, and the rule."""

    holder: Holder
    count: int
    cite: str
    face_up: bool = False
    """Dealt face up (no game dealt at a table so far deals a card face up)."""


@dataclass(frozen=True, slots=True)
class DealStep:
    """One dealing step of the round (a street): the table step it happens in and what it deals."""

    step: str
    cards: tuple[CardPlan, ...]
    cite: str


@dataclass(frozen=True, slots=True)
class Reveal:
    """From the steps in ``steps`` (``None``: every step in which cards are on the table), the
    first ``cards`` of each ``holder`` hand (``None``: all) are face up, when ``when`` holds."""

    holder: Holder
    steps: frozenset[str] | None
    cards: int | None
    cite: str
    when: When = When.ALWAYS


@dataclass(frozen=True, slots=True)
class Shown:
    """The face-up cards now: each seat's cards and the dealer's (or community) cards, ``None``
    for a card face down; an empty tuple where a hand was collected unexposed."""

    seats: tuple[tuple[int, tuple[str | None, ...]], ...]
    dealer: tuple[str | None, ...]
    dealer_label: str

    def face_up(self) -> frozenset[str]:
        """Every card face up now (what a line of text may name)."""
        up = {c for _, hand in self.seats for c in hand if c is not None}
        up.update(c for c in self.dealer if c is not None)
        return frozenset(up)


def _cards(hand: Sequence[str], shown: int | None) -> tuple[str | None, ...]:
    """``hand``'s first ``shown`` cards (None: all), the rest face down (``None``)."""
    if shown is None or shown >= len(hand):
        return tuple(hand)
    return (*hand[:shown], *(None,) * (len(hand) - shown))


@dataclass(frozen=True, slots=True)
class DealPlan:
    """The deal as data: the dealing steps in order, what turns each card face up, and the
    hands collected unexposed. :meth:`shown` is the one answer to "which cards are face up now"
    (the snapshot, the screen's masking, the web, the floor read it)."""

    steps: tuple[DealStep, ...]
    reveals: tuple[Reveal, ...]
    shared: Holder
    """Whose hand the table shows beside the seats: the dealer's, or the community cards."""
    folded_unexposed: tuple[str, ...] = ()
    """The rules by which a folded hand is collected face down (empty: the game has no fold)."""
    _best_seen: dict[tuple[object, ...], int | None] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )
    """:meth:`_best` by its arguments (a function of the reveals alone: the snapshot asks for the
    same few after every card dealt)."""

    def cards_to(self, holder: Holder) -> int:
        """How many cards each ``holder`` hand gets in a round."""
        return sum(c.count for s in self.steps for c in s.cards if c.holder is holder)

    def _best(self, holder: Holder, step: str, conditions: frozenset[When]) -> int | None:
        """How many first cards of a ``holder`` hand are face up in ``step`` when ``conditions``
        hold (None: all of them)."""
        best = 0
        for r in self.reveals:
            if r.holder is not holder or (r.steps is not None and step not in r.steps) or r.when not in conditions:
                continue
            if r.cards is None:
                return None
            best = max(best, r.cards)
        return best

    def _seat_best(self, step: str, exposed: bool, turned: bool) -> int | None:
        """:meth:`_best` of a seat's hand, remembered."""
        key = (Holder.SEAT.value, step, exposed, turned)
        try:
            return self._best_seen[key]
        except KeyError:
            conditions = {When.ALWAYS}
            if exposed:
                conditions.add(When.EXPOSED)
            if turned:
                conditions.add(When.TURNED)
            best = self._best_seen[key] = self._best(Holder.SEAT, step, frozenset(conditions))
            return best

    def _shared_best(self, step: str, in_play: bool) -> int | None:
        """:meth:`_best` of the shared hand (the dealer's or the community cards), remembered."""
        key = (self.shared.value, step, in_play)
        try:
            return self._best_seen[key]
        except KeyError:
            conditions = frozenset({When.ALWAYS, When.IN_PLAY}) if in_play else frozenset({When.ALWAYS})
            best = self._best_seen[key] = self._best(self.shared, step, conditions)
            return best

    def shown(
        self,
        step: str,
        seats: Iterable[tuple[int, tuple[str, ...], bool, bool]] = (),
        dealer: Sequence[str] = (),
        turned: Iterable[int] = (),
    ) -> Shown:
        """The cards face up in ``step`` (the step whose reveals apply). ``seats``: each seat's
        number, cards, whether it folded and whether it exposed its hand; ``dealer``: the
        dealer's (or community) cards; ``turned``: the seats whose hands the dealer has turned."""
        label = self.shared.value
        if step in NOTHING_SHOWN:
            return Shown((), (), label)
        hands = list(seats)
        in_play = any(not folded for _, _, folded, _ in hands)
        face = set(turned)
        fold = bool(self.folded_unexposed)
        seat_best = self._seat_best
        out: list[tuple[int, tuple[str | None, ...]]] = []
        for number, cards, folded, exposed in hands:
            if folded and fold:
                out.append((number, ()))
                continue
            out.append((number, _cards(cards, seat_best(step, exposed, number in face))))
        return Shown(tuple(out), _cards(dealer, self._shared_best(step, in_play)), label)


@dataclass(frozen=True, slots=True)
class Step:
    """One step (phase) of the round and the rule it follows."""

    name: str
    cite: str


class RecordRules(Protocol):
    """What the rules layer gives of a game (its ``controller.game.record._spec.GameSpec``): the round
    record's reader and settlement, and where its par sheet is made. A protocol, so that this
    module imports nothing above the rules' vocabulary (the registry imports it)."""

    @property
    def name(self) -> str:
        """The game's name."""

    @property
    def read_round(self) -> Callable[..., object]:
        """``(data, table) -> round``: check a round record (raise ``RecordError``)."""

    @property
    def settle(self) -> Callable[..., Settlement]:
        """``(round, table) -> Settlement``: the pure settlement of a round."""

    @property
    def par(self) -> str:
        """``"module:function"`` giving a table's par sheet."""


@dataclass(frozen=True, slots=True)
class TableNames:
    """Where a game's table-side parts live (``"module:attribute"``, imported on first use)."""

    machine: str
    """The round machine class (a ``controller.table.round.RoundTable``)."""
    hooks: str
    """The :class:`~controller.game.hooks.TableHooks` reading a running table."""
    player: str
    """The bench's simulated players and dealer (a ``hil.bench.Player``); the simulation's too."""
    guide: str
    """The dealer guide's scripted round (``() -> list[Act]``)."""


@dataclass(frozen=True, slots=True)
class GameDefinition:
    """Everything a game is. Data where data can say it; ``"module:attribute"`` names for what
    lives in another layer (resolved by the methods below on first use)."""

    name: str
    """As written in table configs, records and on the command line."""
    title: str
    """The game's plain name (``Boston 5``)."""
    regulation: str
    """The rule it is dealt under (``N.J.A.C. 13:69F-24``)."""
    catalog: GameCatalog
    spec: RecordRules
    """The rules layer (its ``GameSpec``): the round record's reader, settlement and writer, and the par sheet."""
    deal: DealPlan
    deck: int
    """Cards in the deck (pai gow: 53 with the joker)."""
    bet_spots: tuple[str, ...]
    """The spots a player's chips may be on before the deal."""
    required_spots: tuple[str, ...]
    """Spots a seat must bet to play the round."""
    spot_names: tuple[str, ...]
    """Every spot of the layout the table's sensors name."""
    page_spots: tuple[str, ...]
    """The spots of each seat in the order the page shows them."""
    guide_title: str
    steps: tuple[Step, ...] = ()
    """The round's steps, in order, with their rules."""
    regulation_minimums: Mapping[str, tuple[int, str]] = field(default_factory=dict)
    """Wager minimums the regulation fixes, cents, by spot, with the rule: a table minimum may be
    higher, never lower."""
    strategy: str = ""
    """``"module:function"`` giving ``(head, rows)`` of ``tablectl par --strategy`` for a table."""
    paid_on: Mapping[str, str] = field(default_factory=dict)
    """Payout lines that are not wagers of their own, by the wager they are paid on (an ante bonus
    paid on the ante): their handle is that wager's, as the par sheet's edge is per unit of it."""
    table: TableNames | None = None
    """The table side; ``None``: the game is not dealt at a table yet (the rules layer only)."""

    @property
    def rules(self) -> HandRules:
        """How the game ranks hands."""
        return self.catalog.rules

    @property
    def read_round(self) -> Callable[..., object]:
        """Check a round record (raise ``RecordError``) and give the round to settle."""
        return self.spec.read_round

    @property
    def settle(self) -> Callable[..., Settlement]:
        """The pure settlement of a round."""
        return self.spec.settle

    @property
    def at_table(self) -> bool:
        """The game is dealt at a table (it has a round machine)."""
        return self.table is not None

    def _table(self) -> TableNames:
        if self.table is None:
            raise LookupError(f"{self.title} is not dealt at a table yet")
        return self.table

    def machine(self) -> Any:
        """The round machine class (imported now)."""
        return load(self._table().machine)

    def phases(self) -> tuple[Enum, ...]:
        """The round machine's states, in order (the machine imported now)."""
        states: tuple[Enum, ...] = self.machine().STATES
        return states

    def hooks(self) -> TableHooks:
        """The table-reading hooks (imported now)."""
        hooks = load(self._table().hooks)
        if not isinstance(hooks, TableHooks):
            raise TypeError(f"{self._table().hooks} is not a TableHooks")
        return hooks

    def player(self) -> Any:
        """The bench's (and the simulation's) simulated players class (imported now)."""
        return load(self._table().player)

    def guide(self) -> Any:
        """The dealer guide's scripted round (imported now)."""
        return load(self._table().guide)

"""The bench table: simulated devices on ptys, the real controller on those ptys, and simulated
players and dealer. By default (``strategy="par"``) the players play the par strategy the par
sheet assumes (controller.par): Mississippi Stud's optimal street bets, Boston 5's computed
second-wager rule and every paying bonus hand exposed, pai gow hands set by the house way. With
``strategy="random"`` they make legal random decisions for fuzzing the machines (Mississippi
Stud: a simple third-street strategy and random later folds; Boston 5: a simple second-wager
rule with random withdrawals; pai gow: now and then a set other than the house way). What
``tablectl bench`` runs; on a durable journal it can be killed and started again."""

from __future__ import annotations

import random
import signal
import statistics
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field, replace
from functools import cache
from pathlib import Path
from typing import Any, TypedDict

from tqdm import tqdm

from controller.configuration import TableConfig, boston5_options, pai_gow_options
from controller.game.definition import GameDefinition
from controller.game.registry import ByGame
from controller.host import Wakeup
from controller.journal import SqliteJournal
from controller.journal.recall import recall, recall_json
from controller.table.base import RoundResult
from controller.table.journal_files import journal_key, open_journal
from controller.table.latest import LatestSnapshot, SnapshotSource, SnapshotTimeout
from controller.table.resettle import Verifier, canonical
from controller.table.runtime import RuntimePorts, TableRuntime
from controller.table.snapshot import PlayerHands, TableSnapshot
from controller.vocab import Card, card, deck
from drivers.link import LinkConfig
from hil.devices import BetSpotSim, PanelSim, ShoeSim
from hil.faults import Faults
from hil.hold_summary import HoldTally, ParSheetLike, summary_lines
from hil.progress import logging_above
from hil.serve import PtyServer

__all__ = [
    "BenchSummary",
    "run_bench",
    "FAULT_PROFILES",
    "STRATEGIES",
    "BENCH_LINK",
    "BenchFailure",
    "BenchStopped",
    "BenchView",
    "StopSignals",
]

STRATEGIES = ("par", "random")
"""How the simulated players decide: the par sheet's strategy, or legal random decisions."""


class FaultRates(TypedDict, total=False):
    """The fault rates of a bench profile (the rate fields of :class:`hil.faults.Faults`)."""

    flip: float
    drop: float
    drop_in: float
    duplicate: float
    split: float
    garbage: float
    delay_s: float


FAULT_PROFILES: dict[str, FaultRates] = {
    "none": {},
    "noisy": {"flip": 0.01, "drop": 0.01, "duplicate": 0.005, "split": 0.05, "garbage": 0.01},
}

BENCH_LINK = LinkConfig(link_down_s=30.0, retries=1_000, write_timeout_s=30.0)
"""The links' timing at the bench. The simulators are threads of the bench's own process: on a
loaded machine the whole process can be starved for over a second (seen at load 20-40 on 2 cores:
every link "down" at once, the cards dealt meanwhile then waiting for a supervisor the bench does
not have). So silence means down only after 30 s, a command is sent again until then rather
than failing after three tries, and a write may take as long (pyserial fails a write its thread
finished late, even one whose bytes all went out). A pulled pty is still down at once (a read error, not a silence);
a lost or damaged reply is still sent again after ``response_timeout_s``, as at a real table."""


MANUAL_POLL_S = LinkConfig().poll_interval_s
"""The shortest poll interval at a ``--manual`` bench: the protocol's default (docs/protocol.md,
section 4.1). The bench configs poll every 2 ms so that simulated players, acting as fast as the
machine allows, are not slowed by the event order's wait for every device's report; a page
played by hand gains nothing from it, and an idle table polling every 2 ms costs a fifth of a core."""


def manual_paced(table: TableConfig) -> TableConfig:
    """``table`` with each device polled at least every :data:`MANUAL_POLL_S` (``--manual``)."""
    devices = {
        role: replace(device, poll_interval_s=max(device.poll_interval_s, MANUAL_POLL_S))
        for role, device in table.devices.items()
    }
    return replace(table, devices=devices)


class BenchFailure(Exception):
    """The bench cannot go on; the text says why in one line (what it waited for, where the table is)."""


class BenchStopped(Exception):
    """A signal (SIGINT, SIGTERM) stopped the bench at a wait; the text names it."""


class StopSignals:
    """SIGINT and SIGTERM noted, never raised: the bench's players stop at their next wait
    (:class:`BenchView` looks at least every ``SLICE_S``), the table stops between events, and
    the summary is printed. Installed on entering (main thread only), the old handlers put back
    on leaving. Each signal also sets :attr:`woken`, whose pipe is the interpreter's wake-up fd
    (:meth:`Wakeup.on_signals`): a main thread asleep on it with no timeout wakes whichever thread
    took the signal."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.received: str | None = None
        """The first signal's name, once one came."""
        self.woken = Wakeup()
        """Set by each signal (and by whoever else shares it: the bench's rounds)."""

    def _note(self, sig: signal.Signals) -> None:
        if self.received is None:
            self.received = sig.name

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            self.woken.on_signals(*self.SIGNALS, note=self._note)
        return self

    def __exit__(self, *exc: object) -> None:
        self.woken.close()


def _needs_supervisor(s: TableSnapshot) -> bool:
    """The table holds for something only a supervisor clears (or its machine failed)."""
    return (s.hold is not None and not s.hold.by_itself) or s.machine_error is not None


def _where(s: TableSnapshot | None) -> str:
    """Where the table is, in words, for a failure's line."""
    if s is None:
        return "no snapshot of the table yet"
    where = f"round {s.round_no}, table in {s.step}"
    if s.hold is not None:
        where += f": {s.hold.reason}; clears {s.hold.clears}"
    return where


class BenchView:
    """The bench players' view of the table (a :class:`SnapshotSource`): the latest snapshot,
    with waits for a state that fit a bench on a busy machine.

    A wait looks at least every ``SLICE_S`` for a stop (:class:`StopSignals`: raises
    :class:`BenchStopped`) and otherwise only ends on the state, or after its (generous) timeout
    with a :class:`BenchFailure` naming what it waited for and where the table is. It ends at once
    when the table holds for something only a supervisor clears: the bench has none, so waiting
    could only time out."""

    SLICE_S = 0.2

    def __init__(self, latest: LatestSnapshot, stop: StopSignals | None = None) -> None:
        self.latest, self.stop = latest, stop

    def get(self) -> TableSnapshot:
        return self.latest.get()

    def hands(self) -> PlayerHands | None:
        return self.latest.hands()

    def _check_stop(self) -> None:
        if self.stop is not None and self.stop.received is not None:
            raise BenchStopped(f"stopped by {self.stop.received}")

    def wait(self, cond: Callable[[TableSnapshot], bool], what: str, timeout: float = 60.0) -> TableSnapshot:
        """The first snapshot for which ``cond`` holds (see the class)."""
        deadline = time.monotonic() + timeout
        while True:
            self._check_stop()
            left = deadline - time.monotonic()
            try:
                s = self.latest.wait(lambda x: cond(x) or _needs_supervisor(x), what, max(0.0, min(left, self.SLICE_S)))
            except SnapshotTimeout:
                if left > self.SLICE_S:
                    continue
                raise BenchFailure(
                    f"timed out after {timeout:.0f} s waiting for {what} ({_where(self.latest.current())})"
                ) from None
            if cond(s):
                return s
            if s.machine_error is not None:
                raise BenchFailure(
                    f"the table's machine failed ({s.machine_error}) while waiting for {what} ({_where(s)})"
                )
            assert s.hold is not None
            raise BenchFailure(
                f"the table holds for the supervisor, and the bench has none ({_where(s)}); it was waiting for {what}"
            )


@dataclass
class BenchSummary:
    """What a bench run did."""

    rounds: int = 0
    handle: int = 0
    house_net: int = 0
    faults: int = 0
    link_downs: int = 0
    holds: int = 0
    seconds: float = 0.0
    latencies: list[float] = field(default_factory=list)
    tally: HoldTally = field(default_factory=HoldTally)
    """Handle and house win per wager spot (the hold-versus-par table)."""
    par: ParSheetLike | None = None
    """The par sheet the holds are set beside (``tablectl bench`` looks it up; it can take seconds)."""
    played: str | None = None
    """The strategy the players played (``None``: the one the par sheet assumes)."""
    spots: tuple[str, ...] = ()
    """The game's wager spots, in the order the summary lists them."""
    verified: int = 0
    """Rounds re-settled from their recalled records by `tablectl settle` in a separate process."""
    differ: list[int] = field(default_factory=list)
    """Numbers of the rounds whose re-settlement differs from what the table paid."""
    wanted: int = 0
    """The rounds this run was to finish."""
    failure: str | None = None
    """Why the run could not go on, in one line (None: it did not fail)."""
    stopped: str | None = None
    """The signal that stopped the run (``SIGINT``, ``SIGTERM``), if one did."""
    manual: bool = False
    """Played from the web page's controls (``--manual``): as many rounds as the page played."""

    @property
    def mismatches(self) -> int:
        return len(self.differ)

    @property
    def exit_status(self) -> int:
        """0 when every round wanted was played and re-settled the same; 128 + the signal's
        number when a signal stopped the run; 1 on a failure or a difference."""
        if self.stopped is not None:
            return 128 + int(signal.Signals[self.stopped])
        return 1 if self.failure is not None or self.mismatches or self.rounds < self.wanted else 0

    def result(self) -> str:
        """The run's outcome in one line."""
        of = f"{self.rounds} of {self.wanted} rounds"
        if self.failure is not None:
            return f"FAILED after {of}: {self.failure}"
        if self.stopped is not None:
            return f"stopped by {self.stopped} after {of} (a round left open is finished first on the next run)"
        if self.mismatches:
            return f"FAILED: {self.mismatches} of {self.verified} rounds differ when re-settled"
        if self.rounds < self.wanted:
            return f"FAILED: only {of} finished"
        if self.manual:
            return f"manual session: {self.rounds} rounds played, every settled round re-settled the same"
        return f"passed: {of}, every settled round re-settled the same"

    @property
    def hold_percent(self) -> float:
        return 100.0 * self.house_net / self.handle if self.handle else 0.0

    def lines(self) -> list[str]:
        p99 = statistics.quantiles(self.latencies, n=100)[98] * 1000 if len(self.latencies) > 1 else 0.0
        paid = self.rounds - self.tally.voids
        shown = ", ".join(map(str, self.differ[:10]))
        return [
            f"rounds      {self.rounds} in {self.seconds:.1f} s ({self.rounds / self.seconds if self.seconds else 0:.1f}/s)",
            *summary_lines(self.tally, self.par, self.played, self.spots),
            f"faults      {self.faults} device faults, {self.link_downs} link downs"
            + (" (all recovered)" if self.failure is None else ""),
            f"holds       {self.holds}",
            f"latency     p99 {p99:.2f} ms from a device event to the controller acting on it",
            f"settlement  {self.verified} of {paid} settled rounds re-settled from their recalled records by "
            f"`tablectl settle` in a separate process: {self.mismatches} differ"
            + (f" (rounds {shown})" if shown else ""),
            f"result      {self.result()}",
        ]


def _ranks(cards: list[Card]) -> list[int]:
    """The ranks of ``cards`` (Mississippi Stud deals no joker)."""
    ranks = [c.rank for c in cards]
    assert None not in ranks, "no joker in a Mississippi Stud deck"
    return [int(r) for r in ranks if r is not None]


def _third_street(cards: list[Card]) -> int:
    """Third street by points, in the style of published basic strategy: a pair of 6s or better
    3x, any lower pair 1x; otherwise 1x with at least two points (J-A two, 6-10 one) or a suited
    6-5, else fold (0)."""
    ranks = sorted(_ranks(cards), reverse=True)
    if ranks[0] == ranks[1]:
        return 3 if ranks[0] >= 6 else 1
    points = sum(2 if r >= 11 else 1 if r >= 6 else 0 for r in ranks)
    if points >= 2 or (ranks == [6, 5] and cards[0].suit is cards[1].suit):
        return 1
    return 0


def _later_street(cards: list[Card], rng: random.Random) -> int:
    """Fourth and fifth street: 3x with a paying pair (jacks or better) or more, 1x with a pair of
    6s to 10s, otherwise 1x seven times in ten and a fold the rest."""
    ranks = _ranks(cards)
    pairs = [r for r in set(ranks) if ranks.count(r) >= 2]
    if pairs and max(pairs) >= 11 or len(pairs) >= 2:
        return 3
    if pairs and max(pairs) >= 6:
        return 1
    return 1 if rng.random() < 0.7 else 0


Cond = Callable[[TableSnapshot], bool]


@cache
def _deck_texts(joker: bool) -> tuple[str, ...]:
    """The texts of a full deck in its fixed order (each round's shoe is shuffled from them)."""
    return tuple(str(c) for c in deck(joker=joker))


class Player:
    """The simulated players and dealer of one bench table, acting on what the table shows.

    They read only the table's snapshots (``view``: published by the controller thread at the
    bench, built on demand in the soak) and wait for states in them, never reading the table from
    another thread; each player looks at its own hole cards (:class:`PlayerHands`) as a player
    at a real table looks at his.

    Every decision is drawn from a generator seeded with the bench seed, the round number and
    what is decided (never from a generator shared across decisions), and every action checks
    what the table already has first; so a bench killed at any point and started again on the
    same journal makes the same decisions as one never stopped.
    """

    in_order = False
    """Whether each event sent is handled before the next is sent and before a wait (the soak's
    in-process devices): then a wait whose state a later wait also shows is left to that one (at
    the bench the bet spots and the panel are separate links, and a press may overtake a report)."""

    WAIT_S = 120.0
    """How long a player waits for the table to show the effect of an action (generous: a
    loaded machine is slow, never wrong)."""

    arrange: Callable[[ShoeSim, TableSnapshot, int], None] | None = None
    """Set by the simulation for a stacked shoe: puts chosen cards where the next ones are dealt
    to (``shoe``, the snapshot, the total the deal goes to), before the dealer deals them."""

    def __init__(
        self,
        view: SnapshotSource,
        sims: dict[str, Any],
        table: TableConfig,
        seats: int,
        seed: int,
        strategy: str = "par",
    ) -> None:
        self.view, self.table, self.seats, self.seed = view, table, seats, seed
        self.par = strategy == "par"
        self.shoe, self.spots, self.panel = sims["shoe"], sims["bet_spots"], sims["panel"]
        self.loaded = 0  # the round whose cards are in the shoe

    def rng(self, s: TableSnapshot, *what: object) -> random.Random:
        return random.Random("/".join(str(x) for x in (self.seed, s.round_no, *what)))

    def wait(self, cond: Cond, what: str, timeout: float | None = None) -> None:
        self.view.wait(cond, what, self.WAIT_S if timeout is None else timeout)

    def own_hands(self) -> PlayerHands:
        """The players' own hands now: read once for a step in which no card is dealt (each
        decision acted on is an event, and a soak's hands are made again after each)."""
        hands = self.view.hands()
        assert hands is not None, "the bench publishes the players' hands"
        return hands

    def own_cards(self, seat: int, hands: PlayerHands | None = None) -> list[Card]:
        """Seat ``seat``'s own hand, as its player sees it (in ``hands`` when given, else now)."""
        return [card(c) for c in (hands or self.own_hands()).of(seat)]

    def act(self) -> None:
        """One step of the round from the state the table shows (waits for its effect)."""
        s = self.confirm_notices()
        handler = getattr(self, f"on_{s.step}", None)
        if handler is None:  # hold (a link comes back by itself), round complete, void: transient
            why = f" ({s.hold.reason})" if s.hold is not None else ""
            step = s.step
            self.wait(lambda x: x.step != step, f"the table to leave {step}{why}")
        else:
            handler(s)

    def wagers(self, rng: random.Random) -> dict[str, int]:
        raise NotImplementedError

    def on_betting(self, s: TableSnapshot) -> None:
        rng = self.rng(s, "bets")
        wanted = {seat: self.wagers(rng) for seat in sorted(rng.sample(range(1, self.table.seats + 1), self.seats))}
        have = s.wagers()
        for seat, spots in wanted.items():
            for spot, cents in spots.items():
                if have.get(seat, {}).get(spot) != cents:
                    self.spots.place(seat, spot, cents)
        for seat, spots in have.items():  # chips the table counts that no player wants (a voided
            for spot in spots:  # round's, say, never taken back) are taken off: it waits for exactly these
                if spot not in wanted.get(seat, {}):
                    self.spots.place(seat, spot, 0)
        if self.in_order:  # the reports are handled before the press: one wait shows both
            self.before_no_more_bets(wanted)
            self.panel.press("no_more_bets")
            self.wait(lambda x: x.step != "betting" and x.wagers() == wanted, "bets to register, then no_more_bets")
            return
        self.wait(lambda x: x.wagers() == wanted, "bets to register")
        self.before_no_more_bets(wanted)
        self.press("no_more_bets", lambda x: x.step != "betting")

    def confirm_notices(self) -> TableSnapshot:
        """Read and confirm what the screen holds for the dealer (a fold's collection, a void's
        returns); returns the snapshot after."""
        s = self.view.get()
        while s.notices:
            seen = (len(s.notices), s.notice_page)
            # a confirm turns a notice's page or confirms it, so each notice shown takes at least
            # one: that many presses never reach past the notices (one wait for them all)
            for _ in range(len(s.notices) - 1):
                self.panel.press("confirm")
            s = self.press("confirm", lambda x: (len(x.notices), x.notice_page) != seen)
        return s

    def before_no_more_bets(self, wanted: dict[int, dict[str, int]]) -> None:
        """What the dealer places before "no more bets" besides the players' wagers (subclasses)."""

    def press(self, button: str, done: Cond) -> TableSnapshot:
        """Press ``button``, wait until ``done`` shows its effect; the snapshot then."""
        self.panel.press(button)
        self.wait(done, f"{button} to register")
        return self.view.get()

    def restore_shoe(self) -> None:
        """After a restart: the shoe holds this round's cards, as many dealt as the table has, and
        the spots their chips (a real table keeps both through a restart; the simulators have to
        be told)."""
        s = self.view.get()
        if s.step not in ("betting", "no_more_bets", "closed"):
            self.load_shoe(s)
        self.spots.chips.update(dict(s.spot_levels))

    def load_shoe(self, s: TableSnapshot) -> None:
        cards = list(_deck_texts(s.deck_size == 53))  # shuffled as texts: the same order as the cards
        self.rng(s, "shoe").shuffle(cards)
        self.shoe.load(cards)
        self.shoe.dealt, self.loaded = s.dealt, s.round_no

    def deal_to(self, s: TableSnapshot, total: int) -> None:
        """Deal from this round's shoe until the table has ``total`` cards (from where it is)."""
        if self.loaded != s.round_no or self.shoe.dealt < s.dealt:  # a new round
            self.load_shoe(s)
        if total > self.shoe.dealt:  # cards already out of the shoe (a link down) arrive by themselves
            if self.arrange is not None:
                self.arrange(self.shoe, s, total)
            self.shoe.deal(total - self.shoe.dealt)
        self.wait(lambda x: x.dealt >= total or x.step == "hold", "the cards")

    def on_settlement(self, s: TableSnapshot) -> None:
        """Confirm each step shown; every step left is known, so one wait for the round's end."""
        if s.notices:
            return  # read first (act confirms them)
        for _ in range(s.steps_left):
            self.panel.press("confirm")
        number = s.round_no
        self.press("confirm", lambda x: x.step != "settlement" or x.round_no != number)

    def on_count_stub(self, s: TableSnapshot) -> None:
        """The shoe answers the controller's request (asked again after a link-down, so it comes;
        a count by hand after some seconds would make the round's record depend on the machine's
        speed)."""
        self.wait(lambda x: x.step != "count_stub", "the shoe's stub count")


class MississippiPlayer(Player):
    """Antes (some a bonus); each street a bet by points or a fold; the dealer reveals."""

    def wagers(self, rng: random.Random) -> dict[str, int]:
        return {"ante": rng.choice([500, 1000, 2500]), **({"bonus": 100} if rng.random() < 0.3 else {})}

    def on_no_more_bets(self, s: TableSnapshot) -> None:
        self.deal_to(s, 2 * len(s.seats) + 3)

    on_dealing = on_no_more_bets

    def on_street(self, s: TableSnapshot) -> None:
        street = s.game_view.street
        assert street is not None
        shown = ("third", "fourth", "fifth").index(street)
        community = [card(c) for c in s.dealer[:shown] if c is not None]
        if self.par:
            decide = _mississippi_decision()
        deciding = [seat for seat in s.in_play() if street not in seat.acted]
        hands = self.own_hands()  # once: each bet placed is an event, and the hands do not change
        for seat in deciding:
            cards = [card(c) for c in hands.of(seat.number)]
            if self.par:
                mult = decide(cards, community, paytable=self.table.paytables["main"])
            elif street == "third":
                mult = _third_street(cards)
            else:
                mult = _later_street(cards + community, self.rng(s, seat.number, street))
            if mult:
                ante = seat.wager("ante")
                assert ante is not None
                self.spots.place(seat.number, street, mult * ante)
            else:
                self.panel.press(f"seat_{seat.number}")  # the panel's presses arrive in order: one wait for all
                self.panel.press("fold")
        numbers = [seat.number for seat in deciding]
        self.wait(lambda x: all(street in _acted(x, n) for n in numbers), f"the {street} street decisions")
        self.confirm_notices()
        self.press("reveal", lambda x: x.game_view.street != street)

    on_third_street = on_fourth_street = on_fifth_street = on_street


def _mississippi_decision() -> Callable[..., int]:
    """The par strategy's Mississippi Stud decision (numpy and the strategy tables: imported
    only when used, and looked up once)."""
    global _DECIDE
    if _DECIDE is None:
        from controller.par import mississippi_decision

        _DECIDE = mississippi_decision
    return _DECIDE


_DECIDE: Callable[..., int] | None = None


def _acted(s: TableSnapshot, seat: int) -> tuple[str, ...]:
    view = s.seat(seat)
    return view.acted if view is not None else ()


class Boston5Player(Player):
    """Ante and first (some a bonus). Par: every paying bonus hand exposed, the computed second
    wager rule. Random: bonus hands with a pair or better exposed; a second wager with a pair or
    an ace or king, else a fold (now and then a withdrawal)."""

    def wagers(self, rng: random.Random) -> dict[str, int]:
        ante = rng.choice([500, 1000, 2500])
        multiple = boston5_options(self.table)["first_to_ante"]
        return {"ante": ante, "first": multiple * ante, **({"bonus": 500} if rng.random() < 0.3 else {})}

    def first_count(self, s: TableSnapshot) -> int:
        return 3 * len(s.seats) + 3

    def on_no_more_bets(self, s: TableSnapshot) -> None:
        self.deal_to(s, self.first_count(s))

    on_first_deal = on_no_more_bets

    def on_bonus(self, s: TableSnapshot) -> None:
        hands = self.own_hands()
        for seat in s.seats:
            if seat.wager("bonus") is None:
                continue
            cards = self.own_cards(seat.number, hands)[:3]
            if self.par:
                from controller.par import boston5_expose

                wanted = boston5_expose(cards, paytable=self.table.paytables["bonus"])
            else:
                wanted = len({c.rank for c in cards}) < 3
            if seat.exposed != wanted:
                n = seat.number
                self.press(f"seat_{n}", lambda x: _exposed(x, n) == wanted)
        self.press("next", lambda x: x.step != "bonus")

    def on_bonus_settlement(self, s: TableSnapshot) -> None:
        step = s.game_view.bonus_step
        self.press("confirm", lambda x: x.step != "bonus_settlement" or x.game_view.bonus_step != step)

    def on_second_wager(self, s: TableSnapshot) -> None:
        """Each seat's decision (a second wager, a fold, now and then a withdrawal); then one wait
        for them all (each device's reports arrive in order)."""
        decided: list[int] = []
        withdrawn: list[tuple[int, int]] = []
        hands = self.own_hands()
        for seat in s.seats:
            if seat.folded_at is not None:
                continue
            n = seat.number
            cards = self.own_cards(n, hands)[:3]
            ranks = [c.rank for c in cards]
            rng = self.rng(s, n, "second")
            if self.par:
                from controller.par import boston5_raise

                plays, withdraw = boston5_raise(cards, table=self.table), False
            else:
                plays = len(set(ranks)) < 3 or max(r for r in ranks if r is not None) >= 13 or rng.random() < 0.3
                withdraw = plays and rng.random() < 0.05
            first = seat.wager("first")
            assert first is not None
            if plays and seat.wager("second") is None:
                self.spots.place(n, "second", first)
                if withdraw:
                    withdrawn.append((n, first))
                else:
                    decided.append(n)
            elif not plays:
                self.panel.press(f"seat_{n}")
                self.panel.press("fold")
                decided.append(n)
            else:
                decided.append(n)
        if withdrawn:  # withdrawn before the final cards (24.10(c)): once the second wager is there
            self.wait(lambda x: all(_has(x, n, "second") for n, _ in withdrawn), "the second wagers")
            for n, _ in withdrawn:
                self.spots.place(n, "second", 0)
        self.wait(
            lambda x: (
                all(_has(x, n, "second") or _folded(x, n) for n in decided) and all(_folded(x, n) for n, _ in withdrawn)
            ),
            "the second wagers and folds",
        )
        self.confirm_notices()
        self.press("deal", lambda x: x.step != "second_wager")

    def on_final_deal(self, s: TableSnapshot) -> None:
        self.deal_to(s, self.first_count(s) + 2 * len(s.in_play()) + 2)


def _exposed(s: TableSnapshot, seat: int) -> bool:
    view = s.seat(seat)
    return view is not None and view.exposed


def _folded(s: TableSnapshot, seat: int) -> bool:
    view = s.seat(seat)
    return view is not None and view.folded_at is not None


def _has(s: TableSnapshot, seat: int, spot: str) -> bool:
    view = s.seat(seat)
    return view is not None and view.wager(spot) is not None


class PaiGowPlayer(Player):
    """Pai gow wagers (some a bonus or insurance); the dice total; seven hands of seven; each set
    confirmed: the house way (par), or now and then another legal set (random)."""

    def wagers(self, rng: random.Random) -> dict[str, int]:
        w = {"pai_gow": rng.choice([1000, 2500])}
        if rng.random() < 0.4:
            w["bonus"] = rng.choice([100, 500])
        if rng.random() < 0.2:
            w["insurance"] = 100
        return w

    def before_no_more_bets(self, wanted: dict[int, dict[str, int]]) -> None:
        envy = pai_gow_options(self.table)["envy_minimum"]
        marked = {n for n, w in wanted.items() if w.get("bonus", 0) >= envy}
        for n in sorted(marked - set(self.view.get().game_view.markers)):
            self.spots.place(n, "envy_marker", 1)  # 11.15(c): the dealer places the envy marker
        self.wait(lambda x: set(x.game_view.markers) == marked, "the envy markers")

    def on_no_more_bets(self, s: TableSnapshot) -> None:
        if self.table.options["start_method"] != "dice":  # the controller draws the number
            self.wait(lambda x: x.step != "no_more_bets", "the starting number")
            return
        dice = sum(self.rng(s, "dice").randint(1, 6) for _ in range(3))
        shown = s.game_view.dice
        if self.in_order and shown is not None and shown != dice:
            # each press is handled when sent, in order: the same presses, one wait for them all
            for _ in range(abs(dice - shown)):
                self.panel.press("next" if shown < dice else "previous")
            self.wait(lambda x: x.game_view.dice == dice or x.step != "no_more_bets", "the dice total")
            s = self.view.get()
        while s.game_view.dice != dice:
            shown = s.game_view.dice
            assert shown is not None
            s = self.press("next" if shown < dice else "previous", lambda x: x.game_view.dice != shown)
        self.press("confirm", lambda x: x.step != "no_more_bets")

    def on_dealing(self, s: TableSnapshot) -> None:
        self.deal_to(s, 49)

    def on_check_deal(self, s: TableSnapshot) -> None:
        """The shoe counts the cards left, as it counts the stub (:meth:`Player.on_count_stub`)."""
        self.wait(lambda x: x.step != "check_deal", "the shoe's count of the cards left")

    def on_set_hands(self, s: TableSnapshot) -> None:
        """The players set their hands and place them face down; the dealer confirms all are set."""
        self.press("confirm", lambda x: x.step != "set_hands")

    def on_setting(self, s: TableSnapshot) -> None:
        g = s.game_view
        done = len(g.set_seats)
        if done not in range(len(g.setting_order)) or g.setting_order[done] not in g.turned:
            step = s.step  # the next hand is turned once the step shown is confirmed (read first)
            self.wait(
                lambda x: bool(x.notices) or x.step != step or len(x.game_view.turned) > done, "the next hand turned"
            )
            return
        seat = g.setting_order[done]
        other = not self.par and self.rng(s, seat, "set").random() < 0.1
        if other and g.option_index == 0 and not g.all_listed:
            # the next legal set (the house way again if it is the only one)
            s = self.press("next", lambda x: x.game_view.all_listed)
        self.press("confirm", lambda x: x.step != "setting" or len(x.game_view.set_seats) > done)


class _HoldCount:
    """Counts the holds the table entered (told each step after each event, on the controller thread)."""

    def __init__(self) -> None:
        self.count, self.last = 0, ""

    def saw(self, step: str) -> None:
        if step == "hold" and self.last != "hold":
            self.count += 1
        self.last = step


def _player(game: GameDefinition) -> type[Player] | None:
    player: type[Player] | None = game.player() if game.at_table else None
    return player


PLAYERS: ByGame[type[Player]] = ByGame(_player)
"""Simulated players and dealer for each game the bench runs (each game's definition names its class)."""


def bench_dealer_badge(table: TableConfig) -> str | None:
    """The badge the bench's panel reads to sign its dealer in at a table with a roster: the first
    dealer's on the roster who has one (the bench knows no PIN: only hashes are on a roster).
    None without a roster; ValueError when no dealer has a badge."""
    roster = table.roster
    if roster is None:
        return None
    for person in roster.people.values():
        if person.role == "dealer" and person.badges:
            return person.badges[0]
    raise ValueError(
        f"{roster.path}: the bench signs its dealer in by badge and no dealer on the roster has one: "
        "give a dealer a badge (badges: [...]) or bench without a roster"
    )


def _dealer_sign_in(table: TableConfig, panel: PanelSim) -> Callable[[], None]:
    """What signs the bench's dealer in at its panel (nothing without a roster)."""
    badge = bench_dealer_badge(table)
    return (lambda: panel.read_badge(badge)) if badge is not None else (lambda: None)


def run_bench(
    table: TableConfig,
    seats: int,
    rounds: int,
    seed: int,
    faults: str = "none",
    progress: bool = True,
    journal_path: Path | str | None = None,
    resume: bool = False,
    strategy: str = "par",
    services: Sequence[Any] = (),
    attach: Callable[[TableRuntime, dict[str, Any], dict[str, PtyServer]], Callable[[], None]] | None = None,
    manual: bool = False,
    stop: StopSignals | None = None,
    fold_rounds: bool = True,
    after_start: Callable[[], None] = lambda: None,
) -> BenchSummary:
    """Play ``rounds`` rounds at a bench table; returns the summary.

    With ``journal_path`` the table journals durably there, and a journal left by an earlier
    run is recovered first: its open round is finished, then new rounds follow. ``resume``
    makes ``rounds`` the number of finished rounds the journal should hold (a run killed and
    started again with the same arguments ends as one never stopped). ``strategy``: ``par``
    (the par sheet's strategy) or ``random`` (legal random decisions, for fuzzing). ``services`` run beside
    the controller (:attr:`TableRuntime.services`: e.g. the floor forwarder).

    ``attach(runtime, sims, servers)`` is called before the table starts (e.g. the web view) and
    returns what to call when the bench stops. ``manual``: no simulated players; something else
    drives the simulators (the web page's controls) until the rounds are played or Ctrl-C.
    ``fold_rounds``: the journal's closed rounds folded into compact blocks, as a table does (off:
    kept as rows, to compare). ``after_start``: called once the table has started, before the
    players' first press (``tablectl bench``: :func:`~controller.table.runtime.freeze_start_up`,
    which a test's process, starting many tables, does not want).

    The summary is made whatever ends the run: every round finished so far is tallied and
    re-settled, and ``failure`` says in one line why the run could not go on (a wait that timed
    out and what it waited for, a hold only a supervisor clears, an error), ``stopped`` which
    signal stopped it (``stop``: SIGINT and SIGTERM noted by :class:`StopSignals`; a
    ``KeyboardInterrupt`` counts as SIGINT).
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r} (known: {', '.join(STRATEGIES)})")
    panel = PanelSim(address=3)
    sign_in = _dealer_sign_in(table, panel)
    sims = {"shoe": ShoeSim(address=1), "bet_spots": BetSpotSim(address=2), "panel": panel}
    summary = BenchSummary()
    # as `tablectl run` opens it: signed with the config's journal.hmac_key_file (a key readable by others refused)
    # its writer lock held until the runtime closes it: another writer is refused, naming this one
    journal = open_journal(table, ".", journal_path, "tablectl bench") if journal_path is not None else None
    played: list[RoundResult] = []

    def finished() -> int:
        return journal.round_count() if journal is not None else len(played)

    # round_done: a round finished, or a stop signal came (stop's, which the signal wakes on any
    # thread): a --manual bench looks at the count again
    with (
        tempfile.TemporaryDirectory(prefix="tablectl-bench-") as tmp,
        Wakeup() if stop is None else nullcontext(stop.woken) as round_done,
    ):
        servers = {
            role: PtyServer(sim, Faults(seed=seed + i, **FAULT_PROFILES[faults]), Path(tmp) / role)
            for i, (role, sim) in enumerate(sims.items())
        }
        urls = {role: server.start() for role, server in servers.items()}

        def on_round(result: RoundResult) -> None:
            played.append(result)
            round_done.set()

        runtime = TableRuntime(
            manual_paced(table) if manual else table,
            urls,
            journal,
            on_round=on_round,
            link_base=BENCH_LINK,
            ports=RuntimePorts(
                share_hands=not manual, fold_rounds=fold_rounds
            ),  # the simulated players look at their own cards
        )
        runtime.services.extend(services)
        holds = _HoldCount()

        runtime.observers.append(lambda event: holds.saw(runtime.snapshot.step))
        before = finished()
        target = rounds if resume else before + rounds
        summary.wanted = max(0, target - before)
        view = BenchView(runtime.latest, stop)
        player = PLAYERS[table.game](view, sims, table, seats, seed, strategy)
        detach = None
        start = time.monotonic()
        tqdm.monitor_interval = 0  # no monitor thread: the bar is updated from this thread only
        bar = tqdm(
            total=target, initial=min(before, target), unit="round", disable=None if progress else True, file=sys.stderr
        )
        with logging_above(bar):  # what the table logs (a link's counters) is written above the bar
            try:
                if attach is not None:
                    detach = attach(runtime, sims, servers)
                runtime.start(after_recovery=player.restore_shoe)  # a journal it cannot recover: raised
                after_start()
                sign_in()  # before the players' first press: the panel's events keep their order
                try:
                    _play(view, player, finished, target, bar, manual, stop, round_done, runtime.prepared_version)
                except BenchStopped:
                    pass  # stop.received names the signal
                except KeyboardInterrupt:
                    if not manual:
                        summary.stopped = "SIGINT"
                except BenchFailure as exc:
                    summary.failure = str(exc)
                except Exception as exc:  # a bug: named by its kind and place (its text may name a card face down)
                    summary.failure = _error_line(exc)
            finally:
                summary.seconds = time.monotonic() - start
                if detach is not None:
                    detach()
                runtime.stop()
                for server in servers.values():
                    server.close()
                bar.close()
    records = _tally(summary, table, journal_path, before, played, runtime)
    summary.rounds = summary.tally.rounds
    summary.handle, summary.house_net = summary.tally.handle, summary.tally.house
    summary.spots = table.catalog.wager_spots
    kinds = [r.kind for r in records]
    summary.faults = kinds.count("DeviceFault")
    summary.link_downs = kinds.count("LinkDown")
    summary.holds = holds.count
    summary.latencies = list(runtime.latencies)
    if manual:  # the page decides how many rounds are played: Ctrl-C is its end, not a failure
        summary.wanted, summary.manual = min(summary.wanted, summary.rounds), True
    elif stop is not None and stop.received is not None:
        summary.stopped = stop.received
    return summary


def _tally(
    summary: BenchSummary,
    table: TableConfig,
    journal_path: Path | str | None,
    before: int,
    played: list[RoundResult],
    runtime: TableRuntime,
) -> list[Any]:
    """Tally the rounds the run finished into ``summary`` and re-settle each in a separate process
    (from the journal when there is one, else as played); returns the journal's records."""
    verifier = Verifier()
    try:
        if journal_path is not None:  # the journal was opened
            journal = SqliteJournal.open_readonly(journal_path, journal_key(table))
            count = len(journal.round_seqs()) - before
            recalled = recall(journal, last=count) if count > 0 else []
            records = list(journal.records())
            journal.close()
            for r in recalled:
                summary.tally.add(r.data["record"], r.data["settlement"])
                if not r.void:  # re-settled from the record as `tablectl recall --json` gives it
                    verifier.submit(r.number, recall_json(r, table.path), canonical(r.data["settlement"]))
        else:
            for result in played:
                summary.tally.add(result.record, result.settlement)
                if result.settlement is not None:
                    record = {**result.record, "table": table.path}
                    verifier.submit(result.number, record, canonical(result.settlement.to_json()))
            records = list(runtime.engine.journal.records())
    finally:
        summary.verified, summary.differ = verifier.close()
    return records


def _play(
    view: BenchView,
    player: Player,
    finished: Callable[[], int],
    target: int,
    bar: Any,
    manual: bool,
    stop: StopSignals | None,
    round_done: Wakeup,
    prepared: int,
) -> None:
    """Play until the journal holds ``target`` finished rounds (or, ``manual``, until a stop).
    ``manual``: the page's controls drive the simulators; this thread sleeps until a round
    finishes or a stop signal comes (``round_done``), never to look. Nothing is done before the
    table is open and has handled its start (``prepared``: see :func:`table_started`)."""
    view.wait(table_started(prepared), "the table to open", Player.WAIT_S)
    while finished() < target:
        if manual:
            round_done.wait()
            round_done.clear()
            if stop is not None and stop.received is not None:
                return
            continue
        player.act()
        done = finished()
        if done > bar.n:
            bar.update(done - bar.n)


def table_started(prepared: int) -> Callable[[TableSnapshot], bool]:
    """The state the bench's players wait for before their first act: the table is open and
    has handled its start, its ``DevicesExpected``: a snapshot later than the one its start's
    preparation published (``prepared``: :attr:`TableRuntime.prepared_version`), read from the
    snapshots alone (nothing watches each event). A round recovered after a restart is published
    before that, without the hold in which each device is read again: acting on it deals a card
    into the hold."""
    return lambda x: x.version > prepared and x.step != "closed"


def _error_line(exc: BaseException) -> str:
    """An unexpected error in one line: its kind and where it was raised (file, line, function)."""
    where = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ is not None else []
    at = f" at {Path(where[0].filename).name}:{where[0].lineno} in {where[0].name}" if where else ""
    return f"bench error: {type(exc).__name__}{at}"

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
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from tqdm import tqdm

from controller.cards import Card, deck
from controller.journal import SqliteJournal
from controller.journal.recall import recall, recall_json
from controller.table.base import RoundResult
from controller.table.resettle import Verifier, canonical
from controller.table.runtime import TableRuntime
from controller.table_config import TableConfig
from hil.devices import BetSpotSim, PanelSim, ShoeSim
from hil.faults import Faults
from hil.hold_summary import HoldTally, ParSheetLike, summary_lines
from hil.serve import PtyServer

__all__ = ["BenchSummary", "run_bench", "FAULT_PROFILES", "STRATEGIES"]

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

    @property
    def mismatches(self) -> int:
        return len(self.differ)

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
            f"faults      {self.faults} device faults, {self.link_downs} link downs (all recovered)",
            f"holds       {self.holds}",
            f"latency     p99 {p99:.2f} ms from a device event to the controller acting on it",
            f"settlement  {self.verified} of {paid} settled rounds re-settled from their recalled records by "
            f"`tablectl settle` in a separate process: {self.mismatches} differ"
            + (f" (rounds {shown})" if shown else ""),
        ]


def _wait(cond: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    """Wait until ``cond()`` holds. The players read the controller's round from their own thread
    (only reading): a dict that changes while it is read just means "look again"."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if cond():
                return
        except (RuntimeError, KeyError, IndexError, AttributeError):  # changed while read: look again
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"bench: timed out waiting for {what}")
        time.sleep(0.001)


def _read(get: Callable[[], Any]) -> Any:
    """A value read from the controller's state, again if it changed while read."""
    while True:
        try:
            return get()
        except RuntimeError:
            time.sleep(0.001)


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


class Player:
    """The simulated players and dealer of one bench table, acting on what the table shows.

    Every decision is drawn from a generator seeded with the bench seed, the round number and
    what is decided (never from a generator shared across decisions), and every action checks
    what the table already has first; so a bench killed at any point and started again on the
    same journal makes the same decisions as one never stopped.
    """

    def __init__(
        self, t: Any, sims: dict[str, Any], table: TableConfig, seats: int, seed: int, strategy: str = "par"
    ) -> None:
        self.t, self.table, self.seats, self.seed = t, table, seats, seed
        self.par = strategy == "par"
        self.shoe, self.spots, self.panel = sims["shoe"], sims["bet_spots"], sims["panel"]
        self.loaded = 0  # the round whose cards are in the shoe

    def rng(self, *what: object) -> random.Random:
        return random.Random("/".join(str(x) for x in (self.seed, self.t.round_no, *what)))

    def act(self) -> None:
        """One step of the round from the phase the table is in (waits for its effect)."""
        self.confirm_notices()
        phase = _read(lambda: self.t.phase.value)
        handler = getattr(self, f"on_{phase}", None)
        if handler is None:  # hold (a link comes back by itself), round complete, void: transient
            why = f" ({self.t.hold_reason})" if phase == "hold" else ""
            _wait(lambda: self.t.phase.value != phase, f"the table to leave {phase}{why}", timeout=30)
        else:
            handler()

    def wagers(self, rng: random.Random) -> dict[str, int]:
        raise NotImplementedError

    def on_betting(self) -> None:
        rng = self.rng("bets")
        wanted = {seat: self.wagers(rng) for seat in sorted(rng.sample(range(1, self.table.seats + 1), self.seats))}
        for seat, spots in wanted.items():
            for spot, cents in spots.items():
                if _read(lambda: self.t.seats[seat].wagers.get(spot) if seat in self.t.seats else None) != cents:
                    self.spots.place(seat, spot, cents)
        _wait(lambda: {k: s.wagers for k, s in self.t.seats.items() if s.wagers} == wanted, "bets to register")
        self.before_no_more_bets(wanted)
        self.press("no_more_bets", lambda: self.t.phase.value != "betting")

    def confirm_notices(self) -> None:
        """Read and confirm what the screen holds for the dealer (a fold's collection, a void's returns)."""
        while _read(lambda: bool(self.t.notices)):
            seen = _read(lambda: (len(self.t.notices), self.t.page))
            self.press("confirm", lambda: (len(self.t.notices), self.t.page) != seen)

    def before_no_more_bets(self, wanted: dict[int, dict[str, int]]) -> None:
        """What the dealer places before "no more bets" besides the players' wagers (subclasses)."""

    def press(self, button: str, done: Callable[[], bool]) -> None:
        self.panel.press(button)
        _wait(done, f"{button} to register")

    def restore_shoe(self) -> None:
        """After a restart: the shoe holds this round's cards, as many dealt as the table has, and
        the spots their chips (a real table keeps both through a restart; the simulators have to
        be told)."""
        if self.t.phase.value not in ("betting", "no_more_bets", "closed"):
            self.load_shoe()
        self.spots.chips.update(self.t.board.levels)  # the chips stay on the spots through a restart

    def load_shoe(self) -> None:
        cards = list(deck(joker=self.t.DECK == 53))
        self.rng("shoe").shuffle(cards)
        self.shoe.load([str(c) for c in cards])
        self.shoe.dealt, self.loaded = self.t.dealt, self.t.round_no

    def deal_to(self, total: int) -> None:
        """Deal from this round's shoe until the table has ``total`` cards (from where it is)."""
        dealt = _read(lambda: self.t.dealt)
        if self.loaded != self.t.round_no or self.shoe.dealt < dealt:  # a new round
            self.load_shoe()
        if total > self.shoe.dealt:  # cards already out of the shoe (a link down) arrive by themselves
            self.shoe.deal(total - self.shoe.dealt)
        _wait(lambda: self.t.dealt >= total or self.t.phase.value == "hold", "the cards")

    def on_settlement(self) -> None:
        step = _read(lambda: self.t.step_index)
        self.press("confirm", lambda: self.t.phase.value != "settlement" or self.t.step_index != step)

    def on_count_stub(self) -> None:
        try:  # the shoe answers the controller's request
            _wait(lambda: self.t.phase.value != "count_stub", "the shoe's stub count", timeout=1.0)
        except TimeoutError:
            self.press("confirm", lambda: self.t.phase.value != "count_stub")  # counted by hand


class MississippiPlayer(Player):
    """Antes (some a bonus); each street a bet by points or a fold; the dealer reveals."""

    def wagers(self, rng: random.Random) -> dict[str, int]:
        return {"ante": rng.choice([500, 1000, 2500]), **({"bonus": 100} if rng.random() < 0.3 else {})}

    def on_no_more_bets(self) -> None:
        self.deal_to(2 * len(self.t.seats) + 3)

    on_dealing = on_no_more_bets

    def on_street(self) -> None:
        t = self.t
        street = _read(t.current_street)
        shown = ("third", "fourth", "fifth").index(street)
        if self.par:
            from controller.par import mississippi_decision  # numpy and the strategy tables: only when used
        for seat in _read(t.in_play):
            if street in seat.acted:
                continue
            if self.par:
                mult = mississippi_decision(seat.cards, t.community[:shown], paytable=self.table.paytables["main"])
            elif street == "third":
                mult = _third_street(seat.cards)
            else:
                mult = _later_street(seat.cards + t.community[:shown], self.rng(seat.number, street))
            if mult:
                self.spots.place(seat.number, street, mult * seat.wagers["ante"])
            else:
                self.panel.press(f"seat_{seat.number}")
                self.panel.press("fold")
            _wait(lambda: street in seat.acted, f"seat {seat.number}'s {street} street decision")
        self.confirm_notices()
        self.press("reveal", lambda: t.current_street() != street)

    on_third_street = on_fourth_street = on_fifth_street = on_street


class Boston5Player(Player):
    """Ante and first (some a bonus). Par: every paying bonus hand exposed, the computed second
    wager rule. Random: bonus hands with a pair or better exposed; a second wager with a pair or
    an ace or king, else a fold (now and then a withdrawal)."""

    def wagers(self, rng: random.Random) -> dict[str, int]:
        ante = rng.choice([500, 1000, 2500])
        multiple = self.table.options["first_to_ante"]
        return {"ante": ante, "first": multiple * ante, **({"bonus": 500} if rng.random() < 0.3 else {})}  # type: ignore[operator]

    def first_count(self) -> int:
        return 3 * len(self.t.seats) + 3

    def on_no_more_bets(self) -> None:
        self.deal_to(self.first_count())

    on_first_deal = on_no_more_bets

    def on_bonus(self) -> None:
        for n, s in sorted(_read(lambda: list(self.t.seats.items()))):
            if self.par:
                from controller.par import boston5_expose

                wanted = "bonus" in s.wagers and boston5_expose(s.cards[:3], paytable=self.table.paytables["bonus"])
            else:
                wanted = "bonus" in s.wagers and len({c.rank for c in s.cards}) < 3
            if "bonus" in s.wagers and s.exposed != wanted:
                self.press(f"seat_{n}", lambda: s.exposed == wanted)
        self.press("next", lambda: self.t.phase.value != "bonus")

    def on_bonus_settlement(self) -> None:
        step = _read(lambda: self.t.bonus_index)
        self.press("confirm", lambda: self.t.phase.value != "bonus_settlement" or self.t.bonus_index != step)

    def on_second_wager(self) -> None:
        for n, s in sorted(_read(lambda: list(self.t.seats.items()))):
            if s.folded_at is not None:
                continue
            ranks = [c.rank for c in s.cards]
            rng = self.rng(n, "second")
            if self.par:
                from controller.par import boston5_raise

                plays, withdraw = boston5_raise(s.cards[:3], table=self.table), False
            else:
                plays = len(set(ranks)) < 3 or max(ranks) >= 13 or rng.random() < 0.3
                withdraw = plays and rng.random() < 0.05
            if plays and "second" not in s.wagers:
                self.spots.place(n, "second", s.wagers["first"])
                _wait(lambda: "second" in s.wagers, "the second wager")
            if withdraw:
                self.spots.place(n, "second", 0)  # withdrawn before the final cards (24.10(c))
                _wait(lambda: s.folded_at is not None, "the withdrawal")
            elif not plays:
                self.panel.press(f"seat_{n}")
                self.panel.press("fold")
                _wait(lambda: s.folded_at is not None, "the fold")
        self.confirm_notices()
        self.press("deal", lambda: self.t.phase.value != "second_wager")

    def on_final_deal(self) -> None:
        self.deal_to(self.first_count() + 2 * len(_read(self.t.in_play)) + 2)


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
        envy = self.table.options["envy_minimum"]
        marked = {n for n, w in wanted.items() if w.get("bonus", 0) >= envy}  # type: ignore[operator]
        for n in sorted(marked - _read(lambda: set(self.t.markers))):
            self.spots.place(n, "envy_marker", 1)  # 11.15(c): the dealer places the envy marker
        _wait(lambda: self.t.markers == marked, "the envy markers")

    def on_no_more_bets(self) -> None:
        t = self.t
        if self.table.options["start_method"] != "dice":  # the controller draws the number
            _wait(lambda: t.phase.value != "no_more_bets", "the starting number")
            return
        dice = sum(self.rng("dice").randint(1, 6) for _ in range(3))
        while _read(lambda: t.dice) != dice:
            shown = t.dice
            self.press("next" if shown < dice else "previous", lambda: t.dice != shown)
        self.press("confirm", lambda: t.phase.value != "no_more_bets")

    def on_dealing(self) -> None:
        self.deal_to(49)

    def on_check_deal(self) -> None:
        try:
            _wait(lambda: self.t.phase.value != "check_deal", "the cards left", timeout=1.0)
        except TimeoutError:
            self.press("confirm", lambda: self.t.phase.value != "check_deal")  # counted by hand

    def on_setting(self) -> None:
        t = self.t
        done = _read(lambda: len(t.sets))
        seat = _read(lambda: t.setting[done])
        other = not self.par and self.rng(seat, "set").random() < 0.1
        if other and _read(lambda: t.option_index) == 0 and not t.all_listed:
            self.press("next", lambda: t.all_listed)  # the next legal set (the house way again if it is the only one)
        self.press("confirm", lambda: t.phase.value != "setting" or len(t.sets) > done)


PLAYERS: dict[str, type[Player]] = {
    "mississippi_stud": MississippiPlayer,
    "boston5": Boston5Player,
    "pai_gow": PaiGowPlayer,
}
"""Simulated players and dealer for each game the bench runs."""


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
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy {strategy!r} (known: {', '.join(STRATEGIES)})")
    sims = {"shoe": ShoeSim(address=1), "bet_spots": BetSpotSim(address=2), "panel": PanelSim(address=3)}
    summary = BenchSummary()
    journal = SqliteJournal(journal_path) if journal_path is not None else None
    played: list[RoundResult] = []

    def finished() -> int:
        return journal.round_count() if journal is not None else len(played)

    with tempfile.TemporaryDirectory(prefix="tablectl-bench-") as tmp:
        servers = {
            role: PtyServer(sim, Faults(seed=seed + i, **FAULT_PROFILES[faults]), Path(tmp) / role)
            for i, (role, sim) in enumerate(sims.items())
        }
        urls = {role: server.start() for role, server in servers.items()}
        runtime = TableRuntime(table, urls, journal, on_round=played.append)
        runtime.services.extend(services)
        t = runtime.table
        before = finished()
        target = rounds if resume else before + rounds
        player = PLAYERS[table.game](t, sims, table, seats, seed, strategy)
        detach = None
        start = time.monotonic()
        tqdm.monitor_interval = 0  # no monitor thread: the bar is updated from this thread only
        bar = tqdm(
            total=target, initial=min(before, target), unit="round", disable=None if progress else True, file=sys.stderr
        )
        try:
            if attach is not None:
                detach = attach(runtime, sims, servers)
            runtime.start(after_recovery=player.restore_shoe)
            _wait(lambda: t.phase.value != "closed", "the table to open")
            while finished() < target:
                if manual:
                    try:
                        time.sleep(0.1)  # the page's controls drive the simulators
                    except KeyboardInterrupt:
                        break
                    continue
                player.act()
                done = finished()
                if done > bar.n:
                    bar.update(done - bar.n)
        finally:
            summary.seconds = time.monotonic() - start
            if detach is not None:
                detach()
            runtime.stop()
            for server in servers.values():
                server.close()
            bar.close()
    verifier = Verifier()
    try:
        if journal is not None:
            journal = SqliteJournal(journal_path)  # type: ignore[arg-type]
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
    summary.rounds = summary.tally.rounds
    summary.handle, summary.house_net = summary.tally.handle, summary.tally.house
    summary.spots = table.catalog.wager_spots
    kinds = [r.kind for r in records]
    summary.faults = kinds.count("DeviceFault")
    summary.link_downs = kinds.count("LinkDown")
    summary.holds = sum(1 for p in t.prompts if p.startswith("HOLD"))
    summary.latencies = list(runtime.latencies)
    return summary

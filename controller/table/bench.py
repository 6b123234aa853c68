"""The bench table: simulated devices on ptys, the real controller on those ptys, and simulated
players and dealer making legal random decisions (Mississippi Stud: a simple third-street
strategy; Boston 5: exposure of paying bonus hands and a simple second-wager rule). What
``tablectl bench`` runs."""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from controller.cards import deck
from controller.table.runtime import TableRuntime
from controller.table_config import TableConfig
from hil.devices import BetSpotSim, PanelSim, ShoeSim
from hil.faults import Faults
from hil.serve import PtyServer

__all__ = ["BenchSummary", "run_bench", "FAULT_PROFILES"]

FAULT_PROFILES: dict[str, dict[str, float]] = {
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
    mismatches: int = 0

    @property
    def hold_percent(self) -> float:
        return 100.0 * self.house_net / self.handle if self.handle else 0.0

    def lines(self) -> list[str]:
        p99 = statistics.quantiles(self.latencies, n=100)[98] * 1000 if len(self.latencies) > 1 else 0.0
        return [
            f"rounds      {self.rounds} in {self.seconds:.1f} s ({self.rounds / self.seconds if self.seconds else 0:.1f}/s)",
            f"handle      {self.handle / 100:,.2f}",
            f"house net   {self.house_net / 100:,.2f}",
            f"hold        {self.hold_percent:.2f}%",
            f"faults      {self.faults} device faults, {self.link_downs} link downs (all recovered)",
            f"holds       {self.holds}",
            f"latency     p99 {p99:.2f} ms from a device event to the controller acting on it",
            f"settlement  {self.mismatches} rounds differ from `tablectl settle` on their record",
        ]


def _wait(cond: Callable[[], bool], what: str, timeout: float = 20.0) -> None:
    """Wait until ``cond()`` holds. The players read the controller's round from their own thread
    (only reading): a dict that changes while it is read just means "look again"."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if cond():
                return
        except RuntimeError:  # dictionary changed size during iteration
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"bench: timed out waiting for {what}")
        time.sleep(0.001)


def _third_street(cards: list, rng: random.Random) -> int:
    """Third street by points, in the style of published basic strategy: a pair of 6s or better
    3x, any lower pair 1x; otherwise 1x with at least two points (J-A two, 6-10 one) or a suited
    6-5, else fold (0)."""
    ranks = sorted((c.rank for c in cards), reverse=True)
    if ranks[0] == ranks[1]:
        return 3 if ranks[0] >= 6 else 1
    points = sum(2 if r >= 11 else 1 if r >= 6 else 0 for r in ranks)
    if points >= 2 or (ranks == [6, 5] and cards[0].suit is cards[1].suit):
        return 1
    return 0


def _later_street(cards: list, rng: random.Random) -> int:
    """Fourth and fifth street: 3x with a paying pair (jacks or better) or more, 1x with a pair of
    6s to 10s, otherwise 1x seven times in ten and a fold the rest."""
    ranks = [c.rank for c in cards]
    pairs = [r for r in set(ranks) if ranks.count(r) >= 2]
    if pairs and max(pairs) >= 11 or len(pairs) >= 2:
        return 3
    if pairs and max(pairs) >= 6:
        return 1
    return 1 if rng.random() < 0.7 else 0


def _place_bets(t: Any, sims: dict[str, Any], rng: random.Random, table: TableConfig, seats: int, wagers: Callable[[], dict[str, int]]) -> dict[int, dict[str, int]]:
    """Players at ``seats`` random seats place ``wagers()`` each; once the controller has them
    all, the dealer presses no more bets."""
    placed: dict[int, dict[str, int]] = {}
    for seat in sorted(rng.sample(range(1, table.seats + 1), seats)):
        placed[seat] = wagers()
        for spot, cents in placed[seat].items():
            sims["bet_spots"].place(seat, spot, cents)
    _wait(lambda: {k: s.wagers for k, s in t.seats.items() if s.wagers} == placed, "bets to register")
    sims["panel"].press("no_more_bets")
    return placed


def _mississippi_round(t: Any, sims: dict[str, Any], rng: random.Random, table: TableConfig, seats: int) -> None:
    """Players bet antes (some a bonus); the dealer deals; each street a bet or a fold; reveals."""
    shoe, spots, panel = sims["shoe"], sims["bet_spots"], sims["panel"]

    def wagers() -> dict[str, int]:
        return {"ante": rng.choice([500, 1000, 2500]), **({"bonus": 100} if rng.random() < 0.3 else {})}

    placed = _place_bets(t, sims, rng, table, seats, wagers)
    _wait(lambda: t.phase.value == "no_more_bets", "no more bets")
    _load_and_deal(shoe, rng, 2 * len(placed) + 3)
    for street in ("third", "fourth", "fifth"):
        _wait(lambda: t.current_street() == street, f"{street} street")
        for seat in t.in_play():
            if street == "third":
                mult = _third_street(seat.cards, rng)
            else:
                mult = _later_street(seat.cards + t.community[: ("fourth", "fifth").index(street) + 1], rng)
            if mult:
                spots.place(seat.number, street, mult * seat.wagers["ante"])
            else:
                panel.press(f"seat_{seat.number}")
                panel.press("fold")
        _wait(t.all_acted, f"{street} street decisions")
        panel.press("reveal")


def _boston5_round(t: Any, sims: dict[str, Any], rng: random.Random, table: TableConfig, seats: int) -> None:
    """Players bet ante and first (some a bonus); bonus hands with a pair or better are exposed;
    a second wager with a pair or an ace or king, else a fold (or, now and then, a withdrawal)."""
    shoe, spots, panel = sims["shoe"], sims["bet_spots"], sims["panel"]
    multiple = table.options["first_to_ante"]

    def wagers() -> dict[str, int]:
        ante = rng.choice([500, 1000, 2500])
        return {"ante": ante, "first": multiple * ante, **({"bonus": 500} if rng.random() < 0.3 else {})}  # type: ignore[operator]

    placed = _place_bets(t, sims, rng, table, seats, wagers)
    _wait(lambda: t.phase.value == "no_more_bets", "no more bets")
    _load_and_deal(shoe, rng, 3 * len(placed) + 3)
    _wait(lambda: t.phase.value in ("bonus", "second_wager"), "bonus exposure")
    if t.phase.value == "bonus":
        for n, s in sorted(t.seats.items()):
            ranks = [c.rank for c in s.cards]
            if "bonus" in s.wagers and len(set(ranks)) < 3:
                panel.press(f"seat_{n}")
        panel.press("next")
    _wait(lambda: t.phase.value in ("bonus_settlement", "second_wager"), "the bonus settlement")
    while t.phase.value == "bonus_settlement":  # the dealer collects and pays the bonus wagers (24.10(a))
        step = t.bonus_index
        panel.press("confirm")
        _wait(lambda: t.phase.value != "bonus_settlement" or t.bonus_index != step, "the next bonus step")
    _wait(lambda: t.phase.value == "second_wager", "second wagers")
    for n, s in sorted(t.seats.items()):
        ranks = [c.rank for c in s.cards]
        if len(set(ranks)) < 3 or max(ranks) >= 13 or rng.random() < 0.3:
            spots.place(n, "second", s.wagers["first"])
            if rng.random() < 0.05:
                _wait(lambda: "second" in s.wagers, "the second wager")
                spots.place(n, "second", 0)  # withdrawn before the final cards (24.10(c))
        else:
            panel.press(f"seat_{n}")
            panel.press("fold")
    _wait(t.all_decided, "second wager decisions")
    panel.press("deal")
    _wait(lambda: t.phase.value == "final_deal" or t.phase.value == "settlement", "the final deal")
    if t.phase.value == "final_deal":
        shoe.deal(2 * len(t.in_play()) + 2)


def _pai_gow_round(t: Any, sims: dict[str, Any], rng: random.Random, table: TableConfig, seats: int) -> None:
    """Players bet (some a bonus or insurance); the dealer enters a dice total, the shoe deals
    seven hands of seven, and each set is confirmed (usually the house way)."""
    shoe, panel = sims["shoe"], sims["panel"]

    def wagers() -> dict[str, int]:
        w = {"pai_gow": rng.choice([1000, 2500])}
        if rng.random() < 0.4:
            w["bonus"] = rng.choice([100, 500])
        if rng.random() < 0.2:
            w["insurance"] = 100
        return w

    _place_bets(t, sims, rng, table, seats, wagers)
    if table.options["start_method"] == "dice":
        _wait(lambda: t.phase.value == "no_more_bets", "the dice total")
        dice = sum(rng.randint(1, 6) for _ in range(3))
        for _ in range(dice - 3):
            panel.press("next")
        _wait(lambda: t.dice == dice, "the dice total to show")
        panel.press("confirm")
    _wait(lambda: t.phase.value == "dealing", "dealing")  # with rng the controller draws the number
    _load_and_deal(shoe, rng, 49, joker=True)
    _wait(lambda: t.phase.value == "setting", "hand setting")
    while t.phase.value == "setting":
        done = len(t.sets)
        if rng.random() < 0.1 and len(t.options) > 1:
            shown = t.option_index
            panel.press("next")
            _wait(lambda: t.option_index != shown, "the next set")
        panel.press("confirm")
        _wait(lambda: t.phase.value != "setting" or len(t.sets) > done, "the set to be recorded")


def _load_and_deal(shoe: Any, rng: random.Random, count: int, joker: bool = False) -> None:
    cards = list(deck(joker=joker))
    rng.shuffle(cards)
    shoe.load([str(c) for c in cards])
    shoe.deal(count)


PLAYERS: dict[str, Callable[..., None]] = {"mississippi_stud": _mississippi_round, "boston5": _boston5_round, "pai_gow": _pai_gow_round}
"""Simulated players and dealer for each game the bench runs."""


def run_bench(table: TableConfig, seats: int, rounds: int, seed: int, faults: str = "none", progress: bool = True) -> BenchSummary:
    """Play ``rounds`` rounds at a bench table; returns the summary."""
    from controller.games import settle_record

    rng = random.Random(seed)
    sims = {"shoe": ShoeSim(address=1), "bet_spots": BetSpotSim(address=2), "panel": PanelSim(address=3)}
    summary = BenchSummary()
    with tempfile.TemporaryDirectory(prefix="tablectl-bench-") as tmp:
        servers = {role: PtyServer(sim, Faults(seed=seed + i, **FAULT_PROFILES[faults]), Path(tmp) / role) for i, (role, sim) in enumerate(sims.items())}
        urls = {role: server.start() for role, server in servers.items()}
        runtime = TableRuntime(table, urls)
        t = runtime.table
        start = time.monotonic()
        try:
            runtime.start()
            for n in range(1, rounds + 1):
                _wait(lambda: t.phase.value == "betting" and t.round_no == n, f"round {n} betting")
                PLAYERS[table.game](t, sims, rng, table, seats)
                _wait(lambda: t.phase.value == "settlement", "settlement")
                while t.phase.value == "settlement":
                    step = t.step_index
                    sims["panel"].press("confirm")
                    _wait(lambda: t.phase.value != "settlement" or t.step_index != step, "the next settlement step")
                _wait(lambda: len(t.rounds) >= n, "the round to complete")
                result = t.rounds[n - 1]
                assert result.settlement is not None
                summary.rounds += 1
                summary.handle += sum(sum(s["wagers"].values()) for s in result.record["seats"].values())
                summary.house_net += result.settlement.house_net
                if settle_record(result.record, table).to_json() != result.settlement.to_json():
                    summary.mismatches += 1
                if progress:
                    done = int(30 * n / rounds)
                    print(f"\r[{'#' * done}{'.' * (30 - done)}] round {n}/{rounds}", end="", file=sys.stderr, flush=True)
        finally:
            summary.seconds = time.monotonic() - start
            runtime.stop()
            for server in servers.values():
                server.close()
            if progress:
                print(file=sys.stderr)
    kinds = [r.kind for r in runtime.engine.journal.records()]
    summary.faults = kinds.count("DeviceFault")
    summary.link_downs = kinds.count("LinkDown")
    summary.holds = sum(1 for p in t.prompts if p.startswith("HOLD"))
    summary.latencies = runtime.latencies
    return summary

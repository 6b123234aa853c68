"""The soak's shortcuts change nothing it plays, and its memory stays flat and is reported:
a chunk's table is collected when the chunk is done; a snapshot built with the table's caches
equals one built from nothing, event after event; the screen made only when read (the soak's
devices have none) is the screen a table with a display is sent; the summary prints memory."""

from __future__ import annotations

import gc
import random
import tracemalloc
from typing import Any

import pytest
from call_counts import count_calls

import controller.table._dealer_screen as dealer_screen
import controller.table.snapshot_build as snapshot_build
import hil.soak as soak
from controller.cli._soak import memory_line
from controller.configuration import config_dir, load_table
from controller.game.record import Problems
from controller.table.latest import OnDemandSnapshot
from controller.table.round import RoundTable
from controller.vocab import ALL_CARDS

GAMES = ("mississippi_stud", "boston5", "pai_gow")


def job(game: str, rounds: int, strategy: str = "par", seed: int = 3) -> soak.ChunkJob:
    path = str((config_dir() / "bench" / f"{game}.yaml").resolve())
    return soak.ChunkJob(path, 6, seed, 1, rounds, 0, 1, strategy)


def test_a_chunks_table_is_collected_when_the_chunk_is_done():
    """Its machine and collaborators point back at it (cycles): left to a worker's rarely run
    oldest-generation collection, a hundred chunks' tables stayed in memory (0.8 MB each)."""
    gc.collect()
    gc.disable()  # as in a worker, where collections of the oldest generation are rare
    try:
        soak.play_chunk(job("mississippi_stud", 3))
        alive = [o for o in gc.get_objects() if isinstance(o, RoundTable)]
    finally:
        gc.enable()
    assert alive == []


@pytest.mark.parametrize("frozen_by_caller", [False, True])
def test_a_chunk_sets_aside_what_lived_before_it_and_gives_it_back(frozen_by_caller):
    """A chunk freezes what lived before it (its collections then scan only its own objects):
    its table is still collected, and what the caller had is given back to the collector as it
    was (frozen only if the caller froze it: a worker does)."""
    gc.unfreeze()  # a test run before in this process may have frozen what it made
    gc.collect()
    caller_owns: list[object] = []  # the collector lists what it scans, never what is frozen
    if frozen_by_caller:
        gc.freeze()
    try:
        soak.play_chunk(job("mississippi_stud", 3))
        scanned = any(o is caller_owns for o in gc.get_objects())
    finally:
        gc.unfreeze()  # what is frozen is not among the collector's objects: given back to be seen
    alive = [o for o in gc.get_objects() if isinstance(o, RoundTable)]
    assert alive == []
    assert scanned is not frozen_by_caller


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("strategy", ["par", "random"])
def test_every_snapshot_equals_one_built_from_nothing(game, strategy, monkeypatch):
    built = OnDemandSnapshot.get
    checked = [0]

    def get(self: Any) -> Any:
        s = built(self)
        kept = snapshot_build._CACHES.get(self._table)
        snapshot_build._CACHES[self._table] = snapshot_build._Cache()  # nothing reused
        fresh = snapshot_build.build_snapshot(self._table, s.version, self._texts)
        assert kept is not None
        snapshot_build._CACHES[self._table] = kept
        assert len(s) == len(s._fields), "a snapshot made by position holds a value for every field"
        assert s == fresh, [(name, a, b) for name, a, b in zip(s._fields, s, fresh, strict=True) if a != b]
        checked[0] += 1
        return s

    monkeypatch.setattr(OnDemandSnapshot, "get", get)
    soak.play_chunk(job(game, 12, strategy))
    assert checked[0] > 100


def with_texts(monkeypatch: pytest.MonkeyPatch) -> None:
    """The soak's snapshots made with the dealer's texts (as the runtime's are)."""

    def view(table: RoundTable, version: Any, texts: bool = True) -> OnDemandSnapshot:
        return OnDemandSnapshot(table, version)

    monkeypatch.setattr(soak, "OnDemandSnapshot", view)


@pytest.mark.parametrize("game", GAMES)
def test_the_screen_made_when_read_is_the_screen_a_display_is_sent(game, monkeypatch):
    with_texts(monkeypatch)  # the soak's own snapshots carry no texts: nothing to compare
    built = OnDemandSnapshot.get
    seen: list[object] = []

    def get(self: Any) -> Any:
        s = built(self)
        seen.append((s.version, s.screen, s.recent, s.asked, s.notices, s.notice_page))
        return s

    monkeypatch.setattr(OnDemandSnapshot, "get", get)
    plays = {}
    for shows_screen in (True, False):
        monkeypatch.setattr(soak._Devices, "shows_screen", shows_screen)
        seen.clear()
        result = soak.play_chunk(job(game, 10, "random", seed=5))
        plays[shows_screen] = (list(seen), result.tally, result.verify)
    assert plays[True] == plays[False]
    assert len(plays[True][0]) > 50


def test_memory_is_sampled_over_the_run_and_printed():
    table = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
    result = soak.run_soak(table, 12 * soak.CHUNK, 6, seed=2, workers=2, verify_every=100)
    m = result.memory
    assert len(m.worker_peaks) == 2 and all(v > 10e6 for v in m.worker_peaks.values())
    assert m.parent_peak > 10e6 and m.settle_peak > 10e6
    assert [r for r, _ in m.samples] == [100 * k for k in range(1, 13)]
    assert m.peak == max(m.parent_peak, m.settle_peak, *m.worker_peaks.values())
    line = memory_line(result)
    assert line.startswith(f"memory      peak RSS {m.peak / 1e6:,.0f} MB (parent ")
    assert "workers " in line and "re-settling " in line and "at 1,200" in line


@pytest.mark.parametrize("strategy", ["par", "random"])
def test_a_soak_player_pressing_ahead_plays_what_one_waiting_after_each_press_plays(strategy, monkeypatch):
    """In the soak every press is handled when sent (``in_order``), so a player sends the
    presses it knows it needs (pai gow's dice total: next or previous that many times) and
    waits once: the rounds played are those of a player that waits after each press."""
    made = soak._make_player

    def waiting(*args: Any) -> Any:
        player = made(*args)
        player.in_order = False
        return player

    ahead = soak.play_chunk(job("pai_gow", 12, strategy))
    monkeypatch.setattr(soak, "_make_player", waiting)
    waited = soak.play_chunk(job("pai_gow", 12, strategy))
    assert ahead.tally == waited.tally and ahead.tally.rounds == 12
    assert ahead.verify == waited.verify


@pytest.mark.parametrize("game", [*GAMES, "three_card_poker"])
def test_the_soak_never_makes_the_dealers_screen_and_plays_what_a_soak_making_it_plays(game, monkeypatch):
    """No player reads the dealer's texts and the soak's devices have no screen: its snapshots
    carry none, so the screen is never made (made when read, it was an eighth to a seventh of a round's CPU);
    the rounds played, their records and settlements are those of a soak whose snapshots carry
    the texts."""
    made = count_calls(monkeypatch, dealer_screen, "render")
    built = OnDemandSnapshot.get
    texts: list[object] = []

    def get(self: Any) -> Any:
        s = built(self)
        texts.append((s.screen, s.recent, s.asked))
        return s

    monkeypatch.setattr(OnDemandSnapshot, "get", get)
    without = soak.play_chunk(job(game, 8, "random", seed=4))
    assert made[0] == 0
    assert set(texts) == {((), (), "")} and len(texts) > 50
    with_texts(monkeypatch)
    texts.clear()
    made_with = soak.play_chunk(job(game, 8, "random", seed=4))
    assert made[0] > 8 and len({t for t in texts if t[0]}) > 8  # the screen is made when the texts are read
    assert without.tally == made_with.tally and without.tally.rounds == 8
    assert without.verify == made_with.verify and len(without.verify) == 8


def test_reading_hands_that_never_come_back_keeps_no_memory():
    """A record's hands are read by text, and the short ones remembered (the same two-card hands
    come back round after round); five- and seven-card hands seldom come back: remembering
    each one read grew a Boston 5 soak's worker by 26 MB over its first 10,000 rounds."""
    deck = [str(c) for c in ALL_CARDS if c.rank is not None]
    hands = [" ".join(random.Random(i).sample(deck, 5)) for i in range(3000)]
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.take_snapshot()
        for hand in hands:
            assert Problems().cards("seats[0].cards", hand, (5,)) is not None
        gc.collect()
        after = tracemalloc.take_snapshot()
    finally:
        tracemalloc.stop()
    kept = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    assert kept < 100_000, f"{kept:,} bytes kept after reading {len(hands)} hands"

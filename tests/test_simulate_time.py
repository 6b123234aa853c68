"""Time compressed (issue 41 item 6): the quiet ticks jumped over, the links' frames decoded by a
look-up and replies fed whole on most seeds, the visibility checks in one search; each writes the
same journal as the slow way. ``--hours`` runs until stopped; a failing seed's replay names its
fault kinds one by one."""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import cli
from simulate_helpers import card_shown_early, simulate_failing

from drivers.framing import Decoder, Frame, MsgType, decode_frame, encode, in_process
from hil.simulate import run as sim_run
from hil.simulate.faults import CI_KINDS, Fault
from hil.simulate.invariants import first_hidden
from hil.simulate.world import TICK, World


def at_close(monkeypatch: pytest.MonkeyPatch, count: Callable[[World], int]) -> list[int]:
    """What ``count`` says of each simulated world as it closes, in the list returned (filled as
    the worlds of the test's runs close)."""
    counted: list[int] = []
    real_close = World.close

    def close(self: World) -> None:
        counted.append(count(self))
        real_close(self)

    monkeypatch.setattr(World, "close", close)
    return counted


def test_the_quiet_ticks_are_jumped_over_and_the_journal_is_the_same(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every link down for 20 simulated seconds (each closed, waiting to reconnect: the table's
    quietest time): most ticks are jumped over, and the journal is byte for byte the one written
    running every tick."""
    jumped = at_close(monkeypatch, lambda world: world.jumped)
    faults = [Fault(1.0, "link_down", "shoe", 20.0, 1), Fault(1.0, "link_down", "bet_spots", 20.0, 1)]
    faults.append(Fault(1.0, "panel_outage", "panel", 20.0, 1))
    fast = sim_run.run_seed("boston5", 7, (), rounds=2, faults=faults, folder=tmp_path)
    assert fast.ok, f"{fast.broken}: {fast.detail}"
    assert jumped[-1] > 0.5 * fast.sim_seconds / TICK
    monkeypatch.setattr(World, "_quiet_until", lambda self: 0.0)  # every tick run
    slow = sim_run.run_seed("boston5", 7, (), rounds=2, faults=faults, folder=tmp_path)
    assert jumped[-1] == 0
    assert slow.digest == fast.digest and slow.events == fast.events


@pytest.mark.parametrize("chunking", ["split", "bytes"])
@pytest.mark.parametrize("seed", [3, 7])
def test_a_seed_writes_the_same_journal_through_the_whole_codec_or_not(
    seed: int, chunking: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Frames decoded by look-up and replies fed whole, or every frame through COBS and the CRC
    and every reply in the pieces its line cuts (every line cutting them here): the same journal."""
    from hil.simulate import world

    monkeypatch.setattr(world, "CHUNKINGS", (chunking,) * 3)
    monkeypatch.setattr(sim_run, "framed", lambda seed: False)
    quick = sim_run.run_seed("pai_gow", seed, CI_KINDS, rounds=2, folder=tmp_path)
    monkeypatch.setattr(sim_run, "framed", lambda seed: True)
    whole = sim_run.run_seed("pai_gow", seed, CI_KINDS, rounds=2, folder=tmp_path)
    assert quick.ok and whole.ok, f"{quick.broken} {whole.broken}"
    assert quick.digest == whole.digest and quick.events == whole.events
    assert [s for s in range(1, 31) if sim_run.framed(s)] == list(range(1, 31))  # (patched)
    monkeypatch.undo()
    assert [s for s in range(1, 31) if sim_run.framed(s)] == [10, 20, 30]


def test_a_frame_decoded_by_look_up_is_the_frame_decoding_gives() -> None:
    """In process, the bytes ``encode`` gave decode to the same frame with the same counts as
    without; bytes changed by one bit are decoded (and refused) as always."""
    rng = random.Random(41)
    frames = [
        Frame(rng.randrange(1, 127), rng.getrandbits(32), rng.getrandbits(32), kind, rng.randbytes(rng.randrange(60)))
        for kind in MsgType
        for _ in range(20)
    ]
    wires = [encode(f) for f in frames]
    plain = Decoder()
    expected = plain.feed(b"".join(wires))
    with in_process():
        again = [encode(f) for f in frames]
        looked = Decoder()
        got = looked.feed(b"".join(again))
        bad = bytearray(again[0][:-1])
        bad[3] ^= 0x10
        assert decode_frame(bytes(bad))[0] is None
    assert again == wires and got == expected == frames and looked.stats == plain.stats
    assert decode_frame(wires[0][:-1]) == (frames[0], "ok")


def test_the_hidden_card_search_finds_what_the_card_pattern_found() -> None:
    """The look for face-down cards (substrings first, the card pattern only when one is there)
    finds the first card of a text that the card pattern finds and that is face down, for random
    texts of cards, near-cards and separators."""
    card = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][cdhs]|JK)(?![A-Za-z0-9])")
    rng = random.Random(6)
    pieces = ["Ah", "Td", "JK", "9s", "2c", "Kh", "xAh", "Ahx", "1Td", "JKs", " ", ", ", "=", "'", "(", "Q", "h", "??"]
    pieces += ["é", "_", "A", "J", "K", "\n", "Accept", "25s"]
    for _ in range(20000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randrange(16)))
        hidden = frozenset(rng.sample(["Ah", "Td", "JK", "9s", "2c", "Kh", "??", "ten"], rng.randrange(4)))
        first = next((m.group(1) for m in card.finditer(text) if m.group(1) in hidden), None)
        found = first_hidden(text, hidden)
        assert (found.group(1) if found else None) == first, (text, hidden)
        if found is not None:
            assert found.span() == next(m.span() for m in card.finditer(text) if m.group(1) in hidden)


def test_a_failing_seed_names_its_fault_kinds_in_its_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    """``--seed`` with ``--faults ci``: the replay line names the kinds one by one (``ci`` changes
    meaning with the code)."""
    card_shown_early(monkeypatch)
    code, out, _ = cli("simulate", "--game", "mississippi_stud", "--seed", "1", "--rounds", "1", "--faults", "ci")
    assert code == 1
    assert (
        f"replay      tablectl simulate --game mississippi_stud --seed 1 --rounds 1 --faults {','.join(CI_KINDS)}\n"
        in out
    )


def test_hours_runs_batch_after_batch_until_the_time_is_up_showing_each_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--hours``: batches of seeds until the hours have passed (here: after the first batch),
    each failure printed as it is found with its explicit replay, then the summary."""
    from controller.cli import _simulate

    monkeypatch.setattr(_simulate, "HOURS_BATCH", 2)
    out = simulate_failing(monkeypatch, (5, 6), "--hours", "0.000001", "--first", "5")
    assert "stopped     after 1e-06 h: seeds 5-6 finished" in out
    assert "seeds       2 of mississippi_stud" in out and "failed seeds: 5, 6" in out
    code, _, err = cli("simulate", "--hours", "0", "--quiet")
    assert code == 2 and "--hours must be more than 0" in err


def test_the_snapshot_looked_at_field_by_field_names_a_hidden_card_when_its_repr_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """After every event of seeds with a card turned up a street early: the field-by-field look
    (fields found clean before not looked at again) answers as the whole snapshot's repr does."""
    from hil.simulate import model_check

    card_shown_early(monkeypatch)
    answers: list[bool] = []
    real = model_check.VisibilityWatch._names_hidden

    def both(self: model_check.VisibilityWatch, snapshot: Any) -> bool:
        got = real(self, snapshot)
        assert got == (first_hidden(repr(snapshot), self.hidden) is not None)
        answers.append(got)
        return got

    monkeypatch.setattr(model_check.VisibilityWatch, "_names_hidden", both)
    for seed in (1, 2):
        res = sim_run.run_seed("mississippi_stud", seed, CI_KINDS, rounds=1)
        assert res.broken == "model_hidden" and "the snapshot names a card" in res.detail
    assert answers.count(True) == 2 and answers.count(False) > 10


@pytest.mark.parametrize(
    ("game", "seed", "rounds", "swarm"),
    [("boston5", 3, 4, True), ("pai_gow", 10, 2, False), ("mississippi_stud", 7, 3, True)],
)
def test_an_idle_link_left_unrun_writes_the_same_journal(
    game: str, seed: int, rounds: int, swarm: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link with nothing due in a tick is not run (its clock set instead): most of a seed's
    link runs are left out so, and the journal is byte for byte the one written running every
    link every tick (seed 10: every frame through COBS and the CRC, replies in their pieces)."""
    skipped = at_close(monkeypatch, lambda world: world.idle_skipped)
    fast = sim_run.run_seed(game, seed, CI_KINDS, rounds=rounds, folder=tmp_path, swarm=swarm)
    assert fast.ok, f"{fast.broken}: {fast.detail}"
    assert skipped[-1] > 40 * rounds
    monkeypatch.setattr(World, "skip_idle", False)
    slow = sim_run.run_seed(game, seed, CI_KINDS, rounds=rounds, folder=tmp_path, swarm=swarm)
    assert skipped[-1] == 0
    assert slow.digest == fast.digest and slow.events == fast.events


def test_a_whole_frame_fed_at_once_decodes_as_fed_a_byte_at_a_time() -> None:
    """The decoder's short way for a chunk that is one whole frame (good, corrupted, or empty
    between delimiters) gives the frames and the counts the byte-at-a-time way gives."""
    rng = random.Random(7)
    chunks = []
    for _ in range(300):
        wire = bytearray(encode(Frame(rng.randrange(1, 127), rng.getrandbits(32), 0, MsgType.POLL, rng.randbytes(9))))
        if rng.random() < 0.3:
            wire[rng.randrange(len(wire) - 1)] ^= 1 << rng.randrange(8)  # a bit flipped (perhaps to a 0)
        chunks.append(bytes(wire) if rng.random() < 0.9 else b"\x00")
    whole, single = Decoder(), Decoder()
    got = [f for c in chunks for f in whole.feed(c)]
    expected = [f for c in chunks for i in range(len(c)) for f in single.feed(c[i : i + 1])]
    assert got == expected and whole.stats == single.stats
    assert whole.stats.crc_errors + whole.stats.malformed > 10 and whole.stats.frames_ok > 150


def test_a_field_that_changes_is_looked_at_again_while_the_hidden_cards_stay() -> None:
    """The field-by-field look skips only a field that is the very object found clean before: a
    new value in a field (the face-down cards the same) is looked at."""
    from typing import NamedTuple

    from hil.simulate.model_check import VisibilityWatch

    class Snap(NamedTuple):
        round_no: int
        screen: tuple[str, ...]
        recent: tuple[str, ...]

    watch = VisibilityWatch.__new__(VisibilityWatch)
    watch.hidden, watch._named, watch._parts = frozenset({"Ah", "JK"}), [], {}
    screen, recent = ("deal", "Kd Qs"), ("seat 1 Ah?",)
    first = Snap(1, screen, ("nothing",))
    assert not watch._names_hidden(first)
    assert watch._names_hidden(Snap(1, screen, recent))  # a new value, the same hidden cards
    assert not watch._names_hidden(first)
    assert watch._names_hidden(Snap(1, ("JK",), ("nothing",)))
    watch.hidden = frozenset({"Kd"})
    assert watch._names_hidden(first)  # other hidden cards: every field looked at again


def test_a_seat_that_changes_in_a_seats_tuple_is_looked_at_again() -> None:
    """A field that is a tuple of seats is looked at seat by seat: a new seats tuple holding the
    same seats but one new one that names a face-down card is found; the same seats in a new
    tuple are not looked at again; other face-down cards look at every seat again (their reprs
    kept: the answer is the whole repr's)."""
    from typing import NamedTuple

    from controller.table.snapshot import SeatView
    from hil.simulate.model_check import VisibilityWatch

    class Snap(NamedTuple):
        round_no: int
        seats: tuple[SeatView, ...]
        dealer: tuple[str | None, ...]

    watch = VisibilityWatch.__new__(VisibilityWatch)
    watch.hidden, watch._named, watch._parts = frozenset({"Ah"}), [], {}
    one, two = SeatView(1, (("ante", 500),), ("Kd", None)), SeatView(2, (("ante", 500),), (None, None))
    first = Snap(1, (one, two), (None, "Qs"))
    assert not watch._names_hidden(first)
    shown = SeatView(2, (("ante", 500),), ("Ah", None))
    assert watch._names_hidden(Snap(1, (one, shown), (None, "Qs")))
    assert not watch._names_hidden(Snap(1, (one, two), (None, "Qs")))  # a new tuple, the same seats
    watch.hidden = frozenset({"Kd"})
    assert watch._names_hidden(Snap(1, (one, two), (None, "Qs")))  # seat 1, clean before, looked at again
    watch.hidden = frozenset({"Qs"})
    later = Snap(1, (one, two), (None, "Qs"))
    assert watch._names_hidden(later) and first_hidden(repr(later), watch.hidden) is not None


def test_a_seeds_journal_folder_is_named_by_digits_only_and_removed() -> None:
    """Boston 5 swarm seed 76 failed by chance: the journal's random temporary folder name held
    ``-9h_``, a log line named the path, and the face-down check read it as a card. The folder is
    named by the process and a count only (no letter that could be a rank or suit), a second
    folder in the same process gets a new name, and both are gone afterwards."""
    with sim_run.seed_folder() as first, sim_run.seed_folder() as second:
        assert first != second
        for folder in (first, second):
            assert folder.is_dir()
            assert re.fullmatch(r"tablectl-sim-\d+-\d+", folder.name), folder.name
    assert not first.exists() and not second.exists()


def _world_with_face_down_cards(tmp_path: Path) -> World:
    """A Mississippi Stud table of seed 1 (no fault) played until the model holds cards face down."""
    from hil.bench import PLAYERS
    from hil.simulate.world import SimView, Stuck

    world = World(sim_run.bench_table("mississippi_stud"), 1, [], tmp_path / "journal.db")
    sims = {"shoe": world.shoe, "bet_spots": world.spots, "panel": world.panel}
    player = PLAYERS["mississippi_stud"](SimView(world), sims, world.table, sim_run.SEATS, 1, strategy="random")
    world.wait_links()
    for _ in range(200):
        if world.seen.hidden and world.watch.hidden:
            return world
        try:
            player.act()
        except Stuck:
            world.unstick()
    raise AssertionError("no card face down in 200 actions")


def test_the_face_down_checks_look_again_only_when_the_snapshot_hands_or_display_changed(tmp_path: Path) -> None:
    """After an event that changed only the snapshot's and the hands' version, the face-down
    checks are not run again; a snapshot changed otherwise, or the panel's display changed alone,
    is looked at, and a face-down card in either is found."""
    from dataclasses import replace

    from hil.simulate.invariants import Broken

    world = _world_with_face_down_cards(tmp_path)
    try:
        latest = world.runtime.latest
        s, hands = latest.get(), latest.hands()
        assert hands is not None
        card = sorted(world.seen.hidden)[0]
        looks = world.looks
        latest.publish(s._replace(version=s.version + 1), replace(hands, version=s.version + 1))
        world._check(object())
        assert world.looks == looks  # nothing but the versions changed: not looked at again
        world.panel.display[2] = f"seat 1 {card}"  # the display alone
        with pytest.raises(Broken) as shown:
            world._check(object())
        assert shown.value.name == "model_hidden" and "panel display" in shown.value.detail
        del world.panel.display[2]
        screen = (*s.screen, f"hole {card}")
        latest.publish(s._replace(version=s.version + 2, screen=screen), replace(hands, version=s.version + 2))
        with pytest.raises(Broken) as named:
            world._check(object())
        assert named.value.name in ("hidden_card", "model_hidden")
    finally:
        world.close()


@pytest.mark.parametrize(("game", "seed"), [("boston5", 3), ("pai_gow", 10), ("three_card_poker", 7)])
def test_the_face_down_checks_left_out_write_the_same_journal(
    game: str, seed: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A swarm seed whose face-down checks are left out after the events that changed nothing
    they read writes the journal it writes with them run after every event, and they are left
    out after a good part of its events."""
    looks = at_close(monkeypatch, lambda world: world.looks)
    fast = sim_run.run_seed(game, seed, CI_KINDS, rounds=3, folder=tmp_path, swarm=True)
    assert fast.ok, f"{fast.broken}: {fast.detail}"
    assert looks[-1] < 0.8 * fast.events
    monkeypatch.setattr(World, "look_again", True)
    slow = sim_run.run_seed(game, seed, CI_KINDS, rounds=3, folder=tmp_path, swarm=True)
    assert looks[-1] == slow.events
    assert slow.digest == fast.digest and slow.events == fast.events

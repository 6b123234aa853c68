"""The real controller over real ptys against the three simulators, driven like ``FedTable``:
``spot``, ``press`` and ``deal`` act on the simulated devices and return once the controller has
handled every event they caused. Used by the HIL scenario tests of every game."""

from __future__ import annotations

import contextlib
import io
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from deadlines import STATE_TIMEOUT_S

from controller.cli import main as tablectl
from controller.configuration import TableConfig
from controller.table.base import RoundResult
from controller.table.runtime import RuntimePorts, TableRuntime
from controller.table.snapshot import PlayerHands, TableSnapshot
from drivers.link import LinkConfig
from drivers.messages import BUTTONS
from drivers.panel import ButtonChanged
from hil.devices import BetSpotSim, PanelSim, ShoeSim
from hil.serve import PtyServer

PATIENT_LINKS = LinkConfig(link_down_s=60.0)
"""Links declared silent (down, or never connected with why) only after a minute: a simulator
starved of the CPU on a loaded machine is never taken for a device that does not answer, which
would hold the table (a test whose subject is not a link's silence passes it as ``link_base``)."""


def shoe(first: str, size: int = 52) -> list[str]:
    """A shoe that deals ``first`` first, then the rest of a 52-card deck, ``size`` cards in all."""
    from controller.vocab import deck

    head = first.split()
    return (head + [str(c) for c in deck() if str(c) not in head])[:size]


def wait(cond: Callable[[], bool], what: str, timeout: float = STATE_TIMEOUT_S) -> None:
    """Wait until ``cond()`` holds (it reads snapshots, the journal or the simulators: never the
    table, so nothing read can change while it is read)."""
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.002)


class HilTable:
    """Simulators on ptys, the real drivers and controller on them. The table is read only
    through its snapshots (``snap``), the cards dealt (``hands()``: where every card went, face
    down or not), the texts the dealer was shown (``texts``) and the finished rounds (``results``)."""

    def __init__(
        self,
        table: TableConfig,
        tmp_path: Path,
        journal: Any = None,
        chips: dict[tuple[int, str], int] | None = None,
        display: tuple[int, int] = (4, 40),
        shoe_sim: ShoeSim | None = None,
        link_base: LinkConfig | None = None,
        wall: Callable[[], float] = time.time,
    ) -> None:
        """``chips``: what is on the bet spots already (a controller restarted mid-round: the chips
        stay where they are, and the spots' state read at link-up says so); ``display``: the panel's
        lines and columns; ``shoe_sim``: the shoe of an earlier run (it kept running while the
        controller was stopped: its count and its jam or door are what its state says);
        ``link_base``: the links' timing (the runtime's default when None); ``wall``: the wall clock
        the links stamp each event with (a test of a rule timed by the events' times moves its own,
        never waits for the machine's)."""
        self.table = table
        self.tmp_path = tmp_path
        tmp_path.mkdir(parents=True, exist_ok=True)
        self.shoe, self.spots = shoe_sim or ShoeSim(address=1), BetSpotSim(address=2)
        self.panel = PanelSim(address=3, lines=display[0], columns=display[1])
        self.spots.chips.update(chips or {})
        sims = {"shoe": self.shoe, "bet_spots": self.spots, "panel": self.panel}
        self.servers = {role: PtyServer(sim, link=tmp_path / role) for role, sim in sims.items()}
        urls = {role: s.start() for role, s in self.servers.items()}
        self._first_seq = journal.last_seq if journal is not None else 0
        self.results: list[RoundResult] = []
        """The rounds finished in this run, as the table reported them."""
        self.texts: list[str] = []
        """Every text shown to the dealer in this run (after a recovery: from the last few replayed)."""
        self._texts_seen = 0
        self.runtime = TableRuntime(
            table, urls, journal, on_round=self.results.append, link_base=link_base, ports=RuntimePorts(wall=wall)
        )
        self.runtime.latest.share_hands = True
        self.runtime.observers.append(self._collect_texts)
        self.journal = self.runtime.engine.journal
        self.runtime.start(after_recovery=self._recovered)
        if not self.runtime.recovered:
            wait(lambda: self.snap.step == "betting", "the table to open")
            # The table opens before any device reports: a test that pulls a link must find it up.
            wait(lambda: self.links_up() >= set(self.servers), "every device's link up")

    def links_up(self) -> set[str]:
        """The devices whose link has come up (journaled ``LinkUp``) in this run."""
        return {str(r.data.get("device")) for r in self.journal.records(self.first_seq) if r.kind == "LinkUp"}

    def _recovered(self) -> None:
        snap = self.runtime.publish()
        self.texts, self._texts_seen = list(snap.recent), snap.texts_shown

    def _collect_texts(self, event: object) -> None:
        """After each event (the controller thread): the texts shown since the last."""
        snap = self.runtime.snapshot
        new = snap.texts_shown - self._texts_seen
        if new > 0:
            self.texts.extend(snap.recent[-new:])
        self._texts_seen = snap.texts_shown

    @property
    def snap(self) -> TableSnapshot:
        """The table's latest snapshot."""
        return self.runtime.snapshot

    def hands(self) -> PlayerHands:
        """Every card of the round where it went, face down or not (as of the latest snapshot)."""
        hands = self.runtime.latest.hands()
        assert hands is not None
        return hands

    @property
    def step(self) -> str:
        return self.snap.step

    @property
    def hold_reason(self) -> str:
        """Why the table holds now ("" when it does not)."""
        hold = self.snap.hold
        return hold.reason if hold is not None else ""

    def close(self) -> None:
        self.runtime.stop()
        for s in self.servers.values():
            s.close()

    def __enter__(self) -> HilTable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # --- acting on the devices ----------------------------------------------------------------

    @property
    def first_seq(self) -> int:
        """Records up to here were in the journal before this run (a recovered journal)."""
        return self._first_seq

    def count(self, kind: str) -> int:
        """How many events of ``kind`` the controller has journaled in this run."""
        return sum(1 for r in self.journal.records(self.first_seq) if r.kind == kind)

    def count_events(self) -> int:
        """How many events the controller has journaled in this run."""
        return sum(1 for r in self.journal.records(self.first_seq) if r.event)

    def settled(self, kind: str, before: int, new: int) -> None:
        """Wait until ``new`` more events of ``kind`` are journaled and every journaled event handled."""
        engine = self.runtime.engine

        def done() -> bool:
            records = list(self.journal.records(self.first_seq))
            seen = sum(1 for r in records if r.kind == kind)
            events = sum(1 for r in records if r.event)
            return seen >= before + new and engine.processed == events and engine.queue.empty()

        wait(done, f"{new} {kind} event(s) to be handled")

    def spot(self, seat: int, spot: str, cents: int) -> None:
        before = self.count("SpotReport")
        self.spots.place(seat, spot, cents)
        self.settled("SpotReport", before, 1)

    def press(self, *buttons: str) -> None:
        for b in buttons:
            before = self.count("ButtonChanged")
            self.panel.press(b)
            self.settled("ButtonChanged", before, 2)  # pressed and released

    def key(self) -> None:
        """The supervisor turns the key on (and leaves it on)."""
        before = self.count("ButtonChanged")
        self.panel.emit(ButtonChanged, button=BUTTONS.index("supervisor_key") + 1, pressed=True)
        self.settled("ButtonChanged", before, 1)

    def load(self, cards: Sequence[str] | str) -> None:
        """Put ``cards`` (in dealing order) in the shoe."""
        self.shoe.load(cards.split() if isinstance(cards, str) else [str(c) for c in cards])

    def deal(self, n: int) -> None:
        before = self.count("CardDealt")
        self.shoe.deal(n)
        self.settled("CardDealt", before, n)

    def status(self) -> None:
        """Wait for the shoe's answer to the controller's stub-count request."""
        wait(lambda: self.count("ShoeStatus") > 0 and self.runtime.engine.queue.empty(), "the shoe's stub count")

    def confirm_steps(self) -> None:
        """Confirm the procedure steps shown out of turn (a fold's collection), page by page."""
        while self.snap.steps_pending():
            self.press("confirm")

    def finish(self) -> RoundResult:
        """Confirm each settlement step; the finished round."""
        rounds = len(self.results)
        while self.snap.step == "settlement":
            self.press("confirm")
        wait(lambda: len(self.results) > rounds, "the round to complete")
        return self.results[-1]

    # --- checking ------------------------------------------------------------------------------

    def shown(self) -> tuple[str, ...]:
        """The lines on the simulated panel's display now."""
        return tuple(self.panel.display.get(i + 1, "") for i in range(self.snap.display[0]))

    def screen(self) -> tuple[str, ...]:
        """The screen on the panel, once it shows what the controller last sent."""
        wait(lambda: bool(self.snap.screen) and self.shown() == self.snap.screen, "the panel to show the screen")
        return self.snap.screen

    def all_pages(self) -> list[str]:
        """The panel's screen page by page, each as one text: ``next`` pages the details (while
        the table does not need ``next`` for anything else), back round to the first page."""
        pages = [self.screen_text()]
        marker = self.screen()[0].rsplit(" ", 1)[-1]
        if "/" in marker:
            for _ in range(int(marker.split("/")[1])):
                self.press("next")
                pages.append(self.screen_text())
        return pages

    def screen_text(self) -> str:
        """The panel's screen as one line of text (wrapped lines joined)."""
        return " ".join(line.strip() for line in self.screen())

    def settles_as_tablectl_settle(self, result: RoundResult) -> dict[str, Any]:
        """Check that what the controller showed and paid is ``tablectl settle`` on the round
        record, and return that settlement as JSON."""
        assert result.settlement is not None
        path = self.tmp_path / f"round-{result.number}.json"
        path.write_text(json.dumps({**result.record, "table": str(self.table.path)}))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert tablectl(["settle", str(path)]) == 0
        expected = json.loads(out.getvalue())
        assert result.settlement.to_json() == expected
        folds = {"fold", "third_street", "fourth_street", "fifth_street", "violation"}  # collected when the seat folded
        at_fold = [step["text"] for step in expected["procedure"] if step["phase"] in folds]
        later = [step["text"] for step in expected["procedure"] if step["phase"] not in folds]
        assert all(text in self.texts for text in at_fold), "each fold's collection was shown"
        shown = [p for p in self.texts if p in set(later)]
        assert shown[-len(later) :] == later, "the dealer was shown every step, in order"
        return expected


def to_third(
    t: HilTable,
    cards: str = "As Ad Kc Qd 7h 8h 2c",
    antes: tuple[tuple[int, int], ...] = ((1, 500), (4, 1000)),
    size: int = 52,
    bonus: tuple[tuple[int, int], ...] = (),
) -> None:
    """Mississippi Stud to third street: each seat's ante (and its bonus, from ``bonus``: (seat,
    cents)), no more bets, ``cards`` loaded and every hand's two cards and the three community cards
    dealt."""
    bonuses = dict(bonus)
    for seat, ante in antes:
        t.spot(seat, "ante", ante)
        if seat in bonuses:
            t.spot(seat, "bonus", bonuses[seat])
    t.press("no_more_bets")
    t.load(shoe(cards, size))
    t.deal(2 * len(antes) + 3)
    assert t.step == "third_street"


def corrected_before_no_more_bets(t: HilTable, correction: str, fix: tuple[int, str, int]) -> None:
    """ "No more bets" refused while the dealer's screen asks for ``correction``; taken once ``fix``
    (seat, spot, cents) is placed."""
    t.press("no_more_bets")
    assert t.step == "betting"
    assert correction in t.screen_text()
    t.spot(*fix)
    t.press("no_more_bets")
    assert t.step == "no_more_bets"


def late_and_removed(t: HilTable, late: tuple[int, str, int], removed: tuple[int, str]) -> None:
    """After the spots are locked, a wager placed (``late``: seat, spot, cents; a seat not in the
    round, or a spot already locked) and chips taken off a locked spot (``removed``): both are
    noted as not accepted and their spots' lamps flash (late, removed)."""
    t.spot(*late)
    t.spot(*removed, 0)
    assert list(t.snap.late_notes) == [
        f"late bet: seat {late[0]} {late[1]} {late[2] / 100:.2f} not accepted",
        f"removed bet: seat {removed[0]} {removed[1]} 0.00 not accepted",
    ]
    wait(
        lambda: t.spots.lamps.get(late[:2]) == "flash_late" and t.spots.lamps.get(removed) == "flash_removed",
        "the spot lamps to flash",
    )


def shoe_lost_mid_deal(t: HilTable, before: int, during: int, resumes_at: str) -> None:
    """``before`` cards dealt, then the shoe's link lost: the table holds naming it; the shoe deals
    ``during`` more cards while down; its link back, the round resumes at step ``resumes_at``."""
    t.deal(before)
    t.servers["shoe"].disconnect()
    wait(lambda: t.step == "hold" and t.hold_reason == "link down: shoe", "the hold")
    t.shoe.deal(during)
    t.servers["shoe"].reconnect()
    wait(lambda: t.step == resumes_at, "the round to resume")


def locked(t: HilTable, cards: str) -> None:
    """Mississippi Stud: seat 1 antes 5.00, seat 4 10.00, no more bets, and ``cards`` loaded in the shoe."""
    t.spot(1, "ante", 500)
    t.spot(4, "ante", 1000)
    t.press("no_more_bets")
    t.load(shoe(cards))

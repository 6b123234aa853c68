"""Link reconciliation: each device's link going down and coming back, and its whole state read
after a link-up set against what the table believed.

A link going down holds a round in play (and a panel's takes the supervisor's key away). A device
that comes back is sent its whole current state (:class:`~.device_state.ShownState`); its own
state, read again, is then reconciled: the bet spots' changes count as the reports missed, the
panel's key and display size replace the table's, the shoe's count of cards out must match the
cards it reported. Once every device is back, a hold for lost links ends by itself, unless cards
wait for the supervisor.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from controller.table._bet_board import BetBoard
from controller.table._card_intake import CardIntake
from controller.table._dealer_screen import DealerScreen
from controller.table._device_state import BET_SPOTS, PANEL, SHOE, DeviceLinks
from controller.table._holds import NOT_CONNECTED, HoldKind, Holds
from controller.table._round_state import DeviceCommands, GameShape, RoundState
from controller.table._shoe_faults import ShoeFaults
from controller.table._supervisor import SupervisorKey
from controller.table._wagers import FaultReport, Wagers
from controller.table.card_ledger import CardLedger
from controller.table.engine import JournalFault
from controller.table.events import DevicesExpected
from controller.table.screen import DisplaySize
from drivers.bet_spots import SpotReport
from drivers.protocol import DeviceFault, LinkDown, LinkUp
from drivers.state import PanelState, ShoeState, SpotsState

__all__ = ["LinkReconciler"]

log = logging.getLogger("tablectl.table")

DEVICES = (BET_SPOTS, PANEL, SHOE)
"""The table's devices, by the roles the runtime names their drivers."""


class LinkReconciler:
    """The table's device links (``device_links``), and what is done when each goes down and
    comes back. ``on_spot_report`` is the game's for a checked spot report (a change the bet
    spots' state read stands for); ``device_fault`` journals and shows a report refused."""

    def __init__(
        self,
        state: RoundState,
        shape: GameShape,
        device_links: DeviceLinks,
        holds: Holds,
        shoe_faults: ShoeFaults,
        key: SupervisorKey,
        commands: DeviceCommands,
        display: DealerScreen,
        ledger: CardLedger,
        intake: CardIntake,
        board: BetBoard,
        wagers: Wagers,
        on_spot_report: Callable[[SpotReport], None],
        device_fault: FaultReport,
    ) -> None:
        self._state, self._shape, self._holds, self._shoe_faults = state, shape, holds, shoe_faults
        self._key, self._commands, self._display, self._ledger = key, commands, display, ledger
        self._intake, self._board, self._wagers = intake, board, wagers
        self._on_spot_report, self._device_fault = on_spot_report, device_fault
        self.device_links = device_links

    def why_not_resume(self) -> str | None:
        """Why play cannot resume now: a device not back yet, or the shoe jammed or its door open
        (the supervisor may still void)."""
        return self._shoe_faults.why_not_resume()

    def why_not_clear(self) -> str | None:
        """Why the supervisor's clear fault cannot resume play now: cards that wait for the
        supervisor (confirm accepts them), a device not back, or the shoe's fault."""
        if self._ledger.waiting:
            return self._intake.waiting_reason()
        return self.why_not_resume()

    def device_fault(self, e: DeviceFault) -> None:
        """A ``DeviceFault`` from a driver (journaled already): a link that cannot come up
        (:meth:`cannot_connect`), or a command that failed (:meth:`._holds.Holds.command_failed`)."""
        if getattr(e, "kind", "") in NOT_CONNECTED:
            self.cannot_connect(e)
            return
        self._holds.command_failed(e)

    def journal_refused(self, e: JournalFault) -> None:
        """A ``JournalFault``: the journal takes records again. The outage was one of every device
        at once (:meth:`journal_outage`): each is read again, and the hold is a link hold until
        every one is back. With events lost (``e.refused``) the supervisor must see it (held for
        it first: the outage's re-read does not make it a hold that ends by itself)."""
        holds = self._holds
        if e.refused:
            holds.hold(f"journal: {e.reason} ({e.refused} events not recorded or acted on)", HoldKind.JOURNAL_REFUSED)
            self.journal_outage()
            return
        self.journal_outage()
        retaken = getattr(e, "retaken", 0)
        self._display.note(f"journal written again: {retaken} events taken again")
        if holds.on and holds.kind is HoldKind.JOURNAL and self.why_not_clear() is None:
            holds.release()

    def journal_outage(self) -> None:
        """The journal takes records again after an outage (a ``JournalFault``): an outage of
        every device at once. Each device's events meanwhile were neither acknowledged nor acted
        on, and each sends them again in its own order, so the devices' events interleave as
        polling brings them, not as they happened: each device is read again, as after a link
        outage (the runtime asks every link for its state). Until its state is read, a panel press
        is journaled and not acted on (the dealer presses it again), a bet-spot report waits for
        the state (what is on the spots then counts as placed while betting is open, or as a late
        bet), and a card dealt waits for the supervisor in dealing order. A round in play holds
        for the devices (a link hold: it ends by itself once every one is back). A hold only the
        supervisor clears stays that hold (authority never outlives its evidence): the devices
        are read again all the same, and then it still needs the supervisor's way."""
        holds = self._holds
        held_from = holds.held_from if holds.on else self._state.phase
        self.device_links.journal_outage(DEVICES)
        if held_from not in self._shape.playing:
            return
        reason = "journal written again: each device's state is read again"
        if holds.on and holds.kind.supervisor_only:
            holds.held_links |= set(DEVICES)
            self._display.note(reason)
            return
        if holds.on:
            holds.reason, holds.kind = reason, HoldKind.LINK
        else:
            holds.hold(reason, HoldKind.LINK)
        if holds.on:
            holds.held_links |= set(DEVICES)

    def restarted(self, since: float) -> None:
        """The controller started again with a round open (``DevicesExpected`` with ``reread``):
        a restart is an outage of every device at once, as a journal outage is (:meth:`journal_outage`).
        While the table was stopped the dealer may have gone on from the last screen: each device
        is read again, and until then a press it reports that happened before ``since`` (the
        start) is not acted on (the dealer presses it again); a card waits for the supervisor in
        dealing order. A round in play holds for the
        devices (a link hold: it ends by itself once every one is back); a hold recovered from
        the journal stays as it was."""
        holds = self._holds
        self.device_links.restarted(DEVICES, since)
        if holds.on or self._state.phase not in self._shape.playing:
            return
        holds.hold("controller started again: each device's state is read again", HoldKind.LINK)
        if holds.on:
            holds.held_links |= set(DEVICES)

    def rereading(self, device: str, at: float) -> str | None:
        """An event of ``device`` that happened at ``at`` is not acted on: made while the journal
        could not be written or while the controller was stopped, before the device's state is
        read again (returned: while what), or None."""
        links = self.device_links
        return links.rereading(device, at) if links.pending or links.rereads else None

    def expected(self, e: DevicesExpected) -> None:
        """A ``DevicesExpected`` (every start): each device counts as never connected until its
        link is up and its state read; after a restart with a round open each is read again
        before its reports are acted on (:meth:`restarted`)."""
        self.device_links.expect(tuple(e.devices))
        if getattr(e, "reread", False):
            self.restarted(float(getattr(e, "since", 0.0)))

    def cannot_connect(self, e: DeviceFault) -> None:
        """A ``DeviceFault`` saying a link cannot come up (the port would not open, or the device
        does not answer): a device never connected since start holds the table, with the reason."""
        why = str(e.error).split(" (tried again", 1)[0]
        if self.device_links.cannot_connect(e.device, why):
            self.hold_never_connected()

    def never_connected_reason(self) -> str | None:
        """The hold's reason for the devices never connected since start (None: none), each with
        why when its link said."""
        links = self.device_links
        gone = links.never_connected()
        if not gone:
            return None
        named = [f"{d}{links.pending[d][len(links.NEVER) :]}" for d in gone]
        return f"{links.NEVER}: {'; '.join(named)}"

    def hold_never_connected(self) -> None:
        """Hold for the devices never connected since start (a round in play; a table already
        held for links shows the newer word on them)."""
        reason = self.never_connected_reason()
        if reason is None:
            return
        holds = self._holds
        holds.hold(reason, HoldKind.LINK)
        if holds.on and holds.kind is HoldKind.LINK:
            holds.reason = reason if holds.reason.startswith(self.device_links.NEVER) else holds.reason
            holds.held_links |= set(self.device_links.never_connected())

    def still_missing(self) -> None:
        """A device came back while the table holds for devices never connected and others are
        still missing: the reason names those left."""
        holds = self._holds
        if holds.kind is HoldKind.LINK and holds.reason.startswith(self.device_links.NEVER):
            reason = self.never_connected_reason()
            down = sorted(d for d, why in self.device_links.pending.items() if why == self.device_links.DOWN)
            holds.reason = reason if reason is not None else f"link down: {down[0]}" if down else holds.reason

    def no_more_bets_refused(self) -> bool:
        """'No more bets' is not taken while a device has never connected: the table holds
        instead (the panel never says to deal with a device missing). True when refused."""
        if not self.device_links.never_connected():
            return False
        self.hold_never_connected()
        return True

    def round_opened(self) -> None:
        """A round opened: a device whose link is down, or that said it cannot connect, holds it."""
        links = self.device_links
        down = sorted(d for d, why in links.pending.items() if why == links.DOWN)
        if down:
            self._holds.hold(f"link down: {down[0]}", HoldKind.LINK)
            if self._holds.on:
                self._holds.held_links |= set(down)
        elif any(links.pending[d] != links.NEVER for d in links.never_connected()):
            self.hold_never_connected()

    def down(self, e: LinkDown) -> None:
        """A ``LinkDown``: the round holds; the panel's takes the key away."""
        self.device_links.down(e.device)
        if e.device == PANEL:
            self._key.lost()  # authority never outlives its evidence
        self._holds.link_lost(e.device)

    def up(self, e: LinkUp) -> None:
        """A ``LinkUp``: the device is sent its whole current state, never an old prompt."""
        self.device_links.up(e.device)
        self._commands.resend(e.device)

    def device_back(self, device: str) -> None:
        """``device``'s whole state was read after its link came up: a hold for lost links ends
        once every device is back, unless cards wait for the supervisor and a card is expected or
        the round's deal has begun (between its parts, as Boston 5's second wager, or over): then
        it holds for them (authority never outlives its evidence: a card that left the shoe is
        decided on before the table goes on)."""
        holds, ledger, intake = self._holds, self._ledger, self._intake
        self.device_links.state_read(device)
        if not holds.ends_by_itself():
            return
        if self.device_links.why_not_back() is not None:
            self.still_missing()
            return
        shoe_alone = holds.held_links <= {SHOE}
        if ledger.waiting and not (shoe_alone and intake.deal_expected()):
            # for the supervisor now: a card is expected, or the deal has begun (between its parts
            # or over), or the shoe's own reports came when none was expected (live, they would
            # have held)
            if shoe_alone or intake.decided_now():
                holds.hold(intake.waiting_hold())
                return
            # before the deal, no card expected yet (presses not acted on, e.g. "no more bets"):
            # the dealer goes on; the cards wait for the supervisor once the deal is expected
            self._display.note(f"{len(ledger.waiting)} cards wait for the supervisor once the deal begins")
            holds.release()
            return
        self._display.note(f"{device} back: resume")
        holds.release()
        # Held for the shoe's link alone: the cards that waited are its reports delivered late, in
        # order and none missing (its count agreed), so they go to their places as dealt.
        intake.place_waiting(ledger.take_waiting())

    def spots_state(self, e: SpotsState) -> None:
        """The bet spots' whole state after a link-up: each spot that changed while the link was
        down counts as the report it stands for (late and removed-bet rules apply); a spot reported
        while its report waited for this read counts as that report even at the amount the board
        last had (a chip left from an earlier round placed again)."""
        wagers = self._wagers
        changes = self._board.changes(e.spots, reported=wagers.unread)
        self.device_back(e.device)
        for seat, spot, cents in changes:
            report = SpotReport(device=e.device, at=e.at, seat=seat, spot=spot, cents=cents)
            if wagers.on_board(report):
                self._on_spot_report(report)
        wagers.state_read()

    def panel_state(self, e: PanelState) -> None:
        """The panel's whole state after a link-up: its key switch replaces what the table believed;
        its display size, when it reports one, replaces the config's."""
        display = self._display
        self._key.reported(e.key_on)
        lines, columns = getattr(e, "lines", 0), getattr(e, "columns", 0)
        if lines and columns:
            size = display.size
            try:
                size = DisplaySize(lines, columns)
            except ValueError as exc:
                log.warning("panel %s: %s: keeping %s x %s", e.device, exc, size.lines, size.columns)
            display.resize(size)  # send the whole screen again, fitted to the panel
        self.device_back(e.device)

    def shoe_state_read(self, e: ShoeState) -> None:
        """The shoe's whole state (a ``ShoeState``: after a link-up, and while it is jammed or its
        door open): its status says whether it is jammed or its door open now
        (:meth:`._shoe_faults.ShoeFaults.status`); the rest is reconciled here (:meth:`shoe_state`).
        A fault holds before the link's part, so a link hold does not end in between."""
        faults = self._shoe_faults
        if faults.status(e.status):
            faults.hold()
            self.shoe_state(e)
        else:
            self.shoe_state(e)
            faults.cleared()

    def shoe_state(self, e: ShoeState) -> None:
        """The shoe's whole state after a link-up: its count of cards out must match the cards it
        reported (a difference is a fault: the table holds)."""
        difference = self._ledger.count_differs(e.cards_out)
        if difference is None:
            self.device_back(e.device)
            return
        self.device_links.state_read(e.device)
        self._device_fault(e.device, difference, cards_out=e.cards_out)
        self._holds.hold(f"shoe: {difference}")

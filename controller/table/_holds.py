"""The one hold rule: why the table holds, what a new reason does to a hold already on, what
clears it and who may clear it.

A round in play holds for a reason (:meth:`Holds.hold`): the machine goes to ``hold``,
remembering the state to resume to, the panel's ``clear_fault`` lamp lights and the dealer's
screen names the reason. A table already held keeps its hold; whether a new reason replaces the
one shown, or is only noted, is the reason's :class:`HoldKind`. A hold ends by :meth:`release`
(back where the round was held) or :meth:`void`; a link-down hold by itself once every device is
back, a shoe hold (jam, door) by itself once the shoe reports ok, any other by the supervisor (key
on): clear fault, accept or enter cards, or void.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from enum import Enum

from controller.table._dealer_screen import DealerScreen
from controller.table._device_state import DeviceLinks
from controller.table._forward import Forward
from controller.table._hold_ways import MISDEAL, OR_VOID, SUPERVISOR_VOID, Way, Ways, reason_ways, void
from controller.table._round_state import DeviceCommands, Fire, GameShape, RoundState
from controller.table._supervisor import Record
from controller.table.card_ledger import CardLedger
from drivers.protocol import DeviceFault

__all__ = ["HoldKind", "Holds", "ROUND_COMMANDS", "NOT_CONNECTED", "hold_clears", "clears_ways", "cards_wait_reason"]

log = logging.getLogger("tablectl.table")

CARDS_WAIT_PROMPT = Ways("supervisor: key, then ", (Way("confirm accepts the cards"), OR_VOID))
"""The hold's prompt while cards that left the shoe wait for the supervisor (clear fault is refused)."""

NOT_CONNECTED = frozenset({"open_failed", "no_answer"})
"""``DeviceFault`` kinds a link reports while it cannot come up (drivers.link): a device never
connected since start holds the table with the reason."""

ROUND_COMMANDS = frozenset({"display", "screen", "lock", "unlock", "lamp"})
"""Device commands the round depends on: one that finally fails holds the table."""


class HoldKind(Enum):
    """Why the table holds (what a new reason does to a hold already on, and what clears it)."""

    LINK = "link down"
    """A device's link went down: the hold ends by itself once every device is back."""
    COMMAND = "command failed"
    """A command the round depends on finally failed: the device is sent its state at clear fault."""
    JOURNAL = "journal"
    """The journal cannot be written (events are not acted on, nor acknowledged to their devices):
    the hold ends by itself once the journal takes records again with nothing lost."""
    JOURNAL_REFUSED = "journal refused"
    """The journal takes records again, but events were lost meanwhile (how many)."""
    SHOE = "shoe"
    """The shoe is jammed or its door open (:mod:`._shoe_faults`): the hold ends by itself once the
    shoe reports ok (cards dealt meanwhile wait for the supervisor)."""
    TABLE = "table"
    """Anything else the supervisor must see: a card, the shoe's count, the stub, a misdeal, the
    settlement, a controller error."""

    def replaces(self, held: HoldKind) -> bool:
        """Whether a reason of this kind replaces ``held``'s on a table already held: a table
        fault always does (the supervisor decides on it), a fresher word on the journal replaces
        a journal reason or one of a hold that ends by itself (events were lost: the supervisor
        must see it); the shoe's fault replaces a link's or its own (a link is followed apart,
        and the dealer must see the jam); a link or a command never does (their devices are
        followed apart)."""
        if self is HoldKind.SHOE:
            return held in (HoldKind.LINK, HoldKind.SHOE)
        if self is HoldKind.JOURNAL_REFUSED:
            return held.journal or held.ends_by_itself
        return self is HoldKind.TABLE

    def noted(self, held: HoldKind) -> bool:
        """Whether a reason of this kind is shown as a note on a table already held for ``held``
        (a journal still failing is not noted again over a journal hold)."""
        if self is HoldKind.JOURNAL:
            return not held.journal
        if self is HoldKind.SHOE:
            return held is not HoldKind.SHOE
        return self in (HoldKind.TABLE, HoldKind.JOURNAL_REFUSED)

    @property
    def journal(self) -> bool:
        return self in (HoldKind.JOURNAL, HoldKind.JOURNAL_REFUSED)

    @property
    def ends_by_itself(self) -> bool:
        """A hold of this kind ends without anyone: once every device is back, or the shoe reports ok."""
        return self in (HoldKind.LINK, HoldKind.SHOE)

    @property
    def supervisor_only(self) -> bool:
        """Only the supervisor clears a hold of this kind (by the way its reason names): it never
        ends by itself, nor when the journal takes records again."""
        return not self.ends_by_itself and self is not HoldKind.JOURNAL

    @property
    def who(self) -> str:
        """Who may clear a hold of this kind."""
        return "device or supervisor" if self.ends_by_itself else "supervisor"

    @property
    def prompt(self) -> Ways:
        """What clears a hold of this kind, and who (the screen's prompt)."""
        return _PROMPTS.get(self, _SUPERVISOR_PROMPT)


def _or_key_void(way: str) -> Ways:
    """A hold's prompt: ``way`` (no one needs to act), or the supervisor's key and void."""
    return Ways("", (Way(way), void("; or key: ")))


_PROMPTS = {
    HoldKind.LINK: _or_key_void("wait for the device"),
    HoldKind.SHOE: _or_key_void("fix the shoe"),
    HoldKind.JOURNAL: _or_key_void("free space for the journal"),
}
"""The prompts of a hold that ends by itself (a link, the shoe) or once the journal is written again."""
_SUPERVISOR_PROMPT = Ways("supervisor: key, then ", (Way("clear fault"), void(" or ")))
"""The prompt of a hold only the supervisor clears."""


def cards_wait_reason(waiting: int) -> Ways:
    """The hold's reason while ``waiting`` cards that left the shoe wait for the supervisor."""
    return Ways(
        f"{waiting} card{'s' if waiting > 1 else ''} dealt while held: supervisor: ", (Way("confirm accepts"), MISDEAL)
    )


def _by_itself(when: str) -> Ways:
    """A hold that ends by itself ``when`` (or the supervisor voids)."""
    return Ways("", (Way(f"by itself {when}"), SUPERVISOR_VOID))


_SUPERVISOR = "supervisor key on: "
_CLEAR_FAULT = (Way("clear fault"), OR_VOID)


def clears_ways(reason: str) -> Ways:
    """What clears a hold with ``reason`` (as this module and its callers word reasons), as parts."""
    if reason.startswith("never connected:"):
        devices = [part.split(":", 1)[0].strip() for part in reason.split(":", 1)[1].split(";")]
        named = devices[0] if len(devices) == 1 else f"{', '.join(devices[:-1])} and {devices[-1]}"
        links = "link comes" if len(devices) == 1 else "links come"
        return _by_itself(f"when the {named} {links} up")
    if reason.startswith("journal written again:"):
        return _by_itself("when every device's state is read again")
    if reason.startswith("link down:"):
        return _by_itself(f"when the {reason.split(':', 1)[1].strip()} link is back")
    if reason.startswith(("unreadable card", "duplicate card")):
        return Ways(
            _SUPERVISOR,
            (Way("read the card again"), Way("enter it (next / previous, confirm)", ", or "), void("; or ")),
        )
    if "was read again or entered:" in reason:  # a card after clear fault on a misread one (_card_intake.py)
        return Ways(
            _SUPERVISOR,
            (
                Way("read the misread card again"),
                Way("enter it (next / previous, confirm), then confirm accepts the cards", ", or "),
                void("; or "),
            ),
        )
    if reason.startswith(("shoe jammed", "shoe door open")):
        return _by_itself("when the shoe reports ok (jam cleared, door closed)")
    if reason.startswith("misdeal check"):  # pai gow: the stub is not four (31.14)
        return Ways(
            f"the dealer checks each hand: {_SUPERVISOR}",
            (Way("clear fault when each has seven cards"), void(", ", "void when not")),
        )
    if reason.startswith("misdeal"):
        return Ways(_SUPERVISOR, (void(""),))
    if reason.startswith("journal:") and "not recorded or acted on" not in reason:
        return _by_itself("when the journal can be written again (free space on its disk)")
    if reason.startswith("journal:"):  # events lost
        return Ways(_SUPERVISOR, _CLEAR_FAULT)
    if reason.startswith("stub count"):
        return Ways(f"recount the stub; {_SUPERVISOR}", _CLEAR_FAULT)
    if (
        "dealt while held" in reason
        or "dealt when none was expected" in reason
        or reason.startswith("shoe card numbers")
    ):
        return Ways(_SUPERVISOR, (Way("confirm accepts the cards"), MISDEAL))
    return Ways(_SUPERVISOR, _CLEAR_FAULT)


def hold_clears(reason: str) -> str:
    """What clears a hold with ``reason``, in words, every way offered (the page and the pit show
    it: :func:`clears_ways`)."""
    return clears_ways(reason).words()


_BACK_AND_READ = _by_itself("when every device is back and read")


def reason_clears(reason: str, by_itself: bool) -> Ways:
    """What clears a hold with ``reason`` that ends by itself or not (``by_itself``), as the hold
    began or changed (what the journal's hold records say): a hold that ends by itself says so,
    whatever its reason."""
    ways = clears_ways(reason)
    if by_itself and not ways.words().startswith("by itself"):
        return _BACK_AND_READ
    return ways


def _names(devices: list[str]) -> str:
    return devices[0] if len(devices) == 1 else f"{', '.join(devices[:-1])} and {devices[-1]}"


def waits_for_clears(pending: dict[str, str]) -> Ways:
    """What clears a link hold now that ``pending`` (device: why not back, as
    :class:`DeviceLinks` words it) are not back: the links still down, those never up since start,
    then the states not read (whichever device the hold's reason named when it began)."""
    down = sorted(d for d, why in pending.items() if why == DeviceLinks.DOWN)
    never = sorted(d for d, why in pending.items() if why.startswith(DeviceLinks.NEVER))
    unread = sorted(d for d in pending if d not in down and d not in never)
    waits = []
    if down:
        waits.append(f"the {_names(down)} link{' is' if len(down) == 1 else 's are'} back")
    if never:
        waits.append(f"the {_names(never)} link{' comes' if len(never) == 1 else 's come'} up")
    if unread:
        one = len(unread) == 1
        waits.append(
            f"the {_names(unread)} state{' is' if one else 's are'} read"
            f" ({'its link is' if one else 'their links are'} up: asked again until answered)"
        )
    return _by_itself(f"when {' and '.join(waits)}")


class Holds:
    """The hold on the round now: why, the state it was held from, the devices lost meanwhile.

    It reads and writes the round's ``state`` (its phase; the hold's reason and the state held
    from are kept there for the screen and the game to read), fires the machine's ``hold``,
    ``resume`` and ``void`` triggers, and calls ``after_release`` once a hold ended (a record
    that could not be settled is settled again: :meth:`._settlement_walk.SettlementWalk.settle_again`);
    ``why_not_void`` is the round's (the supervisor's record names the void only while it is taken).
    """

    def __init__(
        self,
        state: RoundState,
        shape: GameShape,
        commands: DeviceCommands,
        display: DealerScreen,
        ledger: CardLedger,
        device_links: DeviceLinks,
        hold: Fire,
        resume: Fire,
        void: Fire,
        after_release: Callable[[], None],
        why_not_void: Callable[[], str | None],
    ) -> None:
        self._state, self._shape, self._commands, self._display = state, shape, commands, display
        self._ledger, self._device_links = ledger, device_links
        self._hold, self._resume, self._void, self._after_release = hold, resume, void, after_release
        self._why_not_void = why_not_void
        self.kind = HoldKind.TABLE
        self.held_links: set[str] = set()
        """The devices whose link went down during the hold on now."""
        self.failed_devices: set[str] = set()
        """Devices a command the round depends on finally failed for (sent their state at clear fault)."""
        self.machine_error: str | None = None
        """The kind of the last error a machine callback raised (None: none since start)."""

    held_from = Forward[Enum | None]("_state", "held_from")
    """The state the last hold was entered from."""

    @property
    def reason(self) -> str:
        """Why the table holds (the last hold's reason, as journaled: every way out it names;
        shown only while held)."""
        return self._state.hold_reason.words()

    @reason.setter
    def reason(self, reason: str | Ways) -> None:
        self._state.hold_reason = reason_ways(reason)

    def shown_reason(self, void_refused: str | None) -> str:
        """The hold's reason as the screen and the page show it: the void it names offered only
        when not ``void_refused`` (the round's ``why_not_void``)."""
        return self._state.hold_reason.words(void_refused)

    @property
    def on(self) -> bool:
        return self._state.phase is self._shape.common.hold

    def hold(self, reason: str | Ways, kind: HoldKind = HoldKind.TABLE) -> None:
        """Hold the round for ``reason`` (in play); on a table already held, the reason replaces
        the one shown or is noted, as its ``kind`` says."""
        phase = self._state.phase
        if phase in self._shape.playing:
            self.reason, self.kind = reason, kind
            self._hold()
        elif phase is self._shape.common.hold:
            held = self.kind
            if kind.replaces(held):
                self.reason, self.kind = reason, kind
            if kind.noted(held):
                self._display.hold_noted(reason_ways(reason))

    def entered(self, reason: str | Ways | None = None) -> None:
        """The machine goes to ``hold`` (its ``before`` callback): remember where to resume."""
        if reason is not None:
            self.reason, self.kind = reason, HoldKind.TABLE
        self.held_from = self._state.phase
        self.held_links = set()
        self._commands.panel_lamp("clear_fault", True)
        self._display.held(self._state.hold_reason)

    def machine_error_raised(self, *_trigger_args: object, **_trigger_kwargs: object) -> None:
        """A callback of the machine raised (its ``on_exception``): the error names the hold's
        reason (the state stays as it is).

        ``transitions`` calls this inside its ``except`` block with the trigger's own arguments
        (the machine does not use ``send_event``), so the error is the one being handled. Only its
        type is logged: its text may name a card not yet revealed.
        """
        error = sys.exc_info()[1]
        kind = type(error).__name__ if error is not None else "unknown error"
        log.error("table machine error: %s", kind)
        self.machine_error = kind
        self.reason, self.kind = f"controller error: {kind}", HoldKind.TABLE

    def journal_failed(self, reason: str) -> None:
        """The journal cannot be written: hold (not recorded; the ``JournalFault`` event that
        follows when it can be written again holds a replay at the same place)."""
        self.hold(f"journal: {reason}", HoldKind.JOURNAL)

    def link_lost(self, device: str) -> None:
        self.hold(f"link down: {device}", HoldKind.LINK)
        if self.on:
            self.held_links.add(device)

    def command_failed(self, e: DeviceFault) -> None:
        """A ``DeviceFault`` from a driver (journaled already) other than a link that cannot come
        up (:meth:`._links.LinkReconciler.device_fault`). A command the round depends on (the
        display, the spot lock and lamps) that finally failed holds the table: the dealer and the
        players would go on from a screen or lamps that are wrong."""
        if getattr(e, "kind", "") != "command_failed" or getattr(e, "command", "") not in ROUND_COMMANDS:
            return
        self.failed_devices.add(e.device)
        if self._state.phase in self._shape.playing:
            self.hold(f"{e.device}: {e.error}", HoldKind.COMMAND)

    def ends_by_itself(self) -> bool:
        """Held for lost links only: the hold ends once every device is back."""
        return self.on and self.kind is HoldKind.LINK

    def shoe_ok(self) -> None:
        """The shoe reports ok again: a hold for its jam or door ends, as a link hold does once
        every device is back: a link still down keeps it (a link hold now), cards that left the
        shoe meanwhile go to the supervisor (confirm accepts them, void is a misdeal)."""
        if not (self.on and self.kind is HoldKind.SHOE):
            return
        gone = sorted(self._device_links.pending)
        if gone:
            self.reason, self.kind = f"link down: {gone[0]}", HoldKind.LINK
            return
        if self._ledger.waiting:
            self.hold(cards_wait_reason(len(self._ledger.waiting)))
            return
        self._display.note("shoe ok: resume")
        self.release()

    def prompt(self) -> Ways:
        """What clears the hold on now, and who (the screen's prompt): while cards that left the
        shoe wait for the supervisor, clear fault is refused and confirm accepts them."""
        if self._ledger.waiting and not self.kind.ends_by_itself and self.kind is not HoldKind.JOURNAL:
            return CARDS_WAIT_PROMPT
        return self.kind.prompt

    def clears(self) -> Ways:
        """What clears the hold on now, as its ways out (a hold that ends by itself says so, whatever its
        reason: the log, the page and the screen say the same way on). A hold for a link down
        whose device is back but not read yet (its state request refused, or not answered yet)
        says it waits for that state, not for the link: the reason stays what the hold began
        with (journaled), the words follow what it waits for now."""
        pending = self._device_links.pending
        if pending and self.reason.startswith("link down:"):
            return waits_for_clears(pending)
        return reason_clears(self.reason, self.kind.ends_by_itself)

    def release(self) -> None:
        """End the hold: the round goes on where it was held."""
        self._commands.panel_lamp("clear_fault", False)
        self._resume()
        self._after_release()  # held because the record could not be settled: try again

    def void(self) -> None:
        """End the hold (or the round in play) by voiding the round."""
        self._commands.panel_lamp("clear_fault", False)
        self._void()

    def void_by_supervisor(self, button: str, record: Record) -> None:
        """Supervisor action: void the round, every wager returned."""
        record(f"round {self._state.round_no} voided from {self._state.phase.value}: all wagers returned")
        self.void()

    def clear_fault(self, button: str, record: Record) -> None:
        """Supervisor action: clear the fault and resume where the round was held (a device whose
        command failed is sent its whole state again first). The record names the hold's reason
        as the screen and the page show it now (:meth:`shown_reason`: a void refused is no way out)."""
        record(self.shown_reason(self._why_not_void()))
        for device in sorted(self.failed_devices):
            self._commands.resend(device)
        self.failed_devices = set()
        self.release()

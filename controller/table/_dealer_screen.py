"""What the dealer is shown: the prompt, the notes for the event handled, the notices to read
and confirm (paged), and the whole screen sent to the panel when it changes.

The screen itself is a pure function of the table's :class:`~controller.table.screen.ScreenState`
(:mod:`.screen`); this keeps the texts it is made from and the pages shown, and sends it.
"""

from __future__ import annotations

from collections.abc import Callable

from controller.table._device_state import DeviceLinks, ShownState
from controller.table._hold_ways import Ways
from controller.table._round_state import GameShape, RoundState
from controller.table.screen import DisplaySize, Notice, ScreenState, fits, page_count, render

__all__ = ["DealerScreen", "KEEP_PROMPTS"]

_new_screen_state = tuple.__new__
"""Makes a :class:`ScreenState` from its values in the fields' order."""

KEEP_PROMPTS = 500
"""The recent texts kept in memory (everything is in the journal: memory holds only what the
dealer and the tests look at)."""


class DealerScreen:
    """The dealer's screen: what it asks, notes and notifies, and the lines last sent (to
    ``shown``, the panel's state kept for its link-ups).

    It reads the round's ``state`` and ``device_links``; the game's hooks: ``hold_prompt`` (the
    prompt while held), ``why_not_void`` (why the round's void is refused now: a hold's reason
    shown offers it only when taken), ``screen_details`` (the details of the state now),
    ``uses_next_previous`` (whether next / previous mean something now, rather than paging) and
    ``notice_confirmed``."""

    def __init__(
        self,
        state: RoundState,
        shape: GameShape,
        device_links: DeviceLinks,
        shown: ShownState,
        size: DisplaySize,
        hold_prompt: Callable[[], str],
        why_not_void: Callable[[], str | None],
        screen_details: Callable[[], list[str]],
        uses_next_previous: Callable[[], bool],
        notice_confirmed: Callable[[Notice], None],
    ) -> None:
        self._state, self._shape, self._device_links, self._shown = state, shape, device_links, shown
        self._hold_prompt, self._screen_details = hold_prompt, screen_details
        self._why_not_void = why_not_void
        self._uses_next_previous, self._notice_confirmed = uses_next_previous, notice_confirmed
        self.prompts: list[str] = []
        """Every text the dealer was shown (prompts, notes, notices), the recent ones kept."""
        self.texts_shown = 0
        """How many texts the dealer was shown since start (the snapshot's count of ``prompts``)."""
        self.prompt = ""
        """What the dealer must do next (the screen's prompt)."""
        self.notes: list[str] = []
        """Details for the event being handled (shown until the next event)."""
        self.until_pressed: dict[str, str] = {}
        """Notes that stay on the screen until their button is pressed and acted on (a press not
        acted on during a journal outage: press it again), by button."""
        self.notices: list[Notice] = []
        """What must be read before going on, oldest first: shown until confirmed."""
        self.page = 0
        """The page of the notice shown."""
        self.detail_page = 0
        """The page of the details shown (back to the first at each event but paging)."""
        self.size = size
        """The display's size: the table config's, or the panel's when it reports one."""
        self._lines: tuple[str, ...] = ()
        self._stale = False
        """The screen may have changed since it was last made (devices without a screen of their
        own: it is made when read, see :attr:`lines`)."""
        self._rendered: tuple[tuple[ScreenState, DisplaySize] | None, tuple[str, ...]] = (None, ())
        self._target: object = None
        self._target_shows = True
        """The devices ``show`` last sent to and whether they show the screen (``shows_screen``)."""
        self._confirm: tuple[str | None, DisplaySize | None, str] = (None, None, "")
        """The last prompt of a confirm step, the display's size it was made for, and what it made."""
        self._made_at: int | None = None
        """The round's ``screen_version`` when the screen was last made (None: not made since
        it was last left stale)."""

    def shown(self, text: str) -> None:
        """Keep ``text`` among the texts shown (it is on the screen through a prompt, note or detail)."""
        self.texts_shown += 1
        self._state.screen_changed()
        self.prompts.append(text)
        if len(self.prompts) > 2 * KEEP_PROMPTS:
            del self.prompts[:-KEEP_PROMPTS]

    def held(self, reason: Ways) -> None:
        """Keep the hold's ``reason`` among the texts shown (the void it names offered only when taken)."""
        self.shown(f"HOLD: {reason.words(self._why_not_void())}")

    def hold_noted(self, reason: Ways) -> None:
        """Note a new hold ``reason`` on a table already held (the void it names offered only when taken)."""
        self.note(reason.words(self._why_not_void()))

    def ask(self, prompt: str) -> None:
        """Set the screen's prompt: what the dealer must do next, naming the button."""
        self.prompt = prompt
        self.shown(prompt)

    def note(self, text: str) -> None:
        """Add a detail to the screen until the next event (an answer to what the dealer just did)."""
        self.notes.append(text)
        self.shown(text)

    def note_until_pressed(self, button: str, text: str) -> None:
        """Add a detail that stays on the screen until ``button`` is pressed and acted on (or the
        round ends)."""
        self.until_pressed[button] = text
        self.shown(text)

    def pressed(self, button: str) -> None:
        """``button`` was pressed and is acted on: its note to press it again goes."""
        if self.until_pressed.pop(button, None) is not None:
            self._state.screen_changed()

    def clear_until_pressed(self) -> None:
        """A new round: no note to press a button again is left from the last one."""
        self.until_pressed = {}
        self._state.screen_changed()

    def notify(self, title: str, lines: tuple[str, ...] = (), blocking: bool = False) -> None:
        """Put something on the screen that stays until the dealer confirms it (paged when long).
        A ``blocking`` notice is a procedure step: the round waits for its confirmation."""
        self.notices.append(Notice(title, lines, blocking))
        for text in (title, *lines):
            self.shown(text)

    def steps_pending(self) -> bool:
        """A procedure step shown out of turn (a fold's collection) is not yet confirmed."""
        return any(n.blocking for n in self.notices)

    def drop_steps(self) -> None:
        """The round is void: no procedure step shown out of turn is done (every wager returns)."""
        self.notices = [n for n in self.notices if not n.blocking]
        self.page = 0
        self._state.screen_changed()

    def new_event(self) -> None:
        """An event is handled: the last event's notes go, the details back to their first page."""
        if self.notes or self.detail_page:
            self.notes, self.detail_page = [], 0
            self._state.screen_changed()

    def resize(self, size: DisplaySize) -> None:
        """The panel reported its display's size: the whole screen is sent again, fitted to it."""
        self.size = size
        self._lines = ()
        self._state.screen_changed()

    def state(self) -> ScreenState:
        """What the screen shows now (a pure function of this is the screen: :mod:`.screen`)."""
        state, shape, links = self._state, self._shape, self._device_links
        phase, held_from = state.phase, state.held_from
        held = phase is shape.common.hold
        # ``_value_`` is the plain attribute behind ``.value`` (a descriptor, slow on every event)
        step = phase._value_ if not held or held_from is None else held_from._value_
        if held:
            prompt = self._hold_prompt()
        elif phase._value_ in shape.confirm_phases:
            prompt = self._confirm_prompt()
        else:
            prompt = self.prompt
        if not held and links.pending and phase is not shape.common.betting and phase in shape.playing:
            # a round recovered after a restart: no device has connected yet, and none is down (that
            # would hold), so the dealer waits for them rather than being told to deal
            missing = links.never_connected()
            if missing:
                prompt = f"wait: {', '.join(missing)} not connected yet"
        notices = self.notices
        again: tuple[str, ...] = ()
        if self.until_pressed and not links.out():
            # a press to make again, shown once every device's link is up (until then the table
            # holds and would not act on it: the screen never says to deal with a device down)
            again = tuple(n for n in self.until_pressed.values() if n not in self.notes)
        return _new_screen_state(  # in the fields' order: made after every event (no named tuple ``__new__``)
            ScreenState,
            (
                state.round_no,
                step,
                prompt,
                tuple(self._screen_details()),
                state.hold_reason.words(self._why_not_void()) if held else "",
                notices[0] if notices else None,
                self.page if notices else self.detail_page,
                (*self.notes, *again),
            ),
        )

    def _confirm_prompt(self) -> str:
        """The prompt of a step done and then confirmed (made again only when the prompt or the
        display's size changed: every event of a settlement step shows the same)."""
        asked, size, made = self._confirm
        if asked is not self.prompt or size is not self.size:
            asked, size = self.prompt, self.size
            made = f"{asked}; confirm"
            if not fits(made, size.lines - 2, size.columns):  # the end goes below: say it first
                made = f"confirm when done: {asked}"
            self._confirm = (asked, size, made)
        return made

    @property
    def lines(self) -> tuple[str, ...]:
        """The lines last sent to the display (made now if the screen changed since)."""
        if self._stale:
            self._send()
        return self._lines

    def show(self) -> None:
        """Send the screen when it changed: one whole screen, replacing the last. The screen is
        made again only when something it is made of changed since it was last made (the
        round's ``screen_version``: the collaborators that change what it shows say so) or while
        the table holds (what clears a hold is asked of the hold's parts each time). When the
        devices have no screen of their own (``shows_screen`` false: the soak's), the screen is
        made only when :attr:`lines` is read; what it shows is a function of the table's state
        alone, so it is the screen this event would have sent."""
        target = self._shown.target
        if target is not self._target:  # read once a target (a missing attribute is slow to ask for)
            self._target, self._target_shows = target, getattr(target, "shows_screen", True)
        if self._target_shows:
            state = self._state
            version = state.screen_version
            if version != self._made_at or state.phase is self._shape.common.hold:
                self._send()
                self._made_at = version
        else:
            self._stale, self._made_at = True, None

    def _state_now(self) -> ScreenState:
        """:meth:`state`, the one the screen was last made from when nothing it is made of
        changed since (a press is read before its event is handled)."""
        made = self._rendered[0]
        state = self._state
        if (
            made is not None
            and self._made_at == state.screen_version
            and made[1] is self.size
            and state.phase is not self._shape.common.hold
        ):
            return made[0]
        return self.state()

    def _send(self) -> None:
        self._stale = False
        key = (self.state(), self.size)
        if key != self._rendered[0]:  # most events change nothing on the screen: render only on a change
            self._rendered = (key, render(*key))
        lines = self._rendered[1]
        if lines != self._lines:
            self._lines = lines
            self._shown.screen(lines)

    def button(self, button: str) -> bool:
        """``next`` / ``previous`` page a notice, ``confirm`` goes to its next page or, on the last,
        confirms it. True when the button was taken by a notice (or paged long details)."""
        if button not in ("confirm", "next", "previous"):
            return False
        if not self.notices and button == "confirm":
            return False
        pages = page_count(self._state_now(), self.size)
        if not self.notices:  # details longer than the screen: next / previous page them when free
            if pages == 1 or self._uses_next_previous():
                return False
            step = 1 if button == "next" else -1
            self.detail_page = (self.detail_page + step) % pages
            self._state.screen_changed()
            return True
        if button == "previous":
            self.page = max(0, self.page - 1)
        elif button == "next" or self.page + 1 < pages:
            self.page = min(pages - 1, self.page + 1)
        else:
            done = self.notices.pop(0)
            self.page = 0
            self.shown(f"confirmed: {done.title}")
            self._notice_confirmed(done)
        self._state.screen_changed()
        return True

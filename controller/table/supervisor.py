"""The pit supervisor's actions, as a data table like the machines' transitions, and the key switch.

Each :class:`Action` names the buttons that ask for it, the states it is allowed in, a condition
on the table, whether the key is required (always, unless a row says otherwise), the table method
that does it and the action journaled when it is done. :class:`Supervisor` is the only way an
action is done: it checks the key before any handler runs, so an action added to the table cannot
forget it, and journals every refused attempt (``SupervisorRefused``) with why.

The key counts as on only while the panel's last word says so: a ``supervisor_key`` press (or the
panel's state read after a link-up with the key on) turns it on; its release, any panel link-down
or a controller restart turns it off (authority never outlives its evidence).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from operator import attrgetter
from typing import Any

__all__ = ["Action", "IN_PLAY", "SUPERVISOR_ACTIONS", "Supervisor", "Record"]

IN_PLAY = "in play"
"""In ``Action.states``: every state a round is played in (the game's ``PLAYING``)."""

Record = Callable[..., None]
"""``record(reason, action=None)``: a handler journals (and shows) what it did; ``action``
overrides the row's ``journal`` (a late bet taken by ``next`` may be refused after all)."""


@dataclass(frozen=True, slots=True)
class Action:
    """One supervisor action: what asks for it, where it is allowed, what does it, what is journaled."""

    name: str
    buttons: tuple[str, ...]
    """The panel buttons that ask for it (empty: asked for by a device event, e.g. a card read again)."""
    states: tuple[str, ...]
    """The table states (phase values, or :data:`IN_PLAY`) it is allowed in."""
    handler: str
    """The table method that does it: ``handler(button, record, **args)`` (a dotted name is a
    collaborator's: ``"intake.enter_card"``)."""
    journal: str
    """The ``action`` of the ``SupervisorAction`` record it journals."""
    when: str | None = None
    """A table predicate that must hold too for the buttons to mean this action."""
    allowed: str | None = None
    """A table method returning why the action cannot be done now (refused and journaled), or None."""
    key: bool = True
    """The key must be on (every supervisor action so far)."""


SUPERVISOR_ACTIONS: tuple[Action, ...] = (
    # Cards that left the shoe while the table was held: accept them in their place, or a misdeal (void).
    Action(
        "misdeal",
        ("void",),
        ("hold",),
        "intake.declare_misdeal",
        "misdeal",
        when="intake.cards_waiting",
    ),
    # A misread card: the supervisor enters it (next / previous choose, confirm deals it) or the shoe reads it again.
    Action(
        "enter card",
        ("next", "previous", "confirm"),
        ("hold",),
        "intake.enter_card",
        "card corrected",
        when="intake.card_to_enter",
        allowed="links.why_not_resume",
    ),
    Action(
        "accept cards",
        ("confirm",),
        ("hold",),
        "intake.accept_waiting_cards",
        "cards accepted",
        when="intake.cards_waiting",
        allowed="intake.why_not_accept",
    ),
    Action(
        "card read again", (), ("hold",), "intake.accept_read_again", "card corrected", allowed="links.why_not_resume"
    ),
    Action("void", ("void",), (IN_PLAY, "hold"), "holds.void_by_supervisor", "void"),
    Action(
        "clear fault", ("clear_fault",), ("hold",), "holds.clear_fault", "fault cleared", allowed="holds.why_not_clear"
    ),
    # Late-bet changes after "no more bets": next accepts the oldest, previous refuses it.
    Action("accept late bet", ("next",), (), "late.accept_late_bet", "late bet accepted", when="late.late_pending"),
    Action("refuse late bet", ("previous",), (), "late.refuse_late_bet", "late bet refused", when="late.late_pending"),
)
"""Every supervisor action, first match first (an empty ``states`` means any state)."""


class Supervisor:
    """Does the supervisor actions of ``actions`` on ``table``, journaling them with ``audit`` and
    showing them to the dealer with ``show``."""

    def __init__(
        self,
        table: Any,
        actions: Iterable[Action],
        in_play: Iterable[str],
        audit: Callable[[str, dict[str, Any]], Any],
        show: Callable[[str], None],
    ) -> None:
        self.table = table
        self.actions = tuple(actions)
        self.in_play = frozenset(in_play)
        self.audit = audit
        self.show = show
        self.key_on = False
        """Whether the key is on now, by the panel's last report since its link was last up."""
        self._by_name = {a.name: a for a in self.actions}
        self._methods: dict[str, Callable[..., Any]] = {}
        """Each method the rows name, by its (dotted) name, found on the table once."""
        for a in self.actions:  # a table row naming a method the table lacks is a bug: fail at start
            for method in (a.handler, a.when, a.allowed):
                if method is None:
                    continue
                try:
                    found = attrgetter(method)(table)
                except AttributeError:
                    found = None
                if not callable(found):
                    raise TypeError(f"supervisor action {a.name!r}: the table has no method {method!r}")
                self._methods[method] = found

    # --- the key ------------------------------------------------------------------------------

    def key_reported(self, on: bool) -> None:
        """The panel reports the key switch (a button change, or its state read after a link-up)."""
        self.key_on = on

    def key_lost(self) -> None:
        """The panel's link went down (or the controller restarted): the key counts as off."""
        self.key_on = False

    # --- actions --------------------------------------------------------------------------------

    def allowed_in(self, action: Action, phase: str) -> bool:
        if not action.states:
            return True
        return phase in action.states or (IN_PLAY in action.states and phase in self.in_play)

    def match(self, button: str) -> Action | None:
        """The action ``button`` asks for now (the first row whose buttons, states and condition fit)."""
        phase = self.table.phase.value
        for action in self.actions:
            if button not in action.buttons or not self.allowed_in(action, phase):
                continue
            if action.when is None or self._methods[action.when]():
                return action
        return None

    def press(self, button: str) -> bool:
        """A panel button was pressed: do the supervisor action it asks for now. True when it
        asked for one (done or refused); False when it is the dealer's (no action, or the key is
        off and the button has a dealer meaning in this state)."""
        action = self.match(button)
        if action is None:
            return False
        if action.key and not self.key_on and self.table.dealer_button(button):
            return False
        self.attempt(action.name, button)
        return True

    def attempt(self, name: str, button: str = "", **args: Any) -> bool:
        """Do action ``name`` if it is allowed now (key on, state, the table's own check);
        otherwise refuse it, journaled. True when it was done."""
        action = self._by_name[name]
        phase = self.table.phase.value
        if action.key and not self.key_on:
            return self._refuse(action, button, "the supervisor's key is needed")
        if not self.allowed_in(action, phase):
            return self._refuse(action, button, f"not allowed in {phase}")
        why = self.why_not_allowed(action)
        if why:
            return self._refuse(action, button, why)

        def record(reason: str, journal: str | None = None) -> None:
            self.audit(
                "SupervisorAction",
                {"round": self.table.round_no, "action": journal or action.journal, "reason": reason},
            )
            self.show(f"supervisor: {journal or action.journal}: {reason}")

        self._methods[action.handler](button, record, **args)
        return True

    def why_not_allowed(self, action: Action) -> str | None:
        """Why the table's own check (``action.allowed``) refuses ``action`` now, or None."""
        return self._methods[action.allowed]() if action.allowed is not None else None

    def _refuse(self, action: Action, button: str, why: str) -> bool:
        self.audit(
            "SupervisorRefused",
            {"round": self.table.round_no, "action": action.name, "button": button, "reason": why},
        )
        self.show(f"{action.name} refused: {why}")
        return False

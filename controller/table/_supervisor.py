"""The pit supervisor's actions, as a data table like the machines' transitions, and the key switch.

Each :class:`Action` names the buttons that ask for it, the states it is allowed in, a condition
on the round, whether the key is required (always, unless a row says otherwise), the bound method
that does it and the action journaled when it is done. :class:`Supervisor` is the only way an
action is done: it checks the key before any handler runs, so an action added to the table cannot
forget it, and journals every refused attempt (``SupervisorRefused``) with why.

The key (:class:`SupervisorKey`) counts as on only while the panel's last word says so: a
``supervisor_key`` press (or the panel's state read after a link-up with the key on) turns it on;
its release, any panel link-down or a controller restart turns it off (authority never outlives
its evidence).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from controller.table._round_state import Audit, RoundState
from controller.table._sign_in import SignIns

__all__ = ["Action", "IN_PLAY", "Supervisor", "SupervisorKey", "Record"]

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
    handler: Callable[..., None]
    """What does it: ``handler(button, record, **args)`` (a collaborator's bound method)."""
    journal: str
    """The ``action`` of the ``SupervisorAction`` record it journals."""
    when: Callable[[], bool] | None = None
    """A predicate that must hold too for the buttons to mean this action."""
    allowed: Callable[[], str | None] | None = None
    """Why the action cannot be done now (refused and journaled), or None."""
    key: bool = True
    """The key must be on (every supervisor action so far)."""


class SupervisorKey:
    """The supervisor's key switch, as the panel last reported it since its link was last up."""

    __slots__ = ("on", "_gone", "_changed")

    def __init__(self, gone: Callable[[str], None] | None = None, changed: Callable[[], None] = lambda: None) -> None:
        self.on = False
        """Whether the key is on now, by the panel's last report since its link was last up."""
        self._gone = gone or (lambda why: None)
        """Told when the key's authority ends (turned off, or lost): the supervisor signed in is
        signed off with it."""
        self._changed = changed
        """Told when the key turns (the dealer's screen says what the supervisor may do with it)."""

    def reported(self, on: bool) -> None:
        """The panel reports the key switch (a button change, or its state read after a link-up)."""
        was, self.on = self.on, on
        if was != on:
            self._changed()
        if was and not on:
            self._gone("key off")

    def lost(self) -> None:
        """The panel's link went down (or the controller restarted): the key counts as off."""
        if self.on:
            self._changed()
        self.on = False
        self._gone("panel link down or restart")


class Supervisor:
    """Does the supervisor ``actions`` in the round whose ``state`` it reads, with the ``key``,
    journaling them with ``audit`` and showing them to the dealer with ``show``; ``dealer_button``
    says whether a button has a dealer meaning now (then it is the dealer's while the key is off).
    With a roster (``signins.required``) an act needs a signed-in supervisor too, and its record
    names them (``supervisor_id``)."""

    def __init__(
        self,
        state: RoundState,
        key: SupervisorKey,
        actions: Iterable[Action],
        in_play: Iterable[str],
        audit: Audit,
        show: Callable[[str], None],
        dealer_button: Callable[[str], bool],
        signins: SignIns | None = None,
    ) -> None:
        self._state = state
        self.key = key
        self.actions = tuple(actions)
        self.in_play = frozenset(in_play)
        self.audit = audit
        self.show = show
        self._dealer_button = dealer_button
        self._signins = signins
        self._by_name = {a.name: a for a in self.actions}
        self._by_button: dict[str, tuple[Action, ...]] = {}
        """The actions each button may ask for, in the table's order (made on the button's first press)."""

    # --- the key ------------------------------------------------------------------------------

    @property
    def key_on(self) -> bool:
        """Whether the key is on now, by the panel's last report since its link was last up."""
        return self.key.on

    def key_reported(self, on: bool) -> None:
        """The panel reports the key switch (a button change, or its state read after a link-up)."""
        self.key.reported(on)

    def key_lost(self) -> None:
        """The panel's link went down (or the controller restarted): the key counts as off."""
        self.key.lost()

    # --- actions --------------------------------------------------------------------------------

    def allowed_in(self, action: Action, phase: str) -> bool:
        if not action.states:
            return True
        return phase in action.states or (IN_PLAY in action.states and phase in self.in_play)

    def match(self, button: str) -> Action | None:
        """The action ``button`` asks for now (the first row whose buttons, states and condition fit)."""
        rows = self._by_button.get(button)
        if rows is None:
            rows = self._by_button[button] = tuple(a for a in self.actions if button in a.buttons)
        if not rows:  # most presses are the dealer's: no row to look at
            return None
        phase = self._state.phase._value_  # ``.value`` is a descriptor call in Python
        for action in rows:
            if not self.allowed_in(action, phase):
                continue
            if action.when is None or action.when():
                return action
        return None

    def press(self, button: str) -> bool:
        """A panel button was pressed: do the supervisor action it asks for now. True when it
        asked for one (done or refused); False when it is the dealer's (no action, or the key is
        off and the button has a dealer meaning in this state)."""
        action = self.match(button)
        if action is None:
            return False
        if action.key and not self.key.on and self._dealer_button(button):
            return False
        self.attempt(action.name, button)
        return True

    def attempt(self, name: str, button: str = "", **args: object) -> bool:
        """Do action ``name`` if it is allowed now (key on, state, the round's own check);
        otherwise refuse it, journaled. True when it was done."""
        action = self._by_name[name]
        phase = self._state.phase.value
        if action.key and not self.key.on:
            return self._refuse(action, button, "the supervisor's key is needed")
        signins = self._signins
        person = signins.supervisor.id if signins is not None and signins.supervisor is not None else None
        if signins is not None and signins.required and person is None:
            return self._refuse(action, button, "a supervisor must sign in at the panel")
        if not self.allowed_in(action, phase):
            return self._refuse(action, button, f"not allowed in {phase}")
        why = self.why_not_allowed(action)
        if why:
            return self._refuse(action, button, why)

        def record(reason: str, journal: str | None = None) -> None:
            data: dict[str, object] = {
                "round": self._state.round_no,
                "action": journal or action.journal,
                "reason": reason,
            }
            if person is not None:
                data["supervisor_id"] = person
            self.audit("SupervisorAction", data)
            self.show(f"supervisor: {journal or action.journal}: {reason}")

        action.handler(button, record, **args)
        return True

    def why_not_allowed(self, action: Action) -> str | None:
        """Why the round's own check (``action.allowed``) refuses ``action`` now, or None."""
        return action.allowed() if action.allowed is not None else None

    def _refuse(self, action: Action, button: str, why: str) -> bool:
        self.audit(
            "SupervisorRefused",
            {"round": self._state.round_no, "action": action.name, "button": button, "reason": why},
        )
        self.show(f"{action.name} refused: {why}")
        return False

"""The states and transitions every game's round machine shares, and the triggers declared typed.

The states every game has are the members of :class:`Common`, declared once. A game module
defines a ``Phase`` enum of its own steps only; its machine's states are :func:`round_states`:
the common ones before (:data:`BEFORE`) and after (:data:`AFTER`) the game's steps, in that
order. The module declares its own transitions plus :func:`common_transitions`, and a subclass
of :class:`~controller.table.round.RoundTable` for its steps. A round's phase is a member of
either enum; ``transitions`` knows each state by its member's name, the journal by its value.

The machine is built with ``model_override=True``: ``transitions`` binds only the triggers the
model declares (each a :class:`Trigger`), so every trigger call is checked by mypy, and a trigger
the machine does not have raises instead of passing silently.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from enum import Enum
from functools import cached_property
from typing import Any

from transitions import Machine, State

__all__ = [
    "Common",
    "Trigger",
    "RoundMachine",
    "round_states",
    "in_play_states",
    "common_transitions",
    "no_more_bets",
    "betting_closes",
    "once_decided",
]


class Common(Enum):
    """The states every game's round machine has, around the game's own steps."""

    CLOSED = "closed"
    BETTING = "betting"
    NO_MORE_BETS = "no_more_bets"
    SETTLEMENT = "settlement"
    ROUND_COMPLETE = "round_complete"
    COUNT_STUB = "count_stub"
    HOLD = "hold"
    VOID = "void"


BEFORE = (Common.CLOSED, Common.BETTING, Common.NO_MORE_BETS)
"""The common states before a game's own steps, in order."""
AFTER = (Common.SETTLEMENT, Common.ROUND_COMPLETE, Common.COUNT_STUB, Common.HOLD, Common.VOID)
"""The common states after a game's own steps, in order."""
_OUT_OF_PLAY = frozenset({"closed", "round_complete", "hold", "void"})
_COMMON_VALUES = frozenset(c.value for c in Common)


def round_states(steps: type[Enum]) -> tuple[Enum, ...]:
    """A game's round machine's states, in order: :data:`BEFORE`, the game's own ``steps``,
    :data:`AFTER`. A ``ValueError`` when a step has a common state's name or value (``transitions``
    would take it for that state; the journal could not tell them apart)."""
    clash = sorted(s.name for s in steps if s.name in Common.__members__ or s.value in _COMMON_VALUES)
    if clash:
        raise ValueError(f"{steps.__qualname__}: {', '.join(clash)} already a common state ({Common.__qualname__})")
    return (*BEFORE, *steps, *AFTER)


@dataclass(frozen=True, slots=True)
class CommonPhases:
    """The common states by their lower-case names (a typed accessor: ``table.common.hold``)."""

    closed: Enum
    betting: Enum
    no_more_bets: Enum
    settlement: Enum
    round_complete: Enum
    count_stub: Enum
    hold: Enum
    void: Enum


COMMON = CommonPhases(*(Common(f.name) for f in fields(CommonPhases)))
"""Every game's common states (``RoundTable.common``)."""


class Trigger:
    """A trigger of the round machine, declared on the model so that its calls type-check;
    ``transitions`` replaces it on each model (``model_override=True``). Called before that (a
    trigger the game's machine does not have), it raises."""

    __slots__ = ("name",)

    def __init__(self) -> None:
        self.name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, model: object, owner: type | None = None) -> Callable[[], bool]:
        def unbound() -> bool:
            raise RuntimeError(f"{self.name}: not a trigger of {type(model).__name__}'s machine")

        return unbound


class _OverrideNotice(logging.Filter):
    """With ``model_override`` each helper ``transitions`` does not bind (``is_phase_*``,
    ``may_*``) is logged as a warning: that is the policy asked for, not news (dropped)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (isinstance(record.msg, str) and record.msg.endswith("due to model override policy."))


logging.getLogger("transitions.core").addFilter(_OverrideNotice())


class _PhaseState(State):
    """A ``transitions`` state whose name is read once: the machine asks for it several times a
    trigger, and an ``Enum`` member's ``name`` is a descriptor call in Python each time."""

    @cached_property
    def name(self) -> Any:
        value = self._name
        return value._name_ if isinstance(value, Enum) else value

    def enter(self, event_data: Any) -> None:
        # no callbacks on entering or leaving a phase (the transitions' own do the work): only
        # ``transitions``' log lines, made when its logger would write them
        if self.on_enter or _TRANSITIONS_LOG.isEnabledFor(logging.INFO):
            super().enter(event_data)

    def exit(self, event_data: Any) -> None:
        if self.on_exit or _TRANSITIONS_LOG.isEnabledFor(logging.INFO):
            super().exit(event_data)


_TRANSITIONS_LOG = logging.getLogger("transitions.core")
"""``transitions``' logger: a state's enter and exit write a debug and an info line to it."""


class RoundMachine(Machine):
    """The round's ``transitions`` machine: the same machine, its states' names read once and
    a phase's state found by the member's plain name (``transitions`` reads ``Enum.name``)."""

    state_cls = _PhaseState

    def get_state(self, state: Any) -> State:
        if isinstance(state, Enum):
            state = state._name_
        try:
            return self.states[state]
        except KeyError:
            raise ValueError(f"State '{state}' is not a registered state.") from None


def in_play_states(phase: Iterable[Enum]) -> list[Enum]:
    """The states a round is played in (where a hold or a void can happen)."""
    return [p for p in phase if p.value not in _OUT_OF_PLAY]


def common_transitions(steps: type[Enum]) -> list[dict[str, object]]:
    """The transitions every game has, for a game whose own steps are ``steps``."""
    P, playing = COMMON, in_play_states(round_states(steps))
    return [
        {"trigger": "open_table", "source": P.closed, "dest": P.betting, "after": "start_round"},
        {
            "trigger": "confirm",
            "source": P.settlement,
            "dest": P.settlement,
            "conditions": "more_steps",
            "after": "next_step",
        },
        {
            "trigger": "confirm",
            "source": P.settlement,
            "dest": P.round_complete,
            "unless": "more_steps",
            "after": "complete_round",
        },
        # Every fifth round the stub is counted (the shoe's count, or the dealer's); a mismatch holds.
        {
            "trigger": "next_round",
            "source": [P.round_complete, P.void],
            "dest": P.count_stub,
            "conditions": "stub_due",
            "after": "ask_stub_count",
        },
        {
            "trigger": "next_round",
            "source": [P.round_complete, P.void],
            "dest": P.betting,
            "unless": "stub_due",
            "after": "start_round",
        },
        {
            "trigger": "stub_counted",
            "source": P.count_stub,
            "dest": P.betting,
            "conditions": "stub_matches",
            "after": "start_round",
        },
        {
            "trigger": "stub_counted",
            "source": P.count_stub,
            "dest": P.hold,
            "unless": "stub_matches",
            "before": "stub_mismatch",
        },
        # Device fault, misdeal or supervisor: hold, remembering where to resume.
        {"trigger": "hold", "source": playing, "dest": P.hold, "before": "remember_phase"},
        *(
            {"trigger": "resume", "source": P.hold, "dest": p, "conditions": f"held_in_{p.value}", "after": "resumed"}
            for p in playing
        ),
        # Supervisor void: every wager returned.
        {"trigger": "void", "source": [*playing, P.hold], "dest": P.void, "after": "void_round"},
    ]


def no_more_bets(after: str = "lock_bets") -> dict[str, object]:
    """The dealer's "no more bets": from betting to no more bets once the wagers are valid, then
    ``after`` (the callback's name, as ``transitions`` takes it)."""
    return {
        "trigger": "no_more_bets",
        "source": Common.BETTING,
        "dest": Common.NO_MORE_BETS,
        "conditions": "wagers_valid",
        "after": after,
    }


def betting_closes(dealing: Enum) -> list[dict[str, object]]:
    """Betting closes (:func:`no_more_bets`), then the first card out of the shoe starts ``dealing``."""
    return [no_more_bets(), {"trigger": "deal_started", "source": Common.NO_MORE_BETS, "dest": dealing}]


def once_decided(trigger: str, source: Enum, dest: Enum, decided: str, after: str) -> dict[str, object]:
    """The end of a decision step: ``trigger`` moves from ``source`` to ``dest`` only once every
    seat has decided (the condition ``decided``) and no settlement step is pending, then ``after``."""
    return {
        "trigger": trigger,
        "source": source,
        "dest": dest,
        "conditions": [decided, "no_steps_pending"],
        "after": after,
    }

"""The round machines' triggers are declared on the models (typed) and bound by ``transitions``
(``model_override``); the hold rule's table of what a new reason does to a hold already on; a
machine's states are the common ones around the game's own steps."""

from __future__ import annotations

from enum import Enum

import pytest

from controller.configuration import config_dir, load_table
from controller.table.devices import RecordingDevices
from controller.table.game_tables import GAME_TABLES
from controller.table.phases import Common, Trigger, round_states
from controller.table.round import HoldKind

NOT_IN_MACHINE = {("pai_gow", "deal_started")}
"""Declared on every table, but pai gow's deal begins with the dice total, not a card."""


@pytest.mark.parametrize("game", sorted(GAME_TABLES))
def test_every_trigger_is_declared_and_bound(game: str) -> None:
    cls = GAME_TABLES[game]
    table = cls(load_table(config_dir() / "bench" / f"{game}.yaml"), RecordingDevices())
    declared = {n for k in cls.__mro__ for n, v in vars(k).items() if isinstance(v, Trigger)}
    events = set(table.machine.events)
    assert events <= declared, f"triggers not declared (never bound, so never callable): {events - declared}"
    for name in declared:
        if (game, name) in NOT_IN_MACHINE:
            with pytest.raises(RuntimeError, match="not a trigger"):
                getattr(table, name)()
        else:
            assert name in vars(table), f"{name} declared but not bound by the machine"
    assert not hasattr(table, "is_phase_HOLD") and not hasattr(table, "may_hold")  # only what is declared


def test_a_new_hold_reason_on_a_table_already_held() -> None:
    """(kind, held for) -> (replaces the reason shown, noted)."""
    K = HoldKind
    expected = {
        (K.TABLE, K.LINK): (True, True),
        (K.TABLE, K.JOURNAL): (True, True),
        (K.LINK, K.TABLE): (False, False),
        (K.LINK, K.LINK): (False, False),
        (K.COMMAND, K.TABLE): (False, False),
        (K.JOURNAL, K.TABLE): (False, True),
        (K.JOURNAL, K.LINK): (False, True),
        (K.JOURNAL, K.JOURNAL): (False, False),
        (K.JOURNAL, K.JOURNAL_REFUSED): (False, False),
        (K.JOURNAL_REFUSED, K.JOURNAL): (True, True),
        (K.JOURNAL_REFUSED, K.TABLE): (False, True),
        (K.SHOE, K.LINK): (True, True),
        (K.SHOE, K.SHOE): (True, False),
        (K.SHOE, K.TABLE): (False, True),
        (K.SHOE, K.COMMAND): (False, True),
        (K.SHOE, K.JOURNAL): (False, True),
        (K.LINK, K.SHOE): (False, False),
        (K.TABLE, K.SHOE): (True, True),
    }
    assert {pair: (pair[0].replaces(pair[1]), pair[0].noted(pair[1])) for pair in expected} == expected
    assert K.LINK.prompt.words() == "wait for the device; or key: void"
    assert K.SHOE.prompt.words() == "fix the shoe; or key: void"
    assert (
        K.JOURNAL.prompt.words() == "free space for the journal; or key: void"
    )  # it ends by itself once written again
    assert all(
        k.prompt.words() == "supervisor: key, then clear fault or void"
        for k in K
        if k not in (K.LINK, K.SHOE, K.JOURNAL)
    )


class _Steps(Enum):
    DEALING = "dealing"
    PLAY = "play"


@pytest.mark.parametrize("game", sorted(GAME_TABLES))
def test_a_machines_states_are_the_common_ones_around_the_games_own_steps(game: str) -> None:
    cls = GAME_TABLES[game]
    values = [s.value for s in cls.STATES]
    assert values == ["closed", "betting", "no_more_bets", *(p.value for p in cls.Phase), *values[-5:]]
    assert values[-5:] == ["settlement", "round_complete", "count_stub", "hold", "void"]
    assert [s.value for s in round_states(_Steps)][2:5] == ["no_more_bets", "dealing", "play"]


class _NamedAsHold(Enum):
    DEALING = "dealing"
    HOLD = "held"


class _ValuedAsHold(Enum):
    DEALING = "dealing"
    HELD = "hold"


@pytest.mark.parametrize(("steps", "step"), [(_NamedAsHold, "HOLD"), (_ValuedAsHold, "HELD")])
def test_a_game_step_named_or_valued_as_a_common_state_is_refused(steps: type[Enum], step: str) -> None:
    """``transitions`` knows a state by its name, the journal by its value: a step sharing either
    with a common state would take its place; ``round_states`` names it instead."""
    with pytest.raises(ValueError, match=rf"{steps.__name__}: {step} already a common state \(Common\)"):
        round_states(steps)
    assert Common.HOLD.value == "hold"

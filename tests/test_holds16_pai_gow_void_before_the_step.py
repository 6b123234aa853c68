"""Pai gow: a hand's settlement shown as it is turned (11.9), a foul pressed or a set confirmed,
moves no chips until the dealer confirms its step: until then the supervisor's void (a misdeal)
is taken, every wager returned, as before any settlement step (``why_not_void``: refused once a
settlement step collected or paid; the seeds set no other limit on a misdeal). Before branch
holds16 the void was refused from the press on, the step not yet done. Tested in ``setting`` and
held from it, after a foul and after a set; once the step is confirmed the void is refused.
"""

from __future__ import annotations

import pytest
from test_table_pai_gow import Table

from drivers.link import LinkDown
from drivers.panel import ButtonChanged

PAID = "round 1 is being settled: wagers already paid or collected"


def key(t: Table, on: bool) -> None:
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=on))


def hand_shown(press: str, held: bool, done: bool = False) -> Table:
    """At ``setting``, the dealer's hand confirmed, seat 5's hand turned and ``press``ed (``fold``:
    a foul, collect; ``confirm``: its house way): its step shown, not confirmed (``done``: then
    confirmed); ``held``: then the bet spots' link goes down."""
    t = Table()
    t.to_setting()
    t.press("confirm")  # the dealer's hand: no chips
    t.press(press)
    s = t.snapshot()
    assert s.step == "setting" and [n.title.split(":")[0] for n in s.notices if n.blocking] == ["seat 5"], s.notices
    if done:
        t.press("confirm")
    if held:
        t.feed(LinkDown(device="bet_spots", reason="no reply"))
        assert t.snapshot().step == "hold"
    return t


@pytest.mark.parametrize("held", [False, True], ids=["setting", "held from setting"])
@pytest.mark.parametrize("press", ["fold", "confirm"], ids=["foul", "set"])
def test_the_void_is_taken_until_the_hands_step_is_confirmed(press: str, held: bool) -> None:
    t = hand_shown(press, held)
    key(t, True)
    assert t.snapshot().why_not_void() is None
    t.press("void")
    s = t.snapshot()
    assert s.last_round is not None and s.last_round.void, (s.step, s.recent[-3:])
    returns = [line for n in s.notices for line in n.lines]
    assert "void: seat 5: return pai_gow 25.00" in returns and "void: seat 2: return bonus 5.00" in returns, returns
    assert not any(n.blocking for n in s.notices)  # the hand's step is not done: no chips moved


@pytest.mark.parametrize("held", [False, True], ids=["setting", "held from setting"])
def test_the_void_is_refused_once_the_fouls_step_is_confirmed(held: bool) -> None:
    t = hand_shown("fold", held, done=True)  # the foul's collection done
    key(t, True)
    assert t.snapshot().why_not_void() == PAID
    t.press("void")
    s = t.snapshot()
    assert s.last_round is None and s.step == ("hold" if held else "setting"), (s.step, s.last_round)

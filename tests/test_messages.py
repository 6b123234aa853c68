"""Message bodies: every event and command of every driver round-trips; bad bodies say why."""

from __future__ import annotations

import pytest

from drivers.bet_spots import BetSpotDriver
from drivers.messages import BodyError, MessageSpec, card_text, decode_body, encode_body
from drivers.panel import PanelDriver
from drivers.shoe import ShoeDriver

SAMPLE = {
    "u8": 7,
    "u16": 513,
    "u32": 70000,
    "bool": True,
    "card": 51,
    "str": "Ace of spades",
    "cards": (0, 12, 52),
    "u8s": (1, 18),
    "strs": ("Place your bets", "", "Seat 3: ante 5.00"),
    "spots": ((1, "ante", 500), (7, "envy_marker", 1)),
}


def all_specs() -> list[MessageSpec]:
    specs = []
    for driver in (ShoeDriver, BetSpotDriver, PanelDriver):
        specs += [cls.spec for cls in driver.EVENTS.values()] + list(driver.COMMANDS.values())
    return specs


def state_specs() -> list[MessageSpec]:
    return [spec for driver in (ShoeDriver, BetSpotDriver, PanelDriver) if (spec := driver.STATE) is not None]


@pytest.mark.parametrize("spec", all_specs() + state_specs(), ids=lambda s: s.name)
def test_every_body_round_trips(spec: MessageSpec) -> None:
    values = {name: SAMPLE[kind] for name, kind in spec.fields}
    assert decode_body(spec, encode_body(spec, values)) == values


def test_codes_are_unique() -> None:
    codes = [s.code for s in all_specs()]
    assert len(codes) == len(set(codes))


def test_bad_bodies() -> None:
    spec = MessageSpec(1, "x", (("n", "u16"), ("s", "str")))
    with pytest.raises(BodyError, match="too short"):
        decode_body(spec, b"\x00")
    with pytest.raises(BodyError, match="left over"):
        decode_body(spec, b"\x00\x01\x00\xff")
    with pytest.raises(BodyError, match="does not fit"):
        encode_body(spec, {"n": 70000, "s": ""})
    with pytest.raises(BodyError, match="missing"):
        encode_body(spec, {"n": 1})


def test_card_text() -> None:
    assert [card_text(c) for c in (0, 12, 13, 51, 52, 99)] == ["2c", "Ac", "2d", "As", "JK", "??"]

"""quick_init: a frozen dataclass's fast __init__ makes the object its own __init__ makes."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest

from controller.wagers import Result, SeatSettlement, Step, WagerResult, quick_init


def _plain() -> type:
    """A frozen slotted dataclass with each kind of field: a new class each call."""

    @dataclass(frozen=True, slots=True)
    class Plain:
        a: int
        b: str = "b"
        c: dict[str, int] = field(default_factory=dict)
        d: tuple[int, ...] = ()
        e: str = field(default="e", init=False, compare=False)

    return Plain


Plain = _plain()
"""The dataclass's own ``__init__``."""


def _twin() -> type:
    """The same fields in a new class, with quick_init's ``__init__``."""
    return quick_init(_plain())


@pytest.mark.parametrize(
    "args, kwargs",
    [((1,), {}), ((1, "x"), {}), ((1, "x", {"k": 2}, (3,)), {}), ((), {"a": 1, "d": (4,)}), ((1,), {"c": None})],
)
def test_the_same_fields_as_the_dataclass_init(args: tuple[object, ...], kwargs: dict[str, object]) -> None:
    twin = _twin()
    made, own = twin(*args, **kwargs), Plain(*args, **kwargs)
    assert [getattr(made, f.name) for f in dataclasses.fields(made)] == [
        getattr(own, f.name) for f in dataclasses.fields(own)
    ]


def test_a_default_factory_is_called_for_each_object() -> None:
    twin = _twin()
    one, two = twin(1), twin(2)
    assert one.c == {} and one.c is not two.c


def test_the_object_stays_frozen_and_arguments_are_checked() -> None:
    twin = _twin()
    made = twin(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.a = 2
    with pytest.raises(TypeError):
        twin()
    with pytest.raises(TypeError):
        twin(1, e="x")  # not an init field


def test_refused_without_slots() -> None:
    @dataclass(frozen=True)
    class NoSlots:
        a: int

    with pytest.raises(TypeError, match="slots"):
        quick_init(NoSlots)


@dataclass(frozen=True, slots=True)
class _Base:
    a: int
    b: str = "b"


def test_a_base_classes_fields_are_set_in_the_bases_slots() -> None:
    @quick_init
    @dataclass(frozen=True, slots=True)
    class Child(_Base):
        c: int = 3

    made = Child(1, "x")
    assert (made.a, made.b, made.c) == (1, "x", 3)
    assert made == Child(1, "x", 3) and made != Child(2, "x", 3)


def test_settlement_objects_equal_their_fields() -> None:
    w = WagerResult("ante", 500, Result.WIN, 500, "why", commission=5)
    assert (w.spot, w.stake, w.result, w.net, w.why, w.capped_from, w.commission) == (
        "ante",
        500,
        Result.WIN,
        500,
        "why",
        None,
        5,
    )
    assert dataclasses.replace(w, net=400).net == 400
    step = Step("settle", 3, (), "note", "after")
    assert step.text == "seat 3: note; after"
    assert SeatSettlement(1, (w,)).hands == {}

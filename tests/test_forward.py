"""``controller.table._forward.Forward``: a field of a held object, read and written through its
owner (the round table's ``seats``, ``dealt`` and ``round_no`` on its state; a hold's reason)."""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.table._forward import Forward


@dataclass
class _State:
    seats: dict[int, str] = field(default_factory=dict)
    dealt: int = 0


class _Owner:
    seats = Forward[dict[int, str]]("state", "seats")
    dealt = Forward[int]("state", "dealt")

    def __init__(self, state: _State) -> None:
        self.state = state


def test_a_forwarded_field_reads_and_writes_the_held_object() -> None:
    state = _State()
    owner = _Owner(state)
    owner.dealt = 3
    owner.seats = {1: "ante"}
    assert (state.dealt, state.seats) == (3, {1: "ante"})
    state.dealt = 7  # a collaborator holding the state writes it: the owner reads the same
    assert owner.dealt == 7 and owner.seats is state.seats
    assert "dealt" not in vars(owner)  # nothing kept on the owner itself


def test_a_forwarded_field_follows_the_held_object_replaced() -> None:
    owner = _Owner(_State(dealt=1))
    owner.state = _State(dealt=5)
    assert owner.dealt == 5


def test_the_class_gives_the_descriptor() -> None:
    assert isinstance(_Owner.dealt, Forward) and repr(_Owner.dealt) == "Forward('state', 'dealt')"

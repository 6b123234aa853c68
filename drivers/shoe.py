"""Card shoe / shuffler driver: cards dealt and read, shuffles, deck checks, jams, door."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from drivers.base import Driver
from drivers.messages import BodyError, DeviceEvent, MessageSpec, card_text
from drivers.state import SHOE_STATUSES, DeviceState, ShoeState

__all__ = [
    "CardDealt",
    "CardUnreadable",
    "ShoeEmpty",
    "ShuffleStarted",
    "ShuffleComplete",
    "DeckCheck",
    "Jam",
    "DoorChanged",
    "SelfTest",
    "ShoeStatus",
    "ShoeDriver",
]


@dataclass(frozen=True, kw_only=True)
class CardDealt(DeviceEvent):
    """A card left the shoe and was read: ``card`` is its text (``As``, ``JK``), ``index`` its place in the deal."""

    card: str
    index: int
    quality: int
    spec: ClassVar[MessageSpec] = MessageSpec(
        0x01, "card_dealt", (("card", "card"), ("index", "u16"), ("quality", "u8"))
    )


@dataclass(frozen=True, kw_only=True)
class CardUnreadable(DeviceEvent):
    """A card left the shoe but could not be read."""

    index: int
    spec: ClassVar[MessageSpec] = MessageSpec(0x02, "card_unreadable", (("index", "u16"),))


@dataclass(frozen=True, kw_only=True)
class ShoeEmpty(DeviceEvent):
    """No cards left."""

    spec: ClassVar[MessageSpec] = MessageSpec(0x03, "shoe_empty")


@dataclass(frozen=True, kw_only=True)
class ShuffleStarted(DeviceEvent):
    spec: ClassVar[MessageSpec] = MessageSpec(0x04, "shuffle_started")


@dataclass(frozen=True, kw_only=True)
class ShuffleComplete(DeviceEvent):
    spec: ClassVar[MessageSpec] = MessageSpec(0x05, "shuffle_complete")


@dataclass(frozen=True, kw_only=True)
class DeckCheck(DeviceEvent):
    """The shuffler's count of the deck: how many cards, and which are missing, extra or doubled."""

    count: int
    missing: tuple[str, ...]
    extra: tuple[str, ...]
    duplicate: tuple[str, ...]
    spec: ClassVar[MessageSpec] = MessageSpec(
        0x06, "deck_check", (("count", "u8"), ("missing", "cards"), ("extra", "cards"), ("duplicate", "cards"))
    )

    @property
    def ok(self) -> bool:
        return not (self.missing or self.extra or self.duplicate)


@dataclass(frozen=True, kw_only=True)
class Jam(DeviceEvent):
    spec: ClassVar[MessageSpec] = MessageSpec(0x07, "jam")


@dataclass(frozen=True, kw_only=True)
class DoorChanged(DeviceEvent):
    open: bool
    spec: ClassVar[MessageSpec] = MessageSpec(0x08, "door", (("open", "bool"),))


@dataclass(frozen=True, kw_only=True)
class SelfTest(DeviceEvent):
    ok: bool
    firmware: str
    spec: ClassVar[MessageSpec] = MessageSpec(0x09, "self_test", (("ok", "bool"), ("firmware", "str")))


@dataclass(frozen=True, kw_only=True)
class ShoeStatus(DeviceEvent):
    """Answer to ``request_status``: cards left in the shoe and the configured deck size."""

    stub_count: int
    deck_size: int
    spec: ClassVar[MessageSpec] = MessageSpec(0x0A, "status", (("stub_count", "u8"), ("deck_size", "u8")))


class ShoeDriver(Driver):
    """Driver for a card-reading shoe or a shuffler with a reader."""

    kind = "shoe"
    EVENTS = {
        c.spec.code: c
        for c in (
            CardDealt,
            CardUnreadable,
            ShoeEmpty,
            ShuffleStarted,
            ShuffleComplete,
            DeckCheck,
            Jam,
            DoorChanged,
            SelfTest,
            ShoeStatus,
        )
    }
    COMMANDS = {
        "start_shuffle": MessageSpec(0x81, "start_shuffle"),
        "configure_deck": MessageSpec(0x82, "configure_deck", (("size", "u8"),)),
        "request_status": MessageSpec(0x83, "request_status"),
    }

    STATE = MessageSpec(
        0, "shoe_state", (("status", "u8"), ("cards_out", "u16"), ("stub_count", "u8"), ("deck_size", "u8"))
    )

    def start_shuffle(self) -> None:
        """Ask for a shuffle (``ShuffleStarted``, ``ShuffleComplete`` and a ``DeckCheck`` follow)."""
        self._command("start_shuffle")

    def configure_deck(self, size: int) -> None:
        """Set the deck size: 52, or 53 with the joker."""
        self._command("configure_deck", size=size)

    def request_status(self) -> None:
        """Ask for a ``ShoeStatus`` (stub count)."""
        self._command("request_status")

    def _state_event(self, values: dict[str, Any], at: float) -> DeviceState:
        status = values["status"]
        if status >= len(SHOE_STATUSES):
            raise BodyError(f"unknown shoe status {status}")
        values["status"] = SHOE_STATUSES[status]
        return ShoeState(device=self.name, at=at, boot_id=self.link.boot_id or 0, **values)

    def _watch(self, event: DeviceEvent) -> object:
        """A jam or an open door is followed by reading the state again until the status changes:
        no event says a jam is cleared (docs/protocol.md, section 6)."""
        if isinstance(event, Jam):
            return "jam"
        if isinstance(event, DoorChanged) and event.open:
            return "door_open"
        if isinstance(event, ShoeState) and event.status in ("jam", "door_open"):
            return event.status
        return None

    def _convert(self, cls: type[DeviceEvent], values: dict[str, Any]) -> dict[str, Any]:
        if cls is CardDealt:
            values["card"] = card_text(values["card"])
        elif cls is DeckCheck:
            for key in ("missing", "extra", "duplicate"):
                values[key] = tuple(card_text(c) for c in values[key])
        return values

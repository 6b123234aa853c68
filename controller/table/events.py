"""Events as journaled and back: every kind of event the controller takes, by name, so that a
round can be replayed from the journal into a fresh machine."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import drivers.bet_spots
import drivers.link
import drivers.panel
import drivers.shoe
import drivers.state  # noqa: F401
from controller.table.engine import JournalFault, StartDrawn, TimerExpired
from drivers.messages import DeviceEvent

__all__ = ["OpenTable", "DevicesExpected", "SignIn", "decode_event"]


@dataclasses.dataclass(frozen=True, slots=True)
class OpenTable:
    """Open the table for its first round."""


@dataclasses.dataclass(frozen=True, slots=True)
class DevicesExpected:
    """The devices this run of the controller talks to (posted at every start, before anything
    else): each counts as never connected until its link comes up and its state is read. One
    whose link reports that it cannot come up holds the table (a round in play, or the next one
    to open), and "no more bets" is not taken while one has not connected. ``reread``: the
    controller started again with a round recovered from its journal: what a device reports
    before its state is read again that happened before ``since`` (the controller's wall clock
    when it started) was done while the table was stopped, and is taken as after a journal
    outage (presses asked again, cards waiting for the supervisor)."""

    devices: tuple[str, ...]
    reread: bool = False
    since: float = 0.0


@dataclasses.dataclass(frozen=True, kw_only=True)
class SignIn(DeviceEvent):
    """A sign-in at the panel as the table journals it: the panel's PIN entry or badge read
    (``drivers.panel.PinEntered``, ``BadgeRead``), checked against the roster before it is
    journaled, so that neither the PIN nor the badge id is ever recorded. ``person``: the roster id
    entered, or the badge holder's ("" for a badge on nobody's roster); ``method``: ``pin`` or
    ``badge``; ``verified``: the PIN matched (or the badge is on the roster) and the id was not
    locked out when it was checked. It keeps the panel event's device, time and number (its
    device is acknowledged once it is journaled)."""

    person: str
    method: str
    verified: bool


class EventDecodeError(ValueError):
    """A journaled event that cannot be rebuilt (unknown kind or fields)."""


def _subclasses(cls: type) -> list[type]:
    out: list[type] = []
    subclasses: list[type] = cls.__subclasses__()
    for sub in subclasses:
        out += [sub, *_subclasses(sub)]
    return out


EVENT_KINDS: dict[str, type] = {
    cls.__name__: cls
    for cls in (*_subclasses(DeviceEvent), TimerExpired, StartDrawn, JournalFault, OpenTable, DevicesExpected)
    if dataclasses.is_dataclass(cls)
}
"""Every event class the controller takes, by the kind it is journaled as."""


def decode_event(kind: str, data: Mapping[str, object]) -> object:
    """The event journaled as ``kind`` with ``data``."""
    cls = EVENT_KINDS.get(kind)
    if cls is None:
        raise EventDecodeError(f"unknown event kind {kind!r}")
    names = {f.name for f in dataclasses.fields(cls)}
    try:
        return cls(**{k: tuple(v) if isinstance(v, list) else v for k, v in data.items() if k in names})
    except TypeError as exc:
        raise EventDecodeError(f"{kind}: {exc}") from exc

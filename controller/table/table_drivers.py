"""The drivers of a table's devices, made from its config's ``devices:`` section: each on its
port, with its baud rate and poll interval, acknowledging nothing before it is journaled, their
events taken in the order they happened (:class:`drivers.order.EventOrder`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from controller.configuration import TableConfig
from drivers.base import Driver, EventSink
from drivers.link import LinkConfig, LinkLoop
from drivers.order import EventOrder
from drivers.registry import driver_class

__all__ = ["ROLES", "open_drivers"]

ROLES = ("shoe", "bet_spots", "panel")
"""The devices every table has."""


def check_roles(table: TableConfig) -> None:
    """Raise ``ValueError`` naming the config when ``table`` lacks one of the :data:`ROLES`."""
    missing = [role for role in ROLES if role not in table.devices]
    if missing:
        raise ValueError(f"{table.path}: devices: missing {', '.join(missing)}")


def open_drivers(
    table: TableConfig,
    events: EventSink,
    urls: Mapping[str, str] | None = None,
    link_base: LinkConfig | None = None,
) -> dict[str, Driver]:
    """A driver for each of ``table``'s devices by role, putting its events on ``events`` (not
    started): ``urls`` overrides device ports, ``link_base`` the links' timing (each device's baud
    rate, poll interval and counter log interval still its config's). A simulator's ``sim://`` URL is refused. Every
    device's events reach ``events`` in the order they happened (docs/protocol.md, section 5.1)."""
    drivers: dict[str, Driver] = {}
    order = EventOrder(events.put)
    loop = LinkLoop("links")  # the table's links in one thread: an idle table wakes once a poll, not once a device
    for role, device in table.devices.items():
        url = (urls or {}).get(role, device.url)
        if url.startswith("sim://"):
            raise ValueError(
                f"{table.path}:{device.line}: devices.{role}: {url} is served by `tablectl bench`, not a port"
            )
        config = replace(
            link_base or LinkConfig(),
            baudrate=device.baudrate,
            poll_interval_s=device.poll_interval_s,
            log_interval_s=device.log_interval_s,
        )
        drivers[role] = driver_class(device.driver)(role, url, events, address=device.address, config=config)
        drivers[role].link.ack_when_journaled = True  # nothing acknowledged before it is journaled
        drivers[role].link.order = order.feed(role, config.link_down_s)
        drivers[role].link.loop = loop
    return drivers

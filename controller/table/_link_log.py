"""The log lines of a table's device links: each link going down and coming back, and every
device fault (the journal has them all; the log is for the people watching the table)."""

from __future__ import annotations

import logging

from drivers.link import DeviceFault, LinkDown, LinkUp

__all__ = ["log_link_event"]

log = logging.getLogger("tablectl.runtime")


def log_link_event(event: object) -> None:
    """Log ``event`` if it is a link going down or coming back, or a device fault."""
    if isinstance(event, LinkDown):
        log.warning("link %s down: %s", event.device, event.reason, extra={"device": event.device})
    elif isinstance(event, LinkUp):
        log.info(
            "link %s up (boot %08x%s)",
            event.device,
            event.boot_id,
            ", rebooted" if event.rebooted else "",
            extra={"device": event.device},
        )
    elif isinstance(event, DeviceFault):
        log.warning("device %s: %s", event.device, event.error, extra={"device": event.device})

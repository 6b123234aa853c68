"""The root of every error the drivers raise, so a caller names what it expects from this layer.

The tree, each class where its layer lives, and who handles it::

    DriverError
    ├── FramingError (framing.py, also a ValueError): a frame that cannot be encoded (payload too
    │   large, a field out of range): a caller's mistake, raised to it
    ├── BodyError (messages.py, also a ValueError): a body that does not fit its layout, or a value
    │   a driver finds out of range (a button id, a shoe status): the link's delivery turns a
    │   device event's into a ``bad_event`` fault and its state reader a ``state`` fault; a
    │   command's is raised to the caller
    ├── TransportError (transport.py, also an OSError): the port failed (the link is lost): the
    │   link's thread reports the link down and opens the port again after its backoff
    │   └── PortOpenError: the port would not open (reported once per reason)
    └── DriverNotAvailable (registry.py, also a LookupError): no driver of that name: the CLI
        refuses the configuration

A device's answers are not errors: a command it refused or never answered is a
``CommandResult`` with its status and a ``DeviceFault``; a link that went silent is a ``LinkDown``.
"""

from __future__ import annotations

__all__ = ["DriverError"]


class DriverError(Exception):
    """Something in ``drivers/`` failed: a port, a frame, a body, a driver's name."""

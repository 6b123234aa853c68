"""The root of every error the drivers raise, so a caller names what it expects from this layer."""

from __future__ import annotations

__all__ = ["DriverError"]


class DriverError(Exception):
    """Something in ``drivers/`` failed: a port, a frame, a body, a driver's name."""

"""Argument types shared by the sub-commands: bounded whole numbers, refused by argparse with
its usual message (the option, the value, exit status 2)."""

from __future__ import annotations

import argparse
from collections.abc import Callable

__all__ = ["bounded_int", "positive_int"]


def bounded_int(lowest: int, highest: int) -> Callable[[str], int]:
    """An argparse ``type`` for a whole number from ``lowest`` to ``highest``."""

    def parse(text: str) -> int:
        if len(text) > 20:
            raise argparse.ArgumentTypeError(f"{text[:20]}...: not a whole number from {lowest} to {highest}")
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: not a whole number") from None
        if not lowest <= value <= highest:
            raise argparse.ArgumentTypeError(f"{value}: must be from {lowest} to {highest}")
        return value

    parse.__name__ = "whole number"
    return parse


def positive_int(highest: int) -> Callable[[str], int]:
    """An argparse ``type`` for a whole number from 1 to ``highest``."""
    return bounded_int(1, highest)

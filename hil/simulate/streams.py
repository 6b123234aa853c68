"""The simulated world's random streams: one per thing that draws, each named and derived from the
seed and the game, so that drawing more or fewer numbers from one never moves another.

The world drew every line's losses and cuts, the devices' boot ids and the table's start draw from
one source: a change in how often one link polls (a link-timing fix, the idle pace) shifted every
later draw, and the guard showed many seeds differing for reasons unrelated to the change (issue 41
items 5 and 6). Each stream is now :class:`random.Random` seeded with a text naming it
(:func:`stream_name`): a text seed is hashed with SHA-512 by :mod:`random` itself, never with
:func:`hash`, so a stream is the same under every ``PYTHONHASHSEED`` and on every machine.
"""

from __future__ import annotations

import random

__all__ = ["stream_name", "stream"]


def stream_name(seed: int, game: str, *names: object) -> str:
    """The seed text of the stream ``names`` of seed ``seed`` for ``game``: ``world/GAME/SEED/NAME/...``."""
    if not names:
        raise ValueError("a stream needs a name")
    return "/".join(("world", game, str(seed), *(str(n) for n in names)))


def stream(seed: int, game: str, *names: object) -> random.Random:
    """The stream ``names`` of seed ``seed`` for ``game`` (:func:`stream_name`), from its start."""
    return random.Random(stream_name(seed, game, *names))

"""Fault injection on a simulated link: what happens to the bytes a simulator sends and receives."""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from drivers.framing import Frame, MsgType

__all__ = ["Faults"]


@dataclass
class Faults:
    """Probabilities (0-1) per frame, and a fixed reply delay; seeded, so runs repeat.

    ``flip``: one byte of a reply changed; ``drop``: a reply never sent; ``drop_in``: a request
    ignored; ``duplicate``: a reply sent twice; ``split``: a reply written in two pieces with a
    pause; ``garbage``: random bytes before a reply; ``delay_s``: every reply held back;
    ``stale``: how many times to answer a command with an old reply instead (the reply to an
    earlier command whose sequence number has the same low 8 bits, as a late reply would arrive
    after an 8-bit sequence number wrapped), ignoring the command.
    """

    flip: float = 0.0
    drop: float = 0.0
    drop_in: float = 0.0
    duplicate: float = 0.0
    split: float = 0.0
    garbage: float = 0.0
    delay_s: float = 0.0
    seed: int = 0
    stale: int = 0
    injected: dict[str, int] = field(default_factory=dict)
    _rng: random.Random = field(init=False, repr=False)
    _old: dict[int, tuple[int, bytes]] = field(init=False, repr=False, default_factory=dict)
    _requests: int = field(init=False, repr=False, default=0)

    def __post_init__(self) -> None:
        self._rng = random.Random(self.seed)

    def _hit(self, name: str, p: float) -> bool:
        if p and self._rng.random() < p:
            self.injected[name] = self.injected.get(name, 0) + 1
            return True
        return False

    def stale_reply(self, frame: Frame) -> bytes | None:
        """An old reply to send instead of answering ``frame`` (``stale``), or None."""
        self._requests += 1
        if self.stale and frame.type is MsgType.CMD:
            old = self._old.get(frame.seq & 0xFF)
            if old is not None and self._requests - old[0] >= 128:  # a later request, not a retry
                self.stale -= 1
                self.injected["stale"] = self.injected.get("stale", 0) + 1
                return old[1]
        return None

    def remember(self, frame: Frame, reply: bytes) -> None:
        """Keep the reply to a command, to send later as a stale one."""
        if self.stale and frame.type is MsgType.CMD and (frame.seq & 0xFF) not in self._old:
            self._old[frame.seq & 0xFF] = (self._requests, reply)

    def ignore_request(self) -> bool:
        """Whether to act as if an incoming frame never arrived."""
        return self._hit("drop_in", self.drop_in)

    def send(self, write: Callable[[bytes], object], wire: bytes) -> None:
        """Write ``wire`` through the faults."""
        if self.delay_s:
            time.sleep(self.delay_s)
        if self._hit("drop", self.drop):
            return
        data = bytearray(wire)
        if self._hit("flip", self.flip):
            i = self._rng.randrange(len(data) - 1)  # never the delimiter
            data[i] ^= self._rng.randrange(1, 256)
        if self._hit("garbage", self.garbage):
            data[0:0] = bytes(self._rng.randrange(256) for _ in range(self._rng.randint(1, 12)))
        for _ in range(2 if self._hit("duplicate", self.duplicate) else 1):
            if self._hit("split", self.split) and len(data) > 2:
                k = self._rng.randrange(1, len(data) - 1)
                write(bytes(data[:k]))
                time.sleep(0.002)
                write(bytes(data[k:]))
            else:
                write(bytes(data))

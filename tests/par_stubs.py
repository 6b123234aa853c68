"""A par sheet made up by a test (the soak's hold summary and verdict read only these fields)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class StubSpot:
    edge_per_unit: float
    variance_per_unit: float
    exact: bool = True
    interval95: tuple[float, float] | None = None


@dataclass(frozen=True)
class StubSheet:
    strategy: str
    spots: dict[str, StubSpot] = field(default_factory=dict)

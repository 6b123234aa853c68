"""Tests' helper: how often a function is called while a test runs (work done once, not again)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest


def count_calls(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[int]:
    """Count the calls of ``owner``'s ``name`` (a module's function or a class's method) from now
    on, until the test ends: the count is the list's one item."""
    calls = [0]
    original: Callable[..., Any] = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls

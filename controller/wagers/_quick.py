"""Frozen dataclasses made quickly: a settlement makes some thirty of them a round.

A frozen dataclass's own ``__init__`` sets each field through ``object.__setattr__`` (its own
``__setattr__`` refuses); :func:`quick_init` gives a frozen dataclass with slots one that sets
each slot through the slot's own descriptor, the same fields with the same defaults in the same
order, about a third faster. The object is the same: frozen, equal, hashed and shown as before.
"""

from __future__ import annotations

from dataclasses import MISSING, fields, is_dataclass
from types import FunctionType
from typing import TypeVar

__all__ = ["quick_init"]

T = TypeVar("T")

_NO_VALUE = object()
"""A field with a default factory left out of the call (``None`` may be a value)."""


def quick_init(cls: type[T]) -> type[T]:
    """``cls`` (a frozen dataclass with slots and no ``__post_init__``) with an ``__init__`` taking
    the same arguments as its own and setting its slots directly."""
    if not is_dataclass(cls) or "__slots__" not in cls.__dict__ or hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: quick_init needs a dataclass with slots and no __post_init__")
    params: list[str] = []
    body: list[str] = []
    env: dict[str, object] = {"_NO_VALUE": _NO_VALUE}
    for f in fields(cls):
        if f.kw_only:
            raise TypeError(f"{cls.__name__}.{f.name}: quick_init takes no keyword-only field")
        name = f.name
        slot = next(c.__dict__[name] for c in cls.__mro__ if name in c.__dict__)  # a base's field: the base's
        env[f"_set_{name}"] = slot.__set__  # the slot's member descriptor
        if f.default is not MISSING:
            env[f"_default_{name}"] = f.default
            value = f"_default_{name}"
        elif f.default_factory is not MISSING:
            env[f"_factory_{name}"] = f.default_factory
            value = f"_factory_{name}()"
        else:
            value = ""
        if not f.init:
            body.append(f"_set_{name}(self, {value})")
        elif f.default_factory is not MISSING:
            params.append(f"{name}=_NO_VALUE")
            body.append(f"_set_{name}(self, {value} if {name} is _NO_VALUE else {name})")
        else:
            params.append(f"{name}={value}" if value else name)
            body.append(f"_set_{name}(self, {name})")
    source = f"def __init__(self, {', '.join(params)}):\n" + "".join(f"    {line}\n" for line in body or ["pass"])
    exec(source, env)  # as dataclasses itself makes __init__
    init = env["__init__"]
    assert isinstance(init, FunctionType)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    type.__setattr__(cls, "__init__", init)
    return cls

"""A field read and written on an object an owner holds: ``phase = Forward[Enum]("state", "phase")``
makes ``table.phase`` read ``table.state.phase`` and ``table.phase = p`` write it, as a property
pair with its setter would, declared in one line."""

from __future__ import annotations

from typing import Generic, TypeVar, overload

__all__ = ["Forward"]

T = TypeVar("T")


class Forward(Generic[T]):
    """The field ``name`` of the owner's attribute ``holder``, read and written through the owner."""

    __slots__ = ("holder", "name")

    def __init__(self, holder: str, name: str) -> None:
        self.holder = holder
        self.name = name

    @overload
    def __get__(self, owner: None, kind: type) -> Forward[T]: ...

    @overload
    def __get__(self, owner: object, kind: type | None = None) -> T: ...

    def __get__(self, owner: object | None, kind: type | None = None) -> Forward[T] | T:
        if owner is None:
            return self
        value: T = getattr(getattr(owner, self.holder), self.name)
        return value

    def __set__(self, owner: object, value: T) -> None:
        setattr(getattr(owner, self.holder), self.name, value)

    def __repr__(self) -> str:
        return f"Forward({self.holder!r}, {self.name!r})"

"""Every game, by name: where its :class:`~controller.game.definition.GameDefinition` lives,
imported on first use (as python-can's ``BACKENDS``). Naming the games costs nothing; asking
for one imports that game only. Adding a game is one package and one line here."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from controller.game.definition import GameDefinition

__all__ = ["GAMES", "definition", "names", "table_names", "ByGame"]

GAMES: dict[str, str] = {
    "mississippi_stud": "controller.game.mississippi_stud:DEFINITION",
    "boston5": "controller.game.boston5:DEFINITION",
    "pai_gow": "controller.game.pai_gow:DEFINITION",
    "three_card_poker": "controller.game.three_card_poker:DEFINITION",
}
"""Every game, by name (in the order the dealer guide and the docs list them)."""

_LOADED: dict[str, GameDefinition] = {}

T = TypeVar("T")


def names() -> tuple[str, ...]:
    """The names of every game, sorted."""
    return tuple(sorted(GAMES))


def definition(name: str) -> GameDefinition:
    """The definition of game ``name`` (its package imported now, once); raises ``KeyError``
    naming the known games."""
    known = _LOADED.get(name)
    if known is not None:
        return known
    where = GAMES.get(name)
    if where is None:
        raise KeyError(f"unknown game '{name}' (known: {', '.join(names())})")
    from controller.game.definition import GameDefinition, load

    found = load(where)
    if not isinstance(found, GameDefinition) or found.name != name:
        raise TypeError(f"{where} is not the GameDefinition of {name}")
    _LOADED[name] = found
    return found


def table_names() -> tuple[str, ...]:
    """The games dealt at a table, in the registry's order (every game's definition imported)."""
    return tuple(n for n in GAMES if definition(n).at_table)


class ByGame(Mapping[str, T]):
    """A read-only view, by game name, of one thing every definition says (``read``; ``None``:
    the game has none): what a former per-game registry held, now derived from the definitions.
    A lookup imports that game only; iterating (in the registry's order) imports every game's
    definition."""

    def __init__(self, read: Callable[[GameDefinition], T | None]) -> None:
        self._read = read

    def _get(self, name: object) -> T | None:
        if not isinstance(name, str) or name not in GAMES:
            return None
        return self._read(definition(name))

    def __getitem__(self, name: str) -> T:
        value = self._get(name)
        if value is None:
            raise KeyError(name)
        return value

    def __contains__(self, name: object) -> bool:
        return self._get(name) is not None

    def __iter__(self) -> Iterator[str]:
        return iter([n for n in GAMES if self._get(n) is not None])

    def __len__(self) -> int:
        return sum(1 for _ in self)

    def __repr__(self) -> str:
        return f"ByGame({list(self)})"

"""Each game's table settings (a table config's options), typed for the code that reads them.

The config loader checks every option against the game's catalog entry
(its definition's ``catalog``, ``controller.game.<name>``: ``int``, ``bool``, a ``choice`` or ``odds``) and fills in each
default, so a loaded table's options have these types by construction;
``tests/test_game_options.py`` checks that each typed dict names its game's options with the
catalog's types and choices.
"""

from __future__ import annotations

from typing import Literal, TypedDict, cast

from controller.configuration._table import TableConfig
from controller.vocab import Odds

__all__ = ["Boston5Options", "PaiGowOptions", "boston5_options", "pai_gow_options"]


class Boston5Options(TypedDict):
    """A Boston 5 table's settings."""

    first_to_ante: int
    first_second_pays: Odds


class PaiGowOptions(TypedDict):
    """A pai gow table's settings."""

    house_way: Literal["foxwoods", "ballys_ac"]
    house_way_deuces_exception: bool
    foul_policy: Literal["forfeit", "reset_by_house_way"]
    commission_percent: int
    commission_rounding: Literal["down", "up", "nearest"]
    bonus_minimum: int
    envy_minimum: int
    envy_includes_dealer: bool
    start_method: Literal["dice", "rng"]
    count_direction: Literal["counterclockwise", "clockwise"]
    deal_direction: Literal["clockwise", "counterclockwise"]
    deal_method: Literal["one_at_a_time", "stacks"]


def boston5_options(table: TableConfig) -> Boston5Options:
    """The settings of the Boston 5 table ``table``, as the config loader checked them."""
    return cast(Boston5Options, table.options)


def pai_gow_options(table: TableConfig) -> PaiGowOptions:
    """The settings of the pai gow table ``table``, as the config loader checked them."""
    return cast(PaiGowOptions, table.options)

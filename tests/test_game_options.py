"""The typed views of each game's table settings (controller.configuration._game_options) name exactly the
options the catalog declares, with the type the config loader gives each: the cast in each view
is only true while they agree."""

from __future__ import annotations

from typing import Literal, get_args, get_origin, get_type_hints

import pytest

from controller.configuration import PaiGowOptions, boston5_options, default_table_path, load_table, pai_gow_options
from controller.configuration._game_options import Boston5Options
from controller.game.registry import definition, names
from controller.vocab import Odds

VIEWS: dict[str, type] = {"boston5": Boston5Options, "pai_gow": PaiGowOptions}

LOADED_TYPES = {"int": int, "bool": bool, "odds": Odds}
"""What the config loader makes of an option of each catalog type (a choice is one of its names)."""


@pytest.mark.parametrize("game", names())
def test_each_game_with_options_has_a_typed_view_of_them(game: str) -> None:
    options = definition(game).catalog.options
    assert (game in VIEWS) == bool(options)
    if not options:
        return
    hints = get_type_hints(VIEWS[game])
    assert list(hints) == [o.name for o in options]
    for option in options:
        hint = hints[option.name]
        if option.type == "choice":
            assert get_origin(hint) is Literal and get_args(hint) == option.choices, option.name
        else:
            assert hint is LOADED_TYPES[option.type], option.name


def test_a_loaded_table_has_the_types_its_view_names() -> None:
    for game, view in (("boston5", boston5_options), ("pai_gow", pai_gow_options)):
        table = load_table(default_table_path(game))
        options = dict(view(table))
        hints = get_type_hints(VIEWS[game])
        for name, hint in hints.items():
            wanted = str if get_origin(hint) is Literal else hint
            assert type(options[name]) is wanted, (game, name)

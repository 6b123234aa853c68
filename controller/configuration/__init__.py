"""The configuration: a table's YAML config (:func:`load_table`: its game, seats, limits, paytables,
devices, journal, display, floor link), the approved paytables, a game's table options, and the checked
YAML reading under them (:class:`ConfigError` lists every problem with file, line and key)."""

from collections.abc import Mapping
from dataclasses import fields

from controller.configuration import _floor, _paytables, _roster, _table
from controller.configuration._floor import DEFAULT_TABLE_SHARE, FloorConfig
from controller.configuration._game_options import PaiGowOptions, boston5_options, pai_gow_options
from controller.configuration._paytables import Paytable, PaytableRow, load_paytables
from controller.configuration._roster import Person, Roster, hash_pin, load_roster, pin_matches
from controller.configuration._table import Limit, TableConfig, config_dir, default_table_path, load_table
from controller.configuration._yamlfile import ConfigError, load_yaml

__all__ = [
    "ConfigError",
    "DEFAULT_TABLE_SHARE",
    "FloorConfig",
    "Limit",
    "PaiGowOptions",
    "Paytable",
    "PaytableRow",
    "Person",
    "Roster",
    "TableConfig",
    "boston5_options",
    "config_dir",
    "default_table_path",
    "hash_pin",
    "known_keys",
    "load_paytables",
    "load_roster",
    "load_table",
    "load_yaml",
    "pai_gow_options",
    "pin_matches",
]


def known_keys() -> Mapping[str, frozenset[str]]:
    """The keys each validator takes, by the mapping it checks (a table config's top level, a device,
    its journal, display and floor link; a roster file and a person on it; a paytable and its row):
    what ``docs/configuration.md`` describes. Read from the validators' own sets at each call."""
    return {
        "table": frozenset(_table._KEYS),
        "device": frozenset(_table._DEVICE_KEYS),
        "journal": frozenset(_table._JOURNAL_KEYS),
        "display": frozenset(f.name for f in fields(_table.DisplayConfig)),
        "floor": frozenset(_floor._KEYS),
        "roster": frozenset(_roster._TOP_KEYS),
        "person": frozenset(_roster._PERSON_KEYS),
        "paytable": _paytables.PAYTABLE_KEYS,
        "row": _paytables.ROW_KEYS,
    }

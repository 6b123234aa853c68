"""The configuration: a table's YAML config (:func:`load_table`: its game, seats, limits, paytables,
devices, journal, display, floor link), the approved paytables, a game's table options, and the checked
YAML reading under them (:class:`ConfigError` lists every problem with file, line and key)."""

from controller.configuration._floor import FloorConfig
from controller.configuration._game_options import PaiGowOptions, boston5_options, pai_gow_options
from controller.configuration._paytables import Paytable, PaytableRow, load_paytables
from controller.configuration._roster import Person, Roster, hash_pin, load_roster, pin_matches
from controller.configuration._table import Limit, TableConfig, config_dir, default_table_path, load_table
from controller.configuration._yamlfile import ConfigError, load_yaml

__all__ = [
    "ConfigError",
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
    "load_paytables",
    "load_roster",
    "load_table",
    "load_yaml",
    "pai_gow_options",
    "pin_matches",
]

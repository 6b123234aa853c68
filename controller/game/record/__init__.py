"""A round record, read and settled: the rules layer's part shared by every game.

Each game's package (``controller.game.<name>``) reads its record (``read_round``: check it,
raise :class:`RecordError` naming every problem by JSON path), settles it (``settle``) and
writes it again (``round_record``), gathered in its :class:`GameSpec`. Here: reading a record's
bytes and its seats and wagers, settling any record end to end (:func:`settle_record`,
:func:`settle_json`, a voided round included), the specs by name, and the differences between what a
record says was paid and its settlement again (:func:`differences`).
"""

from controller.game.record._check import MAX_SHOWN, PAID_PATH, differences, wording_differences
from controller.game.record._read import (
    MAX_RECORD_BYTES,
    DealtSeat,
    Problems,
    RecordError,
    parse_record,
    read_seats,
    write_record,
)
from controller.game.record._settle import record_json, resolve_table_path, settle_json, settle_record, settle_written
from controller.game.record._spec import SPECS, GameSpec, known_games, spec_for

__all__ = [
    "MAX_RECORD_BYTES",
    "MAX_SHOWN",
    "PAID_PATH",
    "SPECS",
    "DealtSeat",
    "GameSpec",
    "differences",
    "Problems",
    "RecordError",
    "known_games",
    "parse_record",
    "read_seats",
    "record_json",
    "write_record",
    "resolve_table_path",
    "settle_json",
    "settle_record",
    "settle_written",
    "spec_for",
    "wording_differences",
]

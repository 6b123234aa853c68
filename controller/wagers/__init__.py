"""The wagers: what a game offers (its :class:`GameCatalog`: wager spots, paytable spots, options) and what
a settled round pays (:class:`Settlement`: every :class:`WagerResult`, each seat's net, the dealer's
steps). Built on the vocabulary and the hands."""

from controller.wagers._catalog import GameCatalog, Option, PaytableSpot, RequiredRow, WagerMultiple
from controller.wagers._procedure import DISCARD, DISCARD_UNEXPOSED, Action, Step, actions_for, hand_summary
from controller.wagers._quick import quick_init
from controller.wagers._results import PayoutCaps, Result, WagerResult, apply_caps
from controller.wagers._settlement import SeatSettlement, Settlement, settlement_for

__all__ = [
    "Action",
    "DISCARD",
    "DISCARD_UNEXPOSED",
    "GameCatalog",
    "Option",
    "PaytableSpot",
    "PayoutCaps",
    "RequiredRow",
    "Result",
    "SeatSettlement",
    "Settlement",
    "Step",
    "WagerMultiple",
    "WagerResult",
    "actions_for",
    "apply_caps",
    "hand_summary",
    "quick_init",
    "settlement_for",
]

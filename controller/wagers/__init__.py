"""The wagers: what a game offers (its :class:`GameCatalog`: wager spots, paytable spots, options) and what
a settled round pays (:class:`Settlement`: every :class:`WagerResult`, each seat's net, the dealer's
steps). Built on the vocabulary and the hands."""

from controller.wagers._catalog import GameCatalog, Option, PaytableSpot, RequiredRow, WagerMultiple
from controller.wagers._quick import quick_init
from controller.wagers._settlement import (
    DISCARD,
    DISCARD_UNEXPOSED,
    Action,
    PayoutCaps,
    Result,
    SeatSettlement,
    Settlement,
    Step,
    WagerResult,
    actions_for,
    apply_caps,
    hand_summary,
    settlement_for,
)

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

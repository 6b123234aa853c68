"""What the games' settlements do alike at a seat: its wagers capped into its
:class:`~controller.wagers.SeatSettlement`, and the dealer's step for a hand that folds unexposed
or is played. A game's rules (``controller.game.<name>._rules``) call these with what they settled."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from controller.configuration import TableConfig
from controller.game._names import hand_name
from controller.wagers import DISCARD, DISCARD_UNEXPOSED, SeatSettlement, Step, WagerResult, actions_for, apply_caps
from controller.wagers._results import CapReport

__all__ = ["capped_seat", "fold_unexposed_step", "played_step"]


def capped_seat(
    seat: int,
    wagers: Sequence[WagerResult],
    hands: Mapping[str, Mapping[str, str]],
    table: TableConfig,
    paid_by: Mapping[str, Iterable[str]],
    earlier: tuple[CapReport, ...] = (),
) -> SeatSettlement:
    """Seat ``seat``'s settlement: ``wagers`` under each paytable's cap (``paid_by``: paytable spot
    -> the wager spots it pays) and the table's ``payout_cap``, after ``earlier`` caps that already
    cut some of them."""
    capped, caps = apply_caps(wagers, table.paytables, paid_by, table.payout_cap)
    return SeatSettlement(seat, tuple(capped), hands, (*earlier, *caps))


def fold_unexposed_step(seat: int, wagers: Iterable[WagerResult]) -> Step:
    """A folded hand's step: ``wagers`` collected, its cards to the discard rack unexposed."""
    return Step("fold", seat, actions_for(wagers), "folds", DISCARD_UNEXPOSED)


def played_step(seat: int, wagers: Iterable[WagerResult], player: Mapping[str, str]) -> Step:
    """A played hand's step: ``wagers`` settled, the hand named (``player``: its
    :func:`~controller.wagers.hand_summary`), its cards to the discard rack."""
    return Step("settle", seat, actions_for(wagers), f"{hand_name(player['category'])} ({player['best']})", DISCARD)

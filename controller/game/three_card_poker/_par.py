"""Three Card Poker's par sheet with the 6 Card Bonus: the main game's sheet
(:func:`controller.par.three_card_poker.table_sheet`: ante and play, ante bonus, pair plus), its
ante spot told apart as the table settles it (the ante's own result, and the ante bonus, a payout
line paid on the ante: the definition's ``paid_on``), and, where the table offers it, the 6 Card
Bonus's exact par under the table's own paytable, counted over all 20,358,520 six-card sets
(:func:`.six_card.six_card_counts`). The main game's figures (per ante, element of risk) are the
main sheet's, unchanged."""

from __future__ import annotations

from dataclasses import replace

from controller.configuration import Paytable, TableConfig
from controller.game.three_card_poker._six_card import SIX_CARD_SETS, SOURCE, SixCardHand, six_card_counts
from controller.hands import Category
from controller.par.lines import line_name, row_value
from controller.par.sheet import ParSheet, SpotPar
from controller.par.three_card_poker import table_sheet as main_sheet

__all__ = ["ante_spots", "six_card_spot", "table_sheet"]

_SPOT = "six_card_bonus"


def six_card_spot(table: Paytable) -> SpotPar:
    """The exact par of the 6 Card Bonus under ``table`` (a win pays its odds, less than a
    paying hand loses the wager), per unit wagered."""
    if any(row.ranks is not None for row in table.rows):
        raise ValueError(f"paytable {table.name}: the 6 Card Bonus's par takes no rank conditions")
    counts = six_card_counts()
    rows = table.by_category()
    by_row = dict.fromkeys(table.rows, 0)
    losing = 0
    for hand, n in counts.items():
        row = None if hand is SixCardHand.NOTHING else rows.get(Category[hand.name])
        if row is None:
            losing += n
        else:
            by_row[row] += n
    mean = -losing / SIX_CARD_SETS
    square = losing / SIX_CARD_SETS
    lines = []
    for row, n in by_row.items():
        p, v = n / SIX_CARD_SETS, row_value(row)
        lines.append((line_name(row), p, p * v))
        mean += p * v
        square += p * v * v
    lines.append(("no paying hand", losing / SIX_CARD_SETS, -losing / SIX_CARD_SETS))
    note = f"best five of the player's three and the dealer's three, whatever the dealer holds ({SOURCE})"
    return SpotPar(_SPOT, -mean, square - mean * mean, tuple(lines), True, None, note)


def ante_spots(ante: SpotPar, push_rate: float) -> tuple[SpotPar, SpotPar]:
    """The main sheet's ``ante`` (the ante's result with the ante bonus, per unit of ante) told
    apart: the ante's own result (it wins, loses or, on a tie with a qualifying dealer, pushes: its
    square is 1 but on a push) and the ante bonus line (each paying hand's odds, per unit of ante);
    exact, as the main sheet's figures are."""
    bonus_mean = sum(contribution for _, _, contribution in ante.lines)
    bonus_square = sum(contribution * contribution / p for _, p, contribution in ante.lines if p)
    own_mean = -ante.edge_per_unit - bonus_mean
    own = SpotPar(
        "ante",
        -own_mean,
        (1 - push_rate) - own_mean * own_mean,
        (),
        True,
        None,
        f"the ante's own result, per unit of ante, folds included; with its ante bonus "
        f"{ante.edge_per_unit:.4%} (the ante_bonus line below)",
    )
    bonus = SpotPar(
        "ante_bonus",
        -bonus_mean,
        bonus_square - bonus_mean * bonus_mean,
        ante.lines,
        True,
        None,
        "the ante bonus, per unit of ante, paid whatever the dealer holds (20.11(b), inferred)",
    )
    return own, bonus


def table_sheet(table: TableConfig) -> ParSheet:
    """The par sheet of a Three Card Poker table (its spec's ``par``)."""
    sheet = main_sheet(table)
    own, bonus = ante_spots(sheet.spots["ante"], sheet.push_rate)
    spots = {**sheet.spots, "ante": own, "ante_bonus": bonus}
    paytables = dict(sheet.paytables)
    six = table.paytables.get(_SPOT)
    if six is not None:
        spots[_SPOT] = six_card_spot(six)
        paytables[_SPOT] = six.name
    return replace(sheet, spots=spots, paytables=paytables)

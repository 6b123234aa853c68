"""The par strategies as pure, fast decisions, for the bench players and ``tablectl par --strategy``.

* :func:`mississippi_decision`: the optimal fold / 1x / 3x (controller.par.mississippi), looked
  up in tables the par service keeps (shipped for the shipped paytables, else computed once and
  kept in the user's cache folder: controller.par._solved).
* :func:`boston5_raise`: the optimal second wager or fold after three cards (controller.par.boston5).
* :func:`boston5_expose`: expose the three-card bonus hand when it pays (exposing a hand that
  does not pay changes nothing; a paying hand not exposed loses, 24.10(a)).
* Pai gow players set their hands by the house way (controller.game.pai_gow._house_way).
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from controller.configuration import Paytable, TableConfig, default_table_path, load_table
from controller.hands import BOSTON5, evaluate_three
from controller.par.combos import BINOM, Array
from controller.vocab import Card

__all__ = ["mississippi_decision", "mississippi_tables", "boston5_raise", "boston5_expose"]


def set_index(cards: Sequence[Card]) -> int:
    """The colex index of a set of real cards (controller.par.combos)."""
    return sum(_BINOM[c][i + 1] for i, c in enumerate(sorted(card.index for card in cards)))


_BINOM: list[list[int]] = BINOM.tolist()
"""``BINOM`` as Python ints (a player asks a few times a round: numpy's scalar indexing is the slow part)."""


@cache
def _default_table(game: str) -> TableConfig:
    return load_table(default_table_path(game))


def mississippi_tables(paytable: Paytable | None = None) -> dict[str, Array]:
    """The optimal decision tables for ``paytable`` (default: the shipped table's main paytable)."""
    table = paytable or _default_table("mississippi_stud").paytables["main"]
    found = _BY_TABLE.get(id(table))
    if found is None or found[0] is not table:
        from controller.par._solved import mississippi_par

        st = mississippi_par(table).strategy
        found = _BY_TABLE[id(table)] = (table, {"third": st.third, "fourth": st.fourth, "fifth": st.fifth})
    return found[1]


_BY_TABLE: dict[int, tuple[Paytable, dict[str, Array]]] = {}
"""The par service's tables by paytable object: a player asks several times a round, and the
content key costs more than the look-up (the service keeps the tables themselves, by content)."""


def mississippi_decision(
    player_cards: Sequence[Card], community_shown: Sequence[Card], *, paytable: Paytable | None = None
) -> int:
    """The optimal street bet, 0 (fold), 1 or 3 times the ante, for a player holding
    ``player_cards`` with ``community_shown`` (0, 1 or 2 community cards) face up, assuming the
    earlier streets were played by this same strategy (the bets so far follow from the cards)."""
    third, fourth, fifth = _flat_tables(paytable)
    cards = list(player_cards)
    b3 = third[set_index(cards)]
    if not community_shown or b3 == 0:
        return b3
    cards.append(community_shown[0])
    b4 = fourth[b3 // 2 * _FOURTH_SETS + set_index(cards)]
    if len(community_shown) == 1 or b4 == 0:
        return b4
    cards.append(community_shown[1])
    return fifth[((b3 + b4) // 2 - 1) * _FIFTH_SETS + set_index(cards)]


_FOURTH_SETS = 22_100
"""Sets of 3 cards of 52: a row of the fourth street's table."""
_FIFTH_SETS = 270_725
"""Sets of 4 cards of 52: a row of the fifth street's table."""


def _flat_tables(paytable: Paytable | None) -> tuple[bytes, bytes, bytes]:
    """:func:`mississippi_tables` as bytes, rows one after another (a byte indexes to a Python
    int: numpy's scalar indexing was most of a decision's cost)."""
    table = paytable or _default_table("mississippi_stud").paytables["main"]
    found = _FLAT_BY_TABLE.get(id(table))
    if found is None or found[0] is not table:
        t = mississippi_tables(table)
        assert t["fourth"].shape[1] == _FOURTH_SETS and t["fifth"].shape[1] == _FIFTH_SETS
        flat = tuple(t[street].astype("uint8").tobytes() for street in ("third", "fourth", "fifth"))
        found = _FLAT_BY_TABLE[id(table)] = (table, (flat[0], flat[1], flat[2]))
    return found[1]


_FLAT_BY_TABLE: dict[int, tuple[Paytable, tuple[bytes, bytes, bytes]]] = {}
""":func:`_flat_tables` by paytable object (as :data:`_BY_TABLE`)."""


def boston5_expose(three_cards: Sequence[Card], *, paytable: Paytable | None = None) -> bool:
    """Whether to expose the three-card bonus hand: exactly when the bonus paytable pays it."""
    table = paytable or _default_table("boston5").paytables["bonus"]
    row = table.row_for(evaluate_three(list(three_cards), BOSTON5))
    return row is not None and not row.odds.push


def boston5_raise(three_cards: Sequence[Card], *, table: TableConfig | None = None) -> bool:
    """Whether to make the second wager (else fold) holding ``three_cards``: the decision of the
    best expected value against the dealer's five cards, with the ante bonus (controller.par.boston5)."""
    config = table or _default_table("boston5")
    found = _B5_BY_TABLE.get(id(config))
    if found is None or found[0] is not config:
        from controller.par._solved import boston5_par_for

        found = _B5_BY_TABLE[id(config)] = (config, boston5_par_for(config).raise_.tolist())
    return bool(found[1][set_index(three_cards)])


_B5_BY_TABLE: dict[int, tuple[TableConfig, list[int]]] = {}
"""The par service's Boston 5 decisions by table object (as :data:`_BY_TABLE`)."""


def forget() -> None:
    """Forget the tables looked up by object (controller.par.service.forget)."""
    _BY_TABLE.clear()
    _FLAT_BY_TABLE.clear()
    _B5_BY_TABLE.clear()

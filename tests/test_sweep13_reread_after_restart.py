"""The model's deal order when the shoe started over while a misread card waited to be entered.

Found by `tablectl simulate --game boston5 --seeds 100 --first 21000 --rounds 10 --faults all
--liveness 2` (seed 21080; sweep13): a card read as one already dealt (shoe card 13, the shoe
repeating its last card) came out while the table held for a jam; the shoe then started again
without memory (its count from 1); at the final deal the supervisor entered card 13 after the
new count's cards 1 to 7 had come. The table put every card in its place (card 13 is seat 1's
fourth card, the new count's first its fifth) and logs the entered card last; the simulation's
reference order (``hil.simulate.model_check.in_deal_order``) forgot the place of a read set aside
before the count started over, dealt the entered card last, and said the table sent card 14 to the
wrong seat. The table was right: the checker is fixed, not the product. The shrunk seed is a case
of ``tests/test_simulate.py``'s ``SHRUNK`` (``boston5-21080-8``).
"""

from __future__ import annotations

from hil.simulate.model_check import in_deal_order

DUP = "read as a card already dealt: read again or entered by the supervisor"

FIRST_DEAL = [
    (1, "Qs", "seat 1"), (2, "4h", "seat 1"), (3, "4c", "seat 1"),
    (4, "Ks", "seat 2"), (5, "7c", "seat 2"), (6, "7h", "seat 2"),
    (7, "2c", "seat 5"), (8, "6c", "seat 5"), (9, "Td", "seat 5"),
    (10, "3c", "dealer"), (11, "Tc", "dealer"), (12, "4s", "dealer"),
]  # fmt: skip
NEW_COUNT = [
    (1, "8h", "seat 1"), (2, "Kc", "seat 2"), (3, "Jd", "seat 2"), (4, "4d", "seat 5"),
    (5, "Qc", "seat 5"), (6, "5s", "dealer"), (7, "3s", "dealer"),
]  # fmt: skip


def test_a_card_entered_for_a_read_set_aside_before_the_count_started_over_takes_its_place() -> None:
    """The round's card log of seed 21080, as the table journaled it."""
    log = [*FIRST_DEAL, (13, "4s", DUP), *NEW_COUNT, (13, "5c", "seat 1")]
    assert in_deal_order(log) == [*FIRST_DEAL, (13, "5c", "seat 1"), *NEW_COUNT]


def test_a_card_that_goes_on_the_new_count_is_that_counts_own() -> None:
    """The same misread, never entered: the new count's own card 13 (after its 12) is dealt
    where it came, not in the old read's place."""
    new_count = [(i, f"{'23456789TJQKA'[i - 1]}d", "seat 2") for i in range(1, 14)]
    log = [*FIRST_DEAL, (13, "4s", DUP), *new_count]
    assert in_deal_order(log) == [*FIRST_DEAL, *new_count]

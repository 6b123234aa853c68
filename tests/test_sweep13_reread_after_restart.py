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
of ``tests/test_simulate.py``'s ``SHRUNK`` (``boston5-21080-8``), as is seed 6822's below.

Boston 5 swarm seed 6822 (`--rounds 10 --swarm --faults ci`), left out of the CI swarm seeds when
they were chosen on a revision without this fix, is the same checker bug at the final deal: the
second card of seat 1 read as a card already dealt, the cards after it dealt while held, the shoe
started again without memory (its new count's first card burned), then the supervisor entered the
card; 24.10(d) sends the two consecutive cards after card 13 to seat 1, as the table did.
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


SEED_6822_ROUND_3 = [
    (21, "Qd", "seat 1"), (2, "7s", "seat 1"), (3, "6d", "seat 1"),
    (4, "8h", "seat 4"), (5, "6h", "seat 4"), (6, "5d", "seat 4"),
    (7, "3d", "seat 5"), (8, "Ks", "seat 5"), (9, "8d", "seat 5"),
    (10, "Qc", "dealer"), (11, "9s", "dealer"), (12, "7c", "dealer"),
    (13, "4d", "seat 1"),
]  # fmt: skip
SEED_6822_AFTER = [(15, "Ah", "seat 5"), (16, "6c", "seat 5"), (17, "2c", "dealer"), (18, "Jc", "dealer")]


def test_a_card_entered_after_a_restart_whose_only_card_was_burned_takes_its_place() -> None:
    """Round 3 of Boston 5 swarm seed 6822 as the table journaled it: seat 1's fifth card (14) read
    as the Qd already dealt, the cards after it placed once accepted, the restarted shoe's card 1
    burned, then the As entered for card 14: seat 1's, before seat 5's two (24.10(d))."""
    log = [*SEED_6822_ROUND_3, (14, "Qd", DUP), *SEED_6822_AFTER, (1, "Jc", "burned: no place in the deal"),
           (14, "As", "seat 1")]  # fmt: skip
    assert in_deal_order(log) == [*SEED_6822_ROUND_3, (14, "As", "seat 1"), *SEED_6822_AFTER]

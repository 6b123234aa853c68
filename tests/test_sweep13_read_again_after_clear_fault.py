"""A misread card read again at its own number after the supervisor's clear fault.

Found by `tablectl simulate --game mississippi_stud --seed 20222 --swarm --faults all --liveness 2`
(sweep13; `model_hidden`, round 4, fourth street). The shoe started again without memory, its first
card came out unreadable (shoe card 1); the supervisor cleared the hold with clear fault, the read
still to be entered; the shoe then reported shoe card 1 with a face (4h), and cards 2 to 9. The
shoe's numbers say nine cards left it: card 1 read again, then 2 to 9 (the table's own rule: a
misread card read again keeps its number). The table placed 4h in card 1's place but went on
waiting for card 1: card 2 waited behind it, the supervisor entered a card for "seat 1 card 2
(shoe card 1)", a card no one dealt, and every card after it went one place late. Under 13:69F-35.9
(two-card stacks to each player, then the three community cards from the rest) shoe cards 5 and 6
are seat 4's and 7 to 9 the community cards; the table had seat 4's second card (3s) as the first
community card and showed it at fourth street, a player's face-down card exposed. The reference
model (card 1 read again: shoe cards 1 to 9 in their places) was right; the table is fixed. The shrunk
seed is a case of ``tests/test_simulate.py``'s ``SHRUNK``.
"""

from __future__ import annotations

from test_attack11_card_intake import Walk, each_case, held_for_a_misread

from controller.table.snapshot_build import build_hands

READ_AGAIN = "Qd"  # the misread card's true face, read again (never dealt before in these rounds)


@each_case([None, "link"])
def test_the_misread_card_read_again_after_clear_fault_takes_its_place_and_nothing_waits_for_it(
    game: str, deal: str, misread: str, second: str | None
) -> None:
    """After clear fault (play resumed, the read still to be entered), the shoe reads the misread
    card again at its own number: it goes to its own place, the misread is done (nothing to enter),
    and the shoe's next card goes to the next place with no hold (a link lost and back meanwhile
    changes nothing). Before, the card read again was placed but the table still waited for it: the
    next card held as "dealt before shoe card N was read again or entered", and a card entered
    then took the place after it, one card more than the shoe dealt."""
    w = held_for_a_misread(game, misread, deal)
    index, dealt, step = w.m.intake.misread_index, w.m.state.dealt, w.m.state.held_from
    assert index is not None and step is not None
    place = w.m.card_place(dealt).rsplit(" card", 1)[0]
    after = w.m.card_place(dealt + 1).rsplit(" card", 1)[0]
    w.key(True)
    w.press("clear_fault")
    w.key(False)
    if second == "link":
        w.link_down("bet_spots")
        w.link_up("bet_spots")
    assert w.m.state.phase is step, w.m.holds.reason
    w.card(READ_AGAIN, index)
    assert w.m.state.dealt == dealt + 1 and w.m.intake.misread_index is None
    w.card("8d", index + 1)
    assert w.step_name() == str(step.value), w.m.holds.reason
    assert w.m.state.dealt == dealt + 2 and not w.m.ledger.waiting
    placed = [(i, c, to) for i, c, to in build_hands(w.m).log if "seat" in to or "dealer" in to]
    assert placed[-2:] == [(index, READ_AGAIN, place), (index + 1, "8d", after)], placed


def test_mississippi_stud_seed_20222_first_card_unreadable_after_a_restart() -> None:
    """The round of seed 20222 at a fed table: seats 1, 2 and 4, shoe card 1 unreadable (the shoe
    counting from 1 again), clear fault, then shoe cards 1 to 9. Each two-card stack goes to its
    seat and shoe cards 7 to 9 are the community cards (35.9); no card is entered, none burned."""
    w = Walk("mississippi_stud")
    for seat in (1, 2, 4):
        w.spot(seat, "ante", 500)
    w.press("no_more_bets")
    w.unreadable(1)
    assert w.step_name() == "hold" and w.m.intake.misread_index == 1, w.m.holds.reason
    w.key(True)
    w.press("clear_fault")
    w.key(False)
    faces = "4h 5c 4c 9s 2s 3s Kd 2h 3d".split()
    for n, face in enumerate(faces, start=1):
        w.card(face, n)
    assert w.step_name() == "third_street", w.m.holds.reason
    log = [(i, c, to) for i, c, to in build_hands(w.m).log if c != "??"]
    want = ["seat 1"] * 2 + ["seat 2"] * 2 + ["seat 4"] * 2 + ["community"] * 3
    assert log == [(n, face, to) for n, (face, to) in enumerate(zip(faces, want, strict=True), start=1)], log

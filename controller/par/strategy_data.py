"""The par strategies written out as data (``tablectl par --strategy``): one row per class of
hands that play alike (the same ranks, suits relabelled: any relabelling plays the same)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from itertools import permutations

import numpy as np

from controller.par.combos import Array, colex_index, combinations_array
from controller.vocab import ALL_CARDS, format_cards

__all__ = ["mississippi_rows", "boston5_rows"]

_PERMS = np.array(list(permutations(range(4))), dtype=np.int64)


def canonical_classes(k: int) -> tuple[Array, Array]:
    """For the k-card sets (colex order): the colex index of each set's class representative
    (the least index over the 24 relabellings of suits), and the representatives, ascending."""
    sets = combinations_array(52, k).astype(np.int64)
    ranks, suits = sets % 13, sets // 13
    best = None
    for perm in _PERMS:
        relabelled = np.sort(perm[suits] * 13 + ranks, axis=1)
        idx = colex_index(relabelled)
        best = idx if best is None else np.minimum(best, idx)
    assert best is not None
    return best, np.unique(best)


def _text(k: int, index: int) -> str:
    cards = combinations_array(52, k)[index]
    return format_cards(sorted((ALL_CARDS[int(c)] for c in cards), key=lambda c: (-(c.index % 13), c.index)))


def mississippi_rows(tables: Mapping[str, Array]) -> Iterator[dict[str, object]]:
    """The optimal Mississippi Stud strategy, street by street: the cards known (the player's two,
    then the community cards shown, as one set), the street bets already made, and the bet (0 = fold)."""
    _, reps2 = canonical_classes(2)
    for i in reps2.tolist():
        yield {"street": "third", "cards": _text(2, i), "bets_so_far": 0, "bet": int(tables["third"][i])}
    _, reps3 = canonical_classes(3)
    for k, so_far in enumerate((1, 3)):
        for i in reps3.tolist():
            yield {"street": "fourth", "cards": _text(3, i), "bets_so_far": so_far, "bet": int(tables["fourth"][k, i])}
    _, reps4 = canonical_classes(4)
    for j, so_far in enumerate((2, 4, 6)):
        for i in reps4.tolist():
            yield {"street": "fifth", "cards": _text(4, i), "bets_so_far": so_far, "bet": int(tables["fifth"][j, i])}


def boston5_rows(raise_: Array, ev_play: Array, fold_value: float) -> Iterator[dict[str, object]]:
    """The Boston 5 second-wager decision per class of three-card hands, with its values per ante."""
    _, reps3 = canonical_classes(3)
    for i in reps3.tolist():
        yield {
            "cards": _text(3, i),
            "second_wager": bool(raise_[i]),
            "ev_play": float(ev_play[i]),
            "ev_fold": fold_value,
        }

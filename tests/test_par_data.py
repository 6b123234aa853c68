"""The par data shipped for the shipped paytables (controller/par/data/) is what the solvers
compute, and it is what the par service uses: nothing shipped is computed at a table.

Regenerate with ``python -m controller.par.shipped`` (about a minute of CPU). Checking costs
what computing costs: Mississippi Stud about 4 s (not marked slow), Boston 5 about 20 s and the
pai gow classes about 14 s (marked slow: they run in the full suite)."""

from __future__ import annotations

import pytest

from controller.par._cache import decode_entry
from controller.par.shipped import DATA, Shipped, payloads_agree, shipped_results

pytestmark = pytest.mark.usefixtures("mississippi_solved_once")  # solved once with test_par.py

SHIPPED = {r.name: r for r in shipped_results()}


def _by_kind(kind: str) -> list[Shipped]:
    return [r for r in SHIPPED.values() if r.kind == kind]


def test_every_shipped_result_has_its_file_and_nothing_else_is_shipped() -> None:
    assert {p.name for p in DATA.glob("*.json.gz")} == set(SHIPPED)
    kinds = sorted({r.kind for r in SHIPPED.values()})
    assert kinds == ["boston5", "mississippi", "pai_gow_classes", "three_card_counts"]  # the shipped tables' results
    for r in SHIPPED.values():
        decode_entry((DATA / r.name).read_bytes(), r.kind, r.key)  # readable, for its key, hash matches


def _check(r: Shipped) -> None:
    shipped = decode_entry((DATA / r.name).read_bytes(), r.kind, r.key)
    assert payloads_agree(shipped, r.compute()), f"{r.name}: run python -m controller.par.shipped"


@pytest.mark.parametrize("name", [r.name for r in _by_kind("mississippi") + _by_kind("three_card_counts")])
def test_shipped_mississippi_and_three_card_data_is_the_solvers(name: str) -> None:
    _check(SHIPPED[name])


@pytest.mark.slow
@pytest.mark.parametrize("name", [r.name for r in _by_kind("boston5") + _by_kind("pai_gow_classes")])
def test_shipped_boston5_and_pai_gow_data_is_the_solvers(name: str) -> None:
    _check(SHIPPED[name])


def test_a_changed_figure_is_told_from_the_solvers() -> None:
    r = _by_kind("boston5")[0]
    shipped = decode_entry((DATA / r.name).read_bytes(), r.kind, r.key)
    changed = {**shipped, "figures": {**shipped["figures"], "ev_per_ante": shipped["figures"]["ev_per_ante"] + 1e-6}}
    assert payloads_agree(shipped, shipped) and not payloads_agree(shipped, changed)
    flipped = dict(shipped["arrays"]["raise"])
    flipped["data"] = ("B" if flipped["data"][0] == "A" else "A") + flipped["data"][1:]
    assert not payloads_agree(shipped, {**shipped, "arrays": {**shipped["arrays"], "raise": flipped}})

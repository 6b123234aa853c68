"""The solved games, kept (controller.par._kept): Mississippi Stud's optimal strategy and par,
Boston 5's second-wager strategy and par, and what each game's par sheet needs computed. The
solvers (numpy) are imported only when a result is computed or read."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, TypedDict

from controller.configuration import Paytable, TableConfig
from controller.par._cache import Progress, pack_array, unpack_array
from controller.par._kept import SOLVER_VERSIONS, kept, paytable_content

if TYPE_CHECKING:
    from controller.par._cache import PackedArray
    from controller.par.boston5 import Boston5Par
    from controller.par.mississippi import MississippiPar

__all__ = [
    "mississippi_inputs",
    "boston5_inputs",
    "mississippi_par",
    "boston5_par",
    "boston5_par_for",
    "b5_args",
    "b5_payload",
    "ms_payload",
    "mississippi_needs",
    "boston5_needs",
    "pai_gow_needs",
]


class _MsArrays(TypedDict):
    third: PackedArray
    fourth: PackedArray
    fifth: PackedArray
    third_value: PackedArray


class MsPayload(TypedDict):
    """Mississippi Stud's kept strategy and par (:func:`ms_payload`)."""

    arrays: _MsArrays
    ev_per_ante: float
    average_total_wager: float
    fold_rates: dict[str, float]
    push_rate: float
    lines: list[list[str | float]]
    spot_moments: dict[str, list[float]]
    spot_lines: dict[str, list[list[str | float]]]


_B5Arrays = TypedDict("_B5Arrays", {"raise": "PackedArray", "ev_play": "PackedArray"})


class B5Payload(TypedDict):
    """Boston 5's kept strategy and par (:func:`b5_payload`)."""

    arrays: _B5Arrays
    figures: dict[str, float]
    spot_moments: dict[str, list[float]]
    bonus_lines: list[list[str | float]]


def lines_of(raw: Iterable[Sequence[str | float]]) -> tuple[tuple[str, float, float], ...]:
    """Payout lines read back from a payload: (name, probability, contribution)."""
    return tuple((str(n), float(p), float(c)) for n, p, c in raw)


def moments_of(raw: Mapping[str, Iterable[float]]) -> dict[str, tuple[float, float, float, float, float]]:
    """Per spot moments read back from a payload."""
    out = {}
    for k, v in raw.items():
        a, b, c, d, e = (float(x) for x in v)
        out[str(k)] = (a, b, c, d, e)
    return out


# --- Mississippi Stud ------------------------------------------------------------------------


def mississippi_inputs(main: Paytable) -> dict[str, object]:
    """What Mississippi Stud's strategy and par depend on."""
    return {"version": SOLVER_VERSIONS["mississippi"], "main": paytable_content(main)}


def ms_payload(par: MississippiPar) -> MsPayload:
    """A ``MississippiPar`` as a payload to keep."""
    st = par.strategy
    return {
        "arrays": {
            "third": pack_array(st.third),
            "fourth": pack_array(st.fourth),
            "fifth": pack_array(st.fifth),
            "third_value": pack_array(par.third_value),
        },
        "ev_per_ante": par.ev_per_ante,
        "average_total_wager": par.average_total_wager,
        "fold_rates": dict(par.fold_rates),
        "push_rate": par.push_rate,
        "lines": [list(x) for x in par.lines],
        "spot_moments": {k: list(v) for k, v in par.spot_moments.items()},
        "spot_lines": {k: [list(x) for x in v] for k, v in par.spot_lines.items()},
    }


def _ms_from_payload(p: MsPayload) -> MississippiPar:
    from controller.par.mississippi import MississippiPar, MississippiStrategy

    a = p["arrays"]
    strategy = MississippiStrategy(unpack_array(a["third"]), unpack_array(a["fourth"]), unpack_array(a["fifth"]))
    return MississippiPar(
        strategy=strategy,
        ev_per_ante=float(p["ev_per_ante"]),
        average_total_wager=float(p["average_total_wager"]),
        fold_rates={str(k): float(v) for k, v in p["fold_rates"].items()},
        push_rate=float(p["push_rate"]),
        lines=lines_of(p["lines"]),
        spot_moments=moments_of(p["spot_moments"]),
        spot_lines={str(k): lines_of(v) for k, v in p["spot_lines"].items()},
        third_value=unpack_array(a["third_value"]),
    )


def mississippi_par(main: Paytable) -> MississippiPar:
    """Mississippi Stud's optimal strategy and exact par (``MississippiPar``) for the main paytable."""

    def compute(bar: Progress | None) -> MsPayload:
        from controller.par.mississippi import solve

        return ms_payload(solve(main, bar))

    from controller.par.mississippi import SOLVE_STEPS

    return kept(
        "mississippi",
        mississippi_inputs(main),
        _ms_from_payload,
        compute,
        "Mississippi Stud strategy tables",
        SOLVE_STEPS,
        "step",
    )


# --- Boston 5 --------------------------------------------------------------------------------


def boston5_inputs(ante_bonus: Paytable, first_to_ante: int, pays: float) -> dict[str, object]:
    """What Boston 5's strategy and par depend on."""
    return {
        "version": SOLVER_VERSIONS["boston5"],
        "ante_bonus": paytable_content(ante_bonus),
        "first_to_ante": int(first_to_ante),
        "first_second_pays": float(pays),
    }


def b5_payload(par: Boston5Par) -> B5Payload:
    """A ``Boston5Par`` as a payload to keep."""
    return {
        "arrays": {"raise": pack_array(par.raise_), "ev_play": pack_array(par.ev_play)},
        "figures": {
            k: getattr(par, k) for k in ("ev_per_ante", "average_total_wager", "fold_rate", "win", "tie", "lose")
        },
        "spot_moments": {k: list(v) for k, v in par.spot_moments.items()},
        "bonus_lines": [list(x) for x in par.bonus_lines],
    }


def _b5_from_payload(p: B5Payload) -> Boston5Par:
    from controller.par.boston5 import Boston5Par

    f = {k: float(v) for k, v in p["figures"].items()}
    return Boston5Par(
        raise_=unpack_array(p["arrays"]["raise"]),
        ev_play=unpack_array(p["arrays"]["ev_play"]),
        ev_per_ante=f["ev_per_ante"],
        average_total_wager=f["average_total_wager"],
        fold_rate=f["fold_rate"],
        win=f["win"],
        tie=f["tie"],
        lose=f["lose"],
        spot_moments=moments_of(p["spot_moments"]),
        bonus_lines=lines_of(p["bonus_lines"]),
    )


def boston5_par(ante_bonus: Paytable, first_to_ante: int, pays: float) -> Boston5Par:
    """Boston 5's best second-wager decisions and exact par (``Boston5Par``)."""

    def compute(bar: Progress | None) -> B5Payload:
        from controller.par.boston5 import solve

        return b5_payload(solve(ante_bonus, first_to_ante, pays, bar))

    from controller.par.boston5 import SOLVE_STEPS

    return kept(
        "boston5",
        boston5_inputs(ante_bonus, first_to_ante, pays),
        _b5_from_payload,
        compute,
        "Boston 5 strategy tables",
        SOLVE_STEPS,
        "step",
    )


def _odds_value(odds: object) -> float:
    from controller.vocab import Odds

    if not isinstance(odds, Odds):
        raise TypeError(f"first_second_pays must be odds, got {odds!r}")
    return odds.numerator / odds.denominator


def b5_args(table: TableConfig) -> tuple[Paytable, int, float]:
    """What :func:`boston5_par` takes, from a Boston 5 table: its ante bonus paytable and wagers."""
    k = table.options["first_to_ante"]
    if not isinstance(k, int):
        raise TypeError(f"first_to_ante must be a whole number, got {k!r}")
    return table.paytables["ante_bonus"], k, _odds_value(table.options["first_second_pays"])


def boston5_par_for(table: TableConfig) -> Boston5Par:
    """:func:`boston5_par` for a Boston 5 table's ante bonus paytable and wagers."""
    return boston5_par(*b5_args(table))


# --- what each game's sheet needs ------------------------------------------------------------


def mississippi_needs(table: TableConfig) -> list[tuple[str, dict[str, object]]]:
    """The costly results a Mississippi Stud table's sheet needs: its strategy and par."""
    return [("mississippi", mississippi_inputs(table.paytables["main"]))]


def boston5_needs(table: TableConfig) -> list[tuple[str, dict[str, object]]]:
    """The costly results a Boston 5 table's sheet needs: its strategy and par."""
    return [("boston5", boston5_inputs(*b5_args(table)))]


def pai_gow_needs(table: TableConfig) -> list[tuple[str, dict[str, object]]]:
    """The costly results a pai gow table's sheet needs: the hand classes, for a side wager."""
    if {"bonus", "envy", "insurance"} & set(table.paytables):
        return [("pai_gow_classes", {"version": SOLVER_VERSIONS["pai_gow_classes"]})]
    return []

"""Par sheets per game: the solvers' figures put in the :class:`ParSheet` shape."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Protocol

from controller.configuration import Paytable, TableConfig, load_paytables
from controller.game.record import SPECS, known_games
from controller.hands import BOSTON5, MISSISSIPPI_STUD
from controller.par._three_card import three_card_par
from controller.par.sheet import ParError, ParSheet, SpotPar

__all__ = ["ParError", "par_sheet", "with_paytable", "mississippi_sheet", "boston5_sheet", "pai_gow_sheet"]


def with_paytable(table: TableConfig, name: str) -> TableConfig:
    """``table`` with the paytable called ``name`` (from the folder of its own paytables) in
    place of the one it names for that paytable's spot."""
    folders = {Path(p.file).parent for p in table.paytables.values()}
    known: dict[str, Paytable] = {}
    for folder in sorted(folders):
        known.update(load_paytables(folder))
    chosen = known.get(name)
    if chosen is None:
        raise ParError(f"no paytable named {name!r} (known: {', '.join(sorted(known))})")
    if chosen.game != table.game:
        raise ParError(f"paytable {name!r} is for {chosen.game}, not {table.game}")
    return replace(table, paytables={**table.paytables, chosen.spot: chosen})


def spot_from_moments(
    spot: str, moments: tuple[float, ...], lines: tuple[tuple[str, float, float], ...] = (), note: str = ""
) -> SpotPar:
    """A spot's par from E[net], E[wagered], E[net^2], E[net*wagered], E[wagered^2] (per round)."""
    mean, wager, square, cross, wager2 = moments
    edge = -mean / wager
    variance = (square + 2 * edge * cross + edge * edge * wager2) / wager
    return SpotPar(spot, edge, variance, lines, True, None, note)


class _Solved(Protocol):
    """What a sheet reads of a game solved exactly (``MississippiPar``, ``Boston5Par``)."""

    @property
    def ev_per_ante(self) -> float: ...

    @property
    def average_total_wager(self) -> float: ...


def _solved_sheet(
    table: TableConfig,
    par: _Solved,
    spots: dict[str, SpotPar],
    *,
    push_rate: float,
    fold_rates: dict[str, float],
    strategy: str,
    tables: dict[str, tuple[tuple[str, float], ...]],
    notes: tuple[str, ...] = (),
) -> ParSheet:
    """The par sheet of a game solved exactly (``par``: its ``ev_per_ante`` and
    ``average_total_wager``), its fold rate the sum of ``fold_rates``."""
    return ParSheet(
        game=table.game,
        spots=spots,
        edge_per_ante=-par.ev_per_ante,
        edge_per_action=-par.ev_per_ante / par.average_total_wager,
        average_total_wager=par.average_total_wager,
        push_rate=push_rate,
        fold_rate=sum(fold_rates.values()),
        strategy=strategy,
        exact=True,
        fold_rates=fold_rates,
        paytables={k: v.name for k, v in table.paytables.items()},
        tables=tables,
        notes=notes,
    )


def mississippi_sheet(table: TableConfig) -> ParSheet:
    """The par sheet of a mississippi table."""
    from controller.par._solved import mississippi_par

    par = mississippi_par(table.paytables["main"])
    spots = {
        s: spot_from_moments(s, par.spot_moments[s], par.spot_lines[s]) for s in ("ante", "third", "fourth", "fifth")
    }
    if "bonus" in table.paytables:
        spots["bonus"] = three_card_par("bonus", table.paytables["bonus"], MISSISSIPPI_STUD)
    return _solved_sheet(
        table,
        par,
        spots,
        push_rate=par.push_rate,
        fold_rates=dict(par.fold_rates),
        strategy="optimal: fold, 1x or 3x at each street by exact backward induction over every deal "
        "(ties to the larger wager); the bonus does not change play",
        tables={
            "main_lines": tuple((n, p) for n, p, _ in par.lines),
            "main_contributions": tuple((n, c) for n, _, c in par.lines),
        },
        notes=("per-spot figures count each spot's own wagers (a street bet is 0, 1 or 3 antes)",),
    )


def boston5_sheet(table: TableConfig) -> ParSheet:
    """The par sheet of a boston5 table."""
    from controller.par._solved import boston5_par_for

    par = boston5_par_for(table)
    m = par.spot_moments
    spots = {s: spot_from_moments(s, m[s]) for s in ("ante", "first", "second")}
    spots["ante_bonus"] = spot_from_moments(
        "ante_bonus", m["ante_bonus"], par.bonus_lines, "paid on the ante, not a wager of its own: a negative edge"
    )
    if "bonus" in table.paytables:
        spots["bonus"] = three_card_par("bonus", table.paytables["bonus"], BOSTON5, exposed_only_paying=True)
    return _solved_sheet(
        table,
        par,
        spots,
        push_rate=par.tie,
        fold_rates={"second": par.fold_rate},
        strategy="best second wager or fold after three cards, exact, against the dealer's five unseen cards "
        "(one player's view; ties play); every paying bonus hand exposed",
        tables={"main_outcomes": (("win", par.win), ("tie", par.tie), ("lose", par.lose), ("fold", par.fold_rate))},
    )


def pai_gow_sheet(table: TableConfig) -> ParSheet:
    """The par sheet of a pai_gow table."""
    from controller.par.pai_gow import pai_gow_sheet

    return pai_gow_sheet(table)


def par_sheet(game: str, table: TableConfig, *, paytable: str | None = None) -> ParSheet:
    """The par sheet of ``table`` (a ``game`` table), with ``paytable`` (a name) in place of the
    table's own for that paytable's spot. Raises :class:`ParError` for a bad game or paytable.
    Computed once (controller.par.service)."""
    from controller.par.service import sheet_for

    if table.game != game:
        raise ParError(f"the table config is for {table.game}, not {game}")
    if game not in SPECS:
        raise ParError(f"unknown game {game!r} (known: {', '.join(known_games())})")
    if paytable is not None:
        table = with_paytable(table, paytable)
    return sheet_for(table)

"""The par service: every par result and the theoretical win, computed once and kept in one place.

Everything that needs par figures asks here: ``tablectl par`` and ``meters``, the bench and soak
players and summaries, the floor report and the pit view. A result is keyed by what it is
computed from, as canonical content (:func:`paytable_content`: a paytable's game, spot, kind and
rows; not its name, file or object), and looked for in the process, then in the shipped data and
the user's cache folder (controller.par._cache), and computed only when none has it
(controller.par._kept; the solved games' results: controller.par._solved).

* :func:`mississippi_par`: Mississippi Stud's optimal strategy and exact par for a main paytable;
* :func:`boston5_par`: Boston 5's second-wager strategy and exact par for an ante bonus paytable
  and the wagers' sizes;
* pai gow's hand counts (the bonus, envy and insurance figures) and the three-card hand counts
  are kept the same way, by their modules (controller.par.pai_gow, controller.par._three_card);
* :func:`sheet_for`: a table's par sheet, made from those (cheap once they are at hand);
* :func:`theoretical_win`: the one rule for the theoretical win of wagers at a table.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from controller.configuration import TableConfig
from controller.game.definition import GameDefinition
from controller.game.registry import ByGame
from controller.par import _kept, _solved
from controller.par._kept import LOCK as _LOCK
from controller.par._kept import paytable_content
from controller.par._solved import (
    b5_args,
    boston5_inputs,
    boston5_needs,
    boston5_par_for,
    mississippi_inputs,
    mississippi_needs,
    pai_gow_needs,
)
from controller.par.sheet import ParError, ParSheet

__all__ = [
    "PAID_ON",
    "mississippi_inputs",
    "boston5_inputs",
    "boston5_par_for",
    "mississippi_needs",
    "boston5_needs",
    "pai_gow_needs",
    "sheet_for",
    "sheet_nowait",
    "sheet_apart",
    "Theoretical",
    "theoretical_win",
]

log = logging.getLogger("controller.par")

# The kept results' internals as tests/test_par_cache.py reads them here (the same objects).
_b5_args = b5_args
_b5_from_payload = _solved._b5_from_payload
_MEMO = _kept._MEMO


def _paid_on(game: GameDefinition) -> Mapping[str, str] | None:
    return game.paid_on or None


PAID_ON: ByGame[Mapping[str, str]] = ByGame(_paid_on)
"""Per game, payout lines that are not wagers of their own, by the wager they are paid on (Boston
5's ante bonus is paid on the ante): their handle is that wager's, as the par sheet's edge is per
unit of it (each game's definition says its own: ``paid_on``)."""


# --- par sheets ------------------------------------------------------------------------------


def sheet_key(table: TableConfig) -> str:
    """What ``table``'s par sheet depends on, as canonical JSON: the game, every paytable's
    content, the options the game's par reads, the seats (the envy bonus counts the others), and
    for pai gow the stored simulation of its house way (controller.par._pai_gow_data)."""
    from controller.game.record import spec_for

    options = {k: str(table.options.get(k)) for k in spec_for(table.game).par_options}
    stored = None
    if table.game == "pai_gow":  # the main wager's figure is the stored simulation of the house way
        from controller.par._pai_gow_data import MAIN_COUNTS

        stored = repr(MAIN_COUNTS.get(str(table.options.get("house_way"))))
    return json.dumps(
        {
            "game": table.game,
            "seats": table.seats,
            "options": options,
            "stored_simulation": stored,
            "paytables": {spot: paytable_content(p) for spot, p in sorted(table.paytables.items())},
        },
        sort_keys=True,
    )


_SHEETS: dict[str, ParSheet] = {}


def _build_sheet(table: TableConfig) -> ParSheet:
    """Make ``table``'s par sheet from the kept results (by its game's par function:
    controller.par.sheets); ask :func:`sheet_for`, which keeps it, not this."""
    from controller.game.record import known_games, spec_for

    try:
        spec = spec_for(table.game)
    except KeyError:
        raise ParError(f"unknown game {table.game!r} (known: {', '.join(known_games())})") from None
    return spec.par_sheet(table)


def sheet_for(table: TableConfig) -> ParSheet:
    """``table``'s par sheet (its own paytables), made once per process from the kept results.
    The paytable names it shows are ``table``'s own (the key is the content, not the names)."""
    from dataclasses import replace

    key = sheet_key(table)
    with _LOCK:
        sheet = _SHEETS.get(key)
        if sheet is None:
            sheet = _SHEETS[key] = _build_sheet(table)
    names = {k: v.name for k, v in table.paytables.items()}
    return sheet if sheet.paytables == names else replace(sheet, paytables=names)


_PENDING: dict[str, threading.Thread] = {}
_FAILED: dict[str, str] = {}


def sheet_nowait(table: TableConfig) -> ParSheet | None:
    """``table``'s par sheet when it is at hand (made here from kept results), else ``None``
    while it is computed in a separate process (started at the first call; a long-running
    process such as the pit view must not carry the solver's memory), or when it cannot be."""
    key = sheet_key(table)
    with _LOCK:
        if key in _SHEETS:
            return sheet_for(table)
        if key in _FAILED or key in _PENDING:
            return None
        if _all_kept(table):
            return sheet_for(table)
        thread = threading.Thread(target=_compute_apart, args=(key, table), name="par", daemon=True)
        _PENDING[key] = thread
    thread.start()
    return None


def sheet_apart(table: TableConfig) -> ParSheet:
    """``table``'s par sheet: made here when every costly result is kept, else computed once in
    a separate process (``tablectl par --json``, its progress bar on stderr), which keeps the
    results for every later run. Raises ``ValueError`` when it cannot be made."""
    key = sheet_key(table)
    with _LOCK:
        if key in _SHEETS or _all_kept(table):
            return sheet_for(table)
    from controller.par.sheet import sheet_from_json

    cmd = [sys.executable, "-m", "controller", "par", "--game", table.game, "--config", str(table.path), "--json"]
    try:
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=None, text=True, timeout=3600)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ValueError(f"tablectl par: {exc}") from None
    if proc.returncode != 0:
        raise ValueError(f"tablectl par exited {proc.returncode}")
    try:
        sheet = sheet_from_json(json.loads(proc.stdout))
    except (KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"tablectl par --json: unexpected output ({exc!r})") from None
    with _LOCK:
        _SHEETS[key] = sheet
    return sheet_for(table)


def _load(where: str) -> Any:
    """The ``"module:attribute"`` a game's spec names."""
    from importlib import import_module

    module, _, attribute = where.partition(":")
    return getattr(import_module(module), attribute)


def _all_kept(table: TableConfig) -> bool:
    """Whether every costly result ``table``'s sheet needs is kept (shipped or cached)."""
    from controller.game.record import spec_for

    where = spec_for(table.game).par_needs
    needs: list[tuple[str, dict[str, object]]] = _load(where)(table) if where else []
    return all(_kept.is_kept(kind, inputs) for kind, inputs in needs)


def _compute_apart(key: str, table: TableConfig) -> None:
    """:func:`sheet_apart` on a background thread, for :func:`sheet_nowait`."""
    try:
        sheet_apart(table)
    except ValueError as exc:
        log.warning("tablectl: par sheet for %s: %s", table.path, exc)
        with _LOCK:
            _FAILED[key] = str(exc)
    finally:
        with _LOCK:
            _PENDING.pop(key, None)


def forget() -> None:
    """Forget every result this process holds (they are read or computed again at next use)."""
    from controller.par import strategy

    with _LOCK:
        _kept.forget()
        _SHEETS.clear()
        _FAILED.clear()
        strategy.forget()


# --- theoretical win -------------------------------------------------------------------------


class _Edge(Protocol):
    @property
    def edge_per_unit(self) -> float: ...


class _SheetEdges(Protocol):
    """What the theoretical win reads of a par sheet (a ``ParSheet``): each spot's edge."""

    @property
    def spots(self) -> Mapping[str, _Edge]: ...


@dataclass(frozen=True, slots=True)
class Theoretical:
    """The theoretical win of some wagers: per spot the handle (a payout line paid on another
    wager gets that wager's handle), the par edge and its product, in cents; the total is
    ``None`` when some spot with a handle has no par figure (no figure rather than a wrong one)."""

    by_spot: Mapping[str, tuple[int, float | None, float | None]]
    """spot -> (handle cents, par edge per unit or None, theoretical win cents or None)."""
    total: int | None
    missing: tuple[str, ...] = ()
    """Spots with a handle and no par figure."""


def theoretical_win(sheet: _SheetEdges | None, game: str, wagered: Mapping[str, int]) -> Theoretical:
    """The one rule: for each wager spot, the par sheet's house edge per unit times the cents
    wagered on it in the rounds that were settled (void rounds, whose wagers were returned, are
    not in ``wagered``); each payout line of :data:`PAID_ON` (Boston 5's ante bonus) with its
    base wager's cents. The total is rounded once, to the cent."""
    handles = {spot: int(c) for spot, c in wagered.items() if c}
    for line, base in PAID_ON.get(game, {}).items():
        if base in handles:
            handles[line] = handles[base]
    by_spot: dict[str, tuple[int, float | None, float | None]] = {}
    total = 0.0
    missing = []
    for spot, handle in handles.items():
        par = sheet.spots.get(spot) if sheet is not None else None
        if par is None:
            missing.append(spot)
            by_spot[spot] = (handle, None, None)
            continue
        edge = float(par.edge_per_unit)
        by_spot[spot] = (handle, edge, edge * handle)
        total += edge * handle
    return Theoretical(by_spot, None if missing or sheet is None else round(total), tuple(missing))


def wagered_by_spot(rounds: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """The cents wagered per spot in ``rounds`` (``RoundSettled`` data), void rounds left out."""
    out: dict[str, int] = {}
    for r in rounds:
        if r.get("settlement") is None:
            continue
        for seat in r["record"]["seats"].values():
            for spot, cents in seat["wagers"].items():
                out[spot] = out.get(spot, 0) + int(cents)
    return out

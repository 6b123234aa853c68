"""The par service: every par result and the theoretical win, computed once and kept in one place.

Everything that needs par figures asks here: ``tablectl par`` and ``meters``, the bench and soak
players and summaries, the floor report and the pit view. A result is keyed by what it is
computed from, as canonical content (:func:`paytable_content`: a paytable's game, spot, kind and
rows; not its name, file or object), and looked for in the process, then in the shipped data and
the user's cache folder (controller.par.cache), and computed only when none has it.

* :func:`mississippi_par`: Mississippi Stud's optimal strategy and exact par for a main paytable;
* :func:`boston5_par`: Boston 5's second-wager strategy and exact par for an ante bonus paytable
  and the wagers' sizes;
* :func:`pai_gow_classes`: pai gow's hand counts (the bonus, envy and insurance figures);
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
from typing import Any

from controller.par.cache import Progress, cached, pack_array, unpack_array
from controller.par.sheet import ParSheet
from controller.paytables import Paytable
from controller.table_config import TableConfig

__all__ = [
    "SOLVER_VERSIONS",
    "PAID_ON",
    "paytable_content",
    "mississippi_inputs",
    "boston5_inputs",
    "mississippi_par",
    "boston5_par",
    "boston5_par_for",
    "pai_gow_classes",
    "three_card_counts",
    "three_card_inputs",
    "mississippi_needs",
    "boston5_needs",
    "pai_gow_needs",
    "sheet_for",
    "sheet_key",
    "sheet_nowait",
    "sheet_apart",
    "forget",
    "Theoretical",
    "theoretical_win",
    "wagered_by_spot",
]

log = logging.getLogger("controller.par")

SOLVER_VERSIONS = {"mississippi": 1, "boston5": 1, "pai_gow_classes": 1, "three_card_counts": 1}
"""Bump a solver's version when it changes what it computes: its kept results are then not used
(tests/test_par_data.py fails on shipped data that no longer equals the solver's output)."""

PAID_ON: dict[str, dict[str, str]] = {"boston5": {"ante_bonus": "ante"}}
"""Per game, payout lines that are not wagers of their own, by the wager they are paid on (Boston
5's ante bonus is paid on the ante): their handle is that wager's, as the par sheet's edge is per
unit of it."""


def paytable_content(table: Paytable) -> dict[str, Any]:
    """What a paytable pays, as canonical content: game, spot, kind and every row (category,
    ranks, odds, fixed amount), in order. Its name, source, approval, file and cap are left out:
    no par figure depends on them (the cap is not in the par math)."""
    return {
        "game": table.game,
        "spot": table.spot,
        "kind": table.kind.value,
        "rows": [
            [
                r.category.value,
                sorted(r.ranks) if r.ranks else None,
                "push" if r.odds.push else [r.odds.numerator, r.odds.denominator],
                r.amount,
            ]
            for r in table.rows
        ],
    }


# --- Mississippi Stud ------------------------------------------------------------------------

_MEMO: dict[tuple[str, str], Any] = {}
"""Results by (kind, canonical inputs) in this process."""
_LOCK = threading.RLock()


def mississippi_inputs(main: Paytable) -> dict[str, Any]:
    """What Mississippi Stud's strategy and par depend on."""
    return {"version": SOLVER_VERSIONS["mississippi"], "main": paytable_content(main)}


def _ms_payload(par: Any) -> dict[str, Any]:
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


def _lines(raw: Iterable[Any]) -> tuple[tuple[str, float, float], ...]:
    return tuple((str(n), float(p), float(c)) for n, p, c in raw)


def _moments(raw: Mapping[str, Any]) -> dict[str, tuple[float, float, float, float, float]]:
    out = {}
    for k, v in raw.items():
        a, b, c, d, e = (float(x) for x in v)
        out[str(k)] = (a, b, c, d, e)
    return out


def _ms_from_payload(p: Mapping[str, Any]) -> Any:
    from controller.par.mississippi import MississippiPar, MississippiStrategy

    a = p["arrays"]
    strategy = MississippiStrategy(unpack_array(a["third"]), unpack_array(a["fourth"]), unpack_array(a["fifth"]))
    return MississippiPar(
        strategy=strategy,
        ev_per_ante=float(p["ev_per_ante"]),
        average_total_wager=float(p["average_total_wager"]),
        fold_rates={str(k): float(v) for k, v in p["fold_rates"].items()},
        push_rate=float(p["push_rate"]),
        lines=_lines(p["lines"]),
        spot_moments=_moments(p["spot_moments"]),
        spot_lines={str(k): _lines(v) for k, v in p["spot_lines"].items()},
        third_value=unpack_array(a["third_value"]),
    )


def _kept(kind: str, inputs: dict[str, Any], build: Any, compute: Any, what: str, steps: int, unit: str) -> Any:
    """The result for ``kind`` and ``inputs``: from the process, else kept, else computed."""
    memo_key = (kind, json.dumps(inputs, sort_keys=True))
    with _LOCK:  # one thread computes; the others wait for it rather than computing again
        found = _MEMO.get(memo_key)
        if found is None:
            payload = cached(kind, inputs, compute, what=what, steps=steps, unit=unit)
            try:
                found = build(payload)
            except (KeyError, TypeError, ValueError) as exc:  # hash-valid but not what this version reads
                log.warning("tablectl: kept %s result unreadable (%s): computing it again", kind, exc)
                found = build(compute(None))
            _MEMO[memo_key] = found
        return found


def mississippi_par(main: Paytable) -> Any:
    """Mississippi Stud's optimal strategy and exact par (``MississippiPar``) for the main paytable."""

    def compute(bar: Progress | None) -> dict[str, Any]:
        from controller.par.mississippi import solve

        return _ms_payload(solve(main, bar))

    from controller.par.mississippi import SOLVE_STEPS

    return _kept(
        "mississippi",
        mississippi_inputs(main),
        _ms_from_payload,
        compute,
        "Mississippi Stud strategy tables",
        SOLVE_STEPS,
        "step",
    )


# --- Boston 5 --------------------------------------------------------------------------------


def boston5_inputs(ante_bonus: Paytable, first_to_ante: int, pays: float) -> dict[str, Any]:
    """What Boston 5's strategy and par depend on."""
    return {
        "version": SOLVER_VERSIONS["boston5"],
        "ante_bonus": paytable_content(ante_bonus),
        "first_to_ante": int(first_to_ante),
        "first_second_pays": float(pays),
    }


def _b5_payload(par: Any) -> dict[str, Any]:
    return {
        "arrays": {"raise": pack_array(par.raise_), "ev_play": pack_array(par.ev_play)},
        "figures": {
            k: getattr(par, k) for k in ("ev_per_ante", "average_total_wager", "fold_rate", "win", "tie", "lose")
        },
        "spot_moments": {k: list(v) for k, v in par.spot_moments.items()},
        "bonus_lines": [list(x) for x in par.bonus_lines],
    }


def _b5_from_payload(p: Mapping[str, Any]) -> Any:
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
        spot_moments=_moments(p["spot_moments"]),
        bonus_lines=_lines(p["bonus_lines"]),
    )


def boston5_par(ante_bonus: Paytable, first_to_ante: int, pays: float) -> Any:
    """Boston 5's best second-wager decisions and exact par (``Boston5Par``)."""

    def compute(bar: Progress | None) -> dict[str, Any]:
        from controller.par.boston5 import solve

        return _b5_payload(solve(ante_bonus, first_to_ante, pays, bar))

    from controller.par.boston5 import SOLVE_STEPS

    return _kept(
        "boston5",
        boston5_inputs(ante_bonus, first_to_ante, pays),
        _b5_from_payload,
        compute,
        "Boston 5 strategy tables",
        SOLVE_STEPS,
        "step",
    )


def _odds_value(odds: object) -> float:
    from controller.money import Odds

    if not isinstance(odds, Odds):
        raise TypeError(f"first_second_pays must be odds, got {odds!r}")
    return odds.numerator / odds.denominator


def _b5_args(table: TableConfig) -> tuple[Paytable, int, float]:
    k = table.options["first_to_ante"]
    if not isinstance(k, int):
        raise TypeError(f"first_to_ante must be a whole number, got {k!r}")
    return table.paytables["ante_bonus"], k, _odds_value(table.options["first_second_pays"])


def boston5_par_for(table: TableConfig) -> Any:
    """:func:`boston5_par` for a Boston 5 table's ante bonus paytable and wagers."""
    return boston5_par(*_b5_args(table))


# --- pai gow ---------------------------------------------------------------------------------


def _pg_payload(counts: tuple[Mapping[Any, int], Mapping[int, int]]) -> dict[str, Any]:
    bonus, insurance = counts
    return {
        "bonus": sorted([[c.value for c in k], int(n)] for k, n in bonus.items()),
        "insurance": sorted([int(k), int(n)] for k, n in insurance.items()),
    }


def _pg_from_payload(p: Mapping[str, Any]) -> tuple[dict[Any, int], dict[int, int]]:
    from controller.hands.categories import Category

    bonus = {tuple(Category(c) for c in k): int(n) for k, n in p["bonus"]}
    return bonus, {int(k): int(n) for k, n in p["insurance"]}


def pai_gow_classes() -> tuple[dict[Any, int], dict[int, int]]:
    """Pai gow's hand counts over the 154,143,080 hands: by the set of bonus lines a hand
    qualifies for, and the pai gows by top card (controller.par.pai_gow.class_counts)."""

    def compute(bar: Progress | None) -> dict[str, Any]:
        from controller.par.pai_gow import class_counts

        return _pg_payload(class_counts(bar))

    from controller.par.pai_gow import CLASSES

    result: tuple[dict[Any, int], dict[int, int]] = _kept(
        "pai_gow_classes",
        {"version": SOLVER_VERSIONS["pai_gow_classes"]},
        _pg_from_payload,
        compute,
        "pai gow hand classes",
        CLASSES,
        "class",
    )
    return result


# --- three-card bonuses ---------------------------------------------------------------------


def three_card_inputs(rules: Any) -> dict[str, Any]:
    """What the three-card hand counts depend on: the game's three-card ranking (its order)."""
    order = [c.value for c in rules.three_card] if rules.three_card else None
    return {"version": SOLVER_VERSIONS["three_card_counts"], "wheel": rules.wheel.value, "three_card": order}


def three_card_counts(rules: Any) -> dict[tuple[Any, int], int]:
    """How many of the 22,100 three-card hands fall in each (category, naming rank) under
    ``rules`` (controller.par.three_card.count_three_card: a second of CPU, so it is kept too)."""

    def compute(bar: Progress | None) -> list[list[Any]]:
        from controller.par.three_card import count_three_card

        counts = count_three_card(rules)
        if bar is not None:
            bar.update(1)
        return sorted([c.value, r, n] for (c, r), n in counts.items())

    def build(payload: list[list[Any]]) -> dict[tuple[Any, int], int]:
        from controller.hands.categories import Category

        return {(Category(c), int(r)): int(n) for c, r, n in payload}

    result: dict[tuple[Any, int], int] = _kept(
        "three_card_counts", three_card_inputs(rules), build, compute, "three-card hand counts", 1, "step"
    )
    return result


# --- par sheets ------------------------------------------------------------------------------


def sheet_key(table: TableConfig) -> str:
    """What ``table``'s par sheet depends on, as canonical JSON: the game, every paytable's
    content, the options the game's par reads, the seats (the envy bonus counts the others), and
    for pai gow the stored simulation of its house way (controller.par.pai_gow_data)."""
    from controller.games.spec import spec_for

    options = {k: str(table.options.get(k)) for k in spec_for(table.game).par_options}
    stored = None
    if table.game == "pai_gow":  # the main wager's figure is the stored simulation of the house way
        from controller.par.pai_gow_data import MAIN_COUNTS

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


def sheet_for(table: TableConfig) -> ParSheet:
    """``table``'s par sheet (its own paytables), made once per process from the kept results.
    The paytable names it shows are ``table``'s own (the key is the content, not the names)."""
    from dataclasses import replace

    key = sheet_key(table)
    with _LOCK:
        sheet = _SHEETS.get(key)
        if sheet is None:
            from controller.par.sheets import build_sheet

            sheet = _SHEETS[key] = build_sheet(table)
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


def mississippi_needs(table: TableConfig) -> list[tuple[str, dict[str, Any]]]:
    """The costly results a Mississippi Stud table's sheet needs: its strategy and par."""
    return [("mississippi", mississippi_inputs(table.paytables["main"]))]


def boston5_needs(table: TableConfig) -> list[tuple[str, dict[str, Any]]]:
    """The costly results a Boston 5 table's sheet needs: its strategy and par."""
    return [("boston5", boston5_inputs(*_b5_args(table)))]


def pai_gow_needs(table: TableConfig) -> list[tuple[str, dict[str, Any]]]:
    """The costly results a pai gow table's sheet needs: the hand classes, for a side wager."""
    if {"bonus", "envy", "insurance"} & set(table.paytables):
        return [("pai_gow_classes", {"version": SOLVER_VERSIONS["pai_gow_classes"]})]
    return []


def _load(where: str) -> Any:
    """The ``"module:attribute"`` a game's spec names."""
    from importlib import import_module

    module, _, attribute = where.partition(":")
    return getattr(import_module(module), attribute)


def _all_kept(table: TableConfig) -> bool:
    """Whether every costly result ``table``'s sheet needs is kept (shipped or cached)."""
    from controller.games.spec import spec_for
    from controller.par.cache import content_key, read_entry

    where = spec_for(table.game).par_needs
    needs: list[tuple[str, dict[str, Any]]] = _load(where)(table) if where else []
    for kind, inputs in needs:
        memo_key = (kind, json.dumps(inputs, sort_keys=True))
        if memo_key not in _MEMO and read_entry(kind, content_key(kind, inputs)) is None:
            return False
    return True


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
        _MEMO.clear()
        _SHEETS.clear()
        _FAILED.clear()
        strategy.forget()


# --- theoretical win -------------------------------------------------------------------------


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


def theoretical_win(sheet: ParSheet | Any | None, game: str, wagered: Mapping[str, int]) -> Theoretical:
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

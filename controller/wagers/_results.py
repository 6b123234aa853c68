"""Each wager's result and the payout caps that may cut them: what a game's settlement works out
seat by seat. Money is integer cents; ``net`` is what the player gains: positive when paid, the
negated stake when collected, zero otherwise.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum

from controller.wagers._quick import quick_init

__all__ = ["Result", "WagerResult", "CapReport", "apply_cap", "apply_caps", "PayoutCaps"]


class Result(Enum):
    """How one wager ended."""

    WIN = "win"
    LOSE = "lose"
    PUSH = "push"
    """Neither paid nor collected (a tie, a pushing paytable line)."""
    RETURNED = "returned"
    """Handed back without being in action to the end (Boston 5 ante with no ante bonus; a void)."""


@quick_init
@dataclass(frozen=True, slots=True)
class WagerResult:
    """The result of one wager spot, or of a payout line such as Boston 5's ``ante_bonus``."""

    spot: str
    stake: int
    result: Result
    net: int
    why: str
    capped_from: int | None = None
    commission: int = 0
    """Commission taken from a winning payout (pai gow): ``net`` is the payout less this."""

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"result": self.result._value_, "net": self.net, "stake": self.stake, "why": self.why}
        if self.capped_from is not None:
            out["capped_from"] = self.capped_from
        if self.commission:
            out["commission"] = self.commission
        return out


@dataclass(frozen=True, slots=True)
class CapReport:
    """An aggregate payout cap that bit: what would have been paid, what is paid, and from where."""

    label: str
    cap: int
    uncapped: int
    reduced: tuple[tuple[str, int], ...]

    @property
    def paid(self) -> int:
        return self.uncapped - sum(n for _, n in self.reduced)

    def to_json(self) -> dict[str, object]:
        return {
            "cap": self.label,
            "limit": self.cap,
            "uncapped": self.uncapped,
            "paid": self.paid,
            "reduced": dict(self.reduced),
        }


def apply_cap(
    wagers: Sequence[WagerResult],
    cap: int | None,
    label: str,
    spots: Iterable[str] | None = None,
    cut_first: Sequence[str] = (),
) -> tuple[list[WagerResult], CapReport | None]:
    """Limit the payouts of ``wagers`` (those in ``spots``, or all) to ``cap`` cents in total.

    The excess is taken from the largest payouts first; among equal payouts, from the spots in
    ``cut_first``'s order first (a game's last wager made first), then by spot name, so the choice
    never depends on the order the wagers are listed in. Collected stakes are untouched.
    """
    if cap is None:
        return list(wagers), None
    chosen = set(spots) if spots is not None else None
    winners = [w for w in wagers if w.net > 0 and (chosen is None or w.spot in chosen)]
    total = sum(w.net for w in winners)
    if total <= cap:
        return list(wagers), None
    excess = total - cap
    cuts: dict[str, int] = {}
    rank = {spot: n for n, spot in enumerate(cut_first)}
    for w in sorted(winners, key=lambda w: (-w.net, rank.get(w.spot, len(rank)), w.spot)):
        cut = min(w.net, excess)
        if cut:
            cuts[w.spot] = cut
            excess -= cut
    out = [
        replace(w, net=w.net - cuts[w.spot], capped_from=w.capped_from if w.capped_from is not None else w.net)
        if w.spot in cuts
        else w
        for w in wagers
    ]
    return out, CapReport(label, cap, total, tuple(sorted(cuts.items())))


_SMALLEST: dict[tuple[int, int, int | None], tuple[object, object, int | None]] = {}
"""The smallest cap of each paytables' and spots' mappings (by identity) and table cap, found
once while both mappings live: a table settles every seat of every round under the same ones."""


def _smallest_cap(
    paytables: Mapping[str, object], paid_by: Mapping[str, Iterable[str]], payout_cap: int | None
) -> int | None:
    """The smallest of the caps of ``paid_by``'s paytables and ``payout_cap`` (``None``: no cap)."""
    key = (id(paytables), id(paid_by), payout_cap)
    kept = _SMALLEST.get(key)
    if kept is not None and kept[0] is paytables and kept[1] is paid_by:
        return kept[2]
    caps = [cap for cap in (getattr(paytables.get(spot), "cap", None) for spot in paid_by) if cap is not None]
    if payout_cap is not None:
        caps.append(payout_cap)
    smallest = min(caps) if caps else None
    if len(_SMALLEST) > 64:
        _SMALLEST.clear()
    _SMALLEST[key] = (paytables, paid_by, smallest)
    return smallest


def apply_caps(
    wagers: Sequence[WagerResult],
    paytables: Mapping[str, object],
    paid_by: Mapping[str, Iterable[str]],
    payout_cap: int | None,
    table_capped: Iterable[str] | None = None,
    cut_first: Sequence[str] = (),
) -> tuple[list[WagerResult], tuple[CapReport, ...]]:
    """Apply each paytable's own cap to the wagers it pays (``paid_by``: paytable spot ->
    wager spots), then the table's aggregate ``payout_cap`` to the wagers the game's rule caps
    (``table_capped``: their spots; ``None``: every wager); ``cut_first``: as :func:`apply_cap`."""
    smallest = _smallest_cap(paytables, paid_by, payout_cap)
    if smallest is None or sum([w.net for w in wagers if w.net > 0]) <= smallest:
        return list(wagers), ()  # no cap bites: every one limits a part of these payouts
    reports = []
    out = list(wagers)
    for spot, spots in paid_by.items():
        table = paytables.get(spot)
        cap = getattr(table, "cap", None)
        if cap is not None:
            out, report = apply_cap(out, cap, f"paytable {getattr(table, 'name', spot)}", spots, cut_first)
            reports += [report] if report else []
    if payout_cap is not None:
        out, report = apply_cap(out, payout_cap, "table payout_cap", table_capped, cut_first)
        reports += [report] if report else []
    return out, tuple(reports)


@quick_init
@dataclass(frozen=True, slots=True)
class PayoutCaps:
    """The caps of one table on one game's payouts, their smallest found once (:meth:`of`): a
    settlement applies them to every seat of its round."""

    paytables: Mapping[str, object]
    paid_by: Mapping[str, Iterable[str]]
    payout_cap: int | None
    smallest: int | None
    """The smallest of them (``None``: no cap): payouts within it are never reduced."""
    table_capped: tuple[str, ...] | None = None
    """The wager spots ``payout_cap`` covers (``None``: every wager)."""
    cut_first: tuple[str, ...] = ()
    """Among equal payouts, the spots a cap cuts first, in order (:func:`apply_cap`)."""

    @classmethod
    def of(
        cls,
        paytables: Mapping[str, object],
        paid_by: Mapping[str, Iterable[str]],
        payout_cap: int | None,
        table_capped: Iterable[str] | None = None,
        cut_first: Sequence[str] = (),
    ) -> PayoutCaps:
        """The caps of ``paytables`` (``paid_by``: paytable spot -> wager spots) and ``payout_cap``
        (on the wagers in ``table_capped``; ``None``: on every wager); ``cut_first``: as
        :func:`apply_cap`."""
        capped = tuple(table_capped) if table_capped is not None else None
        smallest = _smallest_cap(paytables, paid_by, payout_cap)
        return cls(paytables, paid_by, payout_cap, smallest, capped, tuple(cut_first))

    def apply(self, wagers: Sequence[WagerResult]) -> tuple[Sequence[WagerResult], tuple[CapReport, ...]]:
        """:func:`apply_caps` on one seat's ``wagers`` (the same sequence when no cap bites)."""
        smallest = self.smallest
        if smallest is None or sum([w.net for w in wagers if w.net > 0]) <= smallest:
            return wagers, ()
        return apply_caps(wagers, self.paytables, self.paid_by, self.payout_cap, self.table_capped, self.cut_first)

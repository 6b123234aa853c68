"""A late bet offered to the supervisor on a fed table, and what he sees after ``next``: the
shared steps of the late-bet tests of each game (docs/dealer-guide.md, "Accept / refuse a late or
removed bet")."""

from __future__ import annotations

from table_helpers import FedTable

from drivers.link import LinkDown
from drivers.panel import ButtonChanged


def late_change(t: FedTable, seat: int, spot: str, cents: int, held: bool) -> None:
    """Chips on ``seat``'s ``spot`` changed to ``cents`` (held: from a hold of the shoe's link, the
    panel and the bet spots still answering), noted as a late bet; the supervisor's key on and
    ``next`` pressed."""
    if held:
        t.feed(LinkDown(device="shoe", reason="cable"))
        assert t.snapshot().step == "hold"
    t.spot(seat, spot, cents)
    s = t.snapshot()
    assert [(b.seat, b.spot, b.cents) for b in s.late_bets] == [(seat, spot, cents)], s.late_bets
    t.feed(ButtonChanged(device="panel", button="supervisor_key", pressed=True))
    t.press("next")


def assert_late_refused(t: FedTable, before: dict[str, int], seat: int, spot: str) -> None:
    """The late change to ``seat``'s ``spot`` refused: its wagers as ``before``, none pending."""
    s = t.snapshot()
    after = s.seat(seat)
    assert after is not None and after.wager_map() == before, after.wager_map()
    assert not any(line.startswith("supervisor: late bet accepted") for line in s.recent), s.recent
    assert not s.late_bets, s.late_bets
    assert any(line.startswith(f"supervisor: late bet refused: seat {seat} {spot}") for line in s.recent), s.recent


def assert_late_accepted(t: FedTable, seat: int, spot: str, cents: int) -> None:
    """The late change to ``seat``'s ``spot`` accepted: ``cents`` on it now."""
    s = t.snapshot()
    after = s.seat(seat)
    assert after is not None and after.wager_map().get(spot, 0) == cents, after.wager_map()
    assert any(line.startswith(f"supervisor: late bet accepted: seat {seat} {spot}") for line in s.recent), s.recent

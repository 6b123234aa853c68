"""Each finished round's record in a durable journal: what the round was (its record, settlement,
late bets, faults, cards and journal span), written once with its meters, in round order."""

from __future__ import annotations

import logging

from controller.configuration import TableConfig
from controller.journal import JournalError, SqliteJournal
from controller.journal.meters import meters_for_round
from controller.table.round_data import RoundResult

__all__ = ["RoundRecords", "round_record"]

log = logging.getLogger("tablectl.runtime")


def round_record(
    config: TableConfig,
    result: RoundResult,
    *,
    faults: int,
    cards: list[dict[str, object]],
    first_seq: int,
    last_seq: int,
    dealer: str | None = None,
) -> dict[str, object]:
    """The record of the round ``result`` ended, played at the table ``config`` describes from
    journal record ``first_seq`` to ``last_seq`` with ``faults`` faults and ``cards`` reported;
    ``dealer``: who dealt it (``dealer_id``, a table with a roster only)."""
    out = {
        "round": result.number,
        "game": config.game,
        "table": config.path,
        "table_sha256": config.sha256,
        "record": result.record,
        "settlement": result.settlement.to_json() if result.settlement else None,
        "late_bets": list(result.late_bets),
        "faults": faults,
        "cards": cards,
        "first_seq": first_seq,
        "last_seq": last_seq,
    }
    if config.roster is not None:
        out["dealer_id"] = dealer
    return out


class RoundRecords:
    """The round records for ``journal``: a record the journal cannot take now is kept, and
    written once it takes records again, before any later one."""

    def __init__(self, journal: SqliteJournal) -> None:
        self.journal = journal
        self._unwritten: list[tuple[int, dict[str, object]]] = []

    @property
    def pending(self) -> bool:
        """Whether a round's record waits to be written."""
        return bool(self._unwritten)

    def has(self, number: int) -> bool:
        """Whether round ``number``'s record is in the journal (written before a restart)."""
        return self.journal.has_round(number)

    def add(self, number: int, data: dict[str, object]) -> None:
        """Write round ``number``'s record ``data`` after any still waiting."""
        self._unwritten.append((number, data))
        self.flush()

    def flush(self) -> None:
        """Write the round records not written yet, in order, until the journal refuses one."""
        while self._unwritten:
            number, data = self._unwritten[0]
            try:
                self.journal.append_round(number, data, meters_for_round(data))
            except JournalError as exc:
                log.error("journal: %s: round %s's record is written once the journal takes records again", exc, number)
                return
            self._unwritten.pop(0)

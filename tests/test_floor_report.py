"""The floor report's figures are `tablectl meters`' for the same rounds, for every game: the
theoretical win (one rule, controller.par.service: Boston 5's ante bonus on the ante's handle),
the handle of the settled rounds, the win, and the faults (each round's faults: the meter).

The report is a pure function over the floor store's rows (controller.floor.report): here the
rows are made from a bench journal's rounds as the ingest stores them (a round's handle, win and
faults; its wagers by spot), added up as the report's SQL adds them, without a database.
tests/test_floor.py checks the same through the real floor link."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.cli import main
from controller.configuration import config_dir, load_table
from controller.floor.report import groups_from_rows, report_from_rows, sheet_for_config
from controller.journal import SqliteJournal
from hil.bench import run_bench

GAMES = ("mississippi_stud", "boston5", "pai_gow")


def floor_rows(table_id: str, rounds: list[dict[str, Any]]) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    """The report's ROUNDS_SQL and WAGERS_SQL rows for ``rounds`` (``RoundSettled`` data) as the
    ingest stores them (controller.floor.ingest: handle = every wager, win = the house net)."""
    sums: dict[tuple[str, str, str], list[int]] = {}
    wagers: dict[tuple[str, str, str, str], int] = {}
    for r in rounds:
        key = (table_id, r["game"], r["table"])
        s = sums.setdefault(key, [0, 0, 0, 0, 0])
        void = r["settlement"] is None
        s[0] += 1
        s[1] += 0 if void else sum(sum(seat["wagers"].values()) for seat in r["record"]["seats"].values())
        s[2] += 0 if void else r["settlement"]["house_net"]
        s[3] += void
        s[4] += int(r["faults"])
        if not void:
            for seat in r["record"]["seats"].values():
                for spot, cents in seat["wagers"].items():
                    wagers[(*key, spot)] = wagers.get((*key, spot), 0) + cents
    return [(*k, *v) for k, v in sums.items()], [(*k, v) for k, v in wagers.items()]


@pytest.mark.parametrize("game", GAMES)
def test_floor_report_figures_equal_tablectl_meters(game: str, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    journal_path = tmp_path / "j.db"
    table = load_table(config_dir() / "bench" / f"{game}.yaml")
    run_bench(table, 3, 8, seed=5, progress=False, journal_path=journal_path, faults="noisy")
    journal = SqliteJournal(journal_path, create=False)
    try:
        rounds = [journal.record(seq).data for _, seq in journal.round_seqs()]
    finally:
        journal.close()
    report = report_from_rows(None, groups_from_rows(*floor_rows("t-1", rounds)), {}, sheet_for_config)
    assert main(["meters", "--journal", str(journal_path), "--json"]) == 0
    meters = {(s, n): v for s, n, v in json.loads(capsys.readouterr().out)}
    line = report.tables[0]
    assert line.rounds == meters[("table", "rounds")] == 8
    assert line.theoretical_win is not None and report.note is None
    assert line.theoretical_win == meters[("theoretical", "theoretical_win:all")]
    assert line.handle == meters[("theoretical", "handle:all")]
    assert line.win == meters[("theoretical", "won:all")]
    assert line.faults == meters.get(("table", "faults"), 0)
    assert line.voids == meters.get(("table", "voids"), 0)
    if game == "boston5":  # the ante bonus is in the theoretical win, against the ante's handle
        assert ("theoretical", "theoretical_win:ante_bonus") in meters

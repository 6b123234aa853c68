"""A journal's bytes per round, by record kind, for each game; and the same rounds stored as
compact blocks (issue 45 item 8).

Run ``python benchmarks/bench_journal_compact.py [--rounds N] [--seats N] [--seed N]``. For
each of the four games a bench table plays ``--rounds`` rounds (default 20, 6 seats) over ptys
into a journal, as ``tablectl bench`` does (so the devices' command results and every button
release are in it), twice: once keeping every record as a row (folding off) and once as a table
plays, folding each closed round into a block (:mod:`controller.journal.fold`). Measured on
copies made by ``VACUUM INTO`` (no free pages, no WAL):

* the rows' file size per round, and each record kind's share (its rows' stored bytes);
* the same file folded by the journal's writer afterwards, checked to hold the same content (the
  simulation guard's digest: every record's time, kind, event flag and data, the snapshots, the
  round index, the meters, ``meta``);
* the file the table wrote folding as it played (the open round and what came before the first
  round left as rows);
* what one more round adds to each (the pages SQLite gives the rows, or the blocks and their kind
  index, the snapshots and the round index, per round: ``dbstat``), without the few pages every
  file has;
* each as a table-year: ``YEAR_ROUNDS`` rounds (the year benchmark's journal of 20,000,000
  records, a table 16 hours a day).

Prints figures; asserts nothing (a folded journal whose content differs is printed as such).
"""

from __future__ import annotations

import argparse
import collections
import sqlite3
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.configuration import config_dir, load_table
from controller.journal import SqliteJournal
from controller.journal.fold import fold_closed_rounds
from controller.table.journal_files import journal_key
from hil.bench import run_bench
from hil.simulate.journal_digest import content_digest

GAMES = ("mississippi_stud", "boston5", "pai_gow", "three_card_poker")
YEAR_ROUNDS = 219_781
"""Rounds in a table-year: the year benchmark's journal (bench_journal_year.py, 20,000,000 records)."""


def vacuumed(src: Path, dst: Path) -> int:
    """``VACUUM INTO`` ``dst``; its size."""
    db = sqlite3.connect(str(src))
    db.execute("VACUUM INTO ?", (str(dst),))
    db.close()
    return dst.stat().st_size


def by_kind(path: Path) -> dict[str, tuple[int, int]]:
    """(records, stored bytes of their fields) by kind."""
    db = sqlite3.connect(str(path))
    out: dict[str, tuple[int, int]] = collections.defaultdict(lambda: (0, 0))
    for kind, n, size in db.execute(
        "SELECT kind, count(*), sum(8 + length(kind) + 1 + length(data) + length(prev) + length(hash)) "
        "FROM records GROUP BY kind"
    ):
        out[kind] = (n, size)
    db.close()
    return dict(out)


def compacted(path: Path, key: bytes | None) -> tuple[int, int, int]:
    """Fold each closed round of the journal at ``path`` with the journal's writer
    (:func:`controller.journal.fold.fold_closed_rounds`, as a table with no floor folds); (blocks,
    records in them, 1 if the journal's content differs from before: the guard's digest)."""
    before = content_digest(path.read_bytes())
    journal = SqliteJournal(path, key)
    try:
        done = fold_closed_rounds(journal, None)
    finally:
        journal.close()
    return done.blocks, done.records, int(content_digest(path.read_bytes()) != before)


def per_round(path: Path, blocks: int, rounds: int) -> float:
    """What one more round adds to the file, from the pages SQLite gives each table (``dbstat``):
    with ``blocks`` the blocks' pages per block, else the records' (and their index's) per round;
    and the snapshots' and the round index's per round."""
    db = sqlite3.connect(str(path))
    pages = collections.Counter(dict(db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()))
    db.close()
    block_pages = pages["blocks"] + pages["sqlite_autoindex_blocks_1"] + pages["block_kinds"]
    rows = block_pages / blocks if blocks else (pages["records"] + pages["records_links"]) / rounds
    return float(rows + (pages["snapshots"] + pages["rounds"]) / rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--seats", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", default=",".join(GAMES))
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-compact-") as tmp:
        folder = Path(tmp)
        for game in args.games.split(","):
            table = load_table(config_dir() / "bench" / f"{game}.yaml")
            path = folder / f"{game}.db"
            summary = run_bench(
                table,
                seats=args.seats,
                rounds=args.rounds,
                seed=args.seed,
                progress=False,
                journal_path=path,
                fold_rounds=False,
            )
            rounds = summary.rounds
            plain = folder / f"{game}-plain.db"
            size = vacuumed(path, plain)
            kinds = by_kind(plain)
            records = sum(n for n, _ in kinds.values())
            stored = sum(b for _, b in kinds.values())
            before = per_round(plain, 0, rounds)
            print(
                f"{game}: {rounds} rounds, {records / rounds:.0f} records a round: the file {size / rounds / 1024:.1f} "
                f"KiB a round; a round's records, snapshot and index row {before / 1024:.1f} KiB"
            )
            for kind, (n, b) in sorted(kinds.items(), key=lambda kv: -kv[1][1])[:6]:
                print(
                    f"  {kind:16} {n / rounds:6.1f} a round  {b / rounds / 1024:5.1f} KiB a round ({b / stored:4.0%})"
                )
            work = folder / f"{game}-work.db"
            vacuumed(plain, work)
            blocks, moved, bad = compacted(work, journal_key(table))
            small = vacuumed(work, folder / f"{game}-compact.db")
            steady = per_round(folder / f"{game}-compact.db", blocks, rounds)
            print(
                f"  folded: {blocks} blocks ({moved} records; content {'DIFFERS' if bad else 'equal'}): the file "
                f"{small / rounds / 1024:.1f} KiB a round; a round's block, snapshot and index row {steady / 1024:.1f} KiB"
            )
            live = folder / f"{game}-live.db"
            played = run_bench(
                table, seats=args.seats, rounds=args.rounds, seed=args.seed, progress=False, journal_path=live
            )
            live_size = vacuumed(live, folder / f"{game}-live-vacuumed.db")
            db = sqlite3.connect(folder / f"{game}-live-vacuumed.db")
            (live_blocks,) = db.execute("SELECT count(*) FROM blocks").fetchone()
            db.close()
            live_steady = per_round(folder / f"{game}-live-vacuumed.db", live_blocks, played.rounds)
            print(
                f"  as the table plays (folding on): {live_blocks} blocks, the file {live_size / played.rounds / 1024:.1f} "
                f"KiB a round; one more round {live_steady / 1024:.1f} KiB"
            )
            rows.append(
                (
                    game,
                    records / rounds,
                    size / rounds,
                    before,
                    small / rounds,
                    steady,
                    bad,
                    live_size / played.rounds,
                    live_steady,
                )
            )
    print()
    print(
        f"| game ({args.seats} seats, {args.rounds} rounds, seed {args.seed}) | records a round "
        "| rows: the file a round | rows: one more round | blocks: the file a round | blocks: one more round "
        "| table folding as it plays: the file a round | one more round | table-year, rows | table-year, as played |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for game, per, today, before, compact, steady, bad, live, live_steady in rows:
        print(
            f"| {game} | {per:.0f} | {today / 1024:.1f} KiB | {before / 1024:.1f} KiB "
            f"| {compact / 1024:.1f} KiB{' (CONTENT DIFFERS)' if bad else ''} | {steady / 1024:.1f} KiB "
            f"| {live / 1024:.1f} KiB | **{live_steady / 1024:.1f} KiB** "
            f"| {before * YEAR_ROUNDS / 2**30:.1f} GiB | **{live_steady * YEAR_ROUNDS / 2**30:.2f} GiB** |"
        )


if __name__ == "__main__":
    main()

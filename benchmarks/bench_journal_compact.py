"""A journal's bytes per round, by record kind, for each game; and the same rounds stored as
compact blocks (issue 45 item 8).

Run ``python benchmarks/bench_journal_compact.py [--rounds N] [--seats N] [--seed N]``. For
each of the four games a bench table plays ``--rounds`` rounds (default 20, 6 seats) over ptys
into a journal, as ``tablectl bench`` does (so the devices' command results and every button
release are in it). Measured on a copy made by ``VACUUM INTO`` (no free pages, no WAL):

* the file's size per round, and each record kind's share (its rows' stored bytes);
* the same file with the records between each two snapshots (a round's start to the next one's;
  the last round is left open, as a running table's would be) stored as one block of
  :mod:`controller.journal.compact` instead of one row each, every block decoded again and
  compared with the rows it replaced, field by field (each record's time, kind, event flag,
  data text, ``prev`` and hash: what every reader shows); vacuumed;
* what one more round adds to each (the pages SQLite gives the rows or blocks, the snapshots and
  the round index, per round: ``dbstat``), without the few pages every file has;
* each as a table-year: ``YEAR_ROUNDS`` rounds (the year benchmark's journal of 20,000,000
  records, a table 16 hours a day).

Prints figures; asserts nothing (a block that does not decode to its rows is printed as such).
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
from controller.journal.compact import StoredRecord, decode_block, encode_block
from controller.table.journal_files import journal_key
from hil.bench import run_bench

GAMES = ("mississippi_stud", "boston5", "pai_gow", "three_card_poker")
YEAR_ROUNDS = 219_781
"""Rounds in a table-year: the year benchmark's journal (bench_journal_year.py, 20,000,000 records)."""

BLOCKS = (
    "CREATE TABLE blocks (first_seq INTEGER PRIMARY KEY, last_seq INTEGER NOT NULL, prev TEXT NOT NULL, "
    "hash TEXT NOT NULL, prefixes BLOB NOT NULL, payload BLOB NOT NULL)"
)


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
    """Store each finished round's records in ``path`` as a block; (blocks, records in them,
    blocks that did not decode to their rows)."""
    db = sqlite3.connect(str(path), isolation_level=None)
    db.execute(BLOCKS)
    cuts = [s for (s,) in db.execute("SELECT seq FROM snapshots ORDER BY seq")]
    blocks = moved = bad = 0
    db.execute("BEGIN")
    for lo, hi in zip(cuts, cuts[1:], strict=False):  # the last snapshot's round is left open
        rows = [
            StoredRecord(seq, at, kind, bool(event), data, prev, digest)
            for seq, at, kind, event, data, prev, digest in db.execute(
                "SELECT seq, at, kind, event, data, prev, hash FROM records WHERE seq > ? AND seq <= ? ORDER BY seq",
                (lo, hi),
            )
        ]
        block = encode_block(rows)
        if decode_block(block, key) != rows:
            bad += 1
            continue
        db.execute(
            "INSERT INTO blocks VALUES (?, ?, ?, ?, ?, ?)",
            (block.first_seq, block.last_seq, block.prev, block.hash, block.prefixes, block.payload),
        )
        db.execute("DELETE FROM records WHERE seq > ? AND seq <= ?", (lo, hi))
        blocks += 1
        moved += len(rows)
    db.execute("COMMIT")
    db.close()
    return blocks, moved, bad


def per_round(path: Path, blocks: int, rounds: int) -> float:
    """What one more round adds to the file, from the pages SQLite gives each table (``dbstat``):
    with ``blocks`` the blocks' pages per block, else the records' (and their index's) per round;
    and the snapshots' and the round index's per round."""
    db = sqlite3.connect(str(path))
    pages = collections.Counter(dict(db.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name").fetchall()))
    db.close()
    rows = pages["blocks"] / blocks if blocks else (pages["records"] + pages["records_links"]) / rounds
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
                table, seats=args.seats, rounds=args.rounds, seed=args.seed, progress=False, journal_path=path
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
                f"  compact: {blocks} blocks ({moved} records; {bad} not decoded to their rows): the file "
                f"{small / rounds / 1024:.1f} KiB a round; a round's block, snapshot and index row {steady / 1024:.1f} KiB"
            )
            rows.append((game, records / rounds, size / rounds, before, small / rounds, steady, bad))
    print()
    print(
        f"| game ({args.seats} seats, {args.rounds} rounds, seed {args.seed}) | records a round "
        "| rows: the file a round | rows: one more round | blocks: the file a round | blocks: one more round "
        "| table-year, rows | table-year, blocks |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for game, per, today, before, compact, steady, bad in rows:
        print(
            f"| {game} | {per:.0f} | {today / 1024:.1f} KiB | {before / 1024:.1f} KiB "
            f"| {compact / 1024:.1f} KiB{' (BLOCKS DIFFER)' if bad else ''} | **{steady / 1024:.1f} KiB** "
            f"| {before * YEAR_ROUNDS / 2**30:.1f} GiB | **{steady * YEAR_ROUNDS / 2**30:.2f} GiB** |"
        )


if __name__ == "__main__":
    main()

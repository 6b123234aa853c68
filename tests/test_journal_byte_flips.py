"""200 single-byte flips of a bench journal, each checked by ``tablectl journal verify``: never a
traceback, the file never changed by the check, and every flip that changes a stored row (of any
table, the schema included, or that leaves the file unreadable) is found (exit status 1, or 2
when the flip leaves no SQLite database at all)."""

from __future__ import annotations

import contextlib
import io
import random
import sqlite3
from pathlib import Path

import pytest

from controller.cli import main

BENCH_JOURNAL = Path(__file__).resolve().parent / "bad_input" / "journals" / "bench.db"
FLIPS = 200
SEED = 20261203


def stored_rows(path: Path) -> object:
    """Every row of every table (and the schema), or the error reading them gives."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True)
        db.text_factory = bytes
        try:
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
            out: list[object] = [db.execute("SELECT * FROM sqlite_master ORDER BY name").fetchall()]
            for table in tables:
                out.append(db.execute(f'SELECT * FROM "{table.decode()}" ORDER BY rowid').fetchall())
            return out
        finally:
            db.close()
    except (sqlite3.Error, UnicodeError) as exc:
        return f"unreadable: {exc}"


def verify(path: Path) -> tuple[int, str]:
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        try:
            status = main(["journal", "verify", "--journal", str(path)])
        except SystemExit as exc:
            status = int(exc.code or 0)
    return status, err.getvalue()


def test_the_bench_journal_verifies(tmp_path: Path) -> None:
    copy = tmp_path / "j.db"
    copy.write_bytes(BENCH_JOURNAL.read_bytes())
    assert verify(copy) == (0, "")


@pytest.mark.slow
def test_byte_flips_are_found_without_a_traceback(tmp_path: Path) -> None:
    original = BENCH_JOURNAL.read_bytes()
    rows = stored_rows(BENCH_JOURNAL)
    rng = random.Random(SEED)
    changed = found = 0
    missed = []
    for i in range(FLIPS):
        offset = rng.randrange(len(original))
        flipped = bytearray(original)
        flipped[offset] ^= rng.randrange(1, 256)
        path = tmp_path / f"flip{i}.db"
        path.write_bytes(bytes(flipped))
        status, err = verify(path)  # an exception here is a traceback: the test fails on it
        assert path.read_bytes() == bytes(flipped), f"verify changed the file (flip at {offset})"
        assert status in (0, 1, 2), (offset, status, err)
        if stored_rows(path) != rows:
            changed += 1
            if status in (1, 2) and str(path) in err:
                found += 1
            else:
                missed.append((offset, status, err))
        path.unlink()
    assert not missed, f"{len(missed)} flips that change stored rows not found: {missed[:5]}"
    assert changed > FLIPS // 4, "most flips should land in stored rows"
    assert found == changed


def test_high_bit_flips_on_page_one_never_give_a_traceback(tmp_path: Path) -> None:
    """A flip on page 1 can leave bytes that are not UTF-8 in the schema: SQLite's error message then
    holds them, and reading it must end in a message naming the file, not a ``UnicodeDecodeError``."""
    original = BENCH_JOURNAL.read_bytes()
    rng = random.Random(SEED + 1)
    copy = tmp_path / "j.db"
    for at in rng.sample(range(100, 4096), 64):
        damaged = bytearray(original)
        damaged[at] ^= 0x80
        copy.write_bytes(bytes(damaged))
        status, err = verify(copy)
        assert "Traceback" not in err and "UnicodeDecodeError" not in err, (at, err)
        assert status == 0 or str(copy) in err, (at, err)
        assert copy.read_bytes() == bytes(damaged)

"""One writer per journal, one game per journal (issue 40 item 5).

A second writer (``bench``, ``run``) against a live one is refused naming the holder (process id,
command, since when), exit 2, nothing written, while the readers still read; a journal of another
game is refused; ``tablectl journal change-game`` binds it to another game between rounds only."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from cli_helpers import cli, real_table_config
from deadlines import STATE_TIMEOUT_S
from hil_table import HilTable, shoe

from controller.configuration import config_dir, load_table
from controller.journal import SqliteJournal, verify_journal
from controller.journal.game import GAME_META
from controller.journal.writer_lock import JournalLocked, WriterLock, holder

BENCH = config_dir() / "bench"


def _tablectl(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", *args], capture_output=True, text=True, timeout=STATE_TIMEOUT_S
    )


def _wait(cond: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + STATE_TIMEOUT_S
    while not cond():
        assert time.monotonic() < deadline, f"waited {STATE_TIMEOUT_S:.0f} s for {what}"
        time.sleep(0.05)


def _rounds(path: Path) -> int:
    try:
        journal = SqliteJournal.open_readonly(path)
    except Exception:
        return 0
    try:
        return journal.round_count()
    finally:
        journal.close()


def _files(path: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(path.parent.iterdir()) if p.name.startswith(path.name)}


def test_a_second_writer_against_a_live_bench_is_refused_naming_it_and_readers_still_read(tmp_path: Path) -> None:
    journal = tmp_path / "j.db"
    live = subprocess.Popen(
        [sys.executable, "-m", "controller", "bench", "--rounds", "10000000", "--seats", "2", "--quiet"]
        + ["--journal", str(journal)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait(lambda: holder(journal) is not None and _rounds(journal) >= 2, "the live bench to play two rounds")
        who = holder(journal)
        assert who is not None and who.pid == live.pid and who.command == "tablectl bench"
        second = _tablectl("bench", "--rounds", "1", "--seats", "2", "--quiet", "--journal", str(journal))
        assert second.returncode == 2, second.stderr
        assert f"in use by process {live.pid} (tablectl bench) since 20" in second.stderr
        assert "one writer per journal" in second.stderr and "Traceback" not in second.stderr
        config = real_table_config(tmp_path)  # real ports: refused before any is opened
        run = _tablectl("run", "--config", str(config), "--journal", str(journal), "--allow-unapproved")
        assert run.returncode == 2, run.stderr
        assert f"tablectl run: {journal}: in use by process {live.pid} (tablectl bench)" in run.stderr
        for reader in (
            ("journal", "verify"),
            ("recall", "--last", "1"),
            ("meters",),
            ("status",),
        ):
            done = _tablectl(*reader, "--journal", str(journal))
            assert done.returncode == 0, (reader, done.stderr)
        assert live.poll() is None  # the live bench plays on
    finally:
        live.send_signal(signal.SIGTERM)
        live.wait(timeout=STATE_TIMEOUT_S)
        assert live.stderr is not None
        live.stderr.close()
    assert holder(journal) is None
    written = SqliteJournal.open_readonly(journal)
    try:
        report = verify_journal(written)
        assert report.ok, report.problems
        assert not [r for r in written.records() if "recovered" in str(r.data)]
    finally:
        written.close()


def test_a_refused_writer_writes_nothing_and_a_dead_holder_blocks_no_one(tmp_path: Path) -> None:
    journal = tmp_path / "j.db"
    assert cli("bench", "--rounds", "1", "--seats", "2", "--quiet", "--journal", str(journal))[0] == 0
    hold = (
        "import sys; from controller.journal.writer_lock import WriterLock; "
        f"WriterLock.acquire({str(journal)!r}, 'tablectl run'); print('held', flush=True); sys.stdin.read()"
    )
    holding = subprocess.Popen([sys.executable, "-c", hold], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holding.stdout is not None and holding.stdout.readline() == "held\n"
        before = _files(journal)
        code, _, err = cli("bench", "--rounds", "1", "--seats", "2", "--quiet", "--journal", str(journal))
        assert code == 2 and f"in use by process {holding.pid} (tablectl run)" in err
        code, _, err = cli("journal", "change-game", "--journal", str(journal))
        assert code == 2  # argparse: --config and --reason are needed
        code, _, err = cli(
            "journal",
            "change-game",
            "--journal",
            str(journal),
            "--config",
            str(BENCH / "boston5.yaml"),
            "--reason",
            "new layout",
        )
        assert code == 2 and f"in use by process {holding.pid}" in err
        try:
            WriterLock.acquire(journal, "a test")
            raise AssertionError("the lock was taken twice")
        except JournalLocked as exc:
            assert exc.holder is not None and exc.holder.pid == holding.pid
        assert _files(journal) == before  # nothing written, not even the lock file
    finally:
        holding.kill()  # SIGKILL: the kernel lets the lock go
        holding.wait(timeout=STATE_TIMEOUT_S)
        assert holding.stdout is not None and holding.stdin is not None
        holding.stdout.close()
        holding.stdin.close()
    code, _, err = cli("bench", "--rounds", "1", "--seats", "2", "--quiet", "--journal", str(journal))
    assert code == 0, err
    assert _rounds(journal) == 2


def test_a_bench_of_another_game_on_a_journal_is_refused_and_writes_nothing(tmp_path: Path) -> None:
    journal = tmp_path / "j.db"
    assert cli("bench", "--rounds", "1", "--seats", "2", "--quiet", "--journal", str(journal))[0] == 0
    ro = SqliteJournal.open_readonly(journal)
    assert ro.meta(GAME_META) == "mississippi_stud"
    ro.close()
    before = _files(journal)
    for game in ("boston5", "pai_gow"):
        code, out, err = cli(
            "bench", "--game", game, "--rounds", "1", "--seats", "2", "--quiet", "--journal", str(journal)
        )
        assert code == 2, err
        assert f"{journal}: a journal of mississippi_stud, and " in err and f"plays {game}" in err
        assert "tablectl journal change-game" in err and "Traceback" not in err
        after = _files(journal)
        assert after.pop("j.db.lock") != before["j.db.lock"]  # it took the lock, then was refused
        assert after == {k: v for k, v in before.items() if k != "j.db.lock"}


def test_change_game_between_rounds_binds_the_journal_and_numbers_rounds_on(tmp_path: Path) -> None:
    journal = tmp_path / "j.db"
    assert cli("bench", "--rounds", "2", "--seats", "2", "--quiet", "--journal", str(journal))[0] == 0
    config = str(BENCH / "boston5.yaml")
    code, out, err = cli(
        "journal", "change-game", "--journal", str(journal), "--config", config, "--reason", "  the pit   moved it "
    )
    assert code == 0, err
    assert "the game is boston5 from round 3 on (was mississippi_stud)" in out
    code, _, err = cli("journal", "change-game", "--journal", str(journal), "--config", config, "--reason", "again")
    assert code == 2 and "already a journal of boston5" in err
    code, _, err = cli(
        "bench", "--game", "boston5", "--rounds", "2", "--seats", "2", "--quiet", "--journal", str(journal)
    )
    assert code == 0, err
    code, _, err = cli("bench", "--rounds", "1", "--seats", "2", "--quiet", "--journal", str(journal))
    assert code == 2 and "a journal of boston5" in err
    j = SqliteJournal.open_readonly(journal)
    try:
        assert verify_journal(j).ok
        games = [(n, r.data["game"]) for n, seq in j.round_seqs() if (r := j.record(seq)) is not None]
        assert games == [(1, "mississippi_stud"), (2, "mississippi_stud"), (3, "boston5"), (4, "boston5")]
        (changed,) = [r for r in j.records() if r.kind == "GameChanged"]
        assert changed.data == {
            "from": "mississippi_stud",
            "to": "boston5",
            "table": config,
            "reason": "the pit moved it",
            "round": 3,
        }
    finally:
        j.close()


def _records(path: Path) -> tuple[list[tuple[int, str]], dict[str, str]]:
    j = SqliteJournal.open_readonly(path)
    try:
        return [(r.seq, r.kind) for r in j.records()], j.meta_rows()
    finally:
        j.close()


def test_change_game_is_refused_mid_round_and_with_no_reason(tmp_path: Path) -> None:
    table = load_table(BENCH / "mississippi_stud.yaml")
    config = str(BENCH / "boston5.yaml")
    for moved in ("chips", "press", "cards"):
        path = tmp_path / f"{moved}.db"
        with HilTable(table, tmp_path / moved, SqliteJournal(path)) as t:
            t.spot(1, "ante", 500)
            if moved != "chips":
                t.press("no_more_bets")
            if moved == "cards":
                t.load(shoe("As Ad Kc Qd 7h 7c 2c"))
                t.deal(2)
        before = _records(path)
        code, _, err = cli("journal", "change-game", "--journal", str(path), "--config", config, "--reason", "x")
        assert code == 2, err
        assert "a round is in play" in err and "the game changes only between rounds" in err, err
        assert _records(path) == before
    code, _, err = cli("journal", "change-game", "--journal", str(path), "--config", config, "--reason", "  ")
    assert code == 2 and "--reason" in err


def test_change_game_with_a_config_of_another_key_is_refused(tmp_path: Path) -> None:
    journal = tmp_path / "j.db"
    assert cli("bench", "--rounds", "1", "--seats", "2", "--quiet", "--journal", str(journal))[0] == 0
    key = tmp_path / "table.key"
    key.write_bytes(b"k" * 32)
    key.chmod(0o600)
    config = tmp_path / "boston5.yaml"
    text = (BENCH / "boston5.yaml").read_text()
    config.write_text(
        text.split("paytables_dir:")[0]
        + f"paytables_dir: {config_dir() / 'paytables'}\n"
        + text.split("paytables_dir:")[1].split("\n", 1)[1]
        + f"\njournal:\n  hmac_key_file: {key}\n"
    )
    before = _records(journal)
    code, _, err = cli("journal", "change-game", "--journal", str(journal), "--config", str(config), "--reason", "x")
    assert code == 2 and "does not verify with the key of" in err, err
    assert _records(journal) == before

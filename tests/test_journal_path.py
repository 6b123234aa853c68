"""``journal.path`` in a table config is relative to the config file, like every other path in
it: ``status``, ``recall``, ``meters`` and ``journal verify`` with ``--config`` find the journal
from any working folder (issue 31)."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import cli, real_table_config

from controller.configuration import load_table
from controller.journal import SqliteJournal


@pytest.mark.parametrize("command", [("status",), ("recall",), ("meters",), ("journal", "verify")])
def test_a_relative_journal_path_is_found_from_another_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...]
) -> None:
    folder = tmp_path / "tables"
    folder.mkdir()
    config = real_table_config(folder, "journal: {path: journals/ms.db}\n")
    SqliteJournal(folder / "journals" / "ms.db").close()  # an empty journal beside the config
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    assert load_table(config).journal.path == str(folder / "journals" / "ms.db")
    code, out, err = cli(*command, "--config", str(config))
    assert code == 0, err
    assert "no journal there" not in err and not (elsewhere / "journals").exists()


def test_an_absolute_journal_path_stays_as_written(tmp_path: Path) -> None:
    config = real_table_config(tmp_path, f"journal: {{path: {tmp_path / 'abs' / 'ms.db'}}}\n")
    assert load_table(config).journal.path == str(tmp_path / "abs" / "ms.db")

"""``tablectl bench`` reads its config as ``run`` does (issue 31): the journal is signed with
``journal.hmac_key_file`` through the same code (a key readable by others refused), and a device
``url:`` the bench would ignore (it serves its own simulators) is refused with file and line."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from cli_helpers import cli, real_table_config

from controller.configuration import config_dir
from controller.journal import SqliteJournal, verify_journal


def bench_config(folder: Path, extra: str = "", urls: dict[str, str] | None = None) -> Path:
    """``folder/bench.yaml``: the shipped Mississippi Stud bench config, its paytables where they
    are shipped, device URLs replaced by ``urls``, ``extra`` YAML at the end."""
    text = (config_dir() / "bench" / "mississippi_stud.yaml").read_text()
    text = text.replace("paytables_dir: ../paytables", f"paytables_dir: {config_dir() / 'paytables'}")
    for role, url in (urls or {}).items():
        text = text.replace(f'url: "sim://{role}"', f'url: "{url}"')
    path = folder / "bench.yaml"
    path.write_text(text + extra)
    return path


def key_file(folder: Path, mode: int) -> Path:
    path = folder / "k.key"
    path.write_text("a bench key of the table's own\n")
    os.chmod(path, mode)
    return path


def test_a_url_the_bench_would_ignore_is_refused_with_file_and_line(tmp_path: Path) -> None:
    config = bench_config(tmp_path, urls={"shoe": "/dev/ttyUSB0", "panel": "socket://127.0.0.1:9"})
    code, out, err = cli("bench", "--config", str(config), "--rounds", "1", "--quiet")
    assert code == 2, out
    lines = config.read_text().splitlines()
    shoe = next(n for n, line in enumerate(lines, 1) if line.strip().startswith("shoe:"))
    panel = next(n for n, line in enumerate(lines, 1) if line.strip().startswith("panel:"))
    assert f"{config}:{shoe}: devices.shoe: url '/dev/ttyUSB0': the bench serves its own simulators" in err
    assert f"{config}:{panel}: devices.panel: url 'socket://127.0.0.1:9'" in err  # both named, not only the first
    assert "bet_spots" not in err and "Traceback" not in err
    assert not (tmp_path / "tablectl-journal").exists()


@pytest.mark.parametrize("command", ["bench", "run"])
def test_a_key_readable_by_others_is_refused_by_bench_as_by_run(tmp_path: Path, command: str) -> None:
    key_file(tmp_path, 0o644)
    journal = tmp_path / "j.db"
    if command == "bench":
        config = bench_config(tmp_path, "journal: {hmac_key_file: k.key}\n")
        args = ["--rounds", "1", "--quiet", "--journal", str(journal)]
    else:
        config = real_table_config(tmp_path, "journal: {hmac_key_file: k.key}\n")
        args = ["--journal", str(journal), "--allow-unapproved"]
    code, _, err = cli(command, "--config", str(config), *args)
    assert code == 2
    assert (
        f"tablectl {command}: {config.resolve()}: journal.hmac_key_file: {tmp_path / 'k.key'}: "
        "the HMAC key file is readable by others (mode 0644)" in err
    ), err
    assert "Traceback" not in err and not journal.exists()


def test_the_bench_signs_its_journal_with_the_configs_key(tmp_path: Path) -> None:
    key = key_file(tmp_path, 0o600)
    config = bench_config(tmp_path, "journal: {hmac_key_file: k.key}\n")
    journal = tmp_path / "j.db"
    code, out, err = cli(
        "bench", "--config", str(config), "--rounds", "2", "--seats", "2", "--quiet", "--journal", str(journal)
    )
    assert code == 0, err
    code, out, err = cli("journal", "verify", "--config", str(config), "--journal", str(journal))
    assert code == 0 and "ok: records" in out, err
    unkeyed = SqliteJournal.open_readonly(journal)
    try:
        assert not verify_journal(unkeyed).ok  # signed with the key: a plain SHA-256 chain does not verify
    finally:
        unkeyed.close()
    keyed = SqliteJournal.open_readonly(journal, key.read_text().strip().encode())
    try:
        assert verify_journal(keyed).ok
    finally:
        keyed.close()

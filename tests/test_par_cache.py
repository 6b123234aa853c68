"""The par service's one cache (controller.par.service, controller.par._cache): results keyed by
the paytable's content, shipped for the shipped paytables, computed once otherwise with a note
and a progress bar, written atomically (0600), and a damaged file never trusted."""

from __future__ import annotations

import gzip
import json
import logging
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from controller.configuration import TableConfig, config_dir, load_table
from controller.par import _cache as cache
from controller.par import service

GAMES = ("mississippi_stud", "boston5", "pai_gow")


@pytest.fixture(autouse=True)
def fresh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty cache folder, and nothing held by this process."""
    folder = tmp_path / "cache"
    monkeypatch.setenv("TABLECTL_CACHE_DIR", str(folder))
    service.forget()
    yield folder
    service.forget()


def changed_table(tmp_path: Path, game: str, old: str, new: str) -> Path:
    """The bench config of ``game`` over a copy of the shipped paytables with ``old`` replaced by ``new``."""
    tables = tmp_path / "paytables"
    shutil.copytree(config_dir() / "paytables", tables, dirs_exist_ok=True)
    path = tables / f"{game}.yaml"
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    config = tmp_path / f"{game}.yaml"
    text = (config_dir() / "bench" / f"{game}.yaml").read_text()
    config.write_text(text.replace("paytables_dir: ../paytables", f"paytables_dir: {tables}").replace(old, new))
    return config


def no_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kw: Any) -> Any:
        raise AssertionError("a solver ran for a shipped paytable")

    from controller.par import boston5, mississippi, pai_gow

    monkeypatch.setattr(mississippi, "solve", refuse)
    monkeypatch.setattr(boston5, "solve", refuse)
    monkeypatch.setattr(pai_gow, "class_counts", refuse)


@pytest.mark.parametrize("folder", ["", "bench"])
def test_shipped_paytables_are_never_computed(folder: str, fresh: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    from controller.par import boston5_raise, mississippi_decision, par_sheet
    from controller.vocab import parse_cards

    no_solver(monkeypatch)
    for game in GAMES:
        table = load_table(config_dir() / folder / f"{game}.yaml")
        sheet = par_sheet(game, table)
        assert sheet.paytables == {k: v.name for k, v in table.paytables.items()}
        if game == "mississippi_stud":
            assert mississippi_decision(parse_cards("As Ad"), [], paytable=table.paytables["main"]) == 3
        if game == "boston5":
            assert boston5_raise(parse_cards("As Ad 4c"), table=table)
    assert not fresh.exists()  # nothing computed, nothing written
    assert capsys.readouterr().err == ""


def test_the_key_is_the_paytables_content_not_its_name(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    shipped = load_table(config_dir() / "bench" / "mississippi_stud.yaml").paytables["main"]
    renamed = load_table(changed_table(tmp_path / "a", "mississippi_stud", "ms_main_standard", "ms_renamed"))
    assert renamed.paytables["main"].name == "ms_renamed"
    key = cache.content_key("mississippi", service.mississippi_inputs(shipped))
    assert cache.content_key("mississippi", service.mississippi_inputs(renamed.paytables["main"])) == key
    no_solver(monkeypatch)
    from controller.par import par_sheet

    assert par_sheet("mississippi_stud", renamed).paytables["main"] == "ms_renamed"  # read, not computed
    paid = load_table(
        changed_table(tmp_path / "b", "mississippi_stud", "royal_flush, pays: 500 to 1", "royal_flush, pays: 400 to 1")
    )
    assert cache.content_key("mississippi", service.mississippi_inputs(paid.paytables["main"])) != key


def _b5_fast(monkeypatch: pytest.MonkeyPatch, calls: list[int]) -> None:
    """Boston 5's solver replaced by the shipped result (the real one takes 20 s; its data is checked elsewhere)."""
    from controller.par import boston5
    from controller.par.shipped import shipped_results

    shipped = next(r for r in shipped_results() if r.kind == "boston5")
    payload = cache.decode_entry(cache.shipped_file(shipped.kind, shipped.key) or b"", shipped.kind, shipped.key)

    def fake(ante_bonus: Any, k: int, pays: float, progress: Any = None) -> Any:
        calls.append(1)
        if progress is not None:
            progress.update(boston5.SOLVE_STEPS)
        return service._b5_from_payload(payload)

    monkeypatch.setattr(boston5, "solve", fake)


def test_a_new_boston5_paytable_is_computed_once_and_says_so(tmp_path: Path, fresh: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    from controller.par import boston5_raise
    from controller.vocab import parse_cards

    calls: list[int] = []
    _b5_fast(monkeypatch, calls)
    table = load_table(changed_table(tmp_path, "boston5", "royal_flush, pays: 100 to 1", "royal_flush, pays: 90 to 1"))
    boston5_raise(parse_cards("As Ad 4c"), table=table)  # the bench player's first decision
    err = capsys.readouterr().err
    assert "computing Boston 5 strategy tables, first run only" in err
    assert "Boston 5 strategy tables:" in err and "/19 [" in err  # the tqdm bar, on stderr
    files = list(fresh.iterdir())
    assert [f.name for f in files] == [
        cache.file_name("boston5", cache.content_key("boston5", service.boston5_inputs(*service._b5_args(table))))
    ]
    assert files[0].stat().st_mode & 0o777 == 0o600
    service.forget()  # a new process: read from the cache folder, not computed
    boston5_raise(parse_cards("As Ad 4c"), table=load_table(table.path))
    assert calls == [1] and capsys.readouterr().err == ""


def _entry(kind: str = "boston5", key: str = "k" * 32) -> tuple[str, str, dict[str, Any]]:
    return kind, key, {"figures": {"x": 0.25}, "arrays": {}}


@pytest.mark.parametrize(
    "damage",
    ["flip a figure", "truncate", "not gzip", "another key", "another format"],
)
def test_a_damaged_cache_file_is_recomputed_with_a_warning(damage: str, fresh: Path, caplog) -> None:  # type: ignore[no-untyped-def]
    kind, key, payload = _entry()
    inputs = {"what": "a test"}
    key = cache.content_key(kind, inputs)
    path = fresh / cache.file_name(kind, key)
    cache.write_entry(path, cache.encode_entry(kind, key, inputs, payload))
    assert cache.cached(kind, inputs, lambda bar: pytest.fail("computed"), what="x", steps=1) == payload
    data = path.read_bytes()
    entry = json.loads(gzip.decompress(data))
    if damage == "flip a figure":
        entry["payload"]["figures"]["x"] = 0.5  # the hash is left as it was
        data = gzip.compress(json.dumps(entry).encode())
    elif damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "not gzip":
        data = b"garbage"
    elif damage == "another key":
        data = cache.encode_entry(kind, "0" * 32, inputs, payload)
    else:
        entry["format"] = "tablectl-par 0"
        data = gzip.compress(json.dumps(entry).encode())
    path.write_bytes(data)
    computed: list[int] = []
    with caplog.at_level(logging.WARNING, "controller.par"):
        got = cache.cached(
            kind, inputs, lambda bar: computed.append(1) or {"figures": {"x": 0.75}}, what="x", steps=1, progress=False
        )
    assert got == {"figures": {"x": 0.75}} and computed == [1]  # never the damaged figure
    assert any(str(path) in r.getMessage() and "computing it again" in r.getMessage() for r in caplog.records)
    assert cache.decode_entry(path.read_bytes(), kind, key) == got  # replaced by a good file


def test_cache_files_are_written_atomically(fresh: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    path = fresh / "x.json.gz"
    cache.write_entry(path, b"first")
    assert path.stat().st_mode & 0o777 == 0o600 and fresh.stat().st_mode & 0o777 == 0o700

    def fail(src: str, dst: str) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        cache.write_entry(path, b"second")
    assert path.read_bytes() == b"first" and [p.name for p in fresh.iterdir()] == ["x.json.gz"]  # no temp file left


def test_an_unwritable_cache_folder_only_means_computing_again(tmp_path: Path, monkeypatch, caplog) -> None:  # type: ignore[no-untyped-def]
    blocked = tmp_path / "file"
    blocked.write_text("not a folder")
    monkeypatch.setenv("TABLECTL_CACHE_DIR", str(blocked / "par"))
    with caplog.at_level(logging.WARNING, "controller.par"):
        assert cache.cached("t", {"a": 1}, lambda bar: [1], what="x", steps=1, progress=False) == [1]
    assert any("cannot write it" in r.getMessage() for r in caplog.records)


def test_theoretical_win_counts_the_ante_bonus_on_the_ante_handle() -> None:
    sheet = service.sheet_for(load_table(config_dir() / "boston5.yaml"))
    wagered = {"ante": 10_000, "first": 20_000, "second": 20_000}
    theo = service.theoretical_win(sheet, "boston5", wagered)
    edge = {s: sheet.spots[s].edge_per_unit for s in ("ante", "first", "second", "ante_bonus")}
    assert theo.by_spot["ante_bonus"] == (10_000, edge["ante_bonus"], edge["ante_bonus"] * 10_000)
    assert theo.total == round(sum(edge[s] * wagered.get(s, wagered["ante"]) for s in edge))
    without = round(sum(edge[s] * wagered[s] for s in wagered))  # the report's old rule
    assert theo.total != without
    assert (
        service.theoretical_win(sheet, "boston5", {**wagered, "mystery": 5}).total is None
    )  # no figure, not a wrong one


def test_the_pit_never_computes_in_its_own_process(tmp_path: Path, fresh: Path) -> None:
    """A new paytable's sheet is computed in a separate process (its memory is not the pit's),
    kept, and then read by every later command without computing."""
    config = changed_table(tmp_path, "mississippi_stud", "royal_flush, pays: 500 to 1", "royal_flush, pays: 450 to 1")
    table: TableConfig = load_table(config)
    assert service.sheet_nowait(table) is None  # computing elsewhere
    deadline = time.monotonic() + 600
    while (sheet := service.sheet_nowait(table)) is None:
        assert time.monotonic() < deadline, "the par sheet was never ready"
        time.sleep(0.2)
    assert sheet.paytables["main"] == "ms_main_standard"
    assert "mississippi" not in {k for k, _ in service._MEMO}  # the solver's result is not held here
    assert len(list(fresh.glob("mississippi-*.json.gz"))) == 1
    proc = subprocess.run(
        [sys.executable, "-m", "controller", "par", "--game", "mississippi_stud", "--config", str(config), "--json"],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "TABLECTL_CACHE_DIR": str(fresh)},
    )
    assert proc.returncode == 0 and proc.stderr == ""  # read back: no note, no bar
    assert json.loads(proc.stdout)["edge_per_ante"] == pytest.approx(sheet.edge_per_ante)

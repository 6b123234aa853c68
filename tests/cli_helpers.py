"""Run ``tablectl`` in the test's process and take its exit status, standard output and error."""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

from controller.cli import main as tablectl
from controller.configuration import config_dir


def cli(*args: str) -> tuple[int, str, str]:
    """``tablectl ARGS``: (exit status, standard output, standard error)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = tablectl(list(args))
        except SystemExit as exc:
            code = int(exc.code or 0)
    return code, out.getvalue(), err.getvalue()


def meters_of(journal: Path) -> dict[tuple[str, str], int]:
    """``tablectl meters --journal JOURNAL --json``, which must succeed: each meter by (section, name)."""
    code, out, err = cli("meters", "--journal", str(journal), "--json")
    assert code == 0, err
    return {(section, name): value for section, name, value in json.loads(out)}


def tablectl_process(*args: str | int | Path) -> list[str]:
    """The command line of ``tablectl ARGS`` run in a process of its own (this Python, ``-m controller``)."""
    return [sys.executable, "-m", "controller", *map(str, args)]


def run_tablectl(
    *args: str | int | Path, stdin: str | None = None, timeout: float = 120, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``tablectl ARGS`` run to its end in a process of its own (``stdin`` its input, ``cwd`` its
    folder, killed after ``timeout`` seconds): its exit status, standard output and error as text."""
    return subprocess.run(
        tablectl_process(*args), input=stdin, capture_output=True, text=True, timeout=timeout, cwd=cwd
    )


def real_table_config(folder: Path, extra: str = "") -> Path:
    """``folder/table.yaml``: the shipped Mississippi Stud table config (a real table's, not the
    bench's), its paytables found where they are shipped, ``extra`` YAML added at the end."""
    shipped = config_dir()
    config = folder / "table.yaml"
    text = (shipped / "mississippi_stud.yaml").read_text()
    text = text.replace("game: mississippi_stud", f"game: mississippi_stud\npaytables_dir: {shipped / 'paytables'}")
    config.write_text(text + extra)
    return config


def bench_journal(folder: Path, game: str, rounds: int, seats: int, seed: int, fold_rounds: bool = True) -> Path:
    """The journal (``folder/journal.db``) of ``rounds`` rounds a bench table of ``game`` played with
    ``seats`` seats from ``seed``, every round settled as ``tablectl settle`` settles it
    (``fold_rounds``: its closed rounds folded into compact blocks, as a table does; off: kept as
    rows, for a test that changes a row)."""
    from controller.configuration import load_table
    from hil.bench import run_bench

    path = folder / "journal.db"
    summary = run_bench(
        load_table(config_dir() / "bench" / f"{game}.yaml"),
        seats=seats,
        rounds=rounds,
        seed=seed,
        progress=False,
        journal_path=path,
        fold_rounds=fold_rounds,
    )
    assert summary.rounds == rounds and summary.mismatches == 0
    return path

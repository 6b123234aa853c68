"""How long ``tablectl`` takes to start, per sub-command, beside the interpreter's own floor.

Run ``python benchmarks/bench_startup.py [--runs N]``. For each command line it prints, in one
run: the median wall time of ``N`` runs (default 9) of the whole process (start, imports, the
work, exit), and the median of what ``python -X importtime`` says the imports cost; beside them
``python -c pass`` and ``python -c "import argparse"`` (the floor any command line pays), and each
command's ratio to that floor. Target: ``tablectl --help``, ``rank``, ``settle``, ``recall`` and
``journal verify`` within 0.3 s of wall time each.

The processes use a bytecode cache in a temporary folder (``PYTHONPYCACHEPREFIX``, filled by one
run first), as an installed package has (pip compiles what it installs); ``--cold`` measures
without it (every module compiled on every start, as under ``PYTHONDONTWRITEBYTECODE``).

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORD = {
    "game": "mississippi_stud",
    "seats": {"1": {"wagers": {"ante": 500, "third": 500, "fourth": 500, "fifth": 500}, "cards": "As Ad"}},
    "community": "Ks Kd 2c",
}


def _commands(folder: Path, env: dict[str, str]) -> list[tuple[str, list[str]]]:
    """The measured command lines: the floor first, then the commands with a start target
    (``PYTHONPATH`` in ``env`` names the checkout whose ``controller`` runs)."""
    record = folder / "round.json"
    record.write_text(json.dumps(RECORD))
    journal = folder / "bench.db"
    subprocess.run(
        [sys.executable, "-m", "controller", "bench", "--rounds", "3", "--quiet", "--journal", str(journal)],
        cwd=folder,
        env=env,
        check=True,
        capture_output=True,
    )
    tablectl = ["-m", "controller"]
    return [
        ("python -c pass (floor)", ["-c", "pass"]),
        ('python -c "import argparse" (floor)', ["-c", "import argparse"]),
        ("tablectl --help", [*tablectl, "--help"]),
        ("tablectl rank --help", [*tablectl, "rank", "--help"]),
        ("tablectl rank (one hand)", [*tablectl, "rank", "--game", "boston5", "As Kd Qh Jc Ts"]),
        ("tablectl settle (one record)", [*tablectl, "settle", str(record)]),
        ("tablectl recall (3 rounds)", [*tablectl, "recall", "--journal", str(journal)]),
        ("tablectl journal verify", [*tablectl, "journal", "verify", "--journal", str(journal)]),
    ]


def _wall(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, *argv], env=env, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def _imports(argv: list[str], env: dict[str, str], cwd: Path) -> float:
    """Seconds of imports after the interpreter's start-up (``site`` and what it loads not
    counted), by ``-X importtime``."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *argv], env=env, cwd=cwd, capture_output=True, check=True
    )
    total = 0
    for line in done.stderr.decode().splitlines():
        if line.startswith("import time:") and "|" in line:
            _, cumulative, name = line.split("|")
            if not name.startswith("  ") and cumulative.strip().isdigit():  # a top-level import
                if name.strip() not in ("site", "encodings"):
                    total += int(cumulative)
    return total / 1e6


def main() -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="runs of each command line (the median is shown)")
    parser.add_argument("--cold", action="store_true", help="no bytecode cache: every module compiled each start")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPATH"] = str(args.tree.resolve())
        if args.cold:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        else:
            env["PYTHONPYCACHEPREFIX"] = str(folder / "pycache")
        commands = _commands(folder, env)
        rows = []
        for name, argv in commands:
            _wall(argv, env, folder)  # fills the bytecode cache (and the OS's file cache)
            walls, imports = [], []
            for _ in range(args.runs):  # interleaved, so that a busy moment hits both alike
                walls.append(_wall(argv, env, folder))
                imports.append(_imports(argv, env, folder))
            rows.append((name, statistics.median(walls), statistics.median(imports)))
    floor = rows[0][1]
    cache = "cold" if args.cold else "bytecode cached"
    print(f"{args.tree.resolve().name}: python {sys.version.split()[0]}, {args.runs} runs each, {cache}")
    print(f"{'command':<40} {'wall s':>8} {'imports s':>10} {'vs python -c pass':>18}")
    for name, wall, imports in rows:
        print(f"{name:<40} {wall:>8.3f} {imports:>10.3f} {wall / floor:>17.2f}x")


if __name__ == "__main__":
    main()

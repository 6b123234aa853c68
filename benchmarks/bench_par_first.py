"""How long the first par look-up waits, and what the pit process weighs, with an empty cache folder.

Run ``python benchmarks/bench_par_first.py [--new]``. Every figure is measured in a fresh process
(``TABLECTL_CACHE_DIR`` an empty temporary folder, so only the shipped data can answer), beside
the floor measured in the same run: the same process doing everything but the par look-up.

* ``tablectl par --game G``, wall time, against ``tablectl --version`` (Python and the CLI start);
* a bench round's par wait: the first player decision and the hold summary's par sheet
  (``mississippi_decision``/``boston5_raise`` + ``par_for``), in process, per game;
* the floor report's par wait: ``sheet_for_config`` for each shipped table config;
* a pit page render with par: three tables' theoretical win through the pit view's sheet source
  (``PitSheets``) and ``overview_html``, its wall time and the process's peak RSS, against the same
  render without par figures;
* with ``--new``: the same pit render for a paytable nobody has computed (the sheet computed in a
  separate process, as the pit does): the pit process's peak RSS and the child's, and the old way
  (the solver in the pit's own process) beside it.

Prints figures; asserts nothing. Targets (issue 24 item 2): every first wait under 2 s for a
shipped paytable; the pit process under 300 MB.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ("mississippi_stud", "boston5", "pai_gow")

BENCH_WAIT = """
import json, sys, time
from controller.vocab import parse_cards
from controller.configuration import config_dir, load_table
game = sys.argv[1]
table = load_table(config_dir() / "bench" / f"{game}.yaml")
t = time.perf_counter()
if game == "mississippi_stud":
    from controller.par import mississippi_decision
    mississippi_decision(parse_cards("As Kd"), [], paytable=table.paytables["main"])
elif game == "boston5":
    from controller.par import boston5_raise
    boston5_raise(parse_cards("As Kd 4c"), table=table)
from hil.hold_summary import par_for
assert par_for(table) is not None
print(json.dumps({"wait_s": time.perf_counter() - t}))
"""

REPORT_WAIT = """
import json, sys, time
from controller.configuration import config_dir
from controller.floor.report import sheet_for_config
path = str(config_dir() / f"{sys.argv[1]}.yaml")
t = time.perf_counter()
assert sheet_for_config(sys.argv[1], path) is not None
print(json.dumps({"wait_s": time.perf_counter() - t}))
"""

PIT = """
import json, resource, sys, time
from datetime import UTC, datetime
from controller.floor.report import RoundGroup, group_theoretical
from controller.configuration import config_dir
from controller.web.pit_app import overview_html
from controller.web.pit_store import PitSheets, TableState
with_par, config_dir_arg = sys.argv[1] == "par", sys.argv[2]
sheets = PitSheets() if with_par else (lambda game, config: None)
wagers = {"mississippi_stud": {"ante": 50000, "third": 60000, "fourth": 40000, "fifth": 30000, "bonus": 10000},
          "boston5": {"ante": 50000, "first": 100000, "second": 80000, "bonus": 10000},
          "pai_gow": {"pai_gow": 90000, "bonus": 10000}}
t = time.perf_counter()
deadline = t + 3600
while True:
    states = []
    for game, w in wagers.items():
        g = RoundGroup(game, game, f"{config_dir_arg}/{game}.yaml", 10, sum(w.values()), 1234, 0, 0, w)
        theo = group_theoretical([g], sheets)
        now = datetime.now(UTC)
        states.append(TableState(game, game, now, 10, False, "open", None, [], 10, g.handle, 1234, 0, theo))
    html = overview_html(states)
    if not with_par or all(s.theoretical_win_today is not None for s in states) or time.perf_counter() > deadline:
        break
    time.sleep(0.1)
print(json.dumps({"wait_s": time.perf_counter() - t, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "children_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
                  "theoretical": [s.theoretical_win_today for s in states]}))
"""

OLD_WAY = """
import json, resource, sys
from controller.par.mississippi import solve
from controller.configuration import load_table
solve(load_table(sys.argv[1]).paytables["main"])
print(json.dumps({"rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run(args: list[str], cache: Path) -> tuple[float, str]:
    env = {**os.environ, "TABLECTL_CACHE_DIR": str(cache), "PYTHONPATH": str(ROOT)}
    t = time.perf_counter()
    proc = subprocess.run(args, capture_output=True, text=True, env=env, cwd=ROOT, timeout=3600)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)}: exit {proc.returncode}\n{proc.stderr}")
    return wall, proc.stdout


def script(code: str, *argv: str, cache: Path) -> dict[str, object]:
    _, out = run([sys.executable, "-c", code, *argv], cache)
    return dict(json.loads(out.strip().splitlines()[-1]))


def new_paytables(folder: Path) -> Path:
    """The shipped configs over a paytable nobody has computed (the royal flush paid 450 to 1)."""
    from controller.configuration import config_dir

    shutil.copytree(config_dir() / "paytables", folder / "paytables")
    p = folder / "paytables" / "mississippi_stud.yaml"
    p.write_text(p.read_text().replace("royal_flush, pays: 500 to 1", "royal_flush, pays: 450 to 1", 1))
    for game in GAMES:
        text = (config_dir() / "bench" / f"{game}.yaml").read_text()
        (folder / f"{game}.yaml").write_text(text.replace("paytables_dir: ../paytables", "paytables_dir: paytables"))
    return folder


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--new", action="store_true", help="also the pit with a paytable that must be computed")
    args = p.parse_args()
    sys.path.insert(0, str(ROOT))
    from controller.configuration import config_dir

    rows: list[tuple[str, str, str, str]] = []
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "cache"
        floor, _ = run([sys.executable, "-m", "controller", "--version"], cache)
        for game in GAMES:
            wall, _ = run([sys.executable, "-m", "controller", "par", "--game", game], cache)
            rows.append(
                (f"first `tablectl par --game {game}`", f"{wall:.2f} s", f"{floor:.2f} s", f"{wall / floor:.1f}x")
            )
        for game in GAMES:
            r = script(BENCH_WAIT, game, cache=cache)
            rows.append((f"first {game} bench round: par wait", f"{r['wait_s']:.3f} s", "", ""))
        for game in GAMES:
            r = script(REPORT_WAIT, game, cache=cache)
            rows.append((f"first floor report, a {game} table: par wait", f"{r['wait_s']:.3f} s", "", ""))
        bare = script(PIT, "none", str(config_dir() / "bench"), cache=cache)
        pit = script(PIT, "par", str(config_dir() / "bench"), cache=cache)
        rows.append(
            ("first pit page, three tables, with par: wait", f"{pit['wait_s']:.3f} s", f"{bare['wait_s']:.3f} s", "")
        )
        rows.append(
            (
                "pit process peak RSS, page with par",
                f"{pit['rss_mb']:.0f} MB",
                f"{bare['rss_mb']:.0f} MB",
                f"{float(str(pit['rss_mb'])) / float(str(bare['rss_mb'])):.2f}x",
            )
        )
        written = sorted(x.name for x in cache.iterdir()) if cache.exists() else []
        rows.append(("files computed into the empty cache folder", str(len(written)), "", ""))
        if args.new:
            folder = new_paytables(Path(tmp) / "new")
            new = script(PIT, "par", str(folder), cache=cache)
            old = script(OLD_WAY, str(folder / "mississippi_stud.yaml"), cache=cache)
            rows.append(
                ("pit page, a new paytable: wait until its par is computed apart", f"{new['wait_s']:.1f} s", "", "")
            )
            rows.append(
                ("pit process peak RSS meanwhile", f"{new['rss_mb']:.0f} MB", f"{old['rss_mb']:.0f} MB", "old way")
            )
            rows.append(("the separate par process's peak RSS", f"{new['children_rss_mb']:.0f} MB", "", ""))
    print("| figure | measured | floor or peer | ratio |\n|---|---:|---:|---:|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    main()

"""``tablectl diagram`` (and the checked-in diagrams) and ``tablectl run`` against simulators on ptys."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from cli_helpers import real_table_config, run_tablectl, tablectl_process
from deadlines import STATE_TIMEOUT_S

from controller.docgen.diagram import MACHINES, diagram
from hil.devices import BetSpotSim, PanelSim, ShoeSim
from hil.serve import PtyServer

DOCS = Path(__file__).resolve().parent.parent / "docs" / "diagrams"


def test_checked_in_diagrams_are_current() -> None:
    for game in MACHINES:
        path = DOCS / f"{game}.mmd"
        assert path.read_text() == diagram(game), f"{path} is stale: run tablectl diagram --game {game} > {path}"


def test_diagram_is_drawn_from_the_machine() -> None:
    text = run_tablectl("diagram", "--game", "mississippi_stud", timeout=STATE_TIMEOUT_S).stdout
    assert text.startswith("---") and "stateDiagram-v2" in text
    assert "THIRD_STREET --> FOURTH_STREET: reveal" in text and "HOLD" in text


def _until(cond: Callable[[], bool], what: str) -> None:
    """Wait for the state ``cond`` says (a table started in a subprocess: seconds alone, over a
    minute on a loaded machine), failing on ``what`` after the tests' one deadline."""
    deadline = time.monotonic() + STATE_TIMEOUT_S
    while not cond():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def _run_table(command: list[str], sims: dict, tmp_path: Path, config: Path, check: Callable[[], None]) -> str:
    """``tablectl run`` on fresh ptys for ``sims`` (the config's device URLs rewritten to them):
    run ``check``, stop with SIGTERM (exit 0), return the log."""
    servers = {role: PtyServer(sim, link=tmp_path / role) for role, sim in sims.items()}
    urls = {role: server.start() for role, server in servers.items()}
    devices = "devices:\n" + "".join(
        f'  {r}: {{driver: {r}, url: "{u}", poll_interval_s: 0.01, address: {i}}}\n'
        for i, (r, u) in enumerate(urls.items(), start=1)
    )
    config.write_text(config.read_text().split("devices:")[0] + devices)
    proc = subprocess.Popen(command, stderr=subprocess.PIPE, text=True)
    try:
        check()
    finally:
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=STATE_TIMEOUT_S) == 0
        log = proc.stderr.read()
        proc.stderr.close()
        for server in servers.values():
            server.close()
    return log


def test_run_serves_the_table_on_its_ports_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    sims = {"shoe": ShoeSim(address=1), "bet_spots": BetSpotSim(address=2), "panel": PanelSim(address=3)}
    config = tmp_path / "table.yaml"
    base = (
        (Path(__file__).resolve().parent.parent / "config" / "mississippi_stud.yaml").read_text().split("devices:")[0]
    )
    config.write_text(
        base.replace(
            "game: mississippi_stud",
            f"game: mississippi_stud\npaytables_dir: {Path(__file__).resolve().parent.parent / 'config' / 'paytables'}",
        )
    )
    command = tablectl_process(
        "run", "--config", config, "--log-format", "json", "--journal", tmp_path / "journal.db", "--allow-unapproved"
    )  # --allow-unapproved: the shipped paytables are examples, none approved

    def first() -> None:
        _until(lambda: "round 1: place bets; then no more bets" in sims["panel"].display.values(), "round 1's screen")
        assert sims["panel"].display.get(1) == "R1 betting"
        sims["bet_spots"].place(2, "ante", 500)
        _until(lambda: sims["bet_spots"].lamps.get((2, "ante")) == "open", "the ante's lamp")
        assert sims["bet_spots"].lamps[(2, "ante")] == "open"

    log = _run_table(command, sims, tmp_path, config, first)
    assert '"message": "stopping"' in log and "stopped after" in log
    # Started again on the same journal: the open round comes back, and the lamps are sent again.
    sims["bet_spots"].lamps.clear()

    def again() -> None:
        _until(lambda: sims["bet_spots"].lamps.get((2, "ante")) == "open", "the ante's lamp sent again")
        assert sims["bet_spots"].lamps.get((2, "ante")) == "open"

    assert "recovered round 1 (betting)" in _run_table(command, sims, tmp_path, config, again)


def test_run_refuses_a_bench_config() -> None:
    proc = run_tablectl(
        "run",
        "--config",
        "config/bench/mississippi_stud.yaml",
        timeout=STATE_TIMEOUT_S,
        cwd=Path(__file__).resolve().parent.parent,
    )
    assert proc.returncode == 2 and "sim://shoe is served by `tablectl bench`" in proc.stderr


def test_run_refuses_a_driver_name_that_loads_no_driver_class(tmp_path: Path) -> None:
    config = real_table_config(tmp_path)
    argv = ["run", "--config", str(config), "--journal", str(tmp_path / "journal.db"), "--allow-unapproved"]
    script = (
        "import sys; from drivers import registry; from controller.cli import main; "
        "registry.DRIVERS['shoe'] = 'drivers.link:LinkConfig'; sys.exit(main(sys.argv[1:]))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script, *argv], capture_output=True, text=True, timeout=STATE_TIMEOUT_S
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "tablectl run: driver 'shoe' (drivers.link:LinkConfig) is not a driver class" in proc.stderr


def test_run_refuses_an_unapproved_paytable_naming_file_line_and_paytable(tmp_path: Path) -> None:
    config = real_table_config(tmp_path)
    journal = tmp_path / "journal.db"
    cmd = tablectl_process("run", "--config", config, "--journal", journal)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    first = next(line for line in lines if "is marked approved: false" in line)
    path, line, rest = first.removeprefix("tablectl run: ").split(":", 2)
    assert path.endswith(".yaml") and int(line) > 0 and "paytable '" in rest
    assert "--allow-unapproved" in proc.stderr
    assert not journal.exists()  # refused before anything was recorded

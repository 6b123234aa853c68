"""The simulator run alone as its own process (``python -m hil.sim``) and YAML scenarios."""

from __future__ import annotations

import queue
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from deadlines import STATE_TIMEOUT_S
from hil_helpers import wait_for

from controller.configuration import ConfigError
from drivers.link import LinkConfig
from drivers.panel import ButtonChanged, PanelDriver
from drivers.shoe import CardDealt, ShoeDriver
from hil.devices import BetSpotSim, PanelSim, ShoeSim
from hil.scenario import load_scenario

FAST = LinkConfig(poll_interval_s=0.01, response_timeout_s=0.05)


def test_simulator_process_serves_a_pty_and_plays_a_script(tmp_path: Path) -> None:
    script = tmp_path / "s.yaml"
    script.write_text(
        "steps:\n  - {wait: 0.3}\n  - {device: panel, press: no_more_bets}\n  - {device: panel, press: deal}\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "hil.sim", "panel", "--pty", "--script", str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        path = proc.stdout.readline().strip()
        assert path.startswith("/dev/pts/")
        q: queue.Queue = queue.Queue()
        with PanelDriver("panel", path, q, address=3, config=FAST):
            events = wait_for(q, lambda e: isinstance(e, ButtonChanged) and e.button == "deal" and not e.pressed)
        assert [e.button for e in events if isinstance(e, ButtonChanged) and e.pressed] == ["no_more_bets", "deal"]
    finally:
        proc.terminate()
        assert proc.wait(timeout=STATE_TIMEOUT_S) == 0
        proc.stdout.close()
        proc.stderr.close()


def test_simulator_process_over_a_socket_with_a_card_order() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "hil.sim", "shoe", "--socket", "--cards", "Qh Jc"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.startswith("socket://127.0.0.1:")
        q: queue.Queue = queue.Queue()
        with ShoeDriver("shoe", url, q, config=FAST) as shoe:
            shoe.request_status()
            status = wait_for(q, lambda e: type(e).__name__ == "ShoeStatus")[-1]
            assert status.stub_count == 2
    finally:
        proc.terminate()
        proc.wait(timeout=STATE_TIMEOUT_S)
        proc.stdout.close()


def test_scenario_runs_against_simulators(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        textwrap.dedent("""\
        steps:
          - {device: spots, place: {seat: 2, spot: ante, cents: 500}}
          - {device: shoe, deal: 2}
          - {device: shoe, do: jam}
          - {device: panel, press: confirm}
        """)
    )
    sims = {"shoe": ShoeSim(["As", "Kd"]), "spots": BetSpotSim(), "panel": PanelSim()}
    load_scenario(path, {"shoe": "shoe", "spots": "bet_spots", "panel": "panel"}).run(sims)
    assert [code for _, _, code, *_ in sims["shoe"].pending] == [CardDealt.spec.code, CardDealt.spec.code, 0x07]
    assert len(sims["spots"].pending) == 1 and len(sims["panel"].pending) == 2


def test_scenario_problems_name_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "steps:\n  - {device: shoe, deal: 1}\n  - {device: shoe, press: deal}\n  - {device: ghost, deal: 1}\n"
    )
    with pytest.raises(ConfigError) as info:
        load_scenario(path, {"shoe": "shoe"})
    found = [str(p) for p in info.value.problems]
    assert any(":3: steps[1]: a shoe cannot 'press'" in p for p in found)
    assert any(":4: steps[2].device: no device 'ghost'" in p for p in found)


def test_driver_and_simulator_use_the_same_card_codes() -> None:
    from drivers.messages import card_text
    from hil.devices import card_code

    for text in ["2c", "Ac", "2d", "Ts", "As", "JK"]:
        assert card_text(card_code(text)) == text

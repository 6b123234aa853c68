"""The table page shows who is dealing (issue 45 item 1): ``tablectl run --web`` on a table with a
roster, its drivers on ptys; the simulated panel signs a dealer and a supervisor in and the dealer
off, and the page (read only, from the snapshot) says who deals, in a real browser; no PIN, hash
or badge id is in the page's data."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import real_table_config
from test_table_commands import _run_table
from web_helpers import TIMEOUT, Page, browser, free_port, wait_for

from controller.configuration import hash_pin
from hil.devices import BetSpotSim, PanelSim, ShoeSim


@pytest.fixture
def driver() -> Any:
    with browser() as d:
        yield d


def test_the_table_page_shows_who_is_dealing(tmp_path: Path, driver: Any) -> None:
    pin_hash = hash_pin("2468", n=2**14)
    (tmp_path / "roster.yaml").write_text(
        "people:\n"
        f"  - {{id: D-0001, name: Ann Lee, role: dealer, pin_hash: '{pin_hash}'}}\n"
        "  - {id: S-0002, name: Di Roe, role: supervisor, badges: [BADGE-77]}\n"
    )
    (tmp_path / "roster.yaml").chmod(0o600)
    config = real_table_config(tmp_path)
    config.write_text(
        config.read_text().replace("game: mississippi_stud", "game: mississippi_stud\nroster: roster.yaml")
    )
    sims = {"shoe": ShoeSim(address=1), "bet_spots": BetSpotSim(address=2), "panel": PanelSim(address=3)}
    port = free_port()
    command = [sys.executable, "-m", "controller", "run", "--config", str(config), "--journal", str(tmp_path / "j.db")]
    command += ["--web", f"127.0.0.1:{port}", "--allow-unapproved"]

    def shown() -> str:
        return str(p.d.execute_script("const e = document.getElementById('signed-in'); return e ? e.textContent : ''"))

    def check() -> None:
        nonlocal p
        wait_for(lambda: _up(port), "the view to listen")
        p = Page(driver, f"http://127.0.0.1:{port}/")
        p.wait_betting()
        wait_for(lambda: shown() == "dealer: nobody signed in", "the page to say nobody deals", TIMEOUT)
        sims["panel"].enter_pin("D-0001", "2468")
        wait_for(lambda: shown() == "dealer: Ann Lee (D-0001)", "the page to name the dealer", TIMEOUT)
        sims["panel"].read_badge("BADGE-77")
        wait_for(lambda: "supervisor: Di Roe (S-0002)" in shown(), "the page to name the supervisor", TIMEOUT)
        data = json.dumps(p.view()) + str(p.d.page_source)
        for secret in ("2468", pin_hash, "BADGE-77", "scrypt"):
            assert secret not in data
        sims["panel"].sign_off("D-0001")
        wait_for(lambda: shown().startswith("dealer: nobody signed in"), "the page to say the dealer left", TIMEOUT)

    p: Any = None
    _run_table(command, sims, tmp_path, config, check)


def _up(port: int) -> bool:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    try:
        conn.request("GET", "/state")
        return conn.getresponse().status == 200
    except OSError:
        return False
    finally:
        conn.close()

"""``tablectl settle`` as a user runs it: a file or standard input in, JSON out, exit 2 on bad records."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

EXAMPLE_MS = {
    "game": "mississippi_stud",
    "table": "config/mississippi_stud.yaml",
    "seats": {"1": {"wagers": {"ante": 500, "third": 1000, "fourth": 500}, "cards": "As Kd", "folded_at": "fifth"}},
    "community": "Qs Jh Tc",
}
EXAMPLE_B5 = {
    "game": "boston5",
    "seats": {
        "2": {
            "wagers": {"ante": 500, "first": 1000, "second": 1000, "bonus": 500},
            "cards": "As Ks Qs Js Ts",
            "exposed_bonus": True,
            "folded": False,
        }
    },
    "dealer": "2c 3d 4h 5s 7c",
}


def run(*args: str, stdin: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", "settle", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        cwd=cwd,
    )


def test_the_issue_examples_settle(tmp_path: Path) -> None:
    path = tmp_path / "ms.json"
    path.write_text(json.dumps(EXAMPLE_MS))
    proc = run(str(path), cwd=tmp_path)  # the table path is found from the repository too
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["seats"]["1"]["net"] == -2000 and out["house_net"] == 2000
    assert out["procedure"][0]["text"] == (
        "seat 1: folds at fifth street: collect ante 5.00, third 10.00, fourth 5.00; discard the cards"
    )

    proc = run("-", stdin=json.dumps(EXAMPLE_B5))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    wagers = out["seats"]["2"]["wagers"]
    assert wagers["bonus"] == {"result": "win", "net": 20000, "stake": 500, "why": wagers["bonus"]["why"]}
    assert wagers["ante"]["result"] == "returned" and wagers["ante_bonus"]["net"] == 50000
    assert out["seats"]["2"]["hands"]["player"]["category"] == "royal_flush"
    assert out["dealer"]["category"] == "high_card"


def test_bad_records_list_every_problem_and_settle_nothing() -> None:
    bad = json.loads(json.dumps(EXAMPLE_MS))
    bad["seats"]["1"]["wagers"]["third"] = 700
    bad["seats"]["2"] = {"wagers": {"ante": 500, "third": 500, "fourth": 500, "fifth": 500, "tip": 5}, "cards": "As 2c"}
    bad["community"] = "Qs Jh"
    proc = run("-", stdin=json.dumps(bad))
    assert proc.returncode == 2 and proc.stdout == ""
    lines = proc.stderr.splitlines()
    assert (
        "tablectl settle: <stdin>: $.seats.1.wagers.third: must be 1x, 2x or 3x the ante (500, 1000 or 1500), got 700"
        in lines
    )
    assert (
        "tablectl settle: <stdin>: $.seats.2.wagers.tip: unknown wager spot (known: ante, third, fourth, fifth, bonus)"
        in lines
    )
    assert "tablectl settle: <stdin>: $.seats.2.cards: card 1 'As' is also dealt at $.seats.1.cards" in lines
    assert "tablectl settle: <stdin>: $.community: needs 3 cards, got 2" in lines


def test_unknown_game_not_json_and_missing_file() -> None:
    proc = run("-", stdin='{"game": "baccarat"}')
    assert proc.returncode == 2 and "$.game: unknown game 'baccarat'" in proc.stderr
    proc = run("-", stdin='{"game": ')
    assert proc.returncode == 2 and "line 1 column" in proc.stderr and "not JSON" in proc.stderr
    proc = run("/nonexistent/round.json")
    assert proc.returncode == 2 and "cannot read" in proc.stderr


def test_a_broken_table_config_is_reported_with_file_and_line(tmp_path: Path) -> None:
    (tmp_path / "paytables").mkdir()
    (tmp_path / "paytables" / "p.yaml").write_text("paytables: []\n")
    table = tmp_path / "t.yaml"
    table.write_text("game: mississippi_stud\nseats: 6\npaytables:\n  main: nowhere\n")
    record = {**EXAMPLE_MS, "table": str(table)}
    proc = run("-", stdin=json.dumps(record))
    assert proc.returncode == 2
    assert f"{table}:4: paytables.main: no paytable named 'nowhere'" in proc.stderr

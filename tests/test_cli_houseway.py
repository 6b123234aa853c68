"""``tablectl houseway`` and pai gow through ``tablectl settle``, as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", *args], input=stdin, capture_output=True, text=True, timeout=60
    )


def test_houseway_prints_high_low_and_rule() -> None:
    proc = run("houseway", "As Ad Kc Kd 7h 4s JK")
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert (out["high"], out["low"], out["rule"]) == ("As Ad JK 7h 4s", "Kd Kc", "foxwoods.full_house")
    text = run("houseway", "--text", "--way", "ballys_ac", "Ac Kd Kh Qs Jc Td 2h").stdout
    assert text.startswith("high Ac Kd Qs Jc Td (straight) / low Kh 2h (high card): Bally's AC: straight or flush: the")
    no_pair = run("houseway", "--text", "Ah Kd Qs Jc 9h 5d 2c").stdout
    assert ": Foxwoods: no pair: the second and third highest cards in front" in no_pair  # the rule said once


def test_houseway_refuses_a_bad_hand() -> None:
    proc = run("houseway", "As Ad Kc")
    assert proc.returncode == 2 and "7 distinct cards" in proc.stderr
    proc = run("houseway", "As Ad Kc Kd 7h 4s Zz")
    assert proc.returncode == 2 and "card 7 'Zz'" in proc.stderr


def test_pai_gow_record_settles_from_stdin() -> None:
    record = {
        "game": "pai_gow",
        "start": {"method": "rng", "value": 3},
        "remaining": 4,
        "seats": {
            "2": {"wagers": {"pai_gow": 2000, "bonus": 500}, "cards": "Ac Ad Kc Kd 7h 4s 2d", "set": "house_way"}
        },
        "dealer": "Th 9h 8s 5c 4c 3h 2s",
    }
    proc = run("settle", "-", stdin=json.dumps(record))
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["seats"]["2"]["wagers"]["pai_gow"] == {
        "result": "win",
        "net": 1900,
        "stake": 2000,
        "why": out["seats"]["2"]["wagers"]["pai_gow"]["why"],
        "commission": 100,
    }
    assert out["dealer"]["start"] == {"method": "rng", "value": 3, "first_hand": "seat 5"}
    assert out["house_net"] == -out["seats"]["2"]["net"]

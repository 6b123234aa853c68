"""``tablectl rank`` as a user runs it: a real process, arguments or standard input, JSON lines out."""

from __future__ import annotations

import io
import json
import subprocess
import sys

from controller.cli import main
from controller.cli._rank import rank_lines
from controller.hands import Kind


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "controller", "rank", *args], input=stdin, capture_output=True, text=True, timeout=60
    )


def test_each_argument_is_a_hand() -> None:
    proc = run("--game", "boston5", "As Ks Qs Js Ts", "2c 3d 4h 5s 7c")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert rows == [
        {
            "cards": "As Ks Qs Js Ts",
            "category": "royal_flush",
            "best": "As Ks Qs Js Ts",
            "strength": rows[0]["strength"],
        },
        {"cards": "2c 3d 4h 5s 7c", "category": "high_card", "best": "7c 5s 4h 3d 2c", "strength": rows[1]["strength"]},
    ]
    assert rows[0]["strength"] > rows[1]["strength"]


def test_single_card_arguments_make_one_hand() -> None:
    proc = run("--game", "pai_gow", "As", "Ad", "Kc", "Kd", "7h", "4s", "JK")
    assert proc.returncode == 0, proc.stderr
    (row,) = [json.loads(line) for line in proc.stdout.splitlines()]
    assert row["category"] == "full_house" and row["best"] == "As Ad JK Kd Kc"


def test_kinds_three_low_and_bonus() -> None:
    three = json.loads(run("--game", "mississippi_stud", "--kind", "three", "Qh Kh Ah").stdout)
    assert three["category"] == "mini_royal"
    low = json.loads(run("--game", "pai_gow", "JK As").stdout)
    assert low["category"] == "one_pair"
    bonus = json.loads(run("--game", "pai_gow", "--kind", "bonus", "5c 6d 7h 8s 9c 9d 9h").stdout)
    assert bonus["category"] == "straight" and "three_of_a_kind" in bonus["qualifies"]


def test_bad_lines_are_reported_with_line_number_and_token_and_skipped() -> None:
    stdin = "As Kd Qh Jc Ts\n\n# a comment\nAs Kd Tx 9c 2s\n2c 2d 2h 5s 5d\nAs As Kd Qh Jc\nAs Kd\n"
    proc = run("--game", "boston5", "--kind", "five", stdin=stdin)
    assert proc.returncode == 2
    assert [json.loads(line)["category"] for line in proc.stdout.splitlines()] == ["straight", "full_house"]
    errors = proc.stderr.splitlines()
    assert errors == [
        "tablectl rank: line 4: card 3 'Tx': unknown suit 'x' (use c, d, h, s)",
        "tablectl rank: line 6: card 2 'As': duplicate of card 1",
        "tablectl rank: line 7: a five-card hand needs 5 cards, got 2",
    ]


def test_joker_outside_pai_gow_is_an_error() -> None:
    proc = run("--game", "boston5", "As Kd Qh Jc JK")
    assert proc.returncode == 2 and "card 5 'JK'" in proc.stderr and proc.stdout == ""


def test_unknown_game_is_refused_by_the_parser() -> None:
    proc = run("--game", "baccarat", "As Kd Qh Jc Ts")
    assert proc.returncode == 2 and "invalid choice" in proc.stderr


def test_main_is_the_console_script_entry(capsys) -> None:
    assert main(["rank", "--game", "boston5", "Ac Ad Ah As 2c"]) == 0
    assert json.loads(capsys.readouterr().out)["category"] == "four_of_a_kind"


def test_rank_lines_streams_one_hand_at_a_time() -> None:
    pulled = 0

    def hands():
        nonlocal pulled
        for n in range(1, 2001):
            pulled += 1
            yield f"line {n}", "As Kd Qh Jc 9s"

    class Out(io.StringIO):
        def write(self, text: str) -> int:
            # every hand is written before the next one is read: nothing piles up in memory
            self.lines = getattr(self, "lines", 0) + 1
            assert pulled == self.lines
            return super().write(text)

    out = Out()
    assert rank_lines(hands(), "boston5", Kind.FIVE, out, io.StringIO()) == 0
    assert out.lines == 2000

"""The regulator's day (issue 45 item 3): ``tablectl export`` writes one row per wager of the
rounds settled in a day or a range (CSV or JSON lines), each round's rows adding up to what it
paid; ``recall --seat``; ``settle --check`` names each difference from what was paid; ``meters``
shows the hold beside the par edge. Journals written by real bench tables over ptys."""

from __future__ import annotations

import csv
import io
import json
import shutil
import sqlite3
from datetime import date, datetime, timedelta
from pathlib import Path

import pytest
from cli_helpers import bench_journal, cli, meters_of
from journal_helpers import settled_rounds

from controller.configuration import config_dir, load_table


@pytest.fixture(scope="module")
def journals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    plays = (("mississippi_stud", 8), ("pai_gow", 4))
    return {
        game: bench_journal(tmp_path_factory.mktemp(game), game, rounds, 4, 11, fold_rounds=False)
        for game, rounds in plays
    }


def _day(at: float) -> str:
    return datetime.fromtimestamp(at).date().isoformat()


@pytest.mark.parametrize("game", ["mississippi_stud", "pai_gow"])
def test_export_has_a_row_per_wager_adding_up_to_what_each_round_paid(journals: dict[str, Path], game: str) -> None:
    path = journals[game]
    rounds = settled_rounds(path)
    code, out, err = cli("export", "--journal", str(path), "--day", _day(rounds[0][1]))
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["table", "round", "seat", "wager", "amount", "result", "paid", "time", "dealer", "supervisor"]
    body = [dict(zip(rows[0], r, strict=True)) for r in rows[1:]]
    same_day = [r for r in rounds if _day(r[1]) == _day(rounds[0][1])]
    assert {int(r["round"]) for r in body} == {n for n, _, _ in same_day}
    table = load_table(config_dir() / "bench" / f"{game}.yaml").name
    for number, at, data in same_day:
        mine = [r for r in body if int(r["round"]) == number]
        wagers = [
            (int(seat), spot, cents)
            for seat, e in data["record"]["seats"].items()
            for spot, cents in e["wagers"].items()
        ]
        # each wager, and each payout line on a wager (pai gow's envy bonus: nothing staked, paid)
        settled = data["settlement"]["seats"] if data["settlement"] is not None else {}
        lines = [(int(seat), spot, 0) for seat, e in settled.items() for spot in e["wagers"]]
        expected = sorted({(s, w) for s, w, _ in wagers + lines})
        assert sorted((int(r["seat"]), r["wager"]) for r in mine) == expected
        cents = {(s, w): c for s, w, c in lines + wagers}
        for r in mine:
            assert r["table"] == table
            assert round(float(r["amount"]) * 100) == cents[(int(r["seat"]), r["wager"])]
            when = datetime.fromisoformat(r["time"])
            assert when.tzinfo is not None and abs(when.timestamp() - at) < 1
        paid = sum(round(float(r["paid"]) * 100) for r in mine)
        house = data["settlement"]["house_net"] if data["settlement"] is not None else 0
        assert paid == -house, number
        results = {r["result"] for r in mine}
        assert results <= {"win", "lose", "push"} if data["settlement"] is not None else results == {"void"}
    # JSON lines: the same rows, money in cents
    code, out, err = cli("export", "--journal", str(path), "--format", "jsonl")
    assert code == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    assert len(lines) == sum(
        len(
            d["record"]["seats"][s]["wagers"]
            | (d["settlement"] or {"seats": {s: {"wagers": {}}}})["seats"][s]["wagers"]
        )
        for _, _, d in rounds
        for s in d["record"]["seats"]
    )
    assert sum(line["paid_cents"] for line in lines) == -sum(
        d["settlement"]["house_net"] for _, _, d in rounds if d["settlement"] is not None
    )
    assert set(lines[0]) == {
        "table",
        "round",
        "seat",
        "wager",
        "amount_cents",
        "result",
        "paid_cents",
        "time",
        "dealer",
        "supervisor",
    }


def test_export_chooses_rounds_by_the_day_they_were_settled(journals: dict[str, Path], tmp_path: Path) -> None:
    path = journals["mississippi_stud"]
    rounds = settled_rounds(path)
    first = datetime.fromtimestamp(rounds[0][1]).date()
    before, after = (first - timedelta(days=1)).isoformat(), (first + timedelta(days=1)).isoformat()

    def exported(*args: str) -> set[int]:
        code, out, err = cli("export", "--journal", str(path), "--format", "jsonl", *args)
        assert code == 0, err
        return {json.loads(line)["round"] for line in out.splitlines()}

    assert exported("--day", before) == set()
    assert exported("--until", before) == set()  # a date alone as --until: through its end
    assert exported("--since", after) == set()
    everything = {n for n, _, _ in rounds}
    assert exported("--since", before, "--until", after) == everything
    # a time: the rounds settled at or after it, or before it
    stamp = datetime.fromtimestamp((rounds[1][1] + rounds[2][1]) / 2).astimezone().isoformat()
    cut = datetime.fromisoformat(stamp).timestamp()  # between the second round and the third
    assert exported("--since", stamp) == {n for n, at, _ in rounds if at >= cut} == {n for n, _, _ in rounds[2:]}
    assert exported("--until", stamp) == {n for n, at, _ in rounds if at < cut} == {n for n, _, _ in rounds[:2]}
    # --seat: only that seat's rows
    seat = int(next(iter(rounds[0][2]["record"]["seats"])))
    code, out, err = cli("export", "--journal", str(path), "--format", "jsonl", "--seat", str(seat))
    assert code == 0 and out, err
    assert {json.loads(line)["seat"] for line in out.splitlines()} == {seat}
    # --output: the file written whole
    target = tmp_path / "day.csv"
    code, out, err = cli("export", "--journal", str(path), "--output", str(target), "--table", "MS-07")
    assert code == 0 and not out, err
    assert target.read_text().splitlines()[1].startswith("MS-07,")
    assert [p.name for p in tmp_path.iterdir()] == ["day.csv"]
    code, _, err = cli("export", "--journal", str(path), "--day", date(2026, 2, 28).isoformat(), "--until", after)
    assert code == 2 and "--day chooses a whole day" in err


def test_export_leaves_out_a_changed_round_and_names_it(journals: dict[str, Path], tmp_path: Path) -> None:
    changed = tmp_path / "changed.db"
    shutil.copy(journals["mississippi_stud"], changed)
    db = sqlite3.connect(changed)
    seq = db.execute("SELECT seq FROM rounds WHERE round_no = 5").fetchone()[0]
    db.execute("UPDATE records SET data = replace(data, '\"ante\":', '\"ante\":1') WHERE seq = ?", (seq,))
    db.commit()
    db.close()
    code, out, err = cli("export", "--journal", str(changed), "--format", "jsonl")
    assert code == 1
    assert "hash mismatch" in err and "round 5: left out: its records do not verify" in err
    assert {json.loads(line)["round"] for line in out.splitlines()} == {1, 2, 3, 4}


def test_recall_seat_shows_only_rounds_that_seat_played(journals: dict[str, Path]) -> None:
    path = journals["mississippi_stud"]
    rounds = settled_rounds(path)
    for seat in range(1, 8):
        played = [n for n, _, d in rounds if str(seat) in d["record"]["seats"]]
        code, out, err = cli("recall", "--journal", str(path), "--json", "--seat", str(seat))
        assert code == 0, err
        assert [json.loads(line)["recall"]["round"] for line in out.splitlines()] == played[-10:]
        if played:
            code, out, err = cli("recall", "--journal", str(path), "--json", "--seat", str(seat), "--last", "1")
            assert [json.loads(line)["recall"]["round"] for line in out.splitlines()] == played[-1:]
            since = datetime.fromtimestamp(rounds[0][1] - 86_400).isoformat()  # a window: every round in it
            code, out, err = cli("recall", "--journal", str(path), "--json", "--seat", str(seat), "--since", since)
            assert [json.loads(line)["recall"]["round"] for line in out.splitlines()] == played
        else:
            code, out, err = cli("recall", "--journal", str(path), "--seat", str(seat))
            assert code == 0 and f"no finished rounds with a wager at seat {seat}" in out


def test_settle_check_names_each_difference_from_what_was_paid(journals: dict[str, Path], tmp_path: Path) -> None:
    code, out, err = cli("recall", "--journal", str(journals["pai_gow"]), "--json")
    assert code == 0, err
    records = out.splitlines()
    lines = tmp_path / "rounds.jsonl"
    lines.write_text(out)
    code, out, err = cli("settle", "--check", "--lines", str(lines))
    assert code == 0, err
    assert out.count("re-settled as paid") == len(records)
    record = json.loads(records[-1])
    paid = record["recall"]["settlement"]
    seat, entry = next(iter(paid["seats"].items()))
    spot = next(iter(entry["wagers"]))
    entry["wagers"][spot]["net"] += 500
    paid["house_net"] -= 500
    one = tmp_path / "one.json"
    one.write_text(json.dumps(record))
    code, out, err = cli("settle", "--check", str(one))
    assert code == 1, err
    assert "2 differences from what was paid" in out
    assert f"$.recall.settlement.seats.{seat}.wagers.{spot}.net: paid " in out
    assert "$.recall.settlement.house_net: paid " in out
    lines.write_text("\n".join([*records[:-1], json.dumps(record)]) + "\n")
    code, out, err = cli("settle", "--check", "--lines", str(lines))
    assert code == 1 and out.count("re-settled as paid") == len(records) - 1
    # the words that explain a result are not what was paid: named apart, exit 0
    worded = json.loads(records[0])
    seats = worded["recall"]["settlement"]["seats"]
    seat0 = next(iter(seats))
    spot0 = next(iter(seats[seat0]["wagers"]))
    seats[seat0]["wagers"][spot0]["why"] = "in other words"
    one.write_text(json.dumps(worded))
    code, out, err = cli("settle", "--check", str(one))
    assert code == 0, out + err
    assert "re-settled as paid" in out and "1 difference in wording only (not in what was paid)" in out
    assert f'$.recall.settlement.seats.{seat0}.wagers.{spot0}.why: paid "in other words", re-settled ' in out
    # the same config read from another folder (a compliance tester's copy): re-settled as paid
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(config_dir(), elsewhere)
    code, out, err = cli(
        "recall", "--journal", str(journals["pai_gow"]), "--json", "--table", str(elsewhere / "bench" / "pai_gow.yaml")
    )
    assert code == 0, err
    lines.write_text(out)
    code, out, err = cli("settle", "--check", "--lines", str(lines))
    assert code == 0 and out.count("re-settled as paid") == len(records), out + err
    # a void round paid nothing: nothing to compare
    record["recall"]["settlement"] = None
    one.write_text(json.dumps(record))
    code, out, err = cli("settle", "--check", str(one))
    assert code == 0 and "void" in out


def test_meters_show_the_hold_beside_the_par_edge(journals: dict[str, Path]) -> None:
    path = journals["mississippi_stud"]
    m = meters_of(path)
    handle, won = m[("theoretical", "handle:all")], m[("theoretical", "won:all")]
    assert m[("theoretical", "hold_bp:all")] == round(10_000 * won / handle)
    ante = m[("table", "wagered:ante")]
    assert m[("theoretical", "hold_bp:ante")] == round(10_000 * m[("theoretical", "won:ante")] / ante)
    code, out, err = cli("meters", "--journal", str(path))
    header = next(line for line in out.splitlines() if "par edge" in line)
    assert header.split() == ["spot", "handle", "actual", "win", "hold", "theoretical", "par", "edge"]
    total = next(line for line in out.splitlines() if line.split()[:1] == ["all"])
    assert f"{100 * won / handle:.2f}%" in total

"""``tablectl recall``, ``meters`` and ``journal verify|prune`` on journals written by real bench
tables over ptys: recalled rounds re-settle as recorded, meters agree with the rounds, tampering
is named, pruning keeps the last ten rounds and a verifiable chain."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import bench_journal, cli, meters_of

from controller.configuration import config_dir, load_table
from controller.journal import SqliteJournal, verify_journal
from controller.journal.retention import prune
from hil.bench import run_bench


@pytest.fixture(scope="module")
def journals(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    plays = (("mississippi_stud", 12), ("pai_gow", 3), ("boston5", 3))
    return {
        game: bench_journal(tmp_path_factory.mktemp(game), game, rounds, 3, 3, fold_rounds=False)
        for game, rounds in plays
    }


@pytest.mark.parametrize("game", ["mississippi_stud", "pai_gow", "boston5"])
def test_recalled_rounds_resettle_as_recorded(journals: dict[str, Path], game: str, tmp_path: Path) -> None:
    code, out, err = cli("recall", "--journal", str(journals[game]), "--json")
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    played = {"mississippi_stud": 12, "pai_gow": 3, "boston5": 3}[game]
    assert [r["recall"]["round"] for r in records] == list(range(max(1, played - 9), played + 1))  # the last ten
    for record in records:
        path = tmp_path / "r.json"
        path.write_text(json.dumps(record))
        code, settled, err = cli("settle", str(path))
        assert code == 0, err
        assert json.loads(settled) == record["recall"]["settlement"]
        dealt = [c["card"] for c in record["recall"]["cards"]]
        assert len(dealt) == len(set(dealt)) and all(c["to"] for c in record["recall"]["cards"])
        assert any(e["kind"] == "ButtonChanged" for e in record["recall"]["events"])


def test_recall_text_shows_seats_cards_inputs_and_settlement(journals: dict[str, Path]) -> None:
    code, out, err = cli("recall", "--journal", str(journals["mississippi_stud"]), "--round", "3")
    assert code == 0, err
    assert out.startswith("round 3 (mississippi_stud): settled, ")
    for part in (
        "  seat ",
        "  community: ",
        "  cards in dealt order:",
        " -> community",
        "button no_more_bets",
        "  settlement:",
        "house net",
        "  dealer procedure:",
    ):
        assert part in out, part
    code, out, err = cli("recall", "--journal", str(journals["mississippi_stud"]), "--last", "2")
    assert code == 0 and out.count("\nround ") + out.startswith("round ") == 2
    code, _, err = cli("recall", "--journal", str(journals["mississippi_stud"]), "--round", "99")
    assert code == 2 and "round 99 is not in the journal (it has rounds 1-12)" in err
    code, _, err = cli("recall", "--journal", str(journals["mississippi_stud"].parent / "nothing.db"))
    assert code == 2 and "nothing.db: no journal there" in err
    code, _, err = cli("recall")
    assert code == 2 and "name the journal: --journal PATH or --config FILE" in err


def test_meters_agree_with_the_rounds_and_verify_checks_them(journals: dict[str, Path]) -> None:
    path = journals["mississippi_stud"]
    meters = meters_of(path)
    journal = SqliteJournal(path, create=False)
    rounds = [journal.record(seq).data for _, seq in journal.round_seqs()]
    journal.close()
    house = sum(r["settlement"]["house_net"] for r in rounds)
    assert meters[("table", "rounds")] == 12
    assert meters.get(("table", "collected"), 0) - meters.get(("table", "paid"), 0) == house
    assert meters[("table", "wagered:ante")] == sum(
        s["wagers"]["ante"] for r in rounds for s in r["record"]["seats"].values()
    )
    seat_rounds = sum(v for (s, n), v in meters.items() if s.startswith("seat ") and n == "rounds")
    assert seat_rounds == sum(len(r["record"]["seats"]) for r in rounds)
    code, out, _ = cli("meters", "--journal", str(path))
    assert out.startswith("table:") and "wagered:ante" in out
    code, out, _ = cli("meters", "--journal", str(path), "--since", "2999-01-01")
    assert code == 0 and out.strip() == "no rounds"
    code, _, err = cli("meters", "--journal", str(path), "--since", "yesterday")
    assert code == 2 and "not a time" in err
    # the same forms as recall's --at: HH:MM today, a zone; an empty or off-calendar one is refused
    for given in ("", "0001-01-01T00:00+14:00"):
        code, out, err = cli("meters", "--journal", str(path), "--since", given)
        assert code == 2 and not out and "--since" in err and "Traceback" not in err
    code, out, _ = cli("meters", "--journal", str(path), "--since", "00:00")
    assert code == 0 and out
    code, out, err = cli("journal", "verify", "--journal", str(path))
    assert code == 0 and "meters agree" in out, err


def test_verify_names_the_first_bad_record_and_a_wrong_meter(journals: dict[str, Path], tmp_path: Path) -> None:
    copy = tmp_path / "j.db"
    source = SqliteJournal(journals["pai_gow"], create=False)
    source.db.execute(f"VACUUM INTO '{copy}'")
    source.close()
    j = SqliteJournal(copy, create=False)
    j.db.execute("UPDATE meters SET value = value + 100 WHERE scope = 'table' AND name = 'paid'")
    j.close()
    code, _, err = cli("journal", "verify", "--journal", str(copy))
    assert code == 1 and "meter table paid: kept" in err
    j = SqliteJournal(copy, create=False)
    seq = j.db.execute("SELECT seq FROM records WHERE kind = 'CardDealt' LIMIT 1 OFFSET 5").fetchone()[0]
    j.db.execute("UPDATE records SET data = replace(data, '\"quality\":100', '\"quality\":99') WHERE seq = ?", (seq,))
    j.close()
    code, _, err = cli("journal", "verify", "--journal", str(copy))
    assert code == 1 and f"record {seq} (CardDealt): hash mismatch: the record was changed" in err


def test_pruning_keeps_the_last_ten_rounds_and_a_verifiable_chain(tmp_path: Path) -> None:
    path = tmp_path / "journal.db"
    run_bench(
        load_table(config_dir() / "bench" / "mississippi_stud.yaml"),
        seats=2,
        rounds=14,
        seed=9,
        progress=False,
        journal_path=path,
        fold_rounds=False,  # rows: the test removes one (test_journal_fold.py prunes folded rounds)
    )
    j = SqliteJournal(path)
    totals = j.meters()
    assert prune(j, retention_days=90) == 0  # nothing is old enough
    assert prune(j, retention_days=1, now=j.clock() + 2 * 86400) == 4  # all old: all but the last ten
    assert [r for r, _ in j.round_seqs()] == list(range(5, 15))
    report = verify_journal(j)
    assert report.ok, report.problems
    assert j.meters() == totals  # the running totals include the pruned rounds
    assert prune(j, retention_days=1, now=j.clock() + 2 * 86400) == 0
    j.append("X", {}, event=False)
    assert verify_journal(j).ok
    first = j.db.execute("SELECT min(seq) FROM records").fetchone()[0]
    j.db.execute("DELETE FROM records WHERE seq = ?", (first,))  # removing the first kept record is seen too
    assert verify_journal(j).problems[0].startswith(f"record {first}: missing")
    j.close()


def test_recall_and_meters_list_wagers_in_the_games_order(journals: dict[str, Path]) -> None:
    """Issue 31: recall and meters listed wagers by name (``ante, bonus, fifth, fourth, third``);
    a person reads them in the layout's order (``ante, third, fourth, fifth, bonus``)."""
    from controller.game.registry import definition

    not_by_name = 0
    for game, path in journals.items():
        layout = definition(game).catalog.wager_spots
        code, out, err = cli("recall", "--journal", str(path), "--last", "20")
        assert code == 0, err
        seat_lines = [line for line in out.splitlines() if line.startswith("  seat ")]
        assert seat_lines
        for line in seat_lines:
            spots = [part.split()[0] for part in line.split(": ", 1)[1].split("; cards")[0].split(", ")]
            assert spots == sorted(spots, key=layout.index), line
            not_by_name += spots != sorted(spots)
        for block in out.split("\n\n"):
            settlement = block.split("  settlement:\n", 1)[-1].split("  dealer procedure:")[0]
            settled: dict[str, list[str]] = {}
            for line in settlement.splitlines():
                if line.startswith("    seat "):
                    settled.setdefault(line.split()[1], []).append(line.split()[2])
            for spots in settled.values():
                assert spots == sorted(spots, key=layout.index), block
        code, out, err = cli("meters", "--journal", str(path))
        assert code == 0, err
        for scope in out.split("\n\n")[0].split(":\n")[1:]:
            wagered = [line.split()[0].split(":")[1] for line in scope.splitlines() if line.startswith("  wagered:")]
            assert wagered == sorted(wagered, key=layout.index), scope
            not_by_name += wagered != sorted(wagered)
    assert not_by_name  # the journals hold wagers whose layout order is not their names' order

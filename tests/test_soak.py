"""`tablectl soak`: the real machines in process on several workers, the per-spot summary, and
the re-settlement of recorded rounds by `tablectl settle --lines` in a separate process."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from par_stubs import StubSheet, StubSpot

from controller.cli import main
from controller.configuration import config_dir, load_table
from hil.hold_summary import HoldTally, SpotTally, spot_rows, summary_lines
from hil.soak import ChunkJob, play_chunk, run_soak


def bench_table(game: str = "mississippi_stud"):  # type: ignore[no-untyped-def]
    return load_table(config_dir() / "bench" / f"{game}.yaml")


def test_two_workers_give_the_same_figures_as_one():
    table = bench_table()
    one = run_soak(table, 200, 6, seed=7, workers=1, verify_every=1)
    two = run_soak(table, 200, 6, seed=7, workers=2, verify_every=1)
    assert one.tally == two.tally
    assert one.tally.rounds == 200
    assert one.verified == two.verified == 200
    assert one.differ == two.differ == []
    assert {"ante", "third"} <= set(one.tally.spots)
    other = run_soak(table, 200, 6, seed=8, workers=1, verify_every=0)
    assert other.tally != one.tally and other.verified == 0


@pytest.mark.parametrize("game", ["boston5", "pai_gow"])
def test_every_game_soaks_and_re_settles(game):
    result = run_soak(bench_table(game), 20, 6, seed=3, workers=1, verify_every=1)
    assert result.tally.rounds == 20 and result.verified == 20 and result.differ == []


def test_a_chunk_is_the_same_whoever_plays_it():
    path = str((config_dir() / "bench" / "mississippi_stud.yaml").resolve())
    job = ChunkJob(path, 6, 5, 3, 30, 300, 10)
    a, b = play_chunk(job), play_chunk(job)
    assert a.tally == b.tally
    assert [n for n, _, _ in a.verify] == [300, 310, 320]
    assert [r for _, r, _ in a.verify] == [r for _, r, _ in b.verify]


@pytest.mark.parametrize("game", ["mississippi_stud", "boston5", "pai_gow"])
def test_in_order_players_play_what_players_waiting_at_every_step_play(game, monkeypatch):
    # the soak's players leave a wait to a later one (events are handled as sent); players that
    # wait at every step, as at the bench, make the same rounds and payments
    path = str((config_dir() / "bench" / f"{game}.yaml").resolve())
    job = ChunkJob(path, 6, 5, 1, 30, 0, 1)
    fewer = play_chunk(job)
    monkeypatch.setattr("hil.bench.Player.in_order", property(lambda self: False, lambda self, value: None))
    every = play_chunk(job)
    assert fewer.tally == every.tally
    assert fewer.verify == every.verify and len(fewer.verify) == 30


def test_a_changed_payment_is_caught_by_the_separate_process(monkeypatch):
    """The check means something: a table that pays other than `tablectl settle` is caught
    (settlement changed in this process only; the separate process settles as it should)."""
    from controller.wagers import Settlement

    real = Settlement.to_json
    monkeypatch.setattr(Settlement, "to_json", lambda s: {**real(s), "house_net": s.house_net + 1})
    result = run_soak(bench_table(), 5, 6, seed=1, workers=1, verify_every=1)
    assert result.verified == 5 and result.differ == [0, 1, 2, 3, 4]


def test_soak_command_prints_the_summary(capsys, monkeypatch):
    import hil.hold_summary
    import hil.soak

    # `tablectl soak` imports these when it runs (not at start), so they are replaced where they live.
    sheet = StubSheet("stub strategy", {"ante": StubSpot(0.5, 2.0), "third": StubSpot(-5.0, 1.0)})
    monkeypatch.setattr(hil.hold_summary, "par_for", lambda table: sheet)
    monkeypatch.setattr(hil.soak, "players_take_strategy", lambda game: True)  # the players play par
    assert main(["soak", "--rounds", "30", "--workers", "1", "--verify-every", "3", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "rounds      30 (0 void)" in out
    assert "ms CPU per round" in out
    rows = {line.split()[0]: line for line in out.splitlines()[3:9]}
    assert list(rows) == ["ante", "third", "fourth", "fifth", "bonus", "all"]
    assert "50.00%" in rows["ante"] and not rows["ante"].endswith("OUTSIDE")
    assert "-500.00%" in rows["third"] and rows["third"].endswith("OUTSIDE")
    assert "par: stub strategy; OUTSIDE the 95% interval: third" in out
    assert "10 rounds re-settled from their records by `tablectl settle` in a separate process: 0 differ" in out


def test_a_table_that_fails_is_named_with_what_reproduces_it(capsys, monkeypatch):
    from controller.game.mississippi_stud._machine import MississippiTable

    def broken(self, *args):  # type: ignore[no-untyped-def]
        raise ValueError("broken on purpose")

    monkeypatch.setattr(MississippiTable, "show_and_settle", broken)
    assert main(["soak", "--rounds", "150", "--workers", "1", "--seed", "9", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "tablectl soak: chunk 0 (rounds 0-99 of the run seeded 9):" in err and "Traceback" not in err


def test_holds_are_not_checked_against_par_under_another_strategy(capsys, monkeypatch):
    import hil.hold_summary

    monkeypatch.setattr(hil.hold_summary, "par_for", lambda table: StubSheet("optimal", {"third": StubSpot(-5.0, 1.0)}))
    args = ["soak", "--rounds", "10", "--workers", "1", "--verify-every", "0", "--quiet", "--strategy", "random"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "strategy random" in out and "OUTSIDE" not in out
    assert "par: optimal; the players played random, so holds are not checked against it" in out


def test_soak_refuses_bad_arguments(capsys):
    assert main(["soak", "--rounds", "0", "--seats", "9", "--workers", "0"]) == 2
    err = capsys.readouterr().err
    assert "--rounds must be at least 1" in err and "--seats must be 1 to" in err and "--workers" in err


def test_soak_is_quiet_when_not_on_a_terminal(tmp_path):
    import os

    proc = subprocess.run(
        [sys.executable, "-m", "controller", "soak", "--rounds", "10", "--workers", "1", "--verify-every", "0"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "TABLECTL_CACHE_DIR": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    assert "rounds      10" in proc.stdout and "par: optimal" in proc.stdout  # shipped par data: nothing computed


def test_settle_lines_re_settles_each_record(tmp_path):
    result = run_soak(bench_table(), 3, 6, seed=2, workers=1, verify_every=0)
    assert result.tally.rounds == 3
    path = str((config_dir() / "bench" / "mississippi_stud.yaml").resolve())
    chunk = play_chunk(ChunkJob(path, 6, 2, 0, 3, 0, 1))
    lines = [json.dumps(r) for _, r, _ in chunk.verify]
    lines.insert(1, '{"game": "mississippi_stud", "seats": {"9": {}}}')
    lines.insert(2, "not json")
    src = tmp_path / "rounds.jsonl"
    src.write_text("\n".join(lines) + "\n")
    proc = subprocess.run(
        [sys.executable, "-m", "controller", "settle", "--lines", str(src)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2
    out = [json.loads(line) for line in proc.stdout.splitlines()]
    assert len(out) == 5 and out[1] is None and out[2] is None
    assert all(o["game"] == "mississippi_stud" for i, o in enumerate(out) if i not in (1, 2))
    assert "line 2: $.seats.9: no seat '9'" in proc.stderr
    assert "line 3: $: line 1 column 1: not JSON" in proc.stderr


# --- the summary -------------------------------------------------------------------------------


def _tally() -> HoldTally:
    t = HoldTally()
    for i in range(400):  # ante 100 each round at two seats; the house wins 1 in 4 rounds
        net = -100 if i % 4 == 0 else 100 if i % 4 == 1 else 0
        record = {"seats": {"1": {"wagers": {"ante": 100}}, "2": {"wagers": {"ante": 100, "bonus": 5}}}}
        settlement = {
            "seats": {
                "1": {"wagers": {"ante": {"net": net}}},
                "2": {"wagers": {"ante": {"net": net}, "bonus": {"net": -5}}},
            }
        }
        t.add(record, settlement)
    t.add(record, None)
    return t


def test_tally_merges_exactly_and_counts_voids():
    t = _tally()
    assert t.rounds == 401 and t.voids == 1
    assert t.spots["ante"].wagers == 800 and t.spots["ante"].handle == 80_000 and t.spots["ante"].house == 0
    assert t.spots["bonus"].house == 2000 and t.spots["bonus"].hold == 1.0
    a, b = _tally(), HoldTally()
    b.merge(a)
    b.merge(_tally())
    assert b.spots["ante"].handle == 160_000 and b.rounds == 802


def test_rows_flag_a_spot_outside_its_interval():
    sheet = StubSheet("optimal", {"ante": StubSpot(0.05, 0.5), "bonus": StubSpot(1.0, 0.0)})
    rows = {r.spot: r for r in spot_rows(_tally(), sheet)}
    ante = rows["ante"]
    assert ante.par == 0.05 and ante.hold == 0.0
    # sd from par: sqrt(0.5 * 800 * 100^2) / 80000 = 0.025; observed (two seats move together) is larger
    observed = _tally().spots["ante"].observed_sd() / 80_000
    assert observed == pytest.approx(0.0354, abs=1e-4)
    assert ante.high is not None and ante.low is not None
    assert ante.high - 0.05 == pytest.approx(1.959964 * observed, rel=1e-4)
    assert not ante.outside  # 0.0 is within 0.05 +- 0.069
    assert not rows["bonus"].outside
    lines = summary_lines(_tally(), sheet)
    assert lines[-2] == "par: optimal; every spot with a par figure is inside its 95% interval"
    assert lines[-1].startswith("verdict: pass: ")
    far = StubSheet("optimal", {"ante": StubSpot(0.5, 0.5)})
    assert spot_rows(_tally(), far)[0].outside
    lines = summary_lines(_tally(), far)
    assert any(line.startswith("ante") and line.endswith("OUTSIDE") for line in lines)
    assert lines[-2] == "par: optimal; OUTSIDE the 95% interval: ante"
    assert lines[-1].startswith("verdict: FAIL: ")
    assert summary_lines(_tally(), far, played="random")[-1].endswith("so holds are not checked against it")
    assert summary_lines(_tally(), None)[-1].startswith("par: no par sheet")


def test_a_simulated_par_widens_the_interval():
    exact = spot_rows(_tally(), StubSheet("s", {"ante": StubSpot(0.05, 1.0)}))[0]
    sim = spot_rows(_tally(), StubSheet("s", {"ante": StubSpot(0.05, 1.0, False, (0.0, 0.1))}))[0]
    assert exact.high is not None and sim.high is not None
    assert sim.high - 0.05 == pytest.approx(((exact.high - 0.05) ** 2 + 0.05**2) ** 0.5)


def test_independent_wagers_use_the_par_variance():
    t = SpotTally()
    for _ in range(100):
        t.add_round([100], 0)  # no spread observed: the par variance sets the interval
    tally = HoldTally(rounds=100, spots={"ante": t})
    row = spot_rows(tally, StubSheet("s", {"ante": StubSpot(0.02, 4.0)}))[0]
    assert row.high == pytest.approx(0.02 + 1.959964 * (4.0 * 100 * 100**2) ** 0.5 / 10_000, rel=1e-6)


# --- the bench ---------------------------------------------------------------------------------


def test_bench_re_settles_every_recalled_round_and_is_quiet_in_a_log(tmp_path, capsys, monkeypatch):
    import hil.hold_summary

    monkeypatch.setattr(hil.hold_summary, "par_for", lambda table: None)  # the par sheet is tested with the soak
    journal = tmp_path / "bench.db"
    assert main(["bench", "--rounds", "3", "--journal", str(journal)]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # not a terminal: no progress bar written into a log
    out = captured.out
    assert "settlement  3 of 3 settled rounds re-settled from their recalled records" in out and "0 differ" in out
    lines = out.splitlines()
    spots = [line.split()[0] for line in lines if line.startswith("  ") and line.split()[0] in ("ante", "third")]
    assert spots == ["ante", "third"]  # the game's spot order


def test_bench_catches_a_round_paid_other_than_its_record_says(tmp_path, monkeypatch):
    from controller.wagers import Settlement
    from hil.bench import run_bench

    real = Settlement.to_json
    monkeypatch.setattr(Settlement, "to_json", lambda s: {**real(s), "house_net": s.house_net + 1})
    summary = run_bench(bench_table(), 2, 2, seed=1, progress=False, journal_path=tmp_path / "j.db")
    assert summary.rounds == 2 and summary.verified == 2 and summary.mismatches == 2


# --- tablectl meters: theoretical beside actual --------------------------------------------------


def test_meters_show_theoretical_win_beside_actual(tmp_path, monkeypatch, capsys):
    from controller.cli import _theoretical as theoretical
    from hil.bench import run_bench

    journal = tmp_path / "j.db"
    summary = run_bench(bench_table(), 3, 3, seed=4, progress=False, journal_path=journal)
    sheet = StubSheet("optimal play (stub)", {"ante": StubSpot(0.05, 1.0), "third": StubSpot(-0.1, 1.0)})
    monkeypatch.setattr(theoretical, "par_for", lambda table: sheet)
    assert main(["meters", "--journal", str(journal), "--json"]) == 0
    entries = {(s, n): v for s, n, v in json.loads(capsys.readouterr().out)}
    assert entries[("theoretical", "assumption")] == "par: optimal play (stub)"
    assert entries[("theoretical", "rounds")] == 3
    wagered = entries[("table", "wagered:ante")]
    assert entries[("theoretical", "theoretical_win:ante")] == round(0.05 * wagered)
    assert entries[("theoretical", "theoretical_win:third")] == round(-0.1 * entries[("table", "wagered:third")])
    assert ("theoretical", "theoretical_win:fifth") not in entries  # no par figure for it in the stub
    won = sum(v for (s, n), v in entries.items() if s == "theoretical" and n.startswith("won:") and n != "won:all")
    assert won == summary.house_net == entries[("theoretical", "won:all")]
    assert ("theoretical", "theoretical_win:all") not in entries  # fourth and fifth have no par figure here
    assert ("table", "rounds") in entries  # the meters are all still there
    assert main(["meters", "--journal", str(journal)]) == 0
    out = capsys.readouterr().out
    assert "theoretical beside actual win, the 3 rounds kept in the journal (par: optimal play (stub)):" in out
    ante = next(line for line in out.splitlines() if line.strip().startswith("ante "))
    assert f"{0.05 * wagered / 100:,.2f}" in ante and "5.00%" in ante


def test_the_ante_bonus_is_held_against_all_of_the_ante():
    """Boston 5's ante bonus is a payout line on the ante: its handle is every ante, and the
    table's total handle counts the ante once."""
    t = HoldTally()
    record = {"game": "boston5", "seats": {"1": {"wagers": {"ante": 100, "first": 100}}}}
    paid = {"seats": {"1": {"wagers": {"ante": {"net": 0}, "first": {"net": 100}, "ante_bonus": {"net": 300}}}}}
    lost = {"seats": {"1": {"wagers": {"ante": {"net": -100}, "first": {"net": -100}}}}}
    t.add(record, lost)  # no ante bonus line in this round: its ante still counts
    t.add(record, paid)
    assert t.spots["ante_bonus"].handle == 200 and t.spots["ante_bonus"].house == -300
    assert t.handle == 400 and t.house == 200 - 400

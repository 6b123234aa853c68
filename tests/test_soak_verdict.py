"""The soak's combined verdict (hil.verdict, hil.hold_summary.combined): every spot against par in
one chi-square allowing for their correlation, failing at 99.9%. A table paying another paytable
than its par sheet's fails; a right one fails at the stated rate (synthetic correlated rounds,
many seeds) and passes a real soak; the exit status says so."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from par_stubs import StubSheet, StubSpot

from controller.cli import main
from controller.configuration import config_dir, load_table
from hil.hold_summary import MIN_ROUNDS, HoldTally, SpotTally, combined, par_for, summary_lines
from hil.soak import run_soak
from hil.verdict import ALPHA, chi2_quantile, chi2_sf, combined_test

# --- the chi-square, exactly ------------------------------------------------------------------

# 99.9% and 95% points of the chi-square (published tables, e.g. NIST/SEMATECH e-Handbook 1.3.6.7.4)
TABLE_999 = {1: 10.828, 2: 13.816, 3: 16.266, 4: 18.467, 5: 20.515, 6: 22.458, 7: 24.322, 10: 29.588}
TABLE_95 = {1: 3.841, 2: 5.991, 5: 11.070, 10: 18.307}


@pytest.mark.parametrize("k", sorted(TABLE_999))
def test_chi_square_points_match_the_published_table(k):
    assert chi2_quantile(0.999, k) == pytest.approx(TABLE_999[k], abs=1e-3)
    assert chi2_sf(TABLE_999[k], k) == pytest.approx(0.001, rel=1e-3)
    if k in TABLE_95:
        assert chi2_quantile(0.95, k) == pytest.approx(TABLE_95[k], abs=1e-3)


def test_chi_square_tail_is_a_distribution():
    for k in range(1, 9):
        xs = [0.0, 0.5, 1, 2, 5, 10, 40, 200]
        sf = [chi2_sf(x, k) for x in xs]
        assert sf[0] == 1.0 and sf[-1] < 1e-30
        assert all(a > b for a, b in zip(sf, sf[1:], strict=False))
    assert chi2_sf(2.0, 2) == pytest.approx(np.exp(-1.0))  # chi-square 2 is exponential with mean 2
    with pytest.raises(ValueError):
        chi2_sf(1.0, 0)


# --- the false-alarm rate on synthetic correlated rounds ---------------------------------------


def _synthetic_runs(rng: np.random.Generator, runs: int, rounds: int, shift: float = 0.0) -> list[float]:
    """p-values of ``runs`` runs of ``rounds`` rounds of five correlated spots (a shared card
    factor, one spot the sum of two others: rank 4), each spot's deviation tested at mean 0."""
    p = []
    mix = np.array([[1.0, 0.2, 0.0], [0.8, 0.6, 0.0], [0.7, 0.0, 0.7], [1.5, 0.8, 0.0], [0.3, 0.0, 0.0]])
    for _ in range(runs):
        z = rng.standard_normal((rounds, 3))
        skew = rng.exponential(1.0, (rounds, 1)) - 1.0  # a skewed part, as payouts are
        d = z @ mix.T + 0.5 * skew + shift
        d[:, 4] += 0.4 * rng.standard_normal(rounds)
        d[:, 3] = d[:, 0] + d[:, 1]  # a spot exactly the sum of two others
        dev = d.sum(axis=0)
        raw = d.T @ d
        cov = (raw - np.outer(dev, dev) / rounds) * (rounds / (rounds - 1))
        result = combined_test(dev, cov)
        assert result is not None and result.dof == 4
        p.append(result.p_value)
    return p


def test_false_alarm_rate_is_the_stated_one_on_correlated_rounds():
    """2,000 runs whose par is right: the p-values are uniform (rates at 10%, 5%, 1% within their
    binomial 99.9% bands) and the 0.1% test fails about 2 of them (at most 9: the band of 2)."""
    rng = np.random.default_rng(24)
    p = np.array(_synthetic_runs(rng, 2000, 400))
    for level in (0.10, 0.05, 0.01):
        expected = 2000 * level
        assert abs((p < level).sum() - expected) <= 3.3 * (expected * (1 - level)) ** 0.5 + 2, level
    assert (p < ALPHA).sum() <= 9


def test_separate_intervals_would_flag_far_more_often():
    """What the combined test replaces: five spots each at 95% flag one in four runs or so."""
    rng = np.random.default_rng(7)
    flagged = 0
    for _ in range(400):
        d = rng.standard_normal((200, 5)) @ np.diag([1, 2, 3, 4, 5]).astype(float)
        z = d.sum(axis=0) / (d.std(axis=0, ddof=1) * 200**0.5)
        flagged += bool((abs(z) > 1.96).any())
    assert 0.15 < flagged / 400 < 0.35


def test_a_shift_is_detected():
    rng = np.random.default_rng(3)
    p = _synthetic_runs(rng, 50, 400, shift=0.3)
    assert all(x < ALPHA for x in p)


def test_nothing_to_test_gives_none():
    assert combined_test([], np.zeros((0, 0))) is None
    assert combined_test([0.0, 0.0], np.zeros((2, 2))) is None
    with pytest.raises(ValueError):
        combined_test([1.0, 2.0], np.eye(3))


# --- the tally's covariance ---------------------------------------------------------------------


def _tally(rounds: int, rng: np.random.Generator, bonus_win: int = -5) -> HoldTally:
    t = HoldTally()
    for _ in range(rounds):  # ante at two seats settled on the same cards: perfectly correlated
        net = int(rng.choice([-100, 100, 0]))
        record = {"seats": {"1": {"wagers": {"ante": 100}}, "2": {"wagers": {"ante": 100, "bonus": 5}}}}
        b = int(rng.choice([bonus_win, 5]))
        settlement = {
            "seats": {
                "1": {"wagers": {"ante": {"net": net}}},
                "2": {"wagers": {"ante": {"net": net}, "bonus": {"net": b}}},
            }
        }
        t.add(record, settlement)
    return t


def test_the_covariance_from_the_tally_is_the_rounds_covariance():
    rng = np.random.default_rng(1)
    t = _tally(300, rng)
    sheet = StubSheet("s", {"ante": StubSpot(0.0, 0.0), "bonus": StubSpot(0.0, 0.0)})
    result = combined(t, sheet)
    assert result is not None and result.dof == 2
    # the same from the rounds, recomputed: per round (ante house, bonus house)
    rng = np.random.default_rng(1)
    rows = []
    for _ in range(300):
        net = int(rng.choice([-100, 100, 0]))
        b = int(rng.choice([-5, 5]))
        rows.append((-2 * net, -b))
    d = np.array(rows, dtype=float)
    dev = d.sum(axis=0)
    cov = (d.T @ d - np.outer(dev, dev) / 300) * 300 / 299
    expected = combined_test(dev, cov)
    assert expected is not None
    assert result.statistic == pytest.approx(expected.statistic, rel=1e-9)


def test_tallies_merge_with_their_pairs():
    rng = np.random.default_rng(2)
    a, b = _tally(50, rng), _tally(70, rng)
    whole = HoldTally()
    whole.merge(a)
    whole.merge(b)
    assert whole.pairs[("ante", "bonus")] == [
        x + y for x, y in zip(a.pairs[("ante", "bonus")], b.pairs[("ante", "bonus")], strict=True)
    ]
    other = HoldTally()
    other.merge(b)
    other.merge(a)
    assert other == whole


def test_the_par_variance_is_a_floor_and_a_simulated_par_widens():
    """A run that met no spread (every round the same) is not failed by a tiny deviation: the par
    sheet's variance is the floor; a simulated par's own uncertainty counts too."""
    spot = SpotTally()
    for _ in range(400):
        spot.add_round([100], 1)
    t = HoldTally(rounds=400, spots={"ante": spot})
    assert combined(t, StubSheet("s", {"ante": StubSpot(0.0, 0.0)})) is None  # no spread, no par variance
    wide = combined(t, StubSheet("s", {"ante": StubSpot(0.0, 1.0)}))
    assert wide is not None and not wide.failed  # 400 cents off par against sd 2,000
    sim = combined(t, StubSheet("s", {"ante": StubSpot(0.0, 1.0, False, (-0.05, 0.05))}))
    assert sim is not None and sim.statistic < wide.statistic


def test_too_few_rounds_are_not_tested():
    rng = np.random.default_rng(4)
    sheet = StubSheet("s", {"ante": StubSpot(0.5, 1.0)})
    assert combined(_tally(MIN_ROUNDS - 1, rng), sheet) is None
    lines = summary_lines(_tally(MIN_ROUNDS - 1, rng), sheet)
    assert lines[-1] == f"verdict: not tested: fewer than {MIN_ROUNDS} settled rounds ({MIN_ROUNDS - 1})"
    lines = summary_lines(_tally(MIN_ROUNDS, rng), sheet)
    assert lines[-1].startswith("verdict: FAIL: every spot against par together, chi-square ")
    assert "a table whose par is right fails 1 run in 1,000 by chance" in lines[-1]
    assert not any(line.startswith("verdict") for line in summary_lines(_tally(200, rng), sheet, played="random"))


# --- real soaks ----------------------------------------------------------------------------------


def _wrong_table(tmp_path: Path):  # type: ignore[no-untyped-def]
    """The bench Mississippi Stud table with a main paytable that pays 3 to 1 on a high pair (the
    shipped one pays 1 to 1)."""
    src = config_dir() / "paytables" / "mississippi_stud.yaml"
    text = src.read_text()
    right = "{hand: one_pair, ranks: [J, Q, K, A], pays: 1 to 1}"
    assert right in text
    (tmp_path / "paytables").mkdir()
    (tmp_path / "paytables" / "mississippi_stud.yaml").write_text(
        text.replace(right, right.replace("1 to 1", "3 to 1"))
    )
    bench = (config_dir() / "bench" / "mississippi_stud.yaml").read_text()
    assert "paytables_dir: ../paytables" in bench
    (tmp_path / "bench.yaml").write_text(bench.replace("paytables_dir: ../paytables", "paytables_dir: paytables"))
    return load_table(tmp_path / "bench.yaml")


def _right_strategy(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The players play the shipped paytable's strategy whatever the table pays (as at a table
    whose paytable was changed under the par sheet)."""
    import controller.par.strategy as strategy

    real = strategy.mississippi_tables
    monkeypatch.setattr(strategy, "mississippi_tables", lambda paytable=None: real(None))


def test_a_table_paying_another_paytable_fails_the_verdict(tmp_path, monkeypatch):
    right = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
    sheet = par_for(right)
    assert sheet is not None
    _right_strategy(monkeypatch)
    result = run_soak(_wrong_table(tmp_path), 600, 6, seed=7, workers=1, verify_every=0)
    verdict = combined(result.tally, sheet)
    assert verdict is not None and verdict.failed, verdict
    # the same rounds at the right table pass
    good = combined(run_soak(right, 600, 6, seed=7, workers=1, verify_every=0).tally, sheet)
    assert good is not None and not good.failed, good


def test_soak_exits_non_zero_when_the_verdict_fails(tmp_path, monkeypatch, capsys):
    import hil.hold_summary

    right = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
    sheet = par_for(right)
    _right_strategy(monkeypatch)
    _wrong_table(tmp_path)
    monkeypatch.setattr(hil.hold_summary, "par_for", lambda table: sheet)  # the par sheet of the shipped paytable
    args = ["soak", "--config", str(tmp_path / "bench.yaml"), "--rounds", "600", "--workers", "1"]
    assert main([*args, "--verify-every", "0", "--quiet", "--seed", "7"]) == 1
    out = capsys.readouterr().out
    assert "verdict: FAIL: every spot against par together" in out


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_right_paytable_passes_at_several_seeds(seed, capsys):
    """A small real soak at the shipped paytable (the rate itself is shown on synthetic rounds)."""
    assert (
        main(["soak", "--rounds", "300", "--workers", "1", "--verify-every", "0", "--quiet", "--seed", str(seed)]) == 0
    )
    assert "verdict: pass: every spot against par together" in capsys.readouterr().out

"""Paytables and table configs: the shipped files load; every kind of mistake is named with file, line and key."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from controller.hands import Category
from controller.paytables import load_paytables, read_paytables
from controller.table_config import default_table_path, load_table
from controller.yamlfile import ConfigError


def test_shipped_tables_load_with_their_paytables() -> None:
    b5 = load_table(default_table_path("boston5"))
    assert b5.seats == 6 and b5.paytables["bonus"].name == "b5_bonus_a"
    assert b5.options["first_to_ante"] == 2
    ms = load_table(default_table_path("mississippi_stud"))
    assert ms.seats == 6 and ms.paytables["main"].cap == 5_000_000
    assert ms.payout_cap == 5_000_000


def test_shipped_paytables_match_the_issue() -> None:
    tables = load_paytables(default_table_path("boston5").parent / "paytables")
    odds = lambda name: [(r.category.value, str(r.odds)) for r in tables[name].rows]  # noqa: E731
    assert [o for _, o in odds("b5_bonus_a")] == ["40 to 1", "30 to 1", "6 to 1", "4 to 1", "1 to 1"]
    assert [o for _, o in odds("b5_bonus_b")] == ["40 to 1", "30 to 1", "6 to 1", "3 to 1", "1 to 1"]
    assert odds("ms_bonus_3card")[0] == ("mini_royal", "50 to 1")
    main = tables["ms_main_standard"]
    assert [str(r.odds) for r in main.rows] == [
        "500 to 1",
        "100 to 1",
        "40 to 1",
        "10 to 1",
        "6 to 1",
        "4 to 1",
        "3 to 1",
        "2 to 1",
        "1 to 1",
        "push",
    ]
    assert not any(t.approved for t in tables.values())
    assert "EXAMPLE" in tables["b5_ante_bonus_example"].source


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))
    return path


GOOD_ROW = "      - {hand: one_pair, pays: 1 to 1}\n"
HEAD = """\
paytables:
  - name: t1
    game: boston5
    spot: bonus
    approved: false
    source: test
    rows:
"""


def problems_of(tmp_path: Path, rows: str, head: str = HEAD) -> list[str]:
    path = write(tmp_path, "p.yaml", head + rows)
    with pytest.raises(ConfigError) as info:
        read_paytables([path])
    return [str(p) for p in info.value.problems]


def test_unknown_category_names_file_line_and_key(tmp_path: Path) -> None:
    (problem,) = problems_of(tmp_path, GOOD_ROW + "      - {hand: royal_flush, pays: 9 to 1}\n")
    assert problem.startswith(f"{tmp_path / 'p.yaml'}:9: paytables[0].rows[1].hand: unknown category 'royal_flush'")


def test_missing_pays_and_hand(tmp_path: Path) -> None:
    found = problems_of(tmp_path, GOOD_ROW + "      - {hand: flush}\n      - {pays: 2 to 1}\n")
    assert any(":9: paytables[0].rows[1]: missing 'pays'" in p for p in found)
    assert any(":10: paytables[0].rows[2]: missing 'hand'" in p for p in found)


def test_negative_odds(tmp_path: Path) -> None:
    (problem,) = problems_of(tmp_path, "      - {hand: flush, pays: -3 to 1}\n")
    assert ":8: paytables[0].rows[0].pays: odds may not be negative" in problem


def test_duplicate_rows_and_rows_that_pay_nothing(tmp_path: Path) -> None:
    (problem,) = problems_of(tmp_path, GOOD_ROW + GOOD_ROW)
    assert "duplicate row for one_pair (first at line 8)" in problem
    (problem,) = problems_of(tmp_path, "      - {hand: one_pair, pays: push}\n")
    assert "no row pays anything" in problem


def test_missing_keys_and_bad_values(tmp_path: Path) -> None:
    head = "paytables:\n  - name: t1\n    game: boston5\n    spot: jackpot\n    approved: maybe\n    rows:\n"
    found = problems_of(tmp_path, GOOD_ROW, head)
    assert any("missing 'source'" in p for p in found)
    assert any(":4: paytables[0].spot: unknown paytable spot 'jackpot'" in p for p in found)
    assert any(":5: paytables[0].approved: approved must be true or false" in p for p in found)


def test_rank_conditions(tmp_path: Path) -> None:
    head = HEAD.replace("spot: bonus", "spot: ante_bonus")
    found = problems_of(
        tmp_path,
        "      - {hand: flush, ranks: [A], pays: 1 to 1}\n      - {hand: one_pair, ranks: [Z], pays: 1 to 1}\n",
        head,
    )
    assert any("ranks cannot narrow flush here" in p for p in found)
    assert any("rows[1].ranks[0]: unknown rank 'Z'" in p for p in found)


def test_duplicate_names_across_files(tmp_path: Path) -> None:
    a = write(tmp_path, "a.yaml", HEAD + GOOD_ROW)
    b = write(tmp_path, "b.yaml", HEAD + GOOD_ROW)
    with pytest.raises(ConfigError) as info:
        read_paytables([a, b])
    (problem,) = info.value.problems
    assert problem.file == str(b) and problem.line == 2
    assert f"duplicate paytable name 't1' (first at {a}:2)" in problem.message


def test_yaml_syntax_error_has_a_line(tmp_path: Path) -> None:
    path = write(tmp_path, "p.yaml", "paytables:\n  - name: [unclosed\n")
    with pytest.raises(ConfigError) as info:
        read_paytables([path])
    assert info.value.problems[0].line >= 2


def test_table_config_problems(tmp_path: Path) -> None:
    write(tmp_path, "paytables/p.yaml", HEAD + GOOD_ROW)
    table = write(
        tmp_path,
        "t.yaml",
        """\
        game: boston5
        seats: 9
        first_to_ante: 0
        paytables:
          bonus: t1
          jackpot: t1
        limits:
          ante: {min: 500, max: 100}
          straddle: {min: 1, max: 2}
        colour: green
        """,
    )
    with pytest.raises(ConfigError) as info:
        load_table(table)
    found = [str(p) for p in info.value.problems]
    expect = [
        ":2: seats: seats must be a whole number from 1 to 7",
        ":3: first_to_ante: the first wager is exactly this many times the ante",
        ":6: paytables.jackpot: unknown paytable spot 'jackpot'",
        "paytables: missing paytable for 'ante_bonus'",
        ":8: limits.ante: min 500 is above max 100",
        ":9: limits.straddle: unknown wager spot 'straddle'",
        ":10: colour: unknown key 'colour'",
    ]
    for fragment in expect:
        assert any(fragment in p for p in found), (fragment, found)


def test_table_naming_a_paytable_of_another_game(tmp_path: Path) -> None:
    write(tmp_path, "paytables/p.yaml", HEAD + GOOD_ROW)
    table = write(tmp_path, "t.yaml", "game: mississippi_stud\nseats: 6\npaytables:\n  main: t1\n")
    with pytest.raises(ConfigError, match="paytable 't1' is for boston5 bonus, not mississippi_stud main"):
        load_table(table)


def test_categories_are_the_enum_values() -> None:
    tables = load_paytables(default_table_path("boston5").parent / "paytables")
    assert tables["ms_bonus_3card"].rows[0].category is Category.MINI_ROYAL

"""Paytables and table configs: the shipped files load; every kind of mistake is named with file, line and key."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.configuration import ConfigError, default_table_path, load_paytables, load_roster, load_table
from controller.configuration._paytables import read_paytables
from controller.hands import Category


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


def test_a_game_or_spot_that_is_not_a_name_is_unknown(tmp_path: Path) -> None:
    # A list is no key of the catalog: it was looked up anyway, and the reader raised TypeError.
    head = (
        "paytables:\n  - name: t1\n    game: [boston5]\n    spot: bonus\n    approved: true\n    source: s\n    rows:\n"
    )
    (problem,) = problems_of(tmp_path, GOOD_ROW, head)
    assert ":3: paytables[0].game: unknown game ['boston5']" in problem
    head = HEAD.replace("spot: bonus", "spot: [bonus]")
    found = problems_of(tmp_path, GOOD_ROW, head)
    assert any("paytables[0].spot: unknown paytable spot ['bonus'] for boston5" in p for p in found)


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


def _with_driver(tmp_path: Path, source: Path, driver: str) -> Path:
    """``source`` (a shipped config) with the shoe's driver renamed, reading the shipped paytables."""
    lines = [line for line in source.read_text().splitlines() if not line.startswith("paytables_dir:")]
    text = "\n".join(lines) + "\n"
    assert "shoe: {driver: shoe," in text
    text = text.replace("shoe: {driver: shoe,", f"shoe: {{driver: {driver},", 1)
    paytables = default_table_path("mississippi_stud").parent / "paytables"
    text = text.replace("devices:", f"paytables_dir: {paytables}\ndevices:", 1)
    path = tmp_path / source.name
    path.write_text(text)
    return path


def test_unknown_driver_name_names_file_line_and_the_known_drivers(tmp_path: Path) -> None:
    config = _with_driver(tmp_path, default_table_path("mississippi_stud"), "shoo")
    line = next(n for n, text in enumerate(config.read_text().splitlines(), 1) if "driver: shoo" in text)
    with pytest.raises(ConfigError) as info:
        load_table(config)
    (problem,) = [str(p) for p in info.value.problems if "driver" in str(p)]
    assert f"{config.name}:{line}: devices.shoe.driver: unknown driver 'shoo'" in problem
    assert "known: bet_spots, panel, shoe, shuffler" in problem


def test_the_config_knows_the_registry_s_driver_names() -> None:
    from controller.configuration._table import DRIVER_NAMES
    from drivers.registry import DRIVERS

    assert sorted(DRIVERS) == list(DRIVER_NAMES)


def test_an_installed_entry_point_driver_is_known(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.metadata

    from controller.configuration._table import DRIVER_ENTRY_POINTS, known_driver

    found = importlib.metadata.EntryPoint("acme", "acme.drivers:Acme", DRIVER_ENTRY_POINTS)
    monkeypatch.setattr(
        importlib.metadata, "entry_points", lambda group: [found] if group == DRIVER_ENTRY_POINTS else []
    )
    assert known_driver("acme") and known_driver("shoe") and not known_driver("shoo")


@pytest.mark.parametrize("command", ["run", "bench"])
def test_run_and_bench_refuse_an_unknown_driver_without_a_traceback(tmp_path: Path, command: str) -> None:
    import subprocess
    import sys

    source = default_table_path("mississippi_stud")
    if command == "bench":
        source = source.parent / "bench" / "mississippi_stud.yaml"
    config = _with_driver(tmp_path, source, "shoo")
    args = ["--config", str(config)] + (["--rounds", "1", "--quiet"] if command == "bench" else [])
    out = subprocess.run(
        [sys.executable, "-m", "controller", command, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert out.returncode == 2, out.stderr
    assert "unknown driver 'shoo'" in out.stderr and "known: bet_spots, panel, shoe, shuffler" in out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.parametrize(
    ("game", "drop", "line", "words"),
    [
        ("pai_gow", "  envy: pg_fortune_envy\n", "limits.bonus", "the bonus wager is offered without paytables.envy"),
        ("pai_gow", "  bonus: pg_fortune_bonus\n", "limits.bonus", "without paytables.bonus to settle it"),
        ("pai_gow", "  insurance: pg_insurance_example\n", "limits.insurance", "without paytables.insurance"),
        ("mississippi_stud", "  bonus: ms_bonus_3card\n", "limits.bonus", "without paytables.bonus"),
        ("boston5", "  bonus: b5_bonus_a\n", "limits.bonus", "without paytables.bonus"),
    ],
)
def test_a_wager_offered_without_the_paytable_that_settles_it_is_refused(
    tmp_path: Path, game: str, drop: str, line: str, words: str
) -> None:
    """Every round with such a wager would hold and could only be voided: refused at load, with
    the file and line of the wager's limits."""
    shipped = default_table_path(game)
    text = shipped.read_text()
    assert drop in text
    path = tmp_path / f"{game}.yaml"
    path.write_text(text.replace(drop, "") + f"paytables_dir: {shipped.parent / 'paytables'}\n")
    with pytest.raises(ConfigError) as info:
        load_table(path)
    lineno = next(
        i for i, t in enumerate(path.read_text().splitlines(), 1) if t.startswith(f"  {line.split('.')[1]}: {{")
    )
    assert f"{path}:{lineno}: {line}: " in str(info.value) and words in str(info.value)


def test_a_paytable_for_a_wager_without_limits_and_its_other_paytable_is_refused(tmp_path: Path) -> None:
    """Pai gow's bonus paytable without the envy paytable, and no bonus limits: still half offered."""
    shipped = default_table_path("pai_gow")
    text = shipped.read_text().replace("  envy: pg_fortune_envy\n", "").replace("  bonus: {min: 100, max: 2500}\n", "")
    path = tmp_path / "pai_gow.yaml"
    path.write_text(text + f"paytables_dir: {shipped.parent / 'paytables'}\n")
    with pytest.raises(ConfigError) as info:
        load_table(path)
    assert "paytables.bonus: the bonus wager is offered without paytables.envy" in str(info.value)
    assert "remove paytables.bonus" in str(info.value)


def _mississippi_limits(tmp_path: Path, limits: dict[str, str]) -> Path:
    """The shipped Mississippi Stud table with ``limits`` (spot: "{min: .., max: ..}") replaced."""
    shipped = default_table_path("mississippi_stud")
    paytables = shipped.parent / "paytables"
    lines = []
    for line in shipped.read_text().splitlines():
        spot = line.strip().split(":", 1)[0]
        if line.startswith("  ") and spot in limits and "{min" in line:
            line = f"  {spot}: {limits[spot]}"
        if line.startswith("devices:"):
            lines.append(f"paytables_dir: {paytables}")
        lines.append(line)
    path = tmp_path / "ms.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("street", ["third", "fourth", "fifth"])
def test_a_street_maximum_below_three_times_the_ante_maximum_is_refused_with_its_line(
    tmp_path: Path, street: str
) -> None:
    """35.10(a), (e), (g): each street bet may be up to three times the ante. A street maximum
    below 3 x the ante maximum is refused at load, named by file, line and key; with a second
    street too low at the same time, each is named; exactly 3 x loads."""
    other = "fifth" if street != "fifth" else "third"
    path = _mississippi_limits(
        tmp_path,
        {"ante": "{min: 500, max: 10000}", street: "{min: 500, max: 29999}", other: "{min: 500, max: 20000}"},
    )
    lines = path.read_text().splitlines()
    line_of = {
        spot: 1 + next(n for n, text in enumerate(lines) if text.startswith(f"  {spot}:")) for spot in (street, other)
    }
    with pytest.raises(ConfigError) as info:
        load_table(path)
    found = [str(p) for p in info.value.problems]
    for spot, cents in ((street, 29999), (other, 20000)):
        expect = f"ms.yaml:{line_of[spot]}: limits.{spot}.max: max {cents} is below 3 x the ante max (30000):"
        assert any(expect in p for p in found), (expect, found)
    assert len(found) == 2 and all("35.10(" in p for p in found)
    exactly = _mississippi_limits(tmp_path, {"ante": "{min: 500, max: 10000}", street: "{min: 500, max: 30000}"})
    assert load_table(exactly).limits[street].max == 30000  # 3 x the ante max loads


@pytest.mark.parametrize(
    "section, problem",
    [
        ("limits: 5", ":3: limits: limits must map wager spots to {min, max}"),
        ("limits:\n  ante: 5", ":4: limits.ante: a limit is {min: CENTS, max: CENTS}"),
        ("limits:\n  ante: {min: 500}", ":4: limits.ante: a limit is {min: CENTS, max: CENTS}"),
        ("limits:\n  7: {min: 1, max: 2}", ":4: limits[7]: unknown wager spot '7' (known: ante, third,"),
        ("devices: [shoe]", ":3: devices: devices must map device roles (shoe, bet_spots, panel) to settings"),
        ("devices:\n  shoe: 5", ":4: devices.shoe: a device is {driver: NAME, url: PORT, ...}"),
        (
            "devices:\n  printer: {}",
            ":4: devices.printer: unknown device role 'printer' (known: shoe, bet_spots, panel)",
        ),
        *(
            (
                f"devices:\n  shoe: {{driver: shoe, url: /dev/null, log_interval_s: {bad}}}",
                f":4: devices.shoe.log_interval_s: log_interval_s must be seconds above 0 and at most 3600, got {shown}",
            )
            for bad, shown in (("0", "0"), ("-1", "-1"), ("3601", "3601"), ("true", "True"), ("ten", "ten"))
        ),
        ("journal: 5", ":3: journal: journal must be a mapping (path, hmac_key_file, retention_days)"),
        ("journal:\n  colour: 5", ":4: journal.colour: unknown key 'colour'"),
        ("display: 5", ":3: display: display is {lines: N, columns: N}"),
        ("display:\n  colour: 5", ":4: display.colour: unknown key 'colour' (known: columns, lines)"),
        ("display:\n  7: 5", ":4: display[7]: unknown key '7' (known: columns, lines)"),
        ("display:\n  lines: 2", ":4: display.lines: lines must be a whole number from 3 to 255, got 2"),
        ("floor: 5", ":3: floor: floor must be a mapping (table_id, servers, credentials, ca, cert, key,"),
        ("floor:\n  colour: 5", ":4: floor.colour: unknown key 'colour'"),
    ],
)
def test_a_section_that_is_no_mapping_or_names_what_it_cannot_is_named_with_its_line(
    tmp_path: Path, section: str, problem: str
) -> None:
    table = write(tmp_path, "t.yaml", f"game: mississippi_stud\nseats: 6\n{section}\n")
    with pytest.raises(ConfigError) as info:
        load_table(table)
    found = [str(p) for p in info.value.problems]
    assert any(problem in p for p in found), (problem, found)


@pytest.mark.parametrize(
    "load, text, problem",
    [
        (load_table, "- game: boston5\n", "t.yaml:1: (top level): a table config must be a mapping"),
        (load_roster, "- people\n", "t.yaml:1: (top level): a roster must be a mapping with people (and lockout)"),
        (
            load_roster,
            "lockout: 5\npeople: []\n",
            "t.yaml:1: lockout: lockout must be a mapping with attempts and minutes",
        ),
        (load_roster, "lockout:\n  colour: 5\npeople: []\n", "t.yaml:2: lockout.colour: unknown key 'colour'"),
    ],
)
def test_a_file_or_roster_section_that_is_no_mapping_is_refused_with_its_line(
    tmp_path: Path, load: Callable[[Path], object], text: str, problem: str
) -> None:
    with pytest.raises(ConfigError) as info:
        load(write(tmp_path, "t.yaml", text))
    found = [str(p) for p in info.value.problems]
    assert any(problem in p for p in found), (problem, found)

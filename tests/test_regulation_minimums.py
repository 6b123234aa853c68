"""What the regulation fixes is a rule, not a setting (issue 12, item 5): the pai gow bonus
minimum (11.15(b)), the envy-marker threshold (11.15(c)) and Mississippi Stud's 6s-10s push
(35.10(i)2) cannot be configured away; a table is refused with file, line and key, and
``tablectl settle`` on a round of that table exits 2 saying so."""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from controller.cli import main as tablectl
from controller.configuration import ConfigError, config_dir, load_table


def copy_table(tmp_path: Path, game: str) -> Path:
    shutil.copytree(config_dir() / "paytables", tmp_path / "paytables")
    text = (config_dir() / f"{game}.yaml").read_text()
    path = tmp_path / f"{game}.yaml"
    path.write_text(text)
    return path


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new))


def refused(path: Path) -> str:
    with pytest.raises(ConfigError) as exc:
        load_table(path)
    return str(exc.value)


def line_of(path: Path, needle: str) -> int:
    return next(n for n, line in enumerate(path.read_text().splitlines(), start=1) if needle in line)


@pytest.mark.parametrize(
    ("key", "old", "new", "says"),
    [
        ("bonus_minimum", 100, 1, "from 100 to"),  # the bonus minimum cannot go below one dollar (11.15(b))
        ("envy_minimum", 500, 1000, "11.15(c)"),  # the envy marker's threshold is fixed at five dollars
    ],
    ids=["bonus-minimum-below-one-dollar", "envy-marker-threshold-fixed"],
)
def test_a_pai_gow_minimum_the_regulation_fixes_is_refused_with_its_line(
    tmp_path: Path, key: str, old: int, new: int, says: str
) -> None:
    path = copy_table(tmp_path, "pai_gow")
    edit(path, f"{key}: {old}", f"{key}: {new}")
    message = refused(path)
    assert f"{path}:{line_of(path, f'{key}:')}: {key}:" in message and says in message


def test_a_higher_bonus_minimum_is_allowed(tmp_path: Path) -> None:
    path = copy_table(tmp_path, "pai_gow")
    edit(path, "bonus_minimum: 100", "bonus_minimum: 200")
    edit(path, "bonus: {min: 100,", "bonus: {min: 200,")  # the table limit follows (issue 40 item 7)
    assert load_table(path).options["bonus_minimum"] == 200


def test_the_bonus_table_minimum_cannot_go_below_the_regulation(tmp_path: Path) -> None:
    path = copy_table(tmp_path, "pai_gow")
    edit(path, "bonus: {min: 100,", "bonus: {min: 1,")
    assert "limits.bonus.min: 1 is below the regulation's minimum 100 (11.15(b))" in refused(path)


def test_a_paytable_without_the_six_to_ten_push_is_refused(tmp_path: Path) -> None:
    path = copy_table(tmp_path, "mississippi_stud")
    paytables = tmp_path / "paytables" / "mississippi_stud.yaml"
    text = paytables.read_text()
    push = next(line for line in text.splitlines() if "ranks: [6, 7, 8, 9, T], pays: push" in line)
    paytables.write_text(text.replace(push + "\n", ""))
    message = refused(path)
    assert re.search(
        rf"{re.escape(str(paytables))}:\d+: paytables\[0\]\.rows: missing the row one_pair \[6, 7, 8, 9, T\] pays push: "
        r"required by 35\.10\(i\)2",
        message,
    ), message
    round_file = tmp_path / "round.json"
    round_file.write_text(json.dumps({"game": "mississippi_stud", "table": str(path), "seats": {}, "community": ""}))
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert tablectl(["settle", str(round_file)]) == 2
    assert "35.10(i)2" in err.getvalue()

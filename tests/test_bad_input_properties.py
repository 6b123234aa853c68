"""Property tests of the two readers of outside input: the YAML config loader and the round-record
reader. Any bytes in: either a clear error (``ConfigError`` / ``RecordError`` naming the place) or
a valid object out, never another exception."""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.configuration import ConfigError, TableConfig, default_table_path, load_table, load_yaml
from controller.configuration._yamlfile import YamlDoc
from controller.game.record import RecordError, parse_record, settle_record
from controller.wagers import Settlement

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
FOLDER = Path(tempfile.mkdtemp(prefix="tablectl-properties-"))
atexit.register(shutil.rmtree, FOLDER, ignore_errors=True)
TABLES = {g: load_table(default_table_path(g)) for g in ("boston5", "mississippi_stud", "pai_gow")}

yaml_ish = st.text(
    alphabet=st.sampled_from(list("abc:- []{}&*!#'\"\n\t ,?|>%@`0123456789.~\\<") + ["é", "\x00", "\x07", "\ufeff"]),
    max_size=200,
)
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=20), st.floats(allow_nan=False, allow_infinity=False)
)
documents = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(min_size=1, max_size=8), children, max_size=4)
    ),
    max_leaves=20,
)


def load(content: bytes, name: str = "c.yaml") -> YamlDoc | ConfigError:
    path = FOLDER / name
    path.write_bytes(content)
    try:
        return load_yaml(path)
    except ConfigError as exc:
        assert exc.problems, "a ConfigError lists its problems"
        for problem in exc.problems:
            assert problem.file == str(path) and problem.line >= 0 and problem.message
        return exc


@SETTINGS
@given(st.binary(max_size=400))
def test_any_bytes_load_or_give_a_config_error(content: bytes) -> None:
    load(content)


@SETTINGS
@given(yaml_ish)
def test_any_yaml_like_text_loads_or_gives_a_config_error(text: str) -> None:
    load(text.encode("utf-8"))


@SETTINGS
@given(documents)
def test_plain_documents_load_as_pyyaml_reads_them(data: Any) -> None:
    text = yaml.safe_dump({"x": data})
    doc = load(text.encode())
    assert isinstance(doc, YamlDoc)
    assert doc.data == yaml.safe_load(text)


@SETTINGS
@given(yaml_ish)
def test_any_text_as_a_table_config_loads_or_gives_a_config_error(text: str) -> None:
    path = FOLDER / "t.yaml"
    path.write_text("game: mississippi_stud\n" + text, encoding="utf-8")
    try:
        assert isinstance(load_table(path), TableConfig)
    except ConfigError as exc:
        assert all(p.file == str(path) for p in exc.problems if "paytables" not in p.file)


def settle(content: bytes) -> Settlement | RecordError | ConfigError:
    try:
        data = parse_record(content)
    except RecordError as exc:
        assert exc.problems and all(p.startswith("$") for p in exc.problems)
        return exc
    try:
        return settle_record(
            data, TABLES["mississippi_stud"] if isinstance(data, dict) and "table" not in data else None
        )
    except (RecordError, ConfigError) as exc:
        return exc


@SETTINGS
@given(st.binary(max_size=400))
def test_any_bytes_as_a_round_record_settle_or_give_a_record_error(content: bytes) -> None:
    settle(content)


GOOD = {
    "game": "mississippi_stud",
    "seats": {"1": {"wagers": {"ante": 500, "third": 500, "fourth": 500, "fifth": 500}, "cards": "As Ad"}},
    "community": "Ks Kd 2c",
}
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=12),
    lambda children: st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=6), children, max_size=3),
    max_leaves=12,
)
paths = st.lists(st.sampled_from(["game", "seats", "1", "wagers", "ante", "cards", "community", "fifth"]), max_size=4)


def put(record: Any, path: list[str], value: Any) -> Any:
    if not path or not isinstance(record, dict):
        return value
    out = dict(record)
    out[path[0]] = put(out.get(path[0]), path[1:], value)
    return out


@SETTINGS
@given(paths, json_values)
def test_changed_round_records_settle_or_give_a_record_error(path: list[str], value: Any) -> None:
    record = put(GOOD, path, value)
    result = settle(json.dumps(record).encode())
    if isinstance(result, RecordError):
        assert all(p.startswith("$") for p in result.problems)


@SETTINGS
@given(json_values)
def test_any_json_value_settles_or_gives_a_record_error(value: Any) -> None:
    settle(json.dumps(value).encode())

"""docs/configuration.md is generated from the validators' key sets and the game catalog: it is
up to date, and a key the validator takes without a description (or the other way round) fails."""

from __future__ import annotations

import pytest

from controller.configuration import _table as table_config
from controller.docgen import configuration
from controller.game.registry import definition, names


def test_the_page_is_up_to_date() -> None:
    assert configuration.DOC.read_text(encoding="utf-8") == configuration.render(), (
        "docs/configuration.md is stale: run python -m controller.docgen.configuration"
    )


def test_a_key_the_validator_takes_needs_a_description(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table_config, "_KEYS", table_config._KEYS | {"new_key"})
    with pytest.raises(configuration.DocError, match="no description for new_key"):
        configuration.render()


def test_a_description_of_a_key_the_validator_refuses_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table_config, "_JOURNAL_KEYS", table_config._JOURNAL_KEYS - {"retention_days"})
    with pytest.raises(configuration.DocError, match="not taken by the validator: retention_days"):
        configuration.render()


def test_every_game_setting_is_on_the_page() -> None:
    text = configuration.render()
    for catalog in (definition(name).catalog for name in names()):
        for option in catalog.options:
            assert f"| `{option.name}` |" in text

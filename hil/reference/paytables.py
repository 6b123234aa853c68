"""The paytables and a table's settings, read from the YAML files under config/ here (the
controller's loader is not used: a checker shares no code with what it checks)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

__all__ = ["Row", "RefTable", "load_ref_table", "pays"]

_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""PyYAML's safe loader (its C one when built with libyaml: the same answers, faster)."""

_ODDS = re.compile(r"^\s*(\d+)\s+to\s+(\d+)\s*$")


@dataclass(frozen=True)
class Row:
    """One paytable line: the hand, the ranks it needs (empty: any), and what it pays: odds
    (``num`` to ``den``), ``push``, or a fixed ``amount`` in cents."""

    hand: str
    ranks: tuple[str, ...]
    num: int = 0
    den: int = 1
    push: bool = False
    amount: int = 0


@dataclass(frozen=True)
class RefTable:
    """A table's settings as the model needs them: the game, the paytable of each spot, the cap
    per seat and round, the game's own settings (the YAML mapping as read) and each paytable's
    own cap by its spot (where it has one)."""

    game: str
    paytables: dict[str, tuple[Row, ...]]
    cap: int | None
    settings: dict[str, Any]
    paytable_caps: dict[str, int] = field(default_factory=dict)


def _row(raw: dict[str, Any], where: str) -> Row:
    hand = str(raw["hand"])
    ranks = tuple(str(r) for r in raw.get("ranks", ()) or ())
    if "amount" in raw:
        return Row(hand, ranks, amount=int(raw["amount"]))
    text = str(raw.get("pays", ""))
    if text == "push":
        return Row(hand, ranks, push=True)
    m = _ODDS.match(text)
    if m is None:
        raise ValueError(f"{where}: cannot read pays {text!r}")
    return Row(hand, ranks, int(m.group(1)), int(m.group(2)))


def load_ref_table(path: Path) -> RefTable:
    """The table of the YAML file at ``path`` and the paytables it names."""
    data = yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER)
    folder = path.parent / str(data.get("paytables_dir", "paytables"))
    wanted = {str(spot): str(name) for spot, name in (data.get("paytables") or {}).items()}
    found: dict[str, tuple[Row, ...]] = {}
    caps: dict[str, int] = {}
    for file in sorted(folder.glob("*.yaml")):
        for table in yaml.load(file.read_text(encoding="utf-8"), Loader=_LOADER).get("paytables", []):
            for spot, name in wanted.items():
                if table.get("name") == name:
                    found[spot] = tuple(_row(r, f"{file.name}: {name}") for r in table["rows"])
                    if table.get("cap") is not None:
                        caps[spot] = int(table["cap"])
    missing = sorted(set(wanted) - set(found))
    if missing:
        raise ValueError(f"{path}: paytable(s) not found for {', '.join(missing)}")
    cap = data.get("payout_cap")
    return RefTable(str(data["game"]), found, int(cap) if cap is not None else None, data, caps)


def pays(rows: tuple[Row, ...], hand: str, rank: str = "") -> Row | None:
    """The first line of ``rows`` for ``hand`` (and, when the line names ranks, ``rank``)."""
    for row in rows:
        if row.hand == hand and (not row.ranks or rank in row.ranks):
            return row
    return None

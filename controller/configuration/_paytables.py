"""Named paytables, loaded from ``config/paytables/*.yaml`` and validated on load.

A paytable file holds a list under ``paytables:``; each entry::

    - name: ms_main_standard        # unique across every file
      game: mississippi_stud
      spot: main                    # which paytable spot of the game (controller.wagers._catalog)
      approved: false               # true only for a table the Division has approved
      source: "58 Pa. Code 655a.12 (found, PA); NJ 35.11 not found"
      cap: 5000000                  # optional: aggregate payout cap per seat per round, cents
      rows:
        - {hand: royal_flush, pays: 500 to 1}
        - {hand: one_pair, ranks: [J, Q, K, A], pays: 1 to 1}
        - {hand: one_pair, ranks: [6, 7, 8, 9, T], pays: push}

A hand with no matching row loses. ``ranks`` (pairs, trips, quads, full houses and two pair:
the rank that names the hand) narrows a row. Every problem is reported with file, line and
key; no paytable lives in code.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from controller.configuration._yamlfile import ConfigError, KeyPath, Problem, YamlDoc, load_yaml
from controller.game import hand_name
from controller.game.registry import GAMES, definition
from controller.game.registry import names as game_names
from controller.hands import Category, HandValue, Kind
from controller.hands.categories import BONUS_SEVEN_ORDER, FIVE_CARD_ORDER, unpack
from controller.vocab import MAX_CENTS, PUSH, Odds, OddsError, parse_odds
from controller.wagers import GameCatalog, PaytableSpot

__all__ = ["PaytableRow", "Paytable", "load_paytables", "read_paytables"]

PAYTABLE_KEYS = frozenset({"name", "game", "spot", "approved", "source", "cap", "rows"})
"""The keys of one paytable (docs/configuration.md is generated from these sets)."""
ROW_KEYS = frozenset({"hand", "pays", "amount", "ranks"})
"""The keys a paytable row may have (``amount`` for fixed-amount tables, ``pays`` for the others)."""

_RANK_CONDITION_CATEGORIES = frozenset(
    {
        Category.HIGH_CARD,
        Category.ONE_PAIR,
        Category.TWO_PAIR,
        Category.THREE_OF_A_KIND,
        Category.FOUR_OF_A_KIND,
        Category.FULL_HOUSE,
    }
)
_RANK_WORDS = {**{str(n): n for n in range(2, 10)}, "T": 10, "10": 10, "J": 11, "Q": 12, "K": 13, "A": 14}


@dataclass(frozen=True, slots=True)
class PaytableRow:
    """One line of a paytable: a category, optionally narrowed to some ranks, and its odds."""

    category: Category
    ranks: frozenset[int] | None
    odds: Odds
    line: int
    amount: int | None = None
    """A fixed payment in cents (envy bonus rows) instead of odds."""

    def describe(self) -> str:
        """``one pair (J, Q, K, A): 1 to 1``: for settlement explanations (plain names)."""
        ranks = ""
        if self.ranks:
            chars = "23456789TJQKA"
            ranks = " (" + ", ".join(chars[r - 2] for r in sorted(self.ranks)) + ")"
        pays = f"{self.amount / 100:,.2f} fixed" if self.amount is not None else str(self.odds)
        return f"{hand_name(self.category.value)}{ranks}: {pays}"

    @property
    def pays_more(self) -> float:
        """What this line pays, for choosing a hand's highest-paying line (never for money)."""
        return float(self.amount) if self.amount is not None else self.odds.value


@dataclass(frozen=True, slots=True)
class Paytable:
    """A named, validated paytable for one paytable spot of one game."""

    name: str
    game: str
    spot: str
    kind: Kind
    rows: tuple[PaytableRow, ...]
    approved: bool
    source: str
    cap: int | None
    file: str
    line: int
    _found: dict[tuple[str, int], PaytableRow | None] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    """The line found for each (category's value, rank) asked so far (settling asks for every hand)."""

    def row_for(self, value: HandValue) -> PaytableRow | None:
        """The line that pays ``value``, or ``None`` when the hand loses."""
        return self.row_for_rank(value.category, unpack(value.strength)[1][0] + 2)

    def row_for_rank(self, category: Category, rank: int) -> PaytableRow | None:
        """The line for ``category`` whose rank condition (if any) holds for ``rank`` (2-14)."""
        key = (category._value_, rank)
        try:  # one lookup when found (by the value: a string's hash is kept, an enum's worked out in Python)
            return self._found[key]
        except KeyError:
            found = self._found[key] = next(
                (r for r in self.rows if r.category is category and (r.ranks is None or rank in r.ranks)), None
            )
            return found

    def by_category(self) -> dict[Category, PaytableRow]:
        """Rows by category (for tables without rank conditions, such as seven-card bonus tables)."""
        return {row.category: row for row in self.rows}


def _allowed_categories(game: GameCatalog, spot: PaytableSpot) -> tuple[Category, ...]:
    kind = spot.kind
    if spot.categories is not None:
        return spot.categories
    if kind is Kind.THREE:
        return game.rules.three_card or ()
    if kind is Kind.BONUS:
        return BONUS_SEVEN_ORDER
    five = FIVE_CARD_ORDER
    return five if game.rules.joker else tuple(c for c in five if c is not Category.FIVE_ACES)


def _rank_set(doc: YamlDoc, path: KeyPath, raw: object, problems: list[Problem]) -> frozenset[int] | None:
    if not isinstance(raw, list) or not raw:
        problems.append(doc.problem(path, f"ranks must be a non-empty list such as [J, Q, K, A], got {raw!r}"))
        return None
    ranks = set()
    for i, item in enumerate(raw):
        rank = _RANK_WORDS.get(str(item).upper())
        if rank is None:
            problems.append(doc.problem(path + (i,), f"unknown rank {item!r} (use 2-9, T, J, Q, K, A)"))
        else:
            ranks.add(rank)
    return frozenset(ranks)


def _row_keys(doc: YamlDoc, path: KeyPath, raw: Mapping[str, object], pay_key: str, problems: list[Problem]) -> None:
    """Unknown and missing keys of a row."""
    for key in raw:
        if key not in ("hand", pay_key, "ranks"):
            problems.append(
                doc.problem(path + (key,), f"unknown key '{key}' (a row has hand, {pay_key} and optional ranks)")
            )
    for key in ("hand", pay_key):
        if key not in raw:
            problems.append(doc.problem(path, f"missing '{key}'"))


def _row_category(
    doc: YamlDoc, path: KeyPath, raw: Mapping[str, object], allowed: tuple[Category, ...], problems: list[Problem]
) -> Category | None:
    """A row's hand category, when it names one this paytable may have."""
    if "hand" not in raw:
        return None
    category = None
    try:
        category = Category(raw["hand"])
    except ValueError:
        pass
    if category not in allowed:
        names = ", ".join(c.value for c in allowed)
        problems.append(
            doc.problem(path + ("hand",), f"unknown category {raw['hand']!r} for this paytable (known: {names})")
        )
        return None
    return category


def _row_pay(
    doc: YamlDoc, path: KeyPath, raw: Mapping[str, object], spot: PaytableSpot, problems: list[Problem]
) -> tuple[Odds, int | None]:
    """A row's odds (``pays``) or fixed amount in cents (``amount``, on a spot that pays amounts)."""
    odds, amount = PUSH, None
    if spot.amounts and "amount" in raw:
        amount = raw["amount"]
        if isinstance(amount, bool) or not isinstance(amount, int) or not 0 <= amount <= MAX_CENTS:
            problems.append(
                doc.problem(path + ("amount",), f"amount must be whole cents, 0 to {MAX_CENTS}, got {str(amount)[:40]}")
            )
    elif "pays" in raw:
        try:
            odds = parse_odds(raw["pays"])
        except OddsError as exc:
            problems.append(doc.problem(path + ("pays",), str(exc)))
    return odds, amount if isinstance(amount, int) else None  # not whole cents: a problem, no row


def _row_ranks(
    doc: YamlDoc,
    path: KeyPath,
    raw: Mapping[str, object],
    category: Category | None,
    spot: PaytableSpot,
    problems: list[Problem],
) -> frozenset[int] | None:
    """A row's rank condition, where its category may be narrowed by rank."""
    if "ranks" not in raw:
        return None
    ranks = _rank_set(doc, path + ("ranks",), raw["ranks"], problems)
    if category is not None and (category not in _RANK_CONDITION_CATEGORIES or spot.kind is Kind.BONUS):
        problems.append(doc.problem(path + ("ranks",), f"ranks cannot narrow {category.value} here"))
    return ranks


def _read_row(
    doc: YamlDoc, path: KeyPath, raw: object, allowed: tuple[Category, ...], spot: PaytableSpot, problems: list[Problem]
) -> PaytableRow | None:
    pay_key = "amount" if spot.amounts else "pays"
    if not isinstance(raw, dict):
        problems.append(doc.problem(path, f"a row must be a mapping with 'hand' and '{pay_key}'"))
        return None
    before = len(problems)
    _row_keys(doc, path, raw, pay_key, problems)
    category = _row_category(doc, path, raw, allowed, problems)
    odds, amount = _row_pay(doc, path, raw, spot, problems)
    ranks = _row_ranks(doc, path, raw, category, spot, problems)
    if len(problems) > before or category is None:
        return None
    return PaytableRow(category, ranks, odds, doc.line(path), amount)


def _table_keys(doc: YamlDoc, path: KeyPath, raw: Mapping[str, object], problems: list[Problem]) -> None:
    """Unknown and missing keys of a paytable, and the simple ones' types (name, approved)."""
    problems += doc.unknown_keys(path, raw, PAYTABLE_KEYS)
    for key in ("name", "game", "spot", "approved", "source", "rows"):
        if key not in raw:
            problems.append(doc.problem(path, f"missing '{key}'"))
    name = raw.get("name")
    if "name" in raw and (not isinstance(name, str) or not name):
        problems.append(doc.problem(path + ("name",), "name must be a non-empty string"))


def _table_game(doc: YamlDoc, path: KeyPath, raw: Mapping[str, object], problems: list[Problem]) -> GameCatalog | None:
    """The game a paytable names, when it is known."""
    game_name = raw.get("game")
    game = definition(game_name).catalog if isinstance(game_name, str) and game_name in GAMES else None
    if "game" in raw and game is None:
        problems.append(
            doc.problem(path + ("game",), f"unknown game {raw['game']!r} (known: {', '.join(game_names())})")
        )
    return game


def _table_spot(
    doc: YamlDoc, path: KeyPath, raw: Mapping[str, object], game: GameCatalog | None, problems: list[Problem]
) -> PaytableSpot | None:
    """The paytable spot of ``game`` a paytable names, when it has it."""
    spot_name = raw.get("spot")
    spot = game.paytable_spot(spot_name) if game and isinstance(spot_name, str) else None
    if game and "spot" in raw and spot is None:
        names = ", ".join(p.name for p in game.paytable_spots)
        problems.append(
            doc.problem(path + ("spot",), f"unknown paytable spot {raw['spot']!r} for {game.game} (known: {names})")
        )
    return spot


def _table_cap(doc: YamlDoc, path: KeyPath, raw: Mapping[str, object], problems: list[Problem]) -> int | None:
    """A paytable's ``approved`` flag checked, and its cap (cents, or ``None``)."""
    if "approved" in raw and not isinstance(raw["approved"], bool):
        problems.append(doc.problem(path + ("approved",), "approved must be true or false"))
    cap = raw.get("cap")
    if cap is not None and (not isinstance(cap, int) or isinstance(cap, bool) or not 0 < cap <= MAX_CENTS):
        problems.append(
            doc.problem(path + ("cap",), f"cap must be a whole number of cents, 1 to {MAX_CENTS}, got {str(cap)[:40]}")
        )
    return cap if isinstance(cap, int) else None  # not whole cents: a problem, no paytable


def _duplicate_rows(
    doc: YamlDoc, path: KeyPath, row: PaytableRow, rows: list[PaytableRow], problems: list[Problem]
) -> None:
    """A problem for each earlier row that pays the same hand as ``row`` (row ``path``)."""
    for other in rows:
        if other.category is row.category and (other.ranks is None or row.ranks is None or other.ranks & row.ranks):
            problems.append(doc.problem(path, f"duplicate row for {row.category.value} (first at line {other.line})"))


def _required_rows(
    doc: YamlDoc, path: KeyPath, spot: PaytableSpot, rows: list[PaytableRow], problems: list[Problem]
) -> None:
    """A problem for each row the regulation requires of ``spot`` that ``rows`` lack."""
    for required in spot.required_rows:
        missing = sorted(
            rank
            for rank in required.ranks
            if not any(
                r.category is required.category
                and (r.ranks is None or rank in r.ranks)
                and r.odds.push == required.push
                for r in rows
            )
        )
        if missing:
            names = ", ".join("T" if r == 10 else "JQKA"[r - 11] if r > 10 else str(r) for r in missing)
            what = "push" if required.push else "a payout"
            problems.append(
                doc.problem(
                    path + ("rows",),
                    f"missing the row {required.category.value} [{names}] pays {what}: required by {required.rule}",
                )
            )


def _table_rows(
    doc: YamlDoc,
    path: KeyPath,
    raw: Mapping[str, object],
    game: GameCatalog | None,
    spot: PaytableSpot | None,
    before: int,
    problems: list[Problem],
) -> list[PaytableRow]:
    """A paytable's rows (``before``: the problems found before the paytable was read)."""
    rows: list[PaytableRow] = []
    raw_rows = raw.get("rows")
    if "rows" in raw and (not isinstance(raw_rows, list) or not raw_rows):
        problems.append(doc.problem(path + ("rows",), "rows must be a non-empty list"))
        return rows
    if spot is None or game is None or not isinstance(raw_rows, list):
        return rows
    allowed = _allowed_categories(game, spot)
    for i, raw_row in enumerate(raw_rows):
        row = _read_row(doc, path + ("rows", i), raw_row, allowed, spot, problems)
        if row is not None:
            _duplicate_rows(doc, path + ("rows", i), row, rows, problems)
            rows.append(row)
    if not any(r.amount or not r.odds.push for r in rows) and len(problems) == before:
        problems.append(doc.problem(path + ("rows",), "no row pays anything"))
    _required_rows(doc, path, spot, rows, problems)
    return rows


def _read_table(doc: YamlDoc, path: KeyPath, raw: object, problems: list[Problem]) -> Paytable | None:
    if not isinstance(raw, dict):
        problems.append(doc.problem(path, "a paytable must be a mapping"))
        return None
    before = len(problems)
    _table_keys(doc, path, raw, problems)
    name = raw.get("name")
    game = _table_game(doc, path, raw, problems)
    spot = _table_spot(doc, path, raw, game, problems)
    cap = _table_cap(doc, path, raw, problems)
    rows = _table_rows(doc, path, raw, game, spot, before, problems)
    if len(problems) > before or game is None or spot is None or not isinstance(name, str):
        return None
    return Paytable(
        name=name,
        game=game.game,
        spot=spot.name,
        kind=spot.kind,
        rows=tuple(rows),
        approved=raw["approved"],
        source=str(raw["source"]),
        cap=cap,
        file=str(doc.path),
        line=doc.line(path),
    )


def read_paytables(files: Iterable[Path]) -> dict[str, Paytable]:
    """Load and validate every paytable in ``files``; raises :class:`ConfigError` listing all problems."""
    problems: list[Problem] = []
    tables: dict[str, Paytable] = {}
    for file in sorted(files):
        try:
            doc = load_yaml(file)
        except ConfigError as exc:
            problems.extend(exc.problems)
            continue
        data = doc.data
        if not isinstance(data, dict) or not isinstance(data.get("paytables"), list):
            problems.append(doc.problem((), "a paytable file must hold a list under 'paytables:'"))
            continue
        for key in data:
            if key != "paytables":
                problems.append(doc.problem((key,), f"unknown key '{key}' (a paytable file holds only 'paytables')"))
        for i, raw in enumerate(data["paytables"]):
            table = _read_table(doc, ("paytables", i), raw, problems)
            if table is None:
                continue
            first = tables.get(table.name)
            if first is not None:
                problems.append(
                    doc.problem(
                        ("paytables", i, "name"),
                        f"duplicate paytable name '{table.name}' (first at {first.file}:{first.line})",
                    )
                )
                continue
            tables[table.name] = table
    if problems:
        raise ConfigError(problems)
    return tables


def load_paytables(folder: Path | str) -> Mapping[str, Paytable]:
    """Every paytable in ``folder/*.yaml``."""
    return read_paytables(Path(folder).glob("*.yaml"))

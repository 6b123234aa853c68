"""Table configurations (``config/<game>.yaml``): which game, seats, paytables, limits, cap.

A table config names one paytable per paytable spot; the paytables are read from the
``paytables/`` folder beside the config file. Loading validates everything and raises a
:class:`~controller.configuration._yamlfile.ConfigError` that lists every problem with file, line and key.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from pathlib import Path
from typing import Any

from controller.configuration._floor import FloorConfig, parse_floor
from controller.configuration._paytables import Paytable, load_paytables
from controller.configuration._roster import Roster, load_roster
from controller.configuration._yamlfile import ConfigError, KeyPath, Problem, YamlDoc, load_yaml
from controller.game.registry import GAMES, definition, names
from controller.vocab import MAX_CENTS, OddsError, parse_odds
from controller.wagers import GameCatalog

__all__ = [
    "DisplayConfig",
    "Limit",
    "DeviceConfig",
    "JournalConfig",
    "TableConfig",
    "load_table",
    "default_table_path",
    "config_dir",
]

_KEYS = {"game", "name", "seats", "paytables", "limits", "payout_cap", "devices", "paytables_dir", "journal", "display"}
_KEYS.add("floor")  # the floor link (controller.configuration._floor)
_KEYS.add("roster")  # who signs in at the panel (controller.configuration._roster)
_JOURNAL_KEYS = {"path", "hmac_key_file", "retention_days"}
_DEVICE_ROLES = ("shoe", "bet_spots", "panel")
_DEVICE_KEYS = {"driver", "url", "baudrate", "poll_interval_s", "address", "log_interval_s"}
DRIVER_NAMES = ("bet_spots", "panel", "shoe", "shuffler")
"""The built-in driver names (``drivers.registry.DRIVERS``: the rules never import the drivers, so
the names are listed here too; tests/test_config.py checks the two lists agree). Other names
must be installed in the ``tablectl.drivers`` entry points."""
DRIVER_ENTRY_POINTS = "tablectl.drivers"


def known_driver(name: str) -> bool:
    """Whether a driver called ``name`` is built in or installed as an entry point (looked up
    only for a name that is not built in, so a config of built-in drivers loads fast)."""
    if name in DRIVER_NAMES:
        return True
    from importlib.metadata import entry_points

    return any(ep.name == name for ep in entry_points(group=DRIVER_ENTRY_POINTS))


@dataclass(frozen=True, slots=True)
class DeviceConfig:
    """One device of the table: which driver, which port (a pyserial URL), its timing.

    A URL ``sim://NAME`` stands for a simulator that ``tablectl bench`` starts and serves.
    """

    role: str
    driver: str
    url: str
    baudrate: int = 115200
    poll_interval_s: float = 0.05
    address: int = 1
    line: int = 0
    log_interval_s: float = 10.0
    """The link's problem counters (timeouts, garbage, retries) are logged when they changed, at
    most once in this many seconds."""


@dataclass(frozen=True, slots=True)
class JournalConfig:
    """Where the table's journal is kept, how it is signed, how long rounds are kept.

    ``path`` (relative to the config file, like every path in it; ``None``: the command's default:
    under the working directory for ``bench``, ``/var/lib/tablectl/`` for ``run``); ``hmac_key_file``
    (relative to the config file) signs every record with HMAC-SHA-256 instead of a plain
    SHA-256 chain; rounds younger than ``retention_days`` are never pruned.
    """

    path: str | None = None
    hmac_key_file: str | None = None
    retention_days: int = 90


@dataclass(frozen=True, slots=True)
class DisplayConfig:
    """The dealer display's size: ``lines`` of ``columns`` characters (until the panel reports its own)."""

    lines: int = 4
    columns: int = 40


@dataclass(frozen=True, slots=True)
class Limit:
    """Table minimum and maximum for one wager spot, in cents."""

    min: int
    max: int


@dataclass(frozen=True, slots=True)
class TableConfig:
    """A validated table configuration."""

    path: str
    game: str
    name: str
    seats: int
    paytables: Mapping[str, Paytable]
    limits: Mapping[str, Limit]
    payout_cap: int | None
    options: Mapping[str, object] = field(default_factory=dict)
    devices: Mapping[str, DeviceConfig] = field(default_factory=dict)
    journal: JournalConfig = field(default_factory=JournalConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    sha256: str = ""
    """The SHA-256 of the config file and of each paytable file it uses: what a round record
    names with the config's absolute ``path``, so a re-settlement knows it has the same table."""
    floor: FloorConfig | None = None
    """Where the table publishes its journal for the floor (None: it does not)."""
    roster: Roster | None = None
    """Who signs in at the panel (None: nobody signs in; the supervisor's key alone authorizes)."""

    @property
    def catalog(self) -> GameCatalog:
        """The game's wager and paytable spots."""
        return definition(self.game).catalog

    def offers(self, wager_spot: str) -> bool:
        """Whether this table takes ``wager_spot`` (an optional wager needs its paytable)."""
        return all(p.name in self.paytables for p in self.catalog.paytable_spots if p.needs_wager == wager_spot)


def config_dir() -> Path:
    """Where the shipped configs live: ``$TABLECTL_CONFIG_DIR``, else the package data
    ``controller/config`` (the repository's ``config/`` in a checkout, copied into the wheel)."""
    env = os.environ.get("TABLECTL_CONFIG_DIR")
    if env:
        return Path(env)
    # An installed package is a folder (a wheel unpacked by pip), so its data is a real path.
    return Path(str(resources.files("controller") / "config")).resolve()


def default_table_path(game: str) -> Path:
    """The default table config of ``game``."""
    return config_dir() / f"{game}.yaml"


def _cents(
    doc: YamlDoc, path: KeyPath, value: object, problems: list[Problem], *, allow_zero: bool = False
) -> int | None:
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or value < 0
        or (value == 0 and not allow_zero)
        or value > MAX_CENTS
    ):
        shown = f"{str(value)[:30]}..." if isinstance(value, int) and value > MAX_CENTS else repr(value)
        problems.append(
            doc.problem(
                path,
                f"must be a whole number of cents{'' if allow_zero else ' above 0'} and at most {MAX_CENTS} "
                f"(${MAX_CENTS // 100:,}), got {shown}",
            )
        )
        return None
    return value


@dataclass(frozen=True, slots=True)
class _Section:
    """A section of a table config that maps names to settings: its key, what it maps, the kind
    of name it takes, and what each setting must be."""

    key: str
    maps: str
    kind: str
    entry: str

    def entries(
        self, doc: YamlDoc, raw: object, known: Sequence[str], problems: list[Problem]
    ) -> Iterator[tuple[str, KeyPath, dict[Any, Any]]]:
        """The section's entries (``raw``), each its name, path and settings (as YAML read them: each
        is checked where it is used): a name not in ``known`` or settings that are no mapping are a
        problem (added to ``problems``), and passed over."""
        if not isinstance(raw, dict):
            problems.append(doc.problem((self.key,), f"{self.key} must map {self.maps}"))
            return
        for name, value in raw.items():
            path = (self.key, name)
            if not isinstance(name, str) or name not in known:
                problems.append(doc.problem(path, f"unknown {self.kind} '{name}' (known: {', '.join(known)})"))
            elif not isinstance(value, dict):
                problems.append(doc.problem(path, self.entry))
            else:
                yield name, path, value


_LIMITS = _Section("limits", "wager spots to {min, max}", "wager spot", "a limit is {min: CENTS, max: CENTS}")
_DEVICES = _Section(
    "devices",
    "device roles (shoe, bet_spots, panel) to settings",
    "device role",
    "a device is {driver: NAME, url: PORT, ...}",
)


def _limits(doc: YamlDoc, game: GameCatalog, raw: object, problems: list[Problem]) -> dict[str, Limit]:
    limits: dict[str, Limit] = {}
    if raw is None:
        problems.append(
            doc.problem(
                (),
                f"limits: is required: the table minimum and maximum of each wager spot, in cents "
                f"(e.g. limits: {{{game.wager_spots[0]}: {{min: 500, max: 50000}}}})",
            )
        )
        return limits
    for spot, path, value in _LIMITS.entries(doc, raw, game.wager_spots, problems):
        if set(value) != {"min", "max"}:
            problems.append(doc.problem(path, _LIMITS.entry))
            continue
        lo = _cents(doc, path + ("min",), value["min"], problems)
        hi = _cents(doc, path + ("max",), value["max"], problems)
        floor = definition(game.game).regulation_minimums.get(spot)
        if lo is not None and floor is not None and lo < floor[0]:
            problems.append(
                doc.problem(path + ("min",), f"{lo} is below the regulation's minimum {floor[0]} ({floor[1]})")
            )
            lo = None
        if lo is not None and hi is not None:
            if lo > hi:
                problems.append(doc.problem(path, f"min {lo} is above max {hi}"))
            else:
                limits[spot] = Limit(lo, hi)
    return limits


def _devices(doc: YamlDoc, raw: object, problems: list[Problem]) -> dict[str, DeviceConfig]:
    devices: dict[str, DeviceConfig] = {}
    if raw is None:
        return devices
    for role, path, value in _DEVICES.entries(doc, raw, _DEVICE_ROLES, problems):
        before = len(problems)
        problems += doc.unknown_keys(path, value, _DEVICE_KEYS)
        for key in ("driver", "url"):
            if not isinstance(value.get(key), str) or not value.get(key):
                problems.append(doc.problem(path + (key,) if key in value else path, f"{key} must be given as text"))
        driver = value.get("driver")
        if isinstance(driver, str) and driver and not known_driver(driver):
            problems.append(
                doc.problem(
                    path + ("driver",),
                    f"unknown driver '{driver[:40]}' (known: {', '.join(DRIVER_NAMES)}; others are installed "
                    f"in the {DRIVER_ENTRY_POINTS} entry points)",
                )
            )
        baud = value.get("baudrate", 115200)
        if isinstance(baud, bool) or not isinstance(baud, int) or not 0 < baud <= 4_000_000:
            problems.append(
                doc.problem(
                    path + ("baudrate",), f"baudrate must be a whole number, 1 to 4000000, got {str(baud)[:40]}"
                )
            )
        poll = value.get("poll_interval_s", 0.05)
        if isinstance(poll, bool) or not isinstance(poll, (int, float)) or not 0 < poll <= 10:
            problems.append(
                doc.problem(
                    path + ("poll_interval_s",), f"poll_interval_s must be seconds above 0 and at most 10, got {poll!r}"
                )
            )
        address = value.get("address", _DEVICE_ROLES.index(role) + 1)
        if isinstance(address, bool) or not isinstance(address, int) or not 1 <= address <= 126:
            problems.append(doc.problem(path + ("address",), f"address must be 1 to 126, got {address!r}"))
        every = value.get("log_interval_s", 10.0)
        if isinstance(every, bool) or not isinstance(every, (int, float)) or not 0 < every <= 3600:
            problems.append(
                doc.problem(
                    path + ("log_interval_s",),
                    f"log_interval_s must be seconds above 0 and at most 3600, got {str(every)[:40]}",
                )
            )
        if len(problems) == before:
            devices[role] = DeviceConfig(
                role, value["driver"], value["url"], baud, float(poll), address, doc.line(path), float(every)
            )
    return devices


def _paytables(
    doc: YamlDoc, game: GameCatalog, raw: object, problems: list[Problem], folder: Path
) -> dict[str, Paytable]:
    chosen: dict[str, Paytable] = {}
    if not isinstance(raw, dict):
        problems.append(doc.problem(("paytables",), "paytables must map paytable spots to paytable names"))
        return chosen
    try:
        known = load_paytables(folder)
    except ConfigError as exc:
        problems.extend(exc.problems)
        return chosen
    for spot, name in raw.items():
        path = ("paytables", spot)
        if game.paytable_spot(spot) is None:
            names = ", ".join(p.name for p in game.paytable_spots)
            problems.append(doc.problem(path, f"unknown paytable spot '{spot}' for {game.game} (known: {names})"))
            continue
        table = known.get(name)
        if table is None:
            problems.append(doc.problem(path, f"no paytable named {name!r} in {folder}"))
        elif (table.game, table.spot) != (game.game, spot):
            problems.append(
                doc.problem(path, f"paytable '{name}' is for {table.game} {table.spot}, not {game.game} {spot}")
            )
        else:
            chosen[spot] = table
    for spot in game.paytable_spots:
        if spot.required and spot.name not in raw:
            problems.append(doc.problem(("paytables",), f"missing paytable for '{spot.name}'"))
    return chosen


def _options(
    doc: YamlDoc, game: GameCatalog, data: Mapping[object, object], problems: list[Problem]
) -> dict[str, object]:
    options: dict[str, object] = {}
    for option in game.options:
        value = data.get(option.name, option.default)
        path = (option.name,)
        if option.type == "int":
            if isinstance(value, bool) or not isinstance(value, int) or not option.minimum <= value <= option.maximum:
                shown = str(value)[:40] if isinstance(value, int) else repr(value)
                problems.append(
                    doc.problem(
                        path,
                        f"{option.help}: must be a whole number from {option.minimum} to {option.maximum}, got {shown}",
                    )
                )
                continue
            if option.fixed and value != option.default:
                problems.append(
                    doc.problem(path, f"{option.help}: fixed at {option.default} by {option.fixed}, got {value!r}")
                )
                continue
        elif option.type == "bool":
            if not isinstance(value, bool):
                problems.append(doc.problem(path, f"{option.help}: must be true or false, got {value!r}"))
                continue
        elif option.type == "choice":
            if value not in option.choices:
                problems.append(
                    doc.problem(path, f"{option.help}: must be one of {', '.join(option.choices)}, got {value!r}")
                )
                continue
        else:
            try:
                value = parse_odds(value)
            except OddsError as exc:
                problems.append(doc.problem(path, str(exc)))
                continue
        options[option.name] = value
    return options


def _journal(doc: YamlDoc, raw: object, problems: list[Problem]) -> JournalConfig:
    raw = doc.section(
        "journal", raw, "journal must be a mapping (path, hmac_key_file, retention_days)", problems, _JOURNAL_KEYS
    )
    if raw is None:
        return JournalConfig()
    for key in ("path", "hmac_key_file"):
        if key in raw and not isinstance(raw[key], str):
            problems.append(doc.problem(("journal", key), f"journal.{key} must be a path, got {raw[key]!r}"))
    days = raw.get("retention_days", 90)
    if isinstance(days, bool) or not isinstance(days, int) or not 1 <= days <= 36_500:
        problems.append(
            doc.problem(
                ("journal", "retention_days"),
                f"retention_days must be a whole number of days, 1 to 36500, got {str(days)[:40]}",
            )
        )
        days = 90
    key_file = raw.get("hmac_key_file")
    if isinstance(key_file, str):
        key_file = str(doc.path.parent / key_file)
    path = raw.get("path")
    if isinstance(path, str):  # relative to the config file, like every other path in it
        path = str(doc.path.parent / path)
    return JournalConfig(path if isinstance(path, str) else None, key_file if isinstance(key_file, str) else None, days)


def load_table(path: Path | str) -> TableConfig:
    """Load and validate the table config at ``path`` and the paytables it names."""
    doc = load_yaml(path)
    data = doc.mapping("a table config must be a mapping")
    problems: list[Problem] = []
    name = data.get("game")
    game = definition(name).catalog if isinstance(name, str) and name in GAMES else None
    if game is None:
        problems.append(
            doc.problem(("game",), f"unknown or missing game {data.get('game')!r} (known: {', '.join(names())})")
        )
        raise ConfigError(problems)
    problems += doc.unknown_keys((), data, _KEYS | {o.name for o in game.options})
    seats = data.get("seats")
    if isinstance(seats, bool) or not isinstance(seats, int) or not 1 <= seats <= 7:
        problems.append(doc.problem(("seats",), f"seats must be a whole number from 1 to 7, got {seats!r}"))
    cap = data.get("payout_cap")
    if cap is not None:
        cap = _cents(doc, ("payout_cap",), cap, problems)
    table = TableConfig(
        path=str(doc.path.resolve()),
        game=game.game,
        name=str(data.get("name", game.game)),
        seats=seats if isinstance(seats, int) else 0,
        paytables=_paytables(
            doc, game, data.get("paytables"), problems, doc.path.parent / str(data.get("paytables_dir", "paytables"))
        ),
        limits=_limits(doc, game, data.get("limits"), problems),
        payout_cap=cap,
        options=_options(doc, game, data, problems),
        devices=_devices(doc, data.get("devices"), problems),
        journal=_journal(doc, data.get("journal"), problems),
        display=_display(doc, data.get("display"), problems),
        floor=parse_floor(doc, data.get("floor"), problems),
        roster=_roster(doc, data.get("roster"), problems),
    )
    problems.extend(_half_offered(doc, game, data))
    problems.extend(_multiples_fit(doc, game, table.limits, table.options))
    problems.extend(_optional_minimums(doc, game, table))
    if "limits" in data and isinstance(data["limits"], dict):
        for spot in game.wager_spots:
            if spot not in table.limits and spot not in data["limits"] and table.offers(spot):
                problems.append(doc.problem(("limits",), f"missing the limits of the '{spot}' wager (min and max)"))
    if problems:
        raise ConfigError(problems)
    return replace(table, sha256=_table_digest(doc, table.paytables))


def _roster(doc: YamlDoc, raw: object, problems: list[Problem]) -> Roster | None:
    """The roster the config names (a file beside it, or a path), its problems with its own lines."""
    if raw is None:
        return None
    if not isinstance(raw, str) or not raw.strip():
        problems.append(doc.problem(("roster",), "roster must name the roster file (e.g. roster.yaml)"))
        return None
    try:
        return load_roster(doc.path.parent / raw)
    except ConfigError as exc:
        problems.extend(exc.problems)
        return None


def _half_offered(doc: YamlDoc, game: GameCatalog, data: Mapping[object, object]) -> list[Problem]:
    """An optional wager the config offers (its limits or one of its paytables given) without every
    paytable that settles it: each round with it would hold and could only be voided."""
    problems: list[Problem] = []
    limits, paytables = data.get("limits"), data.get("paytables")
    limits = limits if isinstance(limits, dict) else {}
    paytables = paytables if isinstance(paytables, dict) else {}
    for spot in game.wager_spots:
        needed = [p.name for p in game.paytable_spots if p.needs_wager == spot]
        missing = [name for name in needed if name not in paytables]
        given = [name for name in needed if name in paytables]
        if not missing or (spot not in limits and not given):
            continue
        where = ("limits", spot) if spot in limits else ("paytables", given[0])
        lacking = " and ".join(f"paytables.{name}" for name in missing)
        offered = [f"limits.{spot}"] * (spot in limits) + [f"paytables.{name}" for name in given]
        problems.append(
            doc.problem(
                where,
                f"the {spot} wager is offered without {lacking} to settle it: "
                f"add {lacking}, or remove {' and '.join(offered)}",
            )
        )
    return problems


def _multiples_fit(
    doc: YamlDoc, game: GameCatalog, limits: Mapping[str, Limit], options: Mapping[str, object]
) -> list[Problem]:
    """A wager the rules tie to a multiple of another (Mississippi Stud's street bets: 1x to 3x the
    ante; Boston 5's first wager: ``first_to_ante`` times the ante, and the second equal to it;
    Three Card Poker's play wager: the ante) whose limits do not hold every amount the rules allow:
    its maximum below the most the rules allow at the other's maximum, or its minimum above the
    least they allow at the other's minimum. The table would take such a bet and could not settle it."""
    problems: list[Problem] = []
    for m in game.multiples:
        spot, of = limits.get(m.spot), limits.get(m.of)
        if spot is None or of is None:
            continue
        times, least = m.times, m.least
        if m.times_option:
            value = options.get(m.times_option)
            if isinstance(value, bool) or not isinstance(value, int):
                continue  # refused with its own problem
            times = least = value
        how = f"exactly {times}" if times == least else f"{least} to {times}"
        if spot.max < times * of.max:
            problems.append(
                doc.problem(
                    ("limits", m.spot, "max"),
                    f"max {spot.max} is below {times} x the {m.of} max ({times * of.max}): {m.rule} lets a player "
                    f"bet up to {times} times the {m.of}, a bet the table could not settle; raise it, or lower the {m.of} max",
                )
            )
        if spot.min > least * of.min:
            problems.append(
                doc.problem(
                    ("limits", m.spot, "min"),
                    f"min {spot.min} is above {least} x the {m.of} min ({least * of.min}): {m.rule} makes the "
                    f"{m.spot} wager {how} times the {m.of}, so a {m.of} of {of.min} takes a {m.spot} wager of "
                    f"{least * of.min} the table could not settle; lower it to {least * of.min} or less, or raise "
                    f"the {m.of} min",
                )
            )
    return problems


def _optional_minimums(doc: YamlDoc, game: GameCatalog, table: TableConfig) -> list[Problem]:
    """A game with a ``bonus_minimum`` or ``envy_minimum`` setting (pai gow): a bonus wager the table
    limits allow below the table's ``bonus_minimum`` (settlement refuses it, 11.15(b)), and an envy
    paytable no bonus wager within the limits can reach (``envy_minimum``, 11.15(c))."""
    if "bonus" not in table.limits or not {"bonus_minimum", "envy_minimum"} & {o.name for o in game.options}:
        return []
    problems: list[Problem] = []
    bonus = table.limits["bonus"]
    least = table.options.get("bonus_minimum")
    if isinstance(least, int) and not isinstance(least, bool) and bonus.min < least:
        problems.append(
            doc.problem(
                ("limits", "bonus", "min"),
                f"min {bonus.min} is below the table's bonus_minimum ({least}): 11.15(b) and the bonus_minimum "
                f"option make a bonus wager at least {least}, so a bonus of {bonus.min} would be taken that the "
                f"table could not settle; raise it to {least}, or lower bonus_minimum",
            )
        )
    envy = table.options.get("envy_minimum")
    if "envy" in table.paytables and isinstance(envy, int) and not isinstance(envy, bool) and bonus.max < envy:
        problems.append(
            doc.problem(
                ("limits", "bonus", "max"),
                f"max {bonus.max} is below the envy minimum ({envy}): 11.15(c) gives an envy marker only to a bonus "
                f"wager of {envy} or more, so the envy paytable could never be paid; raise it, or remove paytables.envy",
            )
        )
    return problems


def _table_digest(doc: YamlDoc, paytables: Mapping[str, Paytable]) -> str:
    digest = hashlib.sha256(b"table\n" + doc.sha256.encode())
    for spot, paytable in sorted(paytables.items()):
        try:
            content = Path(paytable.file).read_bytes()
        except OSError:
            content = b""
        digest.update(f"\n{spot}\n{paytable.name}\n".encode() + hashlib.sha256(content).hexdigest().encode())
    return digest.hexdigest()


_DISPLAY_LEAST = {"lines": 3, "columns": 16}
"""The least of each display setting."""


def _display(doc: YamlDoc, raw: object, problems: list[Problem]) -> DisplayConfig:
    raw = doc.section("display", raw, "display is {lines: N, columns: N}", problems)
    if raw is None:
        return DisplayConfig()
    values = {"lines": 4, "columns": 40}
    for key, value in raw.items():
        least = _DISPLAY_LEAST.get(key) if isinstance(key, str) else None
        if not isinstance(key, str) or least is None:
            problems.append(doc.problem(("display", key), f"unknown key '{key}' (known: columns, lines)"))
        elif isinstance(value, bool) or not isinstance(value, int) or not least <= value <= 255:
            problems.append(
                doc.problem(("display", key), f"{key} must be a whole number from {least} to 255, got {value!r}")
            )
        else:
            values[key] = value
    return DisplayConfig(**values)

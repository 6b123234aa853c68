"""Write ``docs/configuration.md``: every key of a table config and of a paytable file, from the
validators' own key sets (:func:`controller.configuration.known_keys`) and the game settings of each game's
catalog (:class:`controller.wagers.Option`).

A key the validator accepts without a description here, or a description of a key it no longer
accepts, is an error: the page cannot go stale unnoticed (``tests/test_configuration_doc.py``).
``python -m controller.docgen.configuration`` writes the page.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from controller.configuration import known_keys
from controller.game.registry import definition, names, table_names
from controller.wagers import Option

__all__ = ["DocError", "render", "main"]

DOC = Path(__file__).resolve().parent.parent.parent / "docs" / "configuration.md"


class DocError(Exception):
    """A key the validator takes has no description, or a description names a key it refuses."""


@dataclass(frozen=True, slots=True)
class Section:
    """One mapping of a config file: its YAML path, the keys its validator takes, what each means."""

    path: str
    title: str
    keys: frozenset[str]
    meaning: Mapping[str, str]


def _games() -> str:
    """The games a table config may name (dealt at a table), as the page lists them."""
    *most, last = (f"`{name}`" for name in sorted(table_names()))
    return f"{', '.join(most)} or {last}" if most else last


TABLE_KEYS = {
    "game": f"the game: {_games()} (required)",
    "name": "the table's name, as the dealer, the recall and the pit view show it",
    "seats": "the number of betting positions, seat 1 farthest to the dealer's left (required)",
    "paytables": "for each paytable spot of the game, the name of a paytable in `paytables_dir` (required "
    "spots must be named; an optional wager is offered only with every paytable it needs: a config with "
    "the wager's limits or one of its paytables but not all of them is refused)",
    "paytables_dir": "the folder of paytable files, relative to the config file (default: `paytables/` beside it)",
    "limits": "`{min: CENTS, max: CENTS}` for every wager spot the table offers (required; a minimum below "
    "the regulation's is refused; and limits under which a legal wager could not be settled are refused, with "
    "file, line and paragraph: Mississippi Stud: a street's maximum below 3 x the ante's, or its minimum above "
    "the ante's, 35.10(a), (e), (g): a street bet is 1x to 3x the ante; Boston 5: the first and second wagers' "
    "limits must hold `first_to_ante` x every legal ante (24.10(b): the second equals the first); Three Card "
    "Poker: the play wager's limits must hold every legal ante (20.6); pai gow: the bonus minimum may not be "
    "below `bonus_minimum` (11.15(b)), and with an `envy` paytable the bonus maximum may not be below "
    "`envy_minimum` (11.15(c)))",
    "payout_cap": "the aggregate payout per seat and round on the wagers the game's rule caps, in cents (absent: no "
    "cap): Mississippi Stud's ante and street bets (digest 2.6; never the 3-card bonus), every wager in the other "
    "games",
    "devices": "the table's three devices: `shoe`, `bet_spots` and `panel` (below)",
    "journal": "where the journal is kept and how it is signed (below)",
    "display": "the dealer display's size until the panel reports its own: `{lines, columns}`",
    "floor": "where the table publishes its journal for the floor (below; absent: it does not)",
    "roster": "the roster file (beside the config, or a path): who signs in at the panel, by PIN or badge (below; "
    "absent: nobody signs in and the supervisor's key alone authorizes; present: a dealer must be signed in for "
    '"no more bets", and a signed-in supervisor for each supervisor act)',
}

DEVICE_KEYS = {
    "driver": "the driver by name (`shoe`, `bet_spots`, `panel`, or one added by a `tablectl.drivers` entry point)",
    "url": "the port as a pyserial URL: a device path (`/dev/tablectl/shoe`), `socket://HOST:PORT`, or "
    "`sim://NAME` for a simulator the bench starts (`run` refuses `sim://`; `bench` refuses anything else, "
    "since it serves its own simulators)",
    "baudrate": "the serial speed, 1 to 4,000,000 (default 115200)",
    "poll_interval_s": "seconds between polls, above 0 and at most 10 (default 0.05); once the table has been idle "
    "for 5 s, every 0.2 s or this, whichever is longer (docs/protocol.md, section 4.1)",
    "address": "the device's bus address, 1 to 126 (default: 1 shoe, 2 bet spots, 3 panel)",
    "log_interval_s": "the link's problem counters (timeouts, garbage bytes, retries, reconnects) are logged when "
    "they changed, at most once in this many seconds: above 0 and at most 3600 (default 10)",
}

JOURNAL_KEYS = {
    "path": "the journal file, relative to the config file (default: `tablectl-journal/GAME.db` under the working "
    "folder for `bench`, `/var/lib/tablectl/GAME.db` for `run`)",
    "hmac_key_file": "a key file (mode 0600, relative to the config file): every record is signed with "
    "HMAC-SHA-256 instead of a plain SHA-256 chain, by `run` and `bench` alike (a key readable by others is refused)",
    "retention_days": "rounds younger than this are never pruned, 1 to 36,500 (default 90)",
}

DISPLAY_KEYS = {
    "lines": "the display's lines, 3 to 255 (default 4)",
    "columns": "the display's columns in characters, 16 to 255 (default 40)",
}

FLOOR_KEYS = {
    "table_id": "the table's id on the floor: one NATS subject token (letters, digits, `_`, `-`)",
    "servers": "the NATS server URLs, one or a list",
    "credentials": "the table's NATS credentials file, made by `tablectl floor add-table` (an nkey seed; or a "
    "`.creds` file with a JWT); relative to the config file; mode 0600",
    "ca": "the CA file that signed the brokers' certificates (`tablectl floor make-certs`): TLS to the brokers",
    "cert": "a client certificate, for brokers that verify clients (optional)",
    "key": "the client certificate's private key (with `cert`)",
    "subject_prefix": "the first tokens of the table's subjects (default `floor`)",
    "signing_key": "the table's Ed25519 signing key (`tablectl floor signing-key`, a PEM file, mode 0600, relative "
    "to the config file): every record published is signed with it, and the floor, holding its public key "
    "(`tablectl floor add-table --db`), stores only records signed with it",
    "table_share": "the table's share of the floor stream: messages the stream keeps waiting for the table on one of "
    "its subjects; the same number as the floor's `--table-share` (`floor create-stream`, `floor ingest`, `floor "
    "serve`; default 1,000 on both sides). The table sends at most three quarters of it past what the floor "
    "confirmed storing, so the broker never refuses its records: a smaller number wastes room, a larger one gets "
    "refusals and records sent again (logged once). A whole number, 1 to 1,000,000",
}

ROSTER_KEYS = {
    "people": "who may sign in at the table's panel: a list (below; at least one); the file is read by its owner "
    "only (mode 0600 or 0400: one its group or others can read or write is refused)",
    "lockout": "`attempts` (wrong PINs in a row, 1-20, default 5) lock that id out for `minutes` (1-1440, default 5)",
}

PERSON_KEYS = {
    "id": "what the journal, `recall` and `export` name: 1-32 letters, digits, `.`, `_`, `-` (unique ignoring letter case; keyed at the panel in either case); digits alone in quotes (`id: '0042'`)",
    "name": "what the dealer's screen, the table page and the pit show (1-64 characters)",
    "role": "`dealer` (signs in to deal) or `supervisor` (signs in to authorize the supervisor's acts)",
    "pin_hash": "the scrypt hash of the person's PIN, printed by `tablectl roster hash-pin` (never the PIN); its work N*r*p at most 262144, what `hash-pin` writes",
    "badges": "the badge ids the panel's reader may read for this person (unique on the roster ignoring letter case, and none equal to an id: ids are public); give every supervisor one (`roster check` warns)",
}

PAYTABLE_KEYS = {
    "name": "the paytable's name, as a table config names it (required)",
    "game": "the game it is for (required)",
    "spot": "the game's paytable spot it pays (required)",
    "approved": "whether the regulator approved it (required; `tablectl run` refuses unapproved tables "
    "without `--allow-unapproved`)",
    "source": "where the table comes from (required)",
    "cap": "the most the spot pays a seat in one round, in cents",
    "rows": "the lines, best first (required; below)",
}

ROW_KEYS = {
    "hand": "the hand category (e.g. `royal_flush`, `one_pair`)",
    "pays": "the odds (`500 to 1`) or `push`",
    "amount": "a fixed amount in cents, for the tables that pay amounts (the envy bonus)",
    "ranks": "the ranks a row is narrowed to (e.g. `[J, Q, K, A]` for jacks or better)",
}


def _sections() -> list[Section]:
    # The key sets are the validators' own: a key added there without a line here is an error.
    keys = known_keys()
    return [
        Section("", "The table (top level)", keys["table"], TABLE_KEYS),
        Section(
            "devices.ROLE",
            "A device (`devices.shoe`, `devices.bet_spots`, `devices.panel`)",
            keys["device"],
            DEVICE_KEYS,
        ),
        Section("journal", "The journal (`journal:`)", keys["journal"], JOURNAL_KEYS),
        Section(
            "display",
            "The display (`display:`)",
            keys["display"],
            DISPLAY_KEYS,
        ),
        Section("floor", "The floor link (`floor:`)", keys["floor"], FLOOR_KEYS),
        Section("(roster file)", "A roster file (the file `roster:` names)", keys["roster"], ROSTER_KEYS),
        Section("people[N]", "A person on the roster (`people:`)", keys["person"], PERSON_KEYS),
        Section(
            "paytables[N]",
            "A paytable (in a paytable file's `paytables:` list)",
            keys["paytable"],
            PAYTABLE_KEYS,
        ),
        Section("paytables[N].rows[N]", "A paytable row", keys["row"], ROW_KEYS),
    ]


def _check(sections: Iterable[Section]) -> None:
    problems = []
    for s in sections:
        if missing := sorted(s.keys - set(s.meaning)):
            problems.append(f"{s.title}: no description for {', '.join(missing)}")
        if unknown := sorted(set(s.meaning) - s.keys):
            problems.append(f"{s.title}: described but not taken by the validator: {', '.join(unknown)}")
    if problems:
        raise DocError("; ".join(problems))


def _option_line(o: Option) -> str:
    kind = {"int": "a whole number", "odds": "odds (`N to M`)", "bool": "true or false"}.get(o.type, o.type)
    if o.type == "choice":
        kind = "one of " + ", ".join(f"`{c}`" for c in o.choices)
    elif o.type == "int":
        kind += f", {o.minimum} to {o.maximum:,}"
    fixed = f" **Fixed by {o.fixed}**: the setting may only repeat it." if o.fixed else ""
    return f"| `{o.name}` | {o.help} | {kind} | `{o.default}` |{fixed}"


def render() -> str:
    """The whole page, as the validators and the catalog have it now."""
    sections = _sections()
    _check(sections)
    out = [
        "# Configuration",
        "",
        "<!-- Generated by `python -m controller.docgen.configuration` from the validators' key sets;",
        "     tests/test_configuration_doc.py fails when it is stale. Edit controller/docgen/configuration.py. -->",
        "",
        "A table is one YAML file (`config/<game>.yaml` are the shipped examples; `config/bench/` the bench",
        "tables); the paytables it names are in paytable files (`config/paytables/*.yaml`). Amounts are",
        "cents. Loading checks everything and reports every problem with file, line and key (exit 2);",
        "a key not listed here is refused. What the regulation fixes (minimums, required pushes) is a",
        "rule, not a setting: a value that breaks it is refused.",
        "",
        "The loader also refuses, each with file and line: files over 256 KiB, binary or non-UTF-8 text,",
        "anchors and aliases, nesting deeper than 32 levels or more than 50,000 values, and a key given",
        "twice in one mapping. Every amount is at most 1,000,000,000 cents and odds at most 1,000,000 to 1.",
        "",
        "Casinos choose among approved paytables, so no paytable lives in code. The shipped ones come from",
        "the regulations digest, each with its `source`, and are all `approved: false`; the Boston 5 ante",
        "bonus table (`b5_ante_bonus_example`) and the pai gow insurance table (`pg_insurance_example`) are",
        "named examples, since the NJ tables are not in our material. The rule constants (the bonus",
        "minimum of 11.15(b), the envy minimum of 11.15(c), Mississippi Stud's 6s-10s push of 35.10(i)2)",
        "are in each game's definition (`controller/game/<name>/`); a table may be stricter only where the",
        "regulation allows it.",
    ]
    for s in sections:
        out += ["", f"## {s.title}", "", "| key | meaning |", "|---|---|"]
        out += [f"| `{k}` | {s.meaning[k]} |" for k in sorted(s.keys, key=list(s.meaning).index)]
    out += ["", "## Game settings (top level, per game)", ""]
    for game, catalog in ((name, definition(name).catalog) for name in names()):
        out += [
            f"### `{game}`",
            "",
            f"Wager spots: {', '.join(f'`{w}`' for w in catalog.wager_spots)}.",
            "Paytable spots: "
            + ", ".join(
                f"`{p.name}` ({'required' if p.required else 'offers the `' + str(p.needs_wager) + '` wager'})"
                for p in catalog.paytable_spots
            )
            + ".",
        ]
        if catalog.options:
            out += ["", "| setting | meaning | value | default |", "|---|---|---|---|"]
            out += [_option_line(o) for o in catalog.options]
        out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    """Write the page (or, with ``--check``, exit 1 when it differs from what would be written)."""
    args = sys.argv[1:] if argv is None else argv
    text = render()
    if "--check" in args:
        return 0 if DOC.exists() and DOC.read_text(encoding="utf-8") == text else 1
    DOC.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

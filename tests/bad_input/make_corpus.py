"""Write the bad-input corpus (this folder) and its manifest, ``cases.json``.

Run from the repository: ``.venv/bin/python tests/bad_input/make_corpus.py``. The output is
committed; ``tests/test_bad_input.py`` runs every case. Each case is one ``tablectl`` command
line on one bad input, with the exit status it must give (2: bad input; 1: a journal that is
damaged or was changed) and the words its message must hold to name the place (file and line,
JSON path, line of input, the file, the option).

In a case, ``{case}`` is this folder, ``{tmp}`` a fresh temporary folder; ``files`` are copied
there first (``[source in journals/, name, mode]``; ``{root}`` in a copied ``.yaml`` becomes the
repository), and every copied journal must be byte-for-byte the same afterwards (``writer``:
the command may write, as ``journal prune`` does, but only when the journal verifies).
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
TABLECTL = [sys.executable, "-m", "controller"]
CASES: list[dict[str, Any]] = []

MS = (ROOT / "config" / "mississippi_stud.yaml").read_text()
PAYTABLES = "paytables_dir: ../../../config/paytables\n"
BASE = MS.split("devices:")[0] + PAYTABLES  # the shipped table, its paytables by relative path, no devices


def case(name: str, argv: list[str], exit: int, expect: list[str], **more: Any) -> None:
    CASES.append({"name": name, "argv": argv, "exit": exit, "expect": expect, **more})


def write(rel: str, content: str | bytes) -> str:
    path = HERE / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return rel


def text_cases() -> None:
    """Configs, paytables, round records, rank input and arguments: text files and their cases."""
    # --- configs: loaded by `tablectl run --config` (a config it accepted would open ports) --------

    def config(name: str, content: str | bytes, expect: list[str], command: str = "run") -> None:
        rel = write(f"configs/{name}.yaml", content)
        if command == "run":
            argv = ["run", "--config", "{case}/" + rel, "--journal", "{tmp}/j.db"]
        else:
            argv = ["bench", "--config", "{case}/" + rel, "--rounds", "1", "--quiet", "--journal", "{tmp}/j.db"]
        case(f"config-{name}", argv, 2, [f"{name}.yaml", *expect])

    def replace_line(text: str, old: str, new: str) -> str:
        assert old in text, old
        return text.replace(old, new, 1)

    N = BASE.count("\n") + 1  # the line of anything appended to BASE
    bomb = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 9)}]\n" for p, c in zip("abcdefgh", "bcdefghi")
    )
    config("alias-bomb", bomb, [":1:", "anchors and aliases"])
    config("alias-bomb-in-table", BASE + "x: " + bomb.split("\n", 1)[0][3:] + "\n", ["anchors and aliases"])
    config("anchor-simple", BASE.replace("seats: 6", "seats: &s 6"), [":4:", "anchors and aliases"])
    config(
        "merge-key", BASE + "defaults: &d {min: 1, max: 2}\nother:\n  <<: *d\n", ["anchors and aliases", "not allowed"]
    )
    config("duplicate-top-key", BASE + "seats: 5\n", [f":{N}:", "duplicate key 'seats'", "line 4"])
    config(
        "duplicate-nested-key",
        replace_line(
            BASE, "  ante: {min: 500, max: 10000}\n", "  ante: {min: 500, max: 10000}\n  ante: {min: 1, max: 2}\n"
        ),
        [":10:", "duplicate key 'ante'"],
    )
    config(
        "duplicate-flow-key",
        BASE.replace("{min: 500, max: 10000}", "{min: 500, min: 600, max: 10000}"),
        [":9:", "'min'"],
    )
    config("deep-nesting", "x: " + "[" * 5000 + "]" * 5000 + "\n", [":1:", "nested deeper than"])
    config(
        "deep-nesting-block", "".join("  " * i + f"k{i}:\n" for i in range(60)) + "  " * 60 + "v\n", ["nested deeper"]
    )
    config("too-big", BASE + ("# " + "x" * 98 + "\n") * 2700, ["bytes", "at most 262144"])
    config("binary", b"game: mississippi_stud\n\x00\x01\x02\xff\xfe", [":2:", "binary file"])
    config("latin-1", BASE.replace("(bench)", "(caf\xe9)").encode("latin-1"), [":3:", "not UTF-8", "0xe9"])
    config("utf-16", BASE.encode("utf-16"), [":1:", "binary file"])
    config("gzip", bytes.fromhex("1f8b0800000000000003") + bytes(range(256)), [":1:", "binary file"])
    config("empty", "", ["a table config must be a mapping"])
    config("only-comments", "# nothing here\n", ["a table config must be a mapping"])
    config("top-list", "- game: mississippi_stud\n", ["a table config must be a mapping"])
    config("top-scalar", "mississippi_stud\n", ["a table config must be a mapping"])
    config("multi-document", BASE + "---\ngame: boston5\n", [f":{N}:", "another document"])
    config("syntax-unclosed", BASE + "x: [1, 2\n", [f":{N + 1}:", "(syntax)"])
    config("syntax-tab-indent", "game: mississippi_stud\nlimits:\n\tante: 1\n", [":3:", "(syntax)"])
    config("syntax-bad-indent", "game: mississippi_stud\n  seats: 6\n seats2: 1\n", [":2:", "(syntax)"])
    config("control-character", BASE + "name2: a\x07b\n", [f":{N}:", "(syntax)"])
    config(
        "python-tag",
        BASE + "x: !!python/object/apply:os.system [ls]\n",
        [f":{N}:", "could not determine a constructor"],
    )
    config("unknown-tag", BASE + "x: !secret 1\n", [f":{N}:", "constructor"])
    config("bigint-5000-digits", BASE.replace("seats: 6", "seats: " + "9" * 5000), ["cannot read a value"])
    config("unhashable-key", BASE + "? [a, b]\n: 1\n", [f":{N}:", "plain text or a number"])
    config("no-limits", BASE.split("limits:")[0] + "payout_cap: 5000000\n" + PAYTABLES, ["limits: is required"])
    config("limits-not-mapping", replace_line(BASE, "limits:\n", "limits: 5\nx:\n"), [":8:", "limits must map"])
    config("limits-null", replace_line(BASE, "limits:\n", "limits: null\nx:\n"), ["limits: is required"])
    config("limits-missing-spot", replace_line(BASE, "  fifth: {min: 500, max: 30000}\n", ""), ["'fifth' wager"])
    config("limit-min-above-max", BASE.replace("{min: 500, max: 10000}", "{min: 900, max: 100}"), [":9:", "above max"])
    config(
        "limit-huge", BASE.replace("max: 10000}", "max: 100000000000000000000000000}"), [":9:", "at most 1000000000"]
    )
    config(
        "limit-negative", BASE.replace("{min: 500, max: 10000}", "{min: -5, max: 10000}"), [":9:", "limits.ante.min"]
    )
    config("limit-float", BASE.replace("{min: 500, max: 10000}", "{min: 5.5, max: 10000}"), [":9:", "whole number"])
    config("limit-string", BASE.replace("{min: 500, max: 10000}", "{min: five, max: 10000}"), [":9:", "'five'"])
    config("limit-extra-key", BASE.replace("{min: 500, max: 10000}", "{min: 5, max: 10, avg: 7}"), [":9:", "{min"])
    config("limit-unknown-spot", replace_line(BASE, "limits:\n", "limits:\n  straddle: {min: 1, max: 2}\n"), [":9:"])
    config("payout-cap-huge", BASE.replace("payout_cap: 5000000", "payout_cap: 10000000000000"), [":14:", "payout_cap"])
    config("payout-cap-zero", BASE.replace("payout_cap: 5000000", "payout_cap: 0"), [":14:", "payout_cap"])
    config("seats-zero", BASE.replace("seats: 6", "seats: 0"), [":4:", "seats must be"])
    config("seats-huge", BASE.replace("seats: 6", "seats: 100000000000000000000000000"), [":4:", "seats must be"])
    config("seats-text", BASE.replace("seats: 6", "seats: six"), [":4:", "'six'"])
    config("seats-bool", BASE.replace("seats: 6", "seats: yes"), [":4:", "True"])
    config("game-unknown", BASE.replace("game: mississippi_stud", "game: baccarat"), [":2:", "'baccarat'"])
    config("game-missing", BASE.replace("game: mississippi_stud\n", ""), ["unknown or missing game"])
    config(
        "game-list", BASE.replace("game: mississippi_stud", "game: [mississippi_stud]"), [":2:", "unknown or missing"]
    )
    config("unknown-key", BASE + "sets: 6\n", [f":{N}:", "unknown key 'sets'"])
    config("paytables-missing", replace_line(BASE, "  main: ms_main_standard\n", ""), ["missing paytable for 'main'"])
    config("paytable-unknown", BASE.replace("ms_main_standard", "ms_main_nope"), [":6:", "'ms_main_nope'"])
    config(
        "bonus-without-paytable",
        replace_line(BASE, "  bonus: ms_bonus_3card\n", ""),
        [":12:", "the bonus wager is offered without paytables.bonus"],
    )
    config("paytable-wrong-game", BASE.replace("ms_main_standard", "b5_bonus_a"), [":6:", "b5_bonus_a"])
    config("paytables-dir-missing", BASE.replace("../../../config/paytables", "../nowhere"), ["paytables"])
    config(
        "devices-bad-baud",
        BASE + "devices:\n  shoe: {driver: shoe, url: /dev/null, baudrate: -1}\n",
        [f":{N + 1}:", "baudrate"],
    )
    config(
        "devices-huge-baud",
        BASE + "devices:\n  shoe: {driver: shoe, url: /dev/null, baudrate: 99999999999999999999}\n",
        [f":{N + 1}:", "baudrate"],
    )
    config(
        "devices-unknown-role", BASE + "devices:\n  dice: {driver: shoe, url: /dev/null}\n", [f":{N + 1}:", "'dice'"]
    )
    config(
        "devices-poll-zero",
        BASE + "devices:\n  shoe: {driver: shoe, url: x, poll_interval_s: 0}\n",
        ["poll_interval_s"],
    )
    config(
        "devices-address", BASE + "devices:\n  shoe: {driver: shoe, url: x, address: 300}\n", [f":{N + 1}:", "address"]
    )
    config("devices-not-mapping", BASE + "devices: [shoe]\n", [f":{N}:", "devices must map"])
    config("journal-retention-zero", BASE + "journal: {retention_days: 0}\n", [f":{N}:", "retention_days"])
    config("journal-retention-huge", BASE + "journal: {retention_days: 99999999999999999999}\n", ["retention_days"])
    config("journal-key-not-text", BASE + "journal: {hmac_key_file: [a]}\n", [f":{N}:", "hmac_key_file"])
    config("journal-unknown-key", BASE + "journal: {path: x.db, color: red}\n", [f":{N}:", "'color'"])
    config(
        "sim-url-under-run",
        BASE + "devices:\n  shoe: {driver: shoe, url: 'sim://shoe'}\n  bet_spots: {driver: bet_spots, url: x}\n"
        "  panel: {driver: panel, url: y}\n",
        [f":{N + 1}:", "tablectl bench"],
    )
    B5 = (ROOT / "config" / "boston5.yaml").read_text().split("devices:")[0] + PAYTABLES
    config(
        "option-huge-multiple",
        B5.replace("first_to_ante: 2 ", "first_to_ante: 100000000000000000000000000 "),
        ["first_to_ante"],
    )
    config(
        "odds-5000-digits",
        B5.replace("first_second_pays: 1 to 1", "first_second_pays: " + "9" * 5000 + " to 1"),
        ["out of range"],
    )
    config("odds-huge", B5.replace("first_second_pays: 1 to 1", "first_second_pays: 10000000 to 1"), ["out of range"])
    config("odds-for", B5.replace("first_second_pays: 1 to 1", "first_second_pays: 2 for 1"), ["'N to M', not 'for'"])
    config("odds-negative", B5.replace("first_second_pays: 1 to 1", "first_second_pays: -1 to 1"), ["negative"])
    config(
        "odds-zero-denominator",
        B5.replace("first_second_pays: 1 to 1", "first_second_pays: 1 to 0"),
        ["divide by zero"],
    )
    PG = (ROOT / "config" / "pai_gow.yaml").read_text().split("devices:")[0] + PAYTABLES
    config("choice-unknown", PG.replace("house_way: foxwoods", "house_way: vegas"), [":5:", "house_way", "'vegas'"])
    config(
        "bool-option-text",
        PG.replace("house_way_deuces_exception: false", "house_way_deuces_exception: maybe"),
        [":6:"],
    )
    config("commission-huge", PG.replace("commission_percent: 5", "commission_percent: 1000"), [":8:", "commission"])
    config("bench-no-devices", BASE, ["devices", "missing: shoe, bet_spots, panel"], command="bench")
    config(
        "bench-no-panel",
        BASE
        + "devices:\n  shoe: {driver: shoe, url: 'sim://shoe'}\n  bet_spots: {driver: bet_spots, url: 'sim://b'}\n",
        ["missing: panel"],
        command="bench",
    )

    # Paytable files: a config naming a folder of bad paytables.
    for name, table, expect in [
        ("alias", "paytables: &p\n  - name: x\nother: *p\n", [":1:", "anchors and aliases"]),
        ("duplicate-key", "paytables:\n  - name: a\n    name: b\n", [":3:", "duplicate key 'name'"]),
        ("not-utf8", b"paytables:\n  - name: caf\xe9\n", [":2:", "not UTF-8"]),
        (
            "cap-huge",
            (ROOT / "config/paytables/mississippi_stud.yaml").read_text().replace("cap: 5000000", "cap: 10**30"),
            ["cap must be"],
        ),
        (
            "odds-huge",
            (ROOT / "config/paytables/mississippi_stud.yaml").read_text().replace("500 to 1", "5000000000000 to 1"),
            ["out of range"],
        ),
    ]:
        write(f"paytables/{name}/p.yaml", table)
        rel = write(f"configs/paytables-{name}.yaml", BASE.replace("../../../config/paytables", f"../paytables/{name}"))
        argv = ["run", "--config", "{case}/" + rel, "--journal", "{tmp}/j.db"]
        case(f"config-paytables-{name}", argv, 2, [f"paytables/{name}/p.yaml", *expect])

    # --- round records: `tablectl settle` ------------------------------------------------------------

    GOOD = {
        "game": "mississippi_stud",
        "seats": {"1": {"wagers": {"ante": 500, "third": 500, "fourth": 500, "fifth": 500}, "cards": "As Ad"}},
        "community": "Ks Kd 2c",
    }

    def record(name: str, content: str | bytes | dict[str, Any], expect: list[str], stdin: bool = False) -> None:
        body = json.dumps(content) if isinstance(content, dict) else content
        rel = write(f"records/{name}.json", body)
        if stdin:
            case(f"record-{name}-stdin", ["settle", "-"], 2, ["<stdin>", *expect], stdin=rel)
        else:
            case(f"record-{name}", ["settle", "{case}/" + rel], 2, [f"{name}.json", *expect])

    record("deep-nesting", "[" * 10000 + "]" * 10000, ["line 1 column 33", "nested deeper than"])
    record("deep-nesting-stdin", '{"a":' * 10000 + "1" + "}" * 10000, ["nested deeper"], stdin=True)
    record("deep-objects-in-seat", json.dumps(GOOD)[:-1] + ', "x": ' + "[" * 40 + "]" * 40 + "}", ["nested deeper"])
    record(
        "not-utf8", b'{"game": "mississippi_stud", "seats": {"1": {"cards": "A\xff"}}}', ["line 1", "not UTF-8", "0xff"]
    )
    record("not-utf8-stdin", b'{"game": "caf\xe9"}', ["not UTF-8"], stdin=True)
    record("utf-16", json.dumps(GOOD).encode("utf-16"), ["not UTF-8"])
    record("empty", "", ["line 1 column 1", "not JSON"])
    record("whitespace", "   \n\n", ["not JSON"])
    record("null", "null", ["$: a round record must be a JSON object"])
    record("list", "[1, 2]", ["$: a round record must be a JSON object"])
    record("string", '"round"', ["$: a round record"])
    record("truncated", json.dumps(GOOD)[:40], ["line 1", "not JSON"])
    record("trailing-garbage", json.dumps(GOOD) + " x", ["not JSON", "Extra data"])
    record("nan", json.dumps(GOOD).replace("500", "NaN", 1), ["NaN"])
    record("infinity", json.dumps(GOOD).replace("500", "-Infinity", 1), ["Infinity"])
    record("duplicate-key", '{"game": "mississippi_stud", "game": "boston5", "seats": {}}', ["duplicate key 'game'"])
    record("bigint-wager", json.dumps(GOOD).replace("500", "9" * 5000, 1), ["$:", "not a round record"])
    record("huge-wager", json.dumps(GOOD).replace("500", "1" + "0" * 30, 1), ["$.seats.1.wagers.ante"])
    record("float-wager", json.dumps(GOOD).replace("500", "500.5", 1), ["$.seats.1.wagers.ante", "500.5"])
    record("negative-wager", json.dumps(GOOD).replace("500", "-500", 1), ["$.seats.1.wagers.ante"])
    record("seat-key-huge", json.dumps({**GOOD, "seats": {"9" * 5000: GOOD["seats"]["1"]}}), ["$.seats.", "no seat"])
    record(
        "seat-key-unicode-digit", json.dumps({**GOOD, "seats": {"\u00b2": GOOD["seats"]["1"]}}), ["$.seats.", "no seat"]
    )
    record("game-list", json.dumps({**GOOD, "game": ["mississippi_stud"]}), ["$.game", "unknown game"])
    record("game-number", json.dumps({**GOOD, "game": 7}), ["$.game"])
    record("unknown-key", json.dumps({**GOOD, "tip": 5}), ["$.tip", "unknown key"])
    record(
        "table-missing", json.dumps({**GOOD, "table": "/nonexistent/ms.yaml"}), ["/nonexistent/ms.yaml", "cannot read"]
    )
    record("table-folder", json.dumps({**GOOD, "table": "/tmp"}), ["/tmp", "cannot read"])
    record(
        "table-binary", json.dumps({**GOOD, "table": "tests/bad_input/configs/binary.yaml"}), ["binary.yaml", "binary"]
    )
    record("table-not-text", json.dumps({**GOOD, "table": 5}), ["$.table", "path"])
    record(
        "table-sha-mismatch",
        # Relative: settle reads it beside the shipped configs, so the record holds no path of this machine.
        json.dumps({**GOOD, "table": "config/mississippi_stud.yaml", "table_sha256": "0" * 64}),
        ["$.table_sha256", "changed since the round"],
    )
    record("cards-bad", json.dumps(GOOD).replace("As Ad", "As Zz"), ["$.seats.1.cards"])
    record("cards-duplicate", json.dumps(GOOD).replace("Ks Kd", "As Kd"), ["also dealt"])
    record("seats-not-object", json.dumps({**GOOD, "seats": [1]}), ["$.seats", "must map seat numbers"])
    record(
        "wagers-not-object", json.dumps({**GOOD, "seats": {"1": {"wagers": 5, "cards": "As Ad"}}}), ["$.seats.1.wagers"]
    )
    record("too-big", json.dumps(GOOD) + " " * (1024 * 1024), ["$:", "at most 1048576 bytes"])
    record("binary-stdin", bytes(range(128, 144)) + b"\x00\xff", ["<stdin>"], stdin=True)
    case(
        "record-check-nothing-paid",
        ["settle", "--check", "{case}/records/check-nothing-paid.json"],
        2,
        ["check-nothing-paid.json", "$.recall.settlement: missing"],
    )
    write("records/check-nothing-paid.json", json.dumps(GOOD))
    case(
        "record-check-paid-not-object",
        ["settle", "--check", "{case}/records/check-paid-not-object.json"],
        2,
        ["check-paid-not-object.json", "$.recall.settlement: must be an object"],
    )
    write("records/check-paid-not-object.json", json.dumps({**GOOD, "recall": {"settlement": [1]}}))
    case("record-missing-file", ["settle", "{tmp}/none.json"], 2, ["none.json", "cannot read", "No such file"])
    case("record-folder", ["settle", "{case}/records"], 2, ["records", "cannot read"])

    # --- rank input: `tablectl rank` on standard input and arguments --------------------------------

    def rank(name: str, content: str | bytes, expect: list[str], game: str = "boston5") -> None:
        rel = write(f"rank/{name}.txt", content)
        case(f"rank-{name}", ["rank", "--game", game], 2, expect, stdin=rel)

    rank("only-blank-lines", "\n\n   \n\t\n", ["no hands to rank", "4 blank or comment lines"])
    rank("only-comments", "# a\n# b\n", ["no hands to rank"])
    rank("empty", "", ["no hands to rank", "held nothing"])
    rank("not-utf8", b"As Kd Qh Jc Ts\n\xff\xfe 2s\n", ["line 2", "not UTF-8"])
    rank("long-line", "As " * 2000 + "\n", ["line 1", "longer than 1000"])
    rank("bad-token", "As Kd Qh Jc Zz\n", ["line 1", "Zz"])
    rank("too-many-cards", "As Kd Qh Jc Ts 9s 8s 7s\n", ["line 1"])
    rank("duplicate-card", "As As Qh Jc Ts\n", ["line 1"])
    rank("joker-not-in-game", "JK Kd Qh Jc Ts\n", ["line 1"])
    rank("bad-third-line", "As Kd Qh Jc Ts\n2s 3s 4s 5s 6s\nXx\n", ["line 3"])
    rank("nul-bytes", b"As Kd\x00 Qh Jc Ts\n", ["line 1"])
    case("rank-arg-bad-card", ["rank", "--game", "boston5", "As Kd Qh Jc Zz"], 2, ["argument 1", "Zz"])
    case("rank-arg-empty", ["rank", "--game", "boston5", ""], 2, ["argument 1"])
    case("rank-args-second-bad", ["rank", "--game", "boston5", "As Kd Qh Jc Ts", "2s 2s"], 2, ["argument 2"])
    case("rank-kind-mismatch", ["rank", "--game", "boston5", "--kind", "three", "As Kd Qh Jc Ts"], 2, ["argument 1"])

    # --- command-line arguments ---------------------------------------------------------------------

    for name, argv, expect in [
        ("no-command", [], ["COMMAND"]),
        ("unknown-command", ["deal"], ["invalid choice: 'deal'"]),
        ("recall-last-zero", ["recall", "--journal", "x.db", "--last", "0"], ["--last", "0: must be from 1"]),
        ("recall-last-negative", ["recall", "--journal", "x.db", "--last", "-3"], ["--last"]),
        ("recall-last-text", ["recall", "--journal", "x.db", "--last", "ten"], ["--last", "'ten'"]),
        ("recall-last-huge", ["recall", "--journal", "x.db", "--last", "9" * 40], ["--last"]),
        ("recall-round-text", ["recall", "--journal", "x.db", "--round", "4a"], ["--round"]),
        ("recall-last-and-round", ["recall", "--journal", "x.db", "--last", "2", "--round", "3"], ["not allowed with"]),
        ("recall-no-journal", ["recall"], ["--journal PATH or --config FILE"]),
        ("recall-journal-missing", ["recall", "--journal", "{tmp}/none.db"], ["none.db", "no journal there"]),
        ("meters-since-garbage", ["meters", "--journal", "x.db", "--since", "yesterday"], ["--since", "yesterday"]),
        ("meters-since-year", ["meters", "--journal", "x.db", "--since", "99999-01-01"], ["--since"]),
        ("prune-days-zero", ["journal", "prune", "--journal", "x.db", "--days", "0"], ["--days"]),
        ("prune-days-huge", ["journal", "prune", "--journal", "x.db", "--days", "1" + "0" * 30], ["--days"]),
        ("journal-no-action", ["journal"], ["ACTION"]),
        ("bench-seats-zero", ["bench", "--seats", "0"], ["--seats"]),
        ("bench-seats-eight", ["bench", "--seats", "8"], ["--seats", "must be from 1 to 7"]),
        ("bench-rounds-negative", ["bench", "--rounds", "-1"], ["--rounds"]),
        ("bench-seed-text", ["bench", "--seed", "x"], ["--seed"]),
        ("bench-game-unknown", ["bench", "--game", "craps"], ["--game", "craps"]),
        ("bench-faults-unknown", ["bench", "--faults", "loud"], ["--faults"]),
        (
            "bench-config-missing",
            ["bench", "--config", "{tmp}/none.yaml", "--rounds", "1"],
            ["none.yaml", "cannot read"],
        ),
        ("run-no-config", ["run"], ["--config"]),
        ("run-config-missing", ["run", "--config", "{tmp}/none.yaml"], ["none.yaml", "cannot read"]),
        ("run-config-folder", ["run", "--config", "{case}/configs"], ["configs", "cannot read"]),
        ("run-log-format", ["run", "--config", "x.yaml", "--log-format", "xml"], ["--log-format"]),
        ("run-log-level", ["run", "--config", "x.yaml", "--log-level", "loud"], ["--log-level", "'loud'"]),
        ("ingest-log-level", ["floor", "ingest", "--nats", "n", "--db", "d", "--log-level", "9"], ["--log-level"]),
        ("rank-no-game", ["rank", "As Kd"], ["--game"]),
        ("rank-kind-unknown", ["rank", "--game", "boston5", "--kind", "nine", "As"], ["--kind"]),
        ("settle-no-record", ["settle"], ["ROUND.json"]),
        ("houseway-bad-cards", ["houseway", "As Kd"], ["As Kd"]),
        ("recall-seat-zero", ["recall", "--journal", "x.db", "--seat", "0"], ["--seat", "0: must be from 1"]),
        ("recall-seat-text", ["recall", "--journal", "x.db", "--seat", "three"], ["--seat", "'three'"]),
        ("export-no-journal", ["export"], ["--journal PATH or --config FILE"]),
        ("export-day-off-calendar", ["export", "--journal", "x.db", "--day", "2026-13-01"], ["--day", "2026-13-01"]),
        ("export-day-text", ["export", "--journal", "x.db", "--day", "monday"], ["--day", "'monday'", "not a date"]),
        ("export-since-garbage", ["export", "--journal", "x.db", "--since", "yesterday"], ["--since", "yesterday"]),
        ("export-until-year", ["export", "--journal", "x.db", "--until", "99999-01-01"], ["--until"]),
        (
            "export-day-and-since",
            ["export", "--journal", "x.db", "--day", "2026-12-01", "--since", "2026-12-01"],
            ["--day", "not with --since"],
        ),
        (
            "export-since-after-until",
            ["export", "--journal", "x.db", "--since", "2026-12-03", "--until", "2026-12-01"],
            ["--since", "--until", "no time between"],
        ),
        ("export-seat-zero", ["export", "--journal", "x.db", "--seat", "0"], ["--seat"]),
        ("export-format-xml", ["export", "--journal", "x.db", "--format", "xml"], ["--format", "'xml'"]),
        ("export-output-folder", ["export", "--journal", "x.db", "--output", "{case}"], ["--output", "a folder"]),
        ("export-journal-missing", ["export", "--journal", "{tmp}/none.db"], ["none.db", "no journal there"]),
        ("backup-no-to", ["journal", "backup", "--journal", "x.db"], ["--to"]),
        ("backup-to-empty", ["journal", "backup", "--journal", "x.db", "--to", ""], ["--to", "empty"]),
        (
            "export-day-end-of-calendar",
            ["export", "--journal", "x.db", "--day", "9999-12-31"],
            ["--day", "9999-12-31", "out of range"],
        ),
        ("export-zone-unknown", ["export", "--journal", "x.db", "--zone", "Mars/Base"], ["--zone", "'Mars/Base'"]),
        (
            "export-zone-path",
            ["export", "--journal", "x.db", "--zone", "/etc/localtime"],
            ["--zone", "no such time zone"],
        ),
        ("export-output-empty", ["export", "--journal", "x.db", "--output", ""], ["--output", "empty"]),
        (
            "export-output-no-folder",
            ["export", "--journal", "x.db", "--output", "{tmp}/none/day.csv"],
            ["--output", "no such folder"],
        ),
        (
            "export-output-name-too-long",
            ["export", "--journal", "x.db", "--output", "x" * 300],
            ["--output", "too long"],
        ),
        ("holds-since-garbage", ["holds", "--journal", "x.db", "--since", "teatime"], ["--since", "teatime"]),
        (
            "holds-since-after-until",
            ["holds", "--journal", "x.db", "--since", "2026-12-03T10:00", "--until", "2026-12-03T09:00"],
            ["--since", "is after --until"],
        ),
        ("holds-journal-missing", ["holds", "--journal", "{tmp}/none.db"], ["none.db", "no journal there"]),
        ("backup-no-journal", ["journal", "backup", "--to", "{tmp}/c.db"], ["--journal PATH or --config FILE"]),
    ]:
        case(f"args-{name}", argv, 2, expect)


def roster_cases() -> None:
    """Rosters (issue 45 item 1): a table config naming a roster refuses a bad one at load, with
    the roster's file and line; ``tablectl roster check`` does the same."""
    sys.path.insert(0, str(ROOT))
    from controller.configuration import hash_pin

    good = hash_pin("2468", n=2**14, salt=b"bad-input-corpus")  # a fixed salt: the corpus is the same each time
    head = "people:\n  - id: D-0001\n    name: Ann Lee\n    role: dealer\n    pin_hash: " + good + "\n"

    def roster(name: str, content: str, expect: list[str]) -> None:
        rel = write(f"rosters/{name}.yaml", content)
        table = write(f"configs/with-{name}.yaml", BASE + f"roster: ../rosters/{name}.yaml\n")
        case(
            f"roster-{name}",
            ["run", "--config", "{case}/" + table, "--journal", "{tmp}/j.db"],
            2,
            [f"{name}.yaml", *expect],
        )
        case(f"roster-check-{name}", ["roster", "check", "{case}/" + rel], 2, [f"{name}.yaml", *expect])

    roster(
        "plain-pin",
        head + "  - id: S-0001\n    name: Bo\n    role: supervisor\n    pin: '1234'\n",
        [":9:", "a PIN is never written"],
    )
    roster("bad-hash", head.replace(good, "not-a-hash"), [":5:", "not a PIN hash"])
    roster("cheap-hash", head.replace("scrypt$16384$", "scrypt$1024$"), [":5:", "power of two"])
    # A cost past what a sign-in may check (it passed the check once and stopped the table at the
    # first PIN: "memory limit exceeded"), and digits that are not ASCII.
    roster("dear-hash", head.replace("scrypt$16384$", "scrypt$262144$"), [":5:", "from 16384 to 32768"])
    roster(
        "wide-digits",
        head.replace("scrypt$16384$", "scrypt$\uff11\uff16\uff13\uff18\uff14$"),
        [":5:", "cannot be read"],
    )
    roster("duplicate-id", head + head.split("\n", 1)[1], [":6:", "given twice"])
    roster("bad-role", head.replace("role: dealer", "role: boss"), [":4:", "role must be one of dealer, supervisor"])
    roster("no-credential", "people:\n  - id: D-0002\n    name: Cy\n    role: dealer\n", [":2:", "give one"])
    roster("bad-id", head.replace("D-0001", "D 0001!"), [":2:", "id must be"])
    roster("no-people", "people: []\n", [":1:", "at least one person"])
    roster("lockout-zero", head + "lockout: {attempts: 0}\n", [":6:", "attempts must be 1 to 20"])
    roster(
        "shared-badge",
        head + "    badges: [CARD-0001]\n  - id: D-0002\n    name: Cy\n    role: dealer\n    badges: [CARD-0001]\n",
        [":10:", "also D-0001's"],
    )
    roster("unknown-key", head + "shifts: 3\n", [":6:", "unknown key 'shifts'"])
    table = write("configs/with-missing-roster.yaml", BASE + "roster: ../rosters/none.yaml\n")
    case(
        "roster-missing",
        ["run", "--config", "{case}/" + table, "--journal", "{tmp}/j.db"],
        2,
        ["none.yaml", "cannot read"],
    )


# --- journals: read-only readers on files that are not journals, damaged or changed -----------


def make_journals(fresh: bool) -> None:
    """The bench journals (``bench.db``, ``keyed.db``: new bench runs only when missing or with
    ``--fresh``) and the damaged and changed copies of ``bench.db``."""
    folder = HERE / "journals"
    keep = {"bench.db", "keyed.db"} if not fresh and (folder / "bench.db").exists() else set()
    if folder.exists():
        for path in folder.iterdir():
            if path.name not in keep:
                path.unlink()
    folder.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        key = Path(tmp) / "keyed.key"
        key.write_text("correct horse battery staple\n")
        key.chmod(0o600)
        bench = (
            (ROOT / "config/bench/mississippi_stud.yaml")
            .read_text()
            .replace("paytables_dir: ../paytables", f"paytables_dir: {ROOT}/config/paytables")
        )
        # Both benches read a copy of the config in the temporary folder: a journal records the
        # absolute path of its table config, and the committed ones must hold no path of the checkout.
        plain = Path(tmp) / "bench.yaml"
        plain.write_text(bench)
        cfg = Path(tmp) / "keyed.yaml"
        cfg.write_text(bench + f"journal: {{hmac_key_file: {key}}}\n")
        for name, extra in [("bench.db", ["--config", str(plain)]), ("keyed.db", ["--config", str(cfg)])]:
            if name in keep:
                continue
            subprocess.run(
                [*TABLECTL, "bench", "--rounds", "3", "--seats", "3", "--seed", "5", "--quiet"]
                + ["--journal", str(folder / name), *extra],
                cwd=ROOT,
                check=True,
                capture_output=True,
            )
            unfold(folder / name, key.read_bytes().strip() if name == "keyed.db" else None)
    good = folder / "bench.db"

    def variant(name: str, sql: list[str] | None = None) -> Path:
        path = folder / name
        shutil.copy(good, path)
        if sql:
            db = sqlite3.connect(path)
            for statement in sql:
                db.execute(statement)
            db.commit()
            db.execute("PRAGMA journal_mode=DELETE")
            db.close()
        return path

    settled = sqlite3.connect(good).execute("SELECT seq FROM records WHERE kind='RoundSettled' ORDER BY seq").fetchall()
    r2 = settled[1][0]
    variant(
        "tampered-ante.db", [f"UPDATE records SET data = replace(data, '\"ante\":', '\"ante\":1') WHERE seq = {r2}"]
    )
    variant(
        "tampered-event.db",
        [
            "UPDATE records SET data = replace(data, '\"cents\":', '\"cents\":9') WHERE seq = "
            "(SELECT min(seq) FROM records WHERE kind = 'SpotReport' AND seq > 20)"
        ],
    )
    variant("record-removed.db", ["DELETE FROM records WHERE seq = 30"])
    variant("last-record-removed.db", ["DELETE FROM records WHERE seq = (SELECT max(seq) FROM records)"])
    variant("settled-record-removed.db", [f"DELETE FROM records WHERE seq = {r2}"])
    variant("index-moved.db", [f"UPDATE rounds SET seq = {settled[0][0]} WHERE round_no = 2"])
    variant("meter-changed.db", ["UPDATE meters SET value = value + 100 WHERE scope = 'table' AND name = 'paid'"])
    variant("anchor-moved.db", ["INSERT OR REPLACE INTO meta VALUES ('anchor_seq', '5')"])
    variant("created-changed.db", ["UPDATE meta SET value = '1.0' WHERE key = 'created'"])
    variant("snapshot-changed.db", ["UPDATE snapshots SET state = replace(state, '\"round_no\":', '\"round_no\":9')"])
    variant("prev-not-utf8.db", ["UPDATE records SET prev = CAST(X'ff00ff' AS TEXT) WHERE seq = 10"])
    variant("schema-newer.db", ["UPDATE meta SET value = '99' WHERE key = 'schema_version'"])
    variant("schema-garbage.db", ["UPDATE meta SET value = 'two' WHERE key = 'schema_version'"])
    variant("no-meta-hash.db", ["DELETE FROM meta WHERE key = 'meta_hash'"])
    # Damaged pages: bytes overwritten in the middle of the file, and the file cut short.
    raw = bytearray(good.read_bytes())
    page = 4096
    for name, data in [
        ("page-overwritten.db", raw[: 3 * page] + bytes(range(256)) * 16 + raw[4 * page :]),
        ("truncated.db", raw[: len(raw) // 2]),
        ("header-only.db", raw[:100]),
    ]:
        (folder / name).write_bytes(bytes(data))
    (folder / "empty.db").write_bytes(b"")
    (folder / "text.db").write_text("this is not a journal\n")
    other = sqlite3.connect(folder / "unrelated.db")
    other.execute("CREATE TABLE notes (t TEXT)")
    other.execute("INSERT INTO notes VALUES ('hello')")
    other.commit()
    other.close()
    half = sqlite3.connect(folder / "only-meta.db")
    half.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    half.commit()
    half.close()
    old = variant("schema-1.db", ["DROP TABLE rounds", "UPDATE meta SET value = '1' WHERE key = 'schema_version'"])
    assert old.exists()
    make_block_journals(folder, good)


def unfold(path: Path, key: bytes | None) -> None:
    """The records of the journal at ``path`` (signed with ``key``) all kept as rows (a bench folds
    its closed rounds; the changed copies above change rows), its head as it was."""
    from controller.journal.stored import read_records

    db = sqlite3.connect(path)
    head = db.execute("SELECT key, value FROM meta WHERE key IN ('head_seq', 'head_hash')").fetchall()
    records = list(read_records(db, key=key))
    with db:
        db.execute("DELETE FROM blocks")
        db.execute("DELETE FROM block_kinds")
        db.executemany(
            "INSERT OR IGNORE INTO records VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(r.seq, r.at, r.kind, int(r.event), r.data, r.prev, r.hash) for r in records],
        )
        db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", head)
    db.execute("VACUUM")
    db.close()


BLOCKS = "blocks.db"
"""``bench.db`` with its closed rounds folded by the journal's writer, as a table keeps them."""


def make_block_journals(folder: Path, good: Path) -> None:
    """``blocks.db`` and its damaged and changed copies: a block cut short, its format byte, its
    last hash, a record's hash prefix, its kind index, a block renumbered onto the next one, a
    block following another round, a block whose records are also kept as rows."""
    from controller.journal import SqliteJournal
    from controller.journal.fold import fold_closed_rounds
    from controller.journal.stored import read_records

    path = folder / BLOCKS
    shutil.copy(good, path)
    journal = SqliteJournal(path)
    try:
        assert fold_closed_rounds(journal, None).blocks >= 2
    finally:
        journal.close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA journal_mode=DELETE")
    (first, last), (first_2, _) = db.execute("SELECT first_seq, last_seq FROM blocks ORDER BY first_seq").fetchall()[
        1:3
    ]
    db.execute("VACUUM")
    db.close()
    source = sqlite3.connect(good)
    rows = [(r.seq, r.at, r.kind, int(r.event), r.data, r.prev, r.hash) for r in read_records(source, first - 1, last)]
    source.close()
    assert first_2 == last + 1
    where = f"WHERE first_seq = {first}"
    changes: dict[str, list[str]] = {
        "block-truncated.db": [f"UPDATE blocks SET payload = substr(payload, 1, length(payload) / 2) {where}"],
        "block-format.db": [f"UPDATE blocks SET payload = CAST(X'02' || substr(payload, 2) AS BLOB) {where}"],
        "block-hash-changed.db": [f"UPDATE blocks SET hash = '{'0' * 64}' {where}"],
        "block-prefix-changed.db": [
            f"UPDATE blocks SET prefixes = CAST(X'00000000' || substr(prefixes, 5) AS BLOB) {where}"
        ],
        "block-kind-index.db": [f"DELETE FROM block_kinds WHERE kind = 'RoundSettled' AND first_seq = {first}"],
        "block-renumbered.db": [f"UPDATE blocks SET first_seq = first_seq + 1, last_seq = last_seq + 1 {where}"],
        "block-follows-another-round.db": [
            "UPDATE blocks SET prev = (SELECT prev FROM blocks ORDER BY first_seq LIMIT 1) " + where
        ],
    }
    for name, statements in changes.items():
        target = folder / name
        shutil.copy(path, target)
        db = sqlite3.connect(target)
        for statement in statements:
            db.execute(statement)
        db.commit()
        db.close()
    both = folder / "block-also-rows.db"
    shutil.copy(path, both)
    db = sqlite3.connect(both)
    head = db.execute("SELECT key, value FROM meta WHERE key IN ('head_seq', 'head_hash')").fetchall()
    with db:
        db.executemany("INSERT INTO records VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
        db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", head)  # the head as it was
    db.close()
    BLOCK_CASES.update(
        {
            "block-truncated.db": [f"records {first}..{last}", "cut short"],
            "block-format.db": [f"records {first}..{last}", "payload format 02"],
            "block-hash-changed.db": [f"records {first}..{last}", "the last record's hash is not the block's"],
            "block-prefix-changed.db": [f"block of records {first}..{last}", f"record {first} (", "hash mismatch"],
            "block-kind-index.db": [f"block of records {first}..{last}", "kind index", "RoundSettled"],
            "block-renumbered.db": [f"block of records {first_2}..", f"overlaps the block of records {first + 1}.."],
            "block-follows-another-round.db": [f"block of records {first}..{last}", f"record {first} ("],
            "block-also-rows.db": [f"block of records {first}..{last}", f"record {first} is also kept as a row"],
        }
    )


BLOCK_CASES: dict[str, list[str]] = {}
"""Each changed copy of ``blocks.db`` and the words ``journal verify`` must name it with."""


def journal_cases() -> None:
    spot = (
        sqlite3.connect(HERE / "journals/bench.db")
        .execute("SELECT min(seq) FROM records WHERE kind = 'SpotReport' AND seq > 20")
        .fetchone()[0]
    )
    readers = {
        "recall": ["recall", "--journal"],
        "recall-json": ["recall", "--json", "--journal"],
        "meters": ["meters", "--journal"],
        "verify": ["journal", "verify", "--journal"],
        "export": ["export", "--journal"],
        "holds": ["holds", "--since", "2000-01-01T00:00", "--journal"],
        "backup": ["journal", "backup", "--to", "{tmp}/copy.db", "--journal"],
    }
    not_journals = {
        "empty.db": ["empty file"],
        "text.db": ["not a SQLite database"],
        "unrelated.db": ["not a tablectl journal"],
        "only-meta.db": ["not a tablectl journal"],
        "schema-newer.db": ["schema version 99 is newer"],
        "schema-1.db": ["schema version 1"],
    }
    for name, expect in not_journals.items():
        for reader, argv in readers.items():
            case(f"journal-{name[:-3]}-{reader}", [*argv, "{tmp}/" + name], 2, [name, *expect], files=[[name, name]])
    changed = {
        "tampered-ante.db": (["recall", "recall-json", "meters", "verify", "export"], ["hash mismatch"]),
        "tampered-event.db": (["recall", "meters", "verify"], [f"record {spot} (SpotReport)", "hash mismatch"]),
        "record-removed.db": (["recall", "meters", "verify", "export", "holds"], ["record 30: missing"]),
        "last-record-removed.db": (["verify", "meters"], ["missing"]),
        "settled-record-removed.db": (["recall", "meters", "verify"], ["missing"]),
        "index-moved.db": (["recall", "meters", "verify"], ["round index: round 2"]),
        "meter-changed.db": (["meters", "verify"], ["meter table paid"]),
        "anchor-moved.db": (["recall", "meters", "verify"], ["meta_hash"]),
        "created-changed.db": (["verify", "recall"], ["meta_hash"]),
        "snapshot-changed.db": (["verify", "meters"], ["snapshot after record"]),
        "prev-not-utf8.db": (["verify", "recall", "meters"], ["record 10"]),
        "schema-garbage.db": (["verify", "recall"], ["schema_version"]),
        "no-meta-hash.db": (["verify", "recall"], ["meta_hash is missing"]),
        "page-overwritten.db": (["verify", "recall", "meters"], []),
        "truncated.db": (["verify", "recall", "meters", "export"], []),
        "header-only.db": (["verify", "recall", "meters"], []),
    }
    for name, (which, expect) in changed.items():
        for reader in which:
            case(
                f"journal-{name[:-3]}-{reader}",
                [*readers[reader], "{tmp}/" + name],
                1,
                [name, *expect],
                files=[[name, name]],
            )
    # Compact blocks (issue 45 item 8): the folded journal verifies and reads; each changed block
    # is named by its records, exit 1 as any changed journal.
    for reader in ("verify", "recall", "recall-json"):
        case(f"journal-blocks-{reader}-ok", [*readers[reader], "{tmp}/" + BLOCKS], 0, [], files=[[BLOCKS, BLOCKS]])
    for name, expect in BLOCK_CASES.items():
        case(
            f"journal-{name[:-3]}-verify",
            [*readers["verify"], "{tmp}/" + name],
            1,
            [name, *expect],
            files=[[name, name]],
        )
        if name != "block-kind-index.db":  # recall finds a round record by the round index, not the kinds
            case(f"journal-{name[:-3]}-recall", [*readers["recall"], "{tmp}/" + name], 1, [name], files=[[name, name]])
    # The HMAC key: a journal signed with one key read with another; a key file others can read.
    write("journals/wrong.key", "not the key\n")
    keyed_cfg = "journals/keyed.yaml"
    write(
        keyed_cfg,
        BASE.replace("../../../config/paytables", "{root}/config/paytables") + "journal: {hmac_key_file: k.key}\n",
    )
    for reader in ("verify", "recall"):
        case(
            f"journal-wrong-key-{reader}",
            [*readers[reader][:-1], "--config", "{tmp}/keyed.yaml", "--journal", "{tmp}/keyed.db"],
            1,
            ["keyed.db", "HMAC key is wrong"],
            files=[["keyed.db", "keyed.db"], ["keyed.yaml", "keyed.yaml"], ["wrong.key", "k.key", 0o600]],
        )
    case(
        "journal-key-readable-by-others",
        ["journal", "verify", "--config", "{tmp}/keyed.yaml", "--journal", "{tmp}/keyed.db"],
        2,
        ["k.key", "readable by others", "chmod 600"],
        files=[["keyed.db", "keyed.db"], ["keyed.yaml", "keyed.yaml"], ["wrong.key", "k.key", 0o644]],
    )
    case(
        "journal-key-missing",
        ["recall", "--config", "{tmp}/keyed.yaml", "--journal", "{tmp}/keyed.db"],
        2,
        ["k.key", "cannot read the HMAC key file"],
        files=[["keyed.db", "keyed.db"], ["keyed.yaml", "keyed.yaml"]],
    )
    case(
        "journal-folder-verify",
        ["journal", "verify", "--journal", "{case}/journals"],
        2,
        ["journals", "a folder, not a tablectl journal"],
    )
    # The writers refuse a file that is not a journal too, and leave it as it was; a journal of a
    # newer schema too (no downgrade: an older tablectl refuses what a newer one migrated).
    for name in ("text.db", "unrelated.db", "only-meta.db", "schema-newer.db"):
        case(
            f"journal-{name[:-3]}-bench-writer",
            ["bench", "--rounds", "1", "--quiet", "--journal", "{tmp}/" + name],
            2,
            [name, "is newer" if name == "schema-newer.db" else "not a"],
            files=[[name, name]],
        )
        case(
            f"journal-{name[:-3]}-run-writer",
            [
                "run",
                "--config",
                "{root}/config/mississippi_stud.yaml",
                "--journal",
                "{tmp}/" + name,
                "--allow-unapproved",
            ],
            2,
            [name, "is newer" if name == "schema-newer.db" else "not a"],
            files=[[name, name]],
        )
    case(
        "journal-backup-over-a-file",
        ["journal", "backup", "--journal", "{tmp}/bench.db", "--to", "{tmp}/text.db"],
        2,
        ["text.db", "already exists"],
        files=[["bench.db", "bench.db"], ["text.db", "text.db"]],
    )
    for name in ("bench.db", "bench.db-wal"):
        case(
            f"journal-export-over-{name.replace('.', '-')}",
            ["export", "--journal", "{tmp}/bench.db", "--output", "{tmp}/" + name],
            2,
            ["--output", name, "the journal's own file"],
            files=[["bench.db", "bench.db"]],
        )
    for name, to, expect in [
        ("to-a-folder", "{tmp}", ["a folder: name a new file in it"]),
        ("name-too-long", "{tmp}/" + "x" * 300 + ".db", ["xxxx", "too long"]),
        ("no-folder", "{tmp}/none/copy.db", ["none: no such folder"]),
    ]:
        case(
            f"journal-backup-{name}",
            ["journal", "backup", "--journal", "{tmp}/bench.db", "--to", to],
            2,
            expect,
            files=[["bench.db", "bench.db"]],
        )
    case(
        "journal-backup-not-a-journal",
        ["journal", "backup", "--journal", "{tmp}/text.db", "--to", "{tmp}/c.db"],
        2,
        ["text.db", "not a SQLite database"],
        files=[["text.db", "text.db"]],
    )
    case(
        "journal-prune-tampered",
        ["journal", "prune", "--journal", "{tmp}/tampered-ante.db", "--days", "1"],
        1,
        ["tampered-ante.db", "hash mismatch", "not pruned"],
        files=[["tampered-ante.db", "tampered-ante.db"]],
        writer=True,
    )


if __name__ == "__main__":
    for sub in ("configs", "records", "rank", "paytables", "rosters"):
        shutil.rmtree(HERE / sub, ignore_errors=True)
    text_cases()
    roster_cases()
    make_journals(fresh="--fresh" in sys.argv)
    journal_cases()
    (HERE / "cases.json").write_text(json.dumps(CASES, indent=1) + "\n")
    print(f"{len(CASES)} cases")

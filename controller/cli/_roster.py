"""``tablectl roster``: make a roster's PIN hashes and check a roster file before a shift.

``tablectl roster hash-pin`` reads a PIN (4 to 12 digits) without echo from the terminal, asked
twice, or one line from standard input when it is not a terminal, and prints its ``pin_hash`` for
the roster (scrypt, a fresh salt each time). The PIN is never an argument: arguments are seen by
every user of the machine (``ps``) and kept in shell histories. ``tablectl roster check FILE``
loads a roster as the table would and lists who is on it (never a hash or badge id).
"""

from __future__ import annotations

import argparse
import getpass
import sys

__all__ = ["options", "run_hash", "run_check"]


def options(p: argparse.ArgumentParser) -> None:
    """Add ``tablectl roster``'s actions (``hash-pin``, ``check``) to its parser ``p``."""
    what = p.add_subparsers(dest="roster_command", required=True, metavar="ACTION")
    h = what.add_parser(
        "hash-pin",
        help="read a PIN (no echo; or a line of stdin) and print its pin_hash for the roster",
        description="Read a PIN of 4 to 12 digits without echo from the terminal (asked twice), or one line "
        "of standard input when it is not a terminal, and print the pin_hash to write in the roster. "
        "The PIN is never taken as an argument.",
    )
    h.set_defaults(run=run_hash)
    c = what.add_parser(
        "check",
        help="load a roster file as the table does; list who is on it",
        description="Load a roster file "
        "as the table does (every problem with its file and line, exit 2) and list each person's id, role and name.",
    )
    c.add_argument("file", help="the roster file (the file a table config's `roster:` names)")
    c.set_defaults(run=run_check)


def _read_pin() -> str | None:
    if sys.stdin.isatty():
        first = getpass.getpass("PIN: ")
        if getpass.getpass("PIN again: ") != first:
            print("tablectl roster hash-pin: the two PINs differ; nothing printed", file=sys.stderr)
            return None
        return first
    line = sys.stdin.readline(64)
    return line.rstrip("\r\n")


def run_hash(args: argparse.Namespace) -> int:
    """0 with the hash printed; 2 when the PIN is not 4 to 12 digits (or typed differently twice)."""
    from controller.configuration import hash_pin

    pin = _read_pin()
    if pin is None:
        return 2
    try:
        print(hash_pin(pin))
    except ValueError as exc:
        print(f"tablectl roster hash-pin: {exc}; nothing printed", file=sys.stderr)
        return 2
    return 0


def run_check(args: argparse.Namespace) -> int:
    """0 when the roster loads; 2 with every problem (file:line) when not."""
    from controller.configuration import ConfigError, load_roster

    try:
        roster = load_roster(args.file)
    except ConfigError as exc:
        print(exc, file=sys.stderr)
        return 2
    for person in roster.people.values():
        how = " and ".join(w for w, has in (("PIN", person.pin_hash), ("badge", person.badges)) if has)
        print(f"{person.id:<12} {person.role:<10} {person.name}  (signs in by {how})")
        if person.supervisor and not person.badges:
            print(
                f"tablectl roster check: warning: supervisor {person.id} has no badge: when wrong PINs lock "
                "their id out, a badge still signs them in (docs/operations.md, 'Locked out'): give every "
                "supervisor one",
                file=sys.stderr,
            )
    minutes = roster.lockout_s / 60
    print(f"{len(roster.people)} people; {roster.lockout_attempts} wrong PINs lock an id out for {minutes:g} min")
    return 0

"""The roster: who may sign in at a table's panel (dealers and supervisors), and how a PIN is checked.

A roster is a YAML file the table config names (``roster: roster.yaml``, beside the config)::

    lockout:            # optional: after `attempts` wrong PINs in a row an id is locked out
      attempts: 5       #   for `minutes` (defaults 5 and 5)
      minutes: 5
    people:
      - id: D-0042      # what the journal, recall and export name
        name: Ann Lee   # what the dealer's screen, the table page and the pit show
        role: dealer    # or supervisor
        pin_hash: "scrypt$16384$8$1$<salt>$<hash>"   # `tablectl roster hash-pin` prints it
        badges: ["04A1B2C3"]                        # badge ids read at the panel (optional)

A PIN is never in the roster, only its scrypt hash (:func:`hash_pin`: ``hashlib.scrypt``, OpenSSL's,
with a random salt); :func:`pin_matches` checks an entered PIN against it in constant time. Every
problem is refused at load with the roster's file and line (:class:`ConfigError`), among them a
roster its group or others may read (a PIN of 4 digits is guessed from its hash in minutes: the
journal's HMAC key file is refused alike) or write (they would put themselves on it) and ids or badge ids that differ only in letter case
(a panel may key letters in one case only: the table matches them ignoring case).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import re
import secrets
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from controller.configuration._yamlfile import ConfigError, Problem, YamlDoc, load_yaml

__all__ = ["Person", "Roster", "ROLES", "hash_pin", "pin_matches", "load_roster", "PIN_DIGITS"]

ROLES = ("dealer", "supervisor")
"""What a person on the roster does at the table: deal (signed in, the table's dealer), or
authorize the supervisor's acts (signed in, the table's supervisor)."""

SCRYPT_N, SCRYPT_R, SCRYPT_P = 2**15, 8, 1
"""The cost :func:`hash_pin` uses: 32 MiB a PIN, and a noticeable time (1.25 s measured on a shared
2-core machine at load average 16): checked once per sign-in, on the controller thread."""
_MIN_N, _MAX_N = 2**14, 2**15
"""The costs a roster may name: below the minimum a stolen roster is guessed too fast; above the
maximum one sign-in holds the table's events for seconds (and see :data:`_MAX_WORK`). Every cost in this range is checked
within :data:`_MAXMEM` (a hash of 2**18 passed the roster's check and then failed at the first
sign-in with "memory limit exceeded", stopping the table: found from outside on 2026-12-06)."""
_MAX_WORK = SCRYPT_N * SCRYPT_R * SCRYPT_P
"""The most work (N * r * p) a roster's hash may cost to check: what :func:`hash_pin` writes, whose
check time is the documented one (1.25 s), under the panel's 2 s back-off. p multiplies the time:
N = 65536 at p = 4 took 2.3 s, passing the roster's check (found from outside on 2026-12-06)."""
_MAXMEM = 2 * 128 * 8 * _MAX_N
"""The memory bound handed to OpenSSL's scrypt: twice what the dearest cost a roster may name
needs (128 * r * N bytes at r = 8)."""
_T = TypeVar("_T")
_NUMBER = re.compile(r"[0-9]{1,10}")
_SALT_BYTES, _HASH_BYTES = 16, 32
PIN_DIGITS = (4, 12)
"""A PIN is 4 to 12 digits."""
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,31}")
_BADGE = re.compile(r"[A-Za-z0-9:._-]{4,64}")
_PERSON_KEYS = {"id", "name", "role", "pin_hash", "badges"}
_TOP_KEYS = {"people", "lockout"}


@dataclass(frozen=True, slots=True)
class Person:
    """One person on the roster. ``pin_hash`` (None: signs in by badge only) never leaves the
    table computer: it is not in ``repr``, a snapshot, a record or a log."""

    id: str
    name: str
    role: str
    pin_hash: str | None = field(default=None, repr=False)
    badges: tuple[str, ...] = field(default=(), repr=False)

    @property
    def supervisor(self) -> bool:
        """Whether this person authorizes the supervisor's acts."""
        return self.role == "supervisor"


@dataclass(frozen=True, slots=True)
class Roster:
    """The people who may sign in at the table, by id and by badge, and the lockout's terms."""

    path: str
    people: Mapping[str, Person]
    badges: Mapping[str, str] = field(default_factory=dict, repr=False)
    """Badge id -> person id."""
    lockout_attempts: int = 5
    """Wrong PINs in a row that lock an id out."""
    lockout_s: float = 300.0
    """How long an id stays locked out."""

    def by_badge(self, badge: str) -> Person | None:
        """Who carries ``badge`` (None: nobody on the roster), letter case ignored."""
        person = self.badges.get(badge) or _folded(self.badges, badge)
        return self.people.get(person) if person is not None else None

    def find(self, person_id: str) -> Person | None:
        """The person whose id is ``person_id`` as keyed at a panel (None: nobody on the roster),
        letter case ignored: ids that differ only in case are refused at load."""
        found = self.people.get(person_id)
        return found if found is not None else _folded(self.people, person_id)


def _folded(by_key: Mapping[str, _T], key: str) -> _T | None:
    """The value of the key equal to ``key`` but for ASCII letter case (ids and badge ids are ASCII)."""
    if not key.isascii():
        return None
    lower = key.lower()
    return next((value for k, value in by_key.items() if k.lower() == lower), None)


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def hash_pin(pin: str, *, n: int = SCRYPT_N, p: int = SCRYPT_P, salt: bytes | None = None) -> str:
    """The roster's ``pin_hash`` of ``pin``: ``scrypt$N$r$p$salt$hash`` (base64), a fresh random
    salt each time. Raises ValueError for a PIN that is not 4 to 12 digits."""
    if not (pin.isascii() and pin.isdigit() and PIN_DIGITS[0] <= len(pin) <= PIN_DIGITS[1]):
        raise ValueError(f"a PIN is {PIN_DIGITS[0]} to {PIN_DIGITS[1]} digits")
    salt = salt if salt is not None else secrets.token_bytes(_SALT_BYTES)
    digest = _scrypt(pin, salt, n, SCRYPT_R, p)
    return f"scrypt${n}${SCRYPT_R}${p}${_b64(salt)}${_b64(digest)}"


def dearest_cost(people: Mapping[str, Person]) -> tuple[int, int]:
    """The scrypt N and p of the dearest PIN hash on a roster (the default cost when none): an id
    not on it is checked against a hash of that cost, so it takes as long as a wrong PIN."""
    costs = [(c.n * c.p, c.n, c.p) for c in (_parse_hash(h) for h in _hashes(people))]
    return max(costs)[1:] if costs else (SCRYPT_N, SCRYPT_P)


def _hashes(people: Mapping[str, Person]) -> list[str]:
    return [person.pin_hash for person in people.values() if person.pin_hash is not None]


def _scrypt(pin: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(pin.encode("ascii"), salt=salt, n=n, r=r, p=p, maxmem=_MAXMEM, dklen=_HASH_BYTES)


@dataclass(frozen=True, slots=True)
class _Parsed:
    n: int
    r: int
    p: int
    salt: bytes
    digest: bytes


def _parse_hash(text: str) -> _Parsed:
    """The parts of a ``pin_hash``; ValueError naming what is wrong (never quoting the hash)."""
    parts = text.split("$")
    if len(parts) != 6 or parts[0] != "scrypt":
        raise ValueError("not a PIN hash of `tablectl roster hash-pin` (scrypt$N$r$p$salt$hash)")
    if not all(_NUMBER.fullmatch(part) for part in parts[1:4]):
        raise ValueError("a PIN hash whose numbers or base64 cannot be read")
    try:
        n, r, p = int(parts[1]), int(parts[2]), int(parts[3])
        salt = base64.b64decode(parts[4], validate=True)
        digest = base64.b64decode(parts[5], validate=True)
    except ValueError:
        raise ValueError("a PIN hash whose numbers or base64 cannot be read") from None
    if n & (n - 1) or not _MIN_N <= n <= _MAX_N:
        raise ValueError(f"scrypt cost N must be a power of two from {_MIN_N} to {_MAX_N}")
    if r != SCRYPT_R or not 1 <= p <= 4:
        raise ValueError(f"scrypt r must be {SCRYPT_R} and p 1 to 4")
    if n * r * p > _MAX_WORK:
        raise ValueError(
            f"scrypt cost N*r*p must be at most {_MAX_WORK} (N {SCRYPT_N}, r {SCRYPT_R}, p {SCRYPT_P}, as "
            "`tablectl roster hash-pin` writes): a dearer one holds the table's events too long at each sign-in"
        )
    if len(salt) < _SALT_BYTES or len(digest) != _HASH_BYTES:
        raise ValueError(f"a PIN hash has a salt of at least {_SALT_BYTES} bytes and a hash of {_HASH_BYTES}")
    return _Parsed(n, r, p, salt, digest)


def pin_matches(pin: str, pin_hash: str) -> bool:
    """Whether ``pin`` is the PIN ``pin_hash`` was made from (constant-time compare; a PIN that is
    not 4 to 12 digits never matches and costs no hashing)."""
    if not (pin.isascii() and pin.isdigit() and PIN_DIGITS[0] <= len(pin) <= PIN_DIGITS[1]):
        return False
    parsed = _parse_hash(pin_hash)
    return hmac.compare_digest(_scrypt(pin, parsed.salt, parsed.n, parsed.r, parsed.p), parsed.digest)


def _lockout(doc: YamlDoc, raw: object, problems: list[Problem]) -> tuple[int, float]:
    raw = doc.section(
        "lockout", raw, "lockout must be a mapping with attempts and minutes", problems, ("attempts", "minutes")
    )
    if raw is None:
        return 5, 300.0
    attempts, minutes = raw.get("attempts", 5), raw.get("minutes", 5)
    if isinstance(attempts, bool) or not isinstance(attempts, int) or not 1 <= attempts <= 20:
        problems.append(doc.problem(("lockout", "attempts"), f"attempts must be 1 to 20, got {attempts!r}"))
        attempts = 5
    if isinstance(minutes, bool) or not isinstance(minutes, int | float) or not 1 <= minutes <= 24 * 60:
        problems.append(doc.problem(("lockout", "minutes"), f"minutes must be 1 to 1440, got {minutes!r}"))
        minutes = 5
    return attempts, float(minutes) * 60


def _person(doc: YamlDoc, i: int, raw: object, problems: list[Problem]) -> Person | None:
    where: tuple[object, ...] = ("people", i)
    if not isinstance(raw, dict):
        problems.append(doc.problem(where, "each person is a mapping with id, name, role and pin_hash or badges"))
        return None
    before = len(problems)
    for key in raw:
        if key == "pin":
            problems.append(
                doc.problem(
                    (*where, key),
                    "a PIN is never written in the roster: write its hash as pin_hash (tablectl roster hash-pin)",
                )
            )
        elif key not in _PERSON_KEYS:
            problems.append(
                doc.problem((*where, key), f"unknown key '{key}' (known: {', '.join(sorted(_PERSON_KEYS))})")
            )
    pid, name, role = raw.get("id"), raw.get("name"), raw.get("role")
    if isinstance(pid, int) and not isinstance(pid, bool):
        problems.append(
            doc.problem(
                (*where, "id"),
                "id must be text: YAML reads digits alone as a number (0042 as 34, leading zeros lost); "
                "write it in quotes, id: '0042'",
            )
        )
    elif not isinstance(pid, str) or not _ID.fullmatch(pid):
        problems.append(
            doc.problem(
                (*where, "id"), "id must be 1 to 32 letters, digits, '.', '_' or '-', starting with a letter or digit"
            )
        )
    if not isinstance(name, str) or not name.strip() or len(name) > 64 or not name.isprintable():
        problems.append(doc.problem((*where, "name"), "name must be printable text of 1 to 64 characters"))
    if role not in ROLES:
        problems.append(doc.problem((*where, "role"), f"role must be one of {', '.join(ROLES)}, got {role!r}"))
    pin_hash = raw.get("pin_hash")
    if pin_hash is not None:
        if not isinstance(pin_hash, str):
            problems.append(doc.problem((*where, "pin_hash"), "pin_hash must be text (tablectl roster hash-pin)"))
        else:
            try:
                _parse_hash(pin_hash)
            except ValueError as exc:
                problems.append(doc.problem((*where, "pin_hash"), str(exc)))
    badges = raw.get("badges", [])
    if not isinstance(badges, list) or not all(isinstance(b, str) and _BADGE.fullmatch(b) for b in badges):
        problems.append(
            doc.problem(
                (*where, "badges"), "badges must be a list of badge ids (4 to 64 letters, digits, ':', '.', '_', '-')"
            )
        )
        badges = []
    if pin_hash is None and not badges:
        problems.append(doc.problem(where, "a person signs in with a PIN (pin_hash) or a badge (badges): give one"))
    if len(problems) > before:
        return None
    assert isinstance(pid, str) and isinstance(name, str) and isinstance(role, str)
    return Person(pid, name.strip(), role, pin_hash if isinstance(pin_hash, str) else None, tuple(badges))


def _readable_by_others(path: Path) -> str | None:
    """What is wrong with the roster file's mode (None: only its owner may read or write it), as the
    journal's HMAC key file is checked (``controller.journal.keys``)."""
    try:
        info = os.stat(path)
    except OSError:
        return None  # it was just read: gone meanwhile, and nothing of it is used
    if info.st_mode & 0o044:
        return (
            f"the roster is readable by others (mode {stat.S_IMODE(info.st_mode):04o}): anyone who can read it "
            f"can guess a 4-digit PIN from its hash in minutes; `chmod 600 {path}`, owned by the table's own user"
        )
    if info.st_mode & 0o022:
        return (
            f"the roster is writable by others (mode {stat.S_IMODE(info.st_mode):04o}): anyone who can write it "
            f"can put themselves on it as a supervisor; `chmod 600 {path}`, owned by the table's own user"
        )
    return None


def load_roster(path: Path | str) -> Roster:
    """Load and check the roster at ``path``: every problem with its file and line."""
    doc = load_yaml(path)
    data = doc.mapping("a roster must be a mapping with people (and lockout)")
    problems: list[Problem] = []
    problems += doc.unknown_keys((), data, _TOP_KEYS)
    attempts, lockout_s = _lockout(doc, data.get("lockout"), problems)
    raw_people = data.get("people")
    people: dict[str, Person] = {}
    badges: dict[str, str] = {}
    if not isinstance(raw_people, list) or not raw_people:
        problems.append(doc.problem(("people",), "people must be a list of at least one person"))
        raw_people = []
    ids: dict[str, str] = {}  # by the id in lower case: the id as written
    badge_holders: dict[str, str] = {}  # by the badge id in lower case: who carries it
    badge_at: list[tuple[int, str]] = []  # where each badge is written: the person's index, the badge
    for i, raw in enumerate(raw_people):
        person = _person(doc, i, raw, problems)
        if person is None:
            continue
        same = ids.get(person.id.lower())
        if same is not None:
            also = "" if same == person.id else f" (as {same}: ids differ by more than letter case)"
            problems.append(doc.problem(("people", i, "id"), f"id {person.id} is given twice{also}"))
            continue
        ids[person.id.lower()] = person.id
        for badge in person.badges:
            other = badge_holders.get(badge.lower())
            if other is not None:
                how = "" if badge in badges else " (but for letter case: badge ids differ by more than case)"
                problems.append(doc.problem(("people", i, "badges"), f"a badge of {person.id} is also {other}'s{how}"))
            badge_holders[badge.lower()] = person.id
            badges[badge] = person.id
            badge_at.append((i, badge))
        people[person.id] = person
    for i, badge in badge_at:  # ids are public (journal, recall, export): a badge is a credential
        same_id = ids.get(badge.lower())
        if same_id is not None:
            problems.append(
                doc.problem(
                    ("people", i, "badges"),
                    f"a badge of {badge_holders[badge.lower()]} is the id {same_id} (letter case ignored): "
                    "ids are public (journal, recall, export), so anyone could sign in with it; use the badge's own id",
                )
            )
    mode = _readable_by_others(doc.path)
    if mode is not None:
        problems.insert(0, doc.problem((), mode))
    if problems:
        raise ConfigError(problems)
    return Roster(str(doc.path.resolve()), people, badges, attempts, lockout_s)

"""Game recall: what happened in a finished round, rebuilt from the journal (24.10(g), 35.10(j);
technical standard 5.3 A-C: the last ten rounds always available).

A round's ``RoundSettled`` record holds its round record, settlement, late bets, faults and
every card in dealt order with where it went; the round's events (seats' wagers, buttons,
supervisor actions, device faults) are the journal records from its first to its last.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.journal.holds import stories
from controller.journal.records import JournalRecord
from controller.journal.store import JournalDamaged, SqliteJournal

__all__ = [
    "RecalledRound",
    "RecallError",
    "choose",
    "recall",
    "recall_round",
    "recall_json",
    "recall_lines",
    "describe_event",
]


@dataclass(frozen=True, slots=True)
class RecalledRound:
    """One finished round as the journal has it."""

    number: int
    data: dict[str, Any]
    events: tuple[JournalRecord, ...]
    ended: float
    seq: int = 0
    """The sequence number of the round's ``RoundSettled`` record."""

    @property
    def started(self) -> float:
        return self.events[0].at if self.events else self.ended

    @property
    def void(self) -> bool:
        return self.data["settlement"] is None


class RecallError(LookupError):
    """The asked-for round is not in the journal."""


def choose(journal: SqliteJournal, last: int | None = None, round_no: int | None = None) -> list[tuple[int, int]]:
    """(round number, seq of its record) of the rounds asked for: ``round_no``, or the ``last`` N
    (default 10), oldest first, from the round index."""
    index = journal.round_seqs()
    if round_no is not None:
        chosen = [(r, s) for r, s in index if r == round_no]
        if not chosen:
            kept = f"rounds {index[0][0]}-{index[-1][0]}" if index else "no finished rounds"
            raise RecallError(f"{journal.path}: round {round_no} is not in the journal (it has {kept})")
        return chosen
    return index[-(last or 10) :]


def recall(journal: SqliteJournal, last: int | None = None, round_no: int | None = None) -> list[RecalledRound]:
    """The finished rounds asked for: ``round_no``, or the ``last`` N (default 10), oldest first."""
    return [recall_round(journal, number, seq) for number, seq in choose(journal, last, round_no)]


def recall_round(journal: SqliteJournal, number: int, seq: int) -> RecalledRound:
    """Round ``number``, whose ``RoundSettled`` record is ``seq``; raises :class:`JournalDamaged`
    when that record is not there or not readable."""
    settled = journal.record(seq)
    if settled is None or settled.kind != "RoundSettled" or not isinstance(settled.data, dict):
        raise JournalDamaged(
            f"{journal.path}: round {number} is indexed at record {seq}, which is not its round record "
            "(run `tablectl journal verify`)"
        )
    first = settled.data.get("first_seq") or seq
    # The round's own records only: a round can start on the event that ended the one before,
    # so that round's supervisor actions and its record can follow this one's first record.
    start = first if isinstance(first, int) else seq
    events = own_events(journal.records(start - 1, seq - 1), number)
    return RecalledRound(number, settled.data, events, settled.at, seq)


def own_events(records: Iterable[JournalRecord], number: int) -> tuple[JournalRecord, ...]:
    """Of the records from a round's first to the one before its round record, those of round
    ``number`` (what its recall lists, and what the floor publishes with it)."""
    return tuple(r for r in records if _belongs(r, number))


def _belongs(record: JournalRecord, number: int) -> bool:
    if record.kind == "RoundSettled":
        return False
    other = record.data.get("round") if isinstance(record.data, dict) else None
    return not isinstance(other, int) or other == number


def recall_json(r: RecalledRound, table_path: str | None = None) -> dict[str, object]:
    """The round in the round record format (docs/round-record.md), with what recall adds under
    ``recall``: ``tablectl settle`` re-settles it as it is, from any folder. ``table``: the table
    config path written in (default: the absolute path the round was played under, with the
    SHA-256 of that config and its paytables, which ``settle`` checks). ``recall.holds``: each
    hold's story in the round (:mod:`controller.journal.holds`)."""
    record = dict(r.data["record"])
    if table_path:
        record["table"] = str(Path(table_path).resolve())
    elif r.data.get("table"):
        record["table"] = r.data["table"]
        if r.data.get("table_sha256"):
            record["table_sha256"] = r.data["table_sha256"]
    if r.void:
        record["void"] = True  # `tablectl settle` returns every wager of it
    record["recall"] = {
        "round": r.number,
        "started": r.started,
        "ended": r.ended,
        "void": r.void,
        "cards": r.data.get("cards", []),
        "late_bets": r.data.get("late_bets", []),
        "faults": r.data.get("faults", 0),
        "settlement": r.data["settlement"],
        "events": [{"seq": e.seq, "at": e.at, "kind": e.kind, "data": e.data} for e in r.events],
        "holds": [h.json() for h in stories(r.events)],
    }
    if "dealer_id" in r.data:  # a table with a roster: who dealt, and who authorized each act
        record["recall"]["dealer_id"] = r.data["dealer_id"]
        record["recall"]["supervisor_acts"] = [
            {"seq": e.seq, "at": e.at, "action": e.data.get("action"), "person": e.data.get("supervisor_id")}
            for e in r.events
            if e.kind == "SupervisorAction"
        ]
    return record


FAULT_KINDS = frozenset({"LinkDown", "DeviceFault", "CardUnreadable", "JournalFault", "Jam"})
"""Event kinds listed as faults (a link coming up, e.g. after a restart, is not one)."""


def zone_name(at: float) -> str:
    """The local time zone at ``at`` as shown beside a time: its name and UTC offset (``CET +0100``)."""
    return time.strftime("%Z %z", time.localtime(at))


def _clock(at: float) -> str:
    return time.strftime("%H:%M:%S", time.localtime(at)) + f".{int(at * 1000) % 1000:03d}"


def _describe(e: JournalRecord) -> str | None:
    d = e.data
    if e.kind == "SpotReport":
        return f"seat {d['seat']} {d['spot']}: {d['cents'] / 100:.2f} on the spot"
    if e.kind == "ButtonChanged":
        if d["button"] == "supervisor_key":
            return f"supervisor key {'on' if d['pressed'] else 'off'}"
        return f"button {d['button']}" if d["pressed"] else None
    if e.kind == "CardDealt":
        return None  # listed with where each went
    if e.kind == "SupervisorAction":
        by = f" (by {d['supervisor_id']})" if isinstance(d.get("supervisor_id"), str) else ""
        return f"SUPERVISOR {d['action']}: {d['reason']}{by}"
    if e.kind == "SignedIn":
        then = f", deals from round {d['from_round']}" if d.get("from_round") else ""
        replaces = f", replacing {d['replaces']}" if d.get("replaces") else ""
        return f"SIGNED IN {d.get('role', '?')} {d.get('person', '?')} by {d.get('method', '?')}{then}{replaces}"
    if e.kind == "SignedOff":
        why = f" ({d['reason']})" if d.get("reason") else ""
        return f"SIGNED OFF {d.get('role', '?')} {d.get('person', '?')}{why}"
    if e.kind == "SignInRefused":
        unknown = "(unknown badge)" if d.get("method") == "badge" else "(unknown id)"
        return f"SIGN-IN REFUSED {d.get('person') or unknown}: {d.get('reason', '?')}"
    if e.kind == "SignInLocked":
        return f"SIGN-IN LOCKED OUT {d.get('person', '?')} after {d.get('attempts', '?')} wrong PINs"
    if e.kind == "SignInUnlocked":
        return f"SIGN-IN LOCKOUTS ENDED by {d.get('by', '?')}: {', '.join(map(str, d.get('people', [])))}"
    if e.kind == "SignOffRefused":
        return f"SIGN-OFF REFUSED {d.get('role', '?')} {d.get('person', '?')}: {d.get('reason', '?')}"
    if e.kind == "SupervisorRefused":
        return f"SUPERVISOR REFUSED {d['action']}: {d['reason']}"
    if e.kind in FAULT_KINDS or e.kind in ("LinkUp", "DoorChanged"):
        detail = ", ".join(f"{k} {v}" for k, v in d.items() if k not in ("at", "event_no", "device"))
        label = "FAULT " if e.kind in FAULT_KINDS else ""
        return f"{label}{e.kind} {d.get('device', '')} {detail}".rstrip()
    if e.kind in ("ShoeStatus", "StartDrawn"):
        return f"{e.kind} " + ", ".join(f"{k} {v}" for k, v in d.items() if k not in ("at", "event_no", "device"))
    return None


def describe_event(e: JournalRecord) -> str | None:
    """A journal record as a line of a round's "inputs and faults" (None: not listed there)."""
    return _describe(e)


WagerOrder = Callable[[str, Sequence[str]], list[str]]
"""(game, wager spots) -> the spots in the game's layout order (the caller's: the journal does not
import the rules; ``tablectl recall`` gives :func:`controller.game._names.wager_order`)."""


def _as_stored(game: str, spots: Sequence[str]) -> list[str]:
    return list(spots)


def recall_lines(r: RecalledRound, order: WagerOrder = _as_stored) -> list[str]:
    """The round as text: seats and wagers, cards in dealt order, inputs, faults, settlement;
    each seat's wagers in ``order`` (the game's layout order: a record keeps them by name)."""
    record, settlement = r.data["record"], r.data["settlement"]
    game = str(r.data.get("game", record.get("game")))
    day = time.strftime("%Y-%m-%d", time.localtime(r.started))
    lines = [
        f"round {r.number} ({game}): {'VOID, every wager returned' if r.void else 'settled'}, "
        f"{day} {_clock(r.started)} - {_clock(r.ended)} {zone_name(r.ended)}"
    ]
    if "dealer_id" in r.data:  # a table with a roster
        lines.append(f"  dealer: {r.data['dealer_id'] or 'nobody signed in'}")
    for seat, entry in sorted(record["seats"].items(), key=lambda kv: int(kv[0])):
        staked = entry["wagers"]
        wagers = ", ".join(f"{spot} {staked[spot] / 100:.2f}" for spot in order(game, list(staked)))
        lines.append(f"  seat {seat}: {wagers}; cards {entry.get('cards', '')}")
    for key in ("community", "dealer"):
        if record.get(key):
            lines.append(f"  {key}: {record[key]}")
    lines.append("  cards in dealt order:")
    for c in r.data.get("cards", []):
        lines.append(f"    {c['index']:>3} {c['card']:<3} -> {c['to']}")
    lines.append("  inputs and faults:")
    for e in r.events:
        text = _describe(e)
        if text:
            lines.append(f"    {_clock(e.at)} {text}")
    for note in r.data.get("late_bets", []):
        lines.append(f"  LATE {note}")
    if settlement is not None:
        lines.append("  settlement:")
        for seat, s in sorted(settlement["seats"].items(), key=lambda kv: int(kv[0])):
            results = s["wagers"]
            for spot in order(game, list(results)):
                w = results[spot]
                lines.append(f"    seat {seat} {spot:<10} {w['result']:<8} {w['net'] / 100:>10.2f}  {w['why']}")
        lines.append(f"    house net {settlement['house_net'] / 100:.2f}")
        lines.append("  dealer procedure:")
        lines += [f"    {step['text']}" for step in settlement["procedure"]]
    return lines

"""Game recall: what happened in a finished round, rebuilt from the journal (24.10(g), 35.10(j);
technical standard 5.3 A-C: the last ten rounds always available).

A round's ``RoundSettled`` record holds its round record, settlement, late bets, faults and
every card in dealt order with where it went; the round's events (seats' wagers, buttons,
supervisor actions, device faults) are the journal records from its first to its last.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from controller.journal.store import SqliteJournal
from controller.table.journal import JournalRecord

__all__ = ["RecalledRound", "recall", "recall_json", "recall_lines"]


@dataclass(frozen=True, slots=True)
class RecalledRound:
    """One finished round as the journal has it."""

    number: int
    data: dict[str, Any]
    events: tuple[JournalRecord, ...]
    ended: float

    @property
    def started(self) -> float:
        return self.events[0].at if self.events else self.ended

    @property
    def void(self) -> bool:
        return self.data["settlement"] is None


class RecallError(LookupError):
    """The asked-for round is not in the journal."""


def recall(journal: SqliteJournal, last: int | None = None, round_no: int | None = None) -> list[RecalledRound]:
    """The finished rounds asked for: ``round_no``, or the ``last`` N (default 10), oldest first."""
    index = journal.round_seqs()
    if round_no is not None:
        chosen = [(r, s) for r, s in index if r == round_no]
        if not chosen:
            kept = f"rounds {index[0][0]}-{index[-1][0]}" if index else "no finished rounds"
            raise RecallError(f"{journal.path}: round {round_no} is not in the journal (it has {kept})")
    else:
        chosen = index[-(last or 10) :]
    out = []
    for number, seq in chosen:
        settled = journal.record(seq)
        assert settled is not None
        first = int(settled.data.get("first_seq") or seq)
        events = tuple(r for r in journal.records(first - 1, seq - 1))
        out.append(RecalledRound(number, settled.data, events, settled.at))
    return out


def recall_json(r: RecalledRound, table_path: str | None = None) -> dict[str, Any]:
    """The round in the round record format (docs/round-record.md), with what recall adds under
    ``recall``: ``tablectl settle`` re-settles it as it is. ``table``: the table config path
    written in (default: the one the round was played under)."""
    record = dict(r.data["record"])
    table_path = table_path or r.data.get("table")
    if table_path:
        record["table"] = table_path
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
    }
    return record


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
        return f"SUPERVISOR {d['action']}: {d['reason']}"
    if e.kind == "SupervisorRefused":
        return f"SUPERVISOR REFUSED {d['action']}: {d['reason']}"
    if e.kind in ("LinkDown", "LinkUp", "DeviceFault", "CardUnreadable", "JournalFault", "Jam", "DoorChanged"):
        detail = ", ".join(f"{k} {v}" for k, v in d.items() if k not in ("at", "event_no", "device"))
        return f"FAULT {e.kind} {d.get('device', '')} {detail}".rstrip()
    if e.kind in ("ShoeStatus", "StartDrawn"):
        return f"{e.kind} " + ", ".join(f"{k} {v}" for k, v in d.items() if k not in ("at", "event_no", "device"))
    return None


def recall_lines(r: RecalledRound) -> list[str]:
    """The round as text: seats and wagers, cards in dealt order, inputs, faults, settlement."""
    record, settlement = r.data["record"], r.data["settlement"]
    day = time.strftime("%Y-%m-%d", time.localtime(r.started))
    lines = [
        f"round {r.number} ({r.data.get('game', record.get('game'))}): {'VOID, every wager returned' if r.void else 'settled'}, "
        f"{day} {_clock(r.started)} - {_clock(r.ended)}"
    ]
    for seat, entry in sorted(record["seats"].items(), key=lambda kv: int(kv[0])):
        wagers = ", ".join(f"{spot} {cents / 100:.2f}" for spot, cents in entry["wagers"].items())
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
            for spot, w in s["wagers"].items():
                lines.append(f"    seat {seat} {spot:<10} {w['result']:<8} {w['net'] / 100:>10.2f}  {w['why']}")
        lines.append(f"    house net {settlement['house_net'] / 100:.2f}")
        lines.append("  dealer procedure:")
        lines += [f"    {step['text']}" for step in settlement["procedure"]]
    return lines

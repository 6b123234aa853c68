"""Storing checked floor messages so that no record can be forged in or displaced (docs/floor.md,
"The chain").

Each table's stored records are its journal's hash chain. In one transaction per batch, table
by table (each under its own advisory lock, taken in table order, so ingest workers sharing
the durable consumer never interleave on a table nor deadlock), every record is:

- **stored** when it follows the table's head: the next seq, its ``prev`` the stored head's
  ``hash``, and, where the message holds the record's content, that hash recomputed the way the
  journal makes it (an HMAC with the table's journal key when the ingest has it; a table whose
  key the ingest has must send HMACs), and, for a table with a registered public key
  (``floor_chain.public_key``), signed by the table (:mod:`controller.floor.signing`: a
  record whose hash is recomputed here is vouched for by the table's signature on the last
  record of the table's run in the batch; the others' own signatures are checked). A
  table with nothing stored starts at the record that
  states the journal's anchor (``"anchor": seq - 1``: 0 with ``prev`` all zeros for a journal's
  first record, or the pruning anchor);
- a **duplicate** (changes nothing) when it is the very message stored for its seq;
- **quarantined** (``floor_quarantine``, with the reason) when it does not chain, when its hash
  is not its content's, or when a different record is already stored for its seq;
- **pending** (``floor_pending``) when it is ahead of the head: stored when the gap fills, in
  order; at most ``max_pending`` per table wait, the ones past that are handed back to the
  stream (not acknowledged: delivered again later), and one more than ``max_ahead`` records
  ahead is quarantined.

A ``.meters`` message adds nothing: the store takes a round's meters from the round itself. It
is checked against the stored round (same hash, same meters) and quarantined if it differs.
"""

from __future__ import annotations

import enum
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import psycopg
from psycopg.rows import TupleRow

from controller.floor.signing import signature_ok
from controller.floor.validate import BadMessage, FloorRecord, Rows, check_message, content_hash_ok, excerpt
from controller.journal.store import GENESIS

__all__ = ["Verdict", "Reject", "ChainPolicy", "Outcome", "register_table", "replace_public_key"]

log = logging.getLogger("tablectl.floor.ingest")

REJECT_PAYLOAD_BYTES = 4096
"""How much of a rejected message ``ingest_reject.payload`` keeps."""


class Verdict(enum.Enum):
    """What became of one message."""

    STORED = "stored"
    DUPLICATE = "duplicate"
    QUARANTINED = "quarantined"
    PENDING = "pending"
    DEFERRED = "deferred"
    """Not taken now (the table's pending records are full): not acknowledged, delivered again."""
    REJECTED = "rejected"


@dataclass(frozen=True, slots=True)
class Reject:
    """A message that could not be read or checked: what it was and why."""

    subject: str
    msg_id: str | None
    payload: bytes
    reason: str
    table: str | None = None


MAX_REJECT_ROWS = 10_000
"""Rejected messages kept per table by default (:attr:`ChainPolicy.max_reject_rows`)."""


@dataclass(frozen=True, slots=True)
class ChainPolicy:
    """The rules a deployment chooses."""

    keys: Mapping[str, bytes] = field(default_factory=dict)
    """Journal HMAC keys by table id: those tables' records must carry a valid HMAC."""
    require_registration: bool = False
    """Store only tables registered beforehand (:func:`register_table`, ``tablectl floor
    add-table``); otherwise a table's first valid chained record on its own subject registers it."""
    require_signed: bool = False
    """Store only records of tables with a registered public key (``tablectl floor add-table
    --db``), signed with it; otherwise a table without one is stored unsigned."""
    max_pending: int = 10_000
    """Records of one table that may wait for a gap (past that: handed back to the stream)."""
    max_stray: int = 10_000
    """Records of tables the floor does not know that may wait, all together (past that: quarantined)."""
    max_ahead: int = 1_000_000
    prefix: str = "floor"
    max_reject_rows: int = MAX_REJECT_ROWS
    """Rejected messages kept in ``ingest_reject`` per table (the subject's; messages naming none
    count as one more): past that a reject is only counted (``ingest_reject_tally.dropped``), so
    one table's flood of bad messages cannot fill the store (docs/floor.md, "One table, one feed")."""


@dataclass
class Outcome:
    """What a batch did: one verdict (and reason) per message in order, and what the records
    that had been waiting did."""

    verdicts: list[Verdict] = field(default_factory=list)
    reasons: list[str | None] = field(default_factory=list)
    released: int = 0
    """Pending records stored now that their gap filled."""
    quarantined: list[tuple[str, int, str, str]] = field(default_factory=list)
    """(table, seq, subject, reason) of every record quarantined, pending ones included."""
    rejects_not_kept: int = 0
    """Rejects past their table's :attr:`ChainPolicy.max_reject_rows`: counted, not kept."""

    def count(self, verdict: Verdict) -> int:
        """How many of the batch's messages got ``verdict``."""
        return sum(1 for v in self.verdicts if v is verdict)


@dataclass
class _Cand:
    rec: FloorRecord
    pos: int | None
    pending_id: int | None = None


@dataclass
class _Stored:
    hash: str
    body: str
    cls: str
    meters: tuple[tuple[str, str, int], ...] | None


@dataclass
class _Writes:
    rows: Rows = field(default_factory=Rows)
    records: list[tuple[object, ...]] = field(default_factory=list)
    tables: dict[str, list[Any]] = field(default_factory=dict)
    chains: list[tuple[object, ...]] = field(default_factory=list)
    quarantine: list[tuple[object, ...]] = field(default_factory=list)
    pending: list[tuple[object, ...]] = field(default_factory=list)
    resolved: list[int] = field(default_factory=list)
    rejects: list[tuple[Any, ...]] = field(default_factory=list)


async def register_table(conn: psycopg.AsyncConnection[TupleRow], table_id: str, public_key: str | None = None) -> bool:
    """Register ``table_id`` (``tablectl floor add-table --db``): its first record is then stored
    even with :attr:`ChainPolicy.require_registration`; with ``public_key`` (64 hex digits) every
    record of the table must carry its signature from then on. False when it was already known
    (its public key is then set, unless another is registered: use :func:`replace_public_key`)."""
    async with conn.cursor() as cur:
        await cur.execute(
            "INSERT INTO floor_chain (table_id, registered_by, public_key, key_registered_at) "
            "VALUES (%s, 'add-table', %s, CASE WHEN %s::text IS NULL THEN NULL ELSE clock_timestamp() END) "
            "ON CONFLICT DO NOTHING",
            (table_id, public_key, public_key),
        )
        new = cur.rowcount == 1
        if not new and public_key is not None:
            await cur.execute("SELECT public_key FROM floor_chain WHERE table_id = %s FOR UPDATE", (table_id,))
            row = await cur.fetchone()
            have = row[0] if row else None
            if have is not None and have != public_key:
                raise ValueError(
                    f"table {table_id} has another public key registered ({have[:16]}...): "
                    "replace it with --rotate-signing-key"
                )
            if have is None:
                await replace_public_key(conn, table_id, public_key)
        return new


async def replace_public_key(conn: psycopg.AsyncConnection[TupleRow], table_id: str, public_key: str) -> None:
    """Set table ``table_id``'s public key to ``public_key`` (a new key; the table's records are
    checked against it from the next one stored on)."""
    async with conn.cursor() as cur:
        await cur.execute(
            "UPDATE floor_chain SET public_key = %s, key_registered_at = clock_timestamp() WHERE table_id = %s",
            (public_key, table_id),
        )


_COPIED = {
    # rows -> (target table, its columns, in the rows' order)
    "events": ("journal_event", "table_id, seq, at, at_epoch, kind, class, data"),
    "seats": ("round_seat", "table_id, seq, round_no, seat, cards, wagered, net"),
    "wagers": ("wager", "table_id, seq, round_no, seat, spot, cents, result, net, commission"),
    "cards": ("card", "table_id, seq, round_no, idx, card, dealt_to"),
    "meters": ("meter", "table_id, seq, round_no, scope, name, value"),
    "records": ("floor_record", "table_id, seq, prev, hash, mac, verified, body_sha256, class, sig"),
    "pending": ("floor_pending", "table_id, seq, subject, msg_id, payload"),
}
"""The high-volume rows go in with COPY straight into their tables (no ON CONFLICT: the chain
decided each (table, seq) is new; a conflict fails the transaction, never a silent drop). A
staging table and an INSERT ... SELECT from it wrote every row twice (docs/benchmarks.md)."""

_PG_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
_PG_EPOCH_UNIX = 946_684_800.0


def pg_timestamp(at: float) -> datetime:
    """``at`` (seconds since 1970) as the timestamp PostgreSQL's ``to_timestamp(at)`` makes: the same
    microsecond (its rounding, ``rint`` of the microseconds since 2000), so a row COPYed with it equals
    one written with ``to_timestamp``."""
    return _PG_EPOCH + timedelta(microseconds=round((at - _PG_EPOCH_UNIX) * 1e6))


_SQL = {
    "rounds": "INSERT INTO round (table_id, seq, round_no, game, config, started_at, ended_at, void, seats, handle, win, "
    "paid, collected, commission, late_bets, faults, first_seq, recall) VALUES (%s, %s, %s, %s, %s, to_timestamp(%s), "
    "to_timestamp(%s), %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s::jsonb)",
    "tables": "INSERT INTO floor_table (table_id, game, config, first_at, last_at, last_seq, last_round) "
    "VALUES (%s, %s, %s, to_timestamp(%s), to_timestamp(%s), %s, %s) ON CONFLICT (table_id) DO UPDATE SET "
    "game = coalesce(excluded.game, floor_table.game), config = coalesce(excluded.config, floor_table.config), "
    "first_at = least(floor_table.first_at, excluded.first_at), "
    "last_at = greatest(floor_table.last_at, excluded.last_at), "
    "last_seq = greatest(floor_table.last_seq, excluded.last_seq), "
    "last_round = greatest(floor_table.last_round, excluded.last_round)",
    "chains": "INSERT INTO floor_chain (table_id, head_seq, head_hash, anchor_seq, anchor_hash, registered_by) "
    "VALUES (%s, %s, %s, %s, %s, 'first record') ON CONFLICT (table_id) DO UPDATE SET "
    "head_seq = excluded.head_seq, head_hash = excluded.head_hash, "
    "anchor_seq = coalesce(floor_chain.anchor_seq, excluded.anchor_seq), "
    "anchor_hash = coalesce(floor_chain.anchor_hash, excluded.anchor_hash)",
    "quarantine": "INSERT INTO floor_quarantine (table_id, seq, subject, msg_id, reason, prev, hash, payload) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
    "rejects": "INSERT INTO ingest_reject (subject, msg_id, payload, error, table_id, size, excerpt) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s)",
}


def _seen(w: _Writes, r: FloorRecord) -> None:
    seen = w.tables.get(r.table)
    if seen is None:
        w.tables[r.table] = [r.game, r.config, r.at, r.at, r.seq, r.round_no]
        return
    seen[0] = seen[0] or r.game
    seen[1] = seen[1] or r.config
    seen[2], seen[3], seen[4] = min(seen[2], r.at), max(seen[3], r.at), max(seen[4], r.seq)
    if r.round_no is not None:
        seen[5] = max(seen[5] or 0, r.round_no)


async def store_messages(
    conn: psycopg.AsyncConnection[TupleRow], items: Sequence[FloorRecord | Reject], policy: ChainPolicy
) -> Outcome:
    """Store ``items`` (checked records and rejects) in one transaction; the verdict of each."""
    out = Outcome([Verdict.REJECTED] * len(items), [None] * len(items))
    w = _Writes()
    by_table: dict[str, list[_Cand]] = {}
    for pos, item in enumerate(items):
        if isinstance(item, Reject):
            out.reasons[pos] = item.reason
            w.rejects.append(
                (
                    item.subject[:1024],
                    (item.msg_id or "")[:256] or None,
                    item.payload[:REJECT_PAYLOAD_BYTES],
                    item.reason,
                    item.table,
                    len(item.payload),
                    excerpt(item.payload),
                )
            )
        else:
            by_table.setdefault(item.table, []).append(_Cand(item, pos))
    async with conn.transaction():
        async with conn.cursor() as cur:
            tables = sorted(by_table)  # one lock order: no deadlocks between workers
            chains: dict[str, tuple[object, ...]] = {}
            waiting: dict[str, int] = {}
            if tables:
                # The array's order is the scan's: each lock is taken in table order, in one round trip.
                await cur.execute(
                    "SELECT count(pg_advisory_xact_lock(hashtext(t))) FROM unnest(%s::text[]) AS u(t)", (tables,)
                )
                await cur.execute(
                    "SELECT table_id, head_seq, head_hash, public_key FROM floor_chain WHERE table_id = ANY(%s)",
                    (tables,),
                )
                chains = {row[0]: row for row in await cur.fetchall()}
                await cur.execute(
                    "SELECT table_id, count(*) FROM floor_pending WHERE table_id = ANY(%s) GROUP BY table_id", (tables,)
                )
                waiting = {str(t): int(n) for t, n in await cur.fetchall()}
            stray = 0
            if any(t not in chains for t in tables):
                await cur.execute(
                    "SELECT count(*) FROM floor_pending p WHERE NOT EXISTS "
                    "(SELECT 1 FROM floor_chain c WHERE c.table_id = p.table_id)"
                )
                counted = await cur.fetchone()
                stray = int(counted[0]) if counted else 0
            for table in tables:
                row = chains.get(table)
                before = len(w.pending)
                mark = _mark(w, out, table)
                try:
                    await _table(cur, table, list(by_table[table]), policy, w, out, row, waiting.get(table, 0), stray)
                except _Recheck:
                    _undo(w, out, table, mark)
                    await _table(
                        cur, table, list(by_table[table]), policy, w, out, row, waiting.get(table, 0), stray, True
                    )
                if row is None:
                    stray += len(w.pending) - before
            out.rejects_not_kept = await _write(cur, w, policy.max_reject_rows)
    return out


def _mark(w: _Writes, out: Outcome, table: str) -> tuple[dict[str, int], list[Any] | None, int, int]:
    """Where ``w`` and ``out`` stand before ``table``'s records (for :func:`_undo`)."""
    sizes = {name: len(getattr(w.rows, name)) for name in ("events", "rounds", "seats", "wagers", "cards", "meters")}
    for name in ("records", "chains", "quarantine", "pending", "resolved"):
        sizes["w." + name] = len(getattr(w, name))
    seen = w.tables.get(table)
    return sizes, list(seen) if seen is not None else None, len(out.quarantined), out.released


def _undo(w: _Writes, out: Outcome, table: str, mark: tuple[dict[str, int], list[Any] | None, int, int]) -> None:
    """Forget what ``table``'s records added since :func:`_mark` (its verdicts are set again)."""
    sizes, seen, quarantined, released = mark
    for name, size in sizes.items():
        target = getattr(w, name[2:]) if name.startswith("w.") else getattr(w.rows, name)
        del target[size:]
    if seen is None:
        w.tables.pop(table, None)
    else:
        w.tables[table] = seen
    del out.quarantined[quarantined:]
    out.released = released


async def _table(
    cur: psycopg.AsyncCursor[TupleRow],
    table: str,
    cands: list[_Cand],
    policy: ChainPolicy,
    w: _Writes,
    out: Outcome,
    row: tuple[Any, ...] | None,
    pending_count: int,
    stray: int = 0,
    verify_all: bool = False,
) -> None:
    """One table's records (its lock held): ``row`` its ``floor_chain`` row (None: unknown),
    ``pending_count`` its records waiting in ``floor_pending``, ``stray`` the records of every
    unknown table waiting there (at most ``max_stray`` of them together: past that a record of
    an unknown table that does not start its chain is quarantined, so made-up table ids cannot
    fill the store)."""
    run = _TableRun(cur, table, policy, w, out, row, pending_count, stray, verify_all)
    await run.load_pending(cands)
    await run.load_stored(cands)
    for c in sorted(cands, key=lambda c: (c.rec.seq, c.rec.cls == "meters", c.pending_id is None)):
        r = c.rec
        if r.cls == "meters":
            await run.meters(c)
        elif run.head is not None and r.seq <= run.head:
            await run.known(c)
        elif (run.head is None and r.anchor is not None) or (run.head is not None and r.seq == run.head + 1):
            run.next(c)
        else:
            await run.ahead(c)
    run.finish()


class _TableRun:
    """One table's records in one batch, in seq order: the chain's head as it moves, and what
    each record became (:func:`_table`)."""

    def __init__(
        self,
        cur: psycopg.AsyncCursor[TupleRow],
        table: str,
        policy: ChainPolicy,
        w: _Writes,
        out: Outcome,
        row: tuple[Any, ...] | None,
        pending_count: int,
        stray: int,
        verify_all: bool,
    ) -> None:
        self.cur, self.table, self.policy, self.w, self.out = cur, table, policy, w, out
        self.registered = row is not None
        self.head: int | None = row[1] if row else None
        self.head_hash: str | None = row[2] if row else None
        self.public_key: str | None = row[3] if row else None
        self.start_head = self.head
        self.pending_count, self.stray, self.verify_all = pending_count, stray, verify_all
        self.key = policy.keys.get(table)
        self.unvouched = False
        """Records stored since the last one whose own signature was checked (content-verified ones:
        each hash binds its prev, so the table's signature on a later record vouches for them all)."""
        self.last: FloorRecord | None = None
        self.anchor: tuple[int, str] | None = None
        self.stored: dict[int, _Stored] = {}

    async def load_pending(self, cands: list[_Cand]) -> None:
        """Add the table's records waiting in ``floor_pending`` when this batch may fill their gap."""
        head, table = self.head, self.table
        if not self.pending_count or (head is not None and min(c.rec.seq for c in cands) > head + 1):
            return
        await self.cur.execute(
            "SELECT id, subject, msg_id, payload FROM floor_pending WHERE table_id = %s ORDER BY seq, id LIMIT %s",
            (table, self.policy.max_pending),
        )
        for pid, subject, msg_id, payload in await self.cur.fetchall():
            try:
                rec = check_message(subject, msg_id, bytes(payload), self.policy.prefix)
            except BadMessage as exc:  # cannot happen for a row this ingest wrote; kept aside if it does
                self.w.quarantine.append(
                    (table, 0, subject, msg_id, f"pending record unreadable: {exc.reason}", "", "", payload)
                )
                self.w.resolved.append(pid)
                continue
            cands.append(_Cand(rec, None, pid))

    async def load_stored(self, cands: list[_Cand]) -> None:
        """The stored records at the seqs of ``cands`` at or below the head."""
        low = sorted({c.rec.seq for c in cands if self.head is not None and c.rec.seq <= self.head})
        if not low:
            return
        await self.cur.execute(
            "SELECT seq, hash, body_sha256, class FROM floor_record WHERE table_id = %s AND seq = ANY(%s)",
            (self.table, low),
        )
        for seq, h, body, cls in await self.cur.fetchall():
            self.stored[int(seq)] = _Stored(h, body, cls, None)

    def verdict(self, c: _Cand, v: Verdict, reason: str | None = None) -> None:
        out, w = self.out, self.w
        if c.pos is not None:
            out.verdicts[c.pos], out.reasons[c.pos] = v, reason
        elif v is Verdict.STORED:
            out.released += 1
        if c.pending_id is not None and v is not Verdict.PENDING:
            w.resolved.append(c.pending_id)
        if v is Verdict.QUARANTINED:
            assert reason is not None
            r = c.rec
            w.quarantine.append((r.table, r.seq, r.subject, r.msg_id, reason, r.prev, r.hash, r.payload))
            out.quarantined.append((r.table, r.seq, r.subject, reason))

    async def hold(self, c: _Cand) -> None:
        """``c`` waits for its gap (or goes back to the stream)."""
        before = len(self.w.pending)
        await _hold(c, self.head, self.policy, self.w, self.verdict, self.pending_count)
        self.pending_count += len(self.w.pending) - before

    async def meters(self, c: _Cand) -> None:
        """A ``.meters`` message: checked against the stored round (it adds nothing)."""
        r = c.rec
        if self.head is None or r.seq > self.head:
            await self.hold(c)
            return
        s = self.stored.get(r.seq) or await _fetch(self.cur, self.table, r.seq)
        if s is None or s.cls != "round":
            self.verdict(c, Verdict.QUARANTINED, f"meters for seq {r.seq}, which is not a stored round")
        elif s.hash != r.hash:
            self.verdict(c, Verdict.QUARANTINED, f"meters for a different record than the round stored at seq {r.seq}")
        else:
            meters = s.meters if s.meters is not None else await _meters(self.cur, self.table, r.seq)
            if meters == r.meters:
                self.verdict(c, Verdict.DUPLICATE)
            else:
                self.verdict(c, Verdict.QUARANTINED, f"meters differ from the round stored at seq {r.seq}")

    async def known(self, c: _Cand) -> None:
        """A record at or below the head: the very one stored (a duplicate) or not (quarantined)."""
        r = c.rec
        s = self.stored.get(r.seq) or await _fetch(self.cur, self.table, r.seq)
        if s is None:
            self.verdict(c, Verdict.QUARANTINED, f"seq {r.seq}: the floor holds no chained record there to compare")
        elif s.hash == r.hash and s.body == r.body_sha256:
            self.verdict(c, Verdict.DUPLICATE)
        elif s.hash == r.hash:
            self.verdict(c, Verdict.QUARANTINED, f"seq {r.seq}: the stored record's hash with a different message")
        else:
            self.verdict(c, Verdict.QUARANTINED, f"seq {r.seq}: a different record is stored there (fork)")

    def _chain_problem(self, r: FloorRecord, first: bool) -> str | None:
        """Why ``r``, the next record (or the first of an empty chain), may not be stored by the
        chain's and the deployment's rules, before its hash and signature are looked at."""
        head, head_hash, table = self.head, self.head_hash, self.table
        if first and not self.registered and self.policy.require_registration:
            return f"table {table} is not registered (tablectl floor add-table)"
        if first and r.anchor == 0 and r.prev != GENESIS:
            return f"seq {r.seq}: a journal's first record follows the all-zero hash, not {r.prev[:16]}"
        if head is not None and head_hash is not None and r.prev != head_hash:
            return (
                f"seq {r.seq} does not chain: its prev {r.prev[:16]} is not stored seq {head}'s hash {head_hash[:16]}"
            )
        if self.key is not None and r.mac != "hmac-sha256":
            return f"seq {r.seq}: not signed with the table's journal key"
        if self.public_key is None and self.policy.require_signed:
            return f"table {table} has no public key registered (tablectl floor add-table --db --public-key)"
        return None

    def next(self, c: _Cand) -> None:
        """The record after the head (or one starting the chain): stored, or quarantined saying why."""
        r = c.rec
        first = self.head is None and r.anchor is not None
        reason = self._chain_problem(r, first)
        verified = content_hash_ok(r, self.key) if reason is None else None
        if verified is False:
            reason = f"seq {r.seq}: the hash is not the {r.mac} of the record's content"
        if reason is None and self.public_key is not None:
            if self.verify_all or verified is not True:  # its prev is not bound to its hash: its own signature
                reason = _signature_problem(self.public_key, r)
                self.unvouched = self.unvouched and reason is not None
            else:  # vouched for by the next record the table signed (checked by the run's end)
                self.unvouched = True
        if reason is not None:
            self.verdict(c, Verdict.QUARANTINED, reason)
            return
        self.last = r
        if first:
            self.anchor = (r.seq - 1, r.prev)
        w = self.w
        w.rows.extend(r.rows)
        w.records.append((r.table, r.seq, r.prev, r.hash, r.mac, verified, r.body_sha256, r.cls, r.sig))
        _seen(w, r)
        self.stored[r.seq] = _Stored(r.hash, r.body_sha256, r.cls, r.meters if r.cls == "round" else None)
        self.head, self.head_hash = r.seq, r.hash
        self.verdict(c, Verdict.STORED)

    async def ahead(self, c: _Cand) -> None:
        """A record past the head's next: it waits for the gap, unless too far ahead or one of too
        many records of unknown tables (quarantined)."""
        r, policy, head = c.rec, self.policy, self.head
        if head is not None and r.seq - head > policy.max_ahead:
            self.verdict(
                c, Verdict.QUARANTINED, f"seq {r.seq} is more than {policy.max_ahead} ahead of stored seq {head}"
            )
            return
        if not self.registered and c.pending_id is None:
            if self.stray >= policy.max_stray and self.pending_count < policy.max_pending:
                self.verdict(
                    c,
                    Verdict.QUARANTINED,
                    f"table {self.table} is unknown and {self.stray} records of unknown tables wait",
                )
                return
            self.stray += 1
        await self.hold(c)

    def finish(self) -> None:
        """The run's end: its last stored record must be signed by the table when anything stored
        relied on it (else :class:`_Recheck`); the chain's new head is written."""
        if (
            self.unvouched
            and self.last is not None
            and _signature_problem(self.public_key or "", self.last) is not None
        ):
            raise _Recheck  # a record the table did not sign ends the run: each record's own signature decides
        if self.head != self.start_head:
            self.w.chains.append((self.table, self.head, self.head_hash, *(self.anchor or (None, None))))


class _Recheck(Exception):
    """A table's run of stored records does not end with a record the table signed."""


def _signature_problem(public_key: str, r: FloorRecord) -> str | None:
    """Why ``r`` is not signed by the table's key ``public_key`` (None: it is)."""
    if signature_ok(public_key, r.sig, r.table, r.seq, r.prev, r.hash, r.mac):
        return None
    if r.sig is None:
        return f"seq {r.seq}: not signed by the table's registered key (tablectl floor add-table --db)"
    return f"seq {r.seq}: the signature is not the table's registered key's"


async def _hold(
    c: _Cand,
    head: int | None,
    policy: ChainPolicy,
    w: _Writes,
    verdict: Callable[[_Cand, Verdict, str | None], None],
    pending_count: int,
) -> None:
    """A record ahead of the head waits (or, pending full, goes back to the stream)."""
    if c.pending_id is not None:
        return  # still waiting
    if pending_count >= policy.max_pending:
        verdict(c, Verdict.DEFERRED, f"{pending_count} records of {c.rec.table} already wait for a gap to fill")
        return
    r = c.rec
    w.pending.append((r.table, r.seq, r.subject, r.msg_id, r.payload))
    verdict(
        c, Verdict.PENDING, f"waits for seq {(head or 0) + 1}" if head is not None else "waits for its first record"
    )


async def _fetch(cur: psycopg.AsyncCursor[TupleRow], table: str, seq: int) -> _Stored | None:
    await cur.execute(
        "SELECT hash, body_sha256, class FROM floor_record WHERE table_id = %s AND seq = %s", (table, seq)
    )
    row = await cur.fetchone()
    return _Stored(row[0], row[1], row[2], None) if row else None


async def _meters(cur: psycopg.AsyncCursor[TupleRow], table: str, seq: int) -> tuple[tuple[str, str, int], ...]:
    await cur.execute("SELECT scope, name, value FROM meter WHERE table_id = %s AND seq = %s", (table, seq))
    return tuple(sorted((str(s), str(n), int(v)) for s, n, v in await cur.fetchall()))


async def _write(cur: psycopg.AsyncCursor[TupleRow], w: _Writes, max_reject_rows: int = MAX_REJECT_ROWS) -> int:
    """Write what the batch decided; the number of rejects counted but not kept."""
    for name, (target, cols) in _COPIED.items():
        rows: list[tuple[Any, ...]] = (
            w.records if name == "records" else w.pending if name == "pending" else getattr(w.rows, name)
        )
        if not rows:
            continue
        async with cur.copy(f"COPY {target} ({cols}) FROM STDIN") as copy:
            if name == "events":  # ``at`` is the journal's float; the column a timestamp
                for t, seq, at, at_epoch, kind, cls, data in rows:
                    await copy.write_row((t, seq, pg_timestamp(at), at_epoch, kind, cls, data))
            else:
                for row in rows:
                    await copy.write_row(row)
    if w.rows.rounds:
        await cur.executemany(_SQL["rounds"], w.rows.rounds)
    for name in ("chains", "quarantine"):
        rows = getattr(w, name)
        if rows:
            await cur.executemany(_SQL[name], rows)
    not_kept = await _write_rejects(cur, w.rejects, max_reject_rows) if w.rejects else 0
    if w.resolved:
        await cur.execute("DELETE FROM floor_pending WHERE id = ANY(%s)", (w.resolved,))
    if w.tables:
        await cur.executemany(_SQL["tables"], [(t, *v) for t, v in sorted(w.tables.items())])
    return not_kept


async def _write_rejects(cur: psycopg.AsyncCursor[TupleRow], rejects: list[tuple[Any, ...]], cap: int) -> int:
    """Keep each table's rejects up to ``cap`` rows in all (``ingest_reject_tally`` counts them,
    under a row lock, in table order); count the rest. The number counted and not kept."""
    groups: dict[str, list[tuple[Any, ...]]] = {}
    for row in rejects:
        groups.setdefault(row[4] or "", []).append(row)
    not_kept = 0
    for key in sorted(groups):
        rows = groups[key]
        await cur.execute("INSERT INTO ingest_reject_tally (table_key) VALUES (%s) ON CONFLICT DO NOTHING", (key,))
        await cur.execute("SELECT kept FROM ingest_reject_tally WHERE table_key = %s FOR UPDATE", (key,))
        found = await cur.fetchone()
        kept = int(found[0]) if found else 0
        keep = rows[: max(0, cap - kept)]
        if keep:
            await cur.executemany(_SQL["rejects"], keep)
        dropped = len(rows) - len(keep)
        not_kept += dropped
        await cur.execute(
            "UPDATE ingest_reject_tally SET kept = kept + %s, dropped = dropped + %s, "
            "last_dropped_at = CASE WHEN %s > 0 THEN clock_timestamp() ELSE last_dropped_at END WHERE table_key = %s",
            (len(keep), dropped, dropped, key),
        )
    return not_kept

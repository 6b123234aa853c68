"""Recovery from a fork (``tablectl floor resolve TABLE``, docs/floor.md, "Resolving a fork").

A fork is a stored record that is not the table's: one stored before the table's public key was
registered (or on a floor that did not check signatures), made by whoever held the table's NATS
credential. The table's real record for that seq was then quarantined as a fork, and every
later real record as not chaining. With the table's public key registered, the table's side is
the signed one. Resolving, in one transaction under the table's lock (the ingest waits):

1. finds the fork: the first stored record that a quarantined record signed by the table
   contradicts (another hash at that seq, or another ``prev`` after it), and that the table did
   not sign (both sides signed: refused, the key or the journal is compromised). Records the
   table stored unsigned before it had a key, and before the fork, stay;
2. moves every stored record from there on to the evidence (``floor_quarantine``, the stored
   rows as JSON, with the reason) and deletes them from the store (the owner's right: the
   ingest's role cannot delete a stored record);
3. sets the table's chain head back to the record before the fork;
4. replays every quarantined record of the table from the fork on that carries the table's
   signature, in seq order, by the chain's rules (:func:`controller.floor.chain.store_messages`),
   with the records waiting in ``floor_pending``;
5. writes a ``floor_resolution`` row: the table's quarantine up to now is settled (it stays
   as evidence; ``floor status`` and ``reconcile`` no longer count it).

Records the table signed that the floor never kept (stored after the fork, so deleted here)
come back with ``tablectl floor resend --from SEQ``; the report names SEQ.

With no fork, resolve closes what the store already answers (migration 0013): each open
quarantined record, in the order they were kept, that is either not the table's (not signed by
its registered key) at a seq where the store holds the table's own record (a refused forgery),
or a copy of the record stored at its seq (the same hash: a key rotation's records signed with
the old key, stored once resent). The closed ones stay as evidence; a ``floor_resolution`` row
without a fork (``settled``) says so. The first one the store does not answer (a record of the
table's still to come: resend it) and every one after it stay open.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import orjson
import psycopg
from psycopg.rows import TupleRow

from controller.floor.chain import ChainPolicy, Verdict, store_messages
from controller.floor.signing import signature_ok
from controller.floor.validate import BadMessage, FloorRecord, check_message

__all__ = ["ResolveError", "resolve_fork"]

_RECORD_TABLES = ("journal_event", "round_seat", "wager", "card", "meter", "round", "floor_record")
"""The tables a stored record's rows are in (floor_record last)."""


class ResolveError(Exception):
    """Why a table cannot be resolved (no such table, no public key, the database refused)."""


@dataclass
class ForkReport:
    """What ``resolve`` found and did."""

    table: str
    head_before: int | None
    fork_seq: int | None = None
    stored_side: tuple[str, str] | None = None
    """The stored record at the fork: (hash, class)."""
    other_side: list[tuple[int, str, str, bool]] = field(default_factory=list)
    """The quarantined records at the fork seq: (id, hash, reason, signed by the table)."""
    removed: int = 0
    replayed: int = 0
    """Signed quarantined records stored now."""
    released: int = 0
    """Pending records stored once the replay filled their gap."""
    still_quarantined: int = 0
    head_after: int | None = None
    unsigned_from: int | None = None
    """With no fork found: the first quarantined record (not signed by the table: resend it signed)."""
    refused: int = 0
    """With no fork: quarantined records closed as not the table's (the store holds its own there)."""
    copies: int = 0
    """With no fork: quarantined records closed as copies of the stored record at their seq."""
    left_open: int = 0
    """With no fork: quarantined records still open (the store does not answer them yet)."""
    resend_from: int | None = None
    """A record the journal must send again from (stored after the fork but signed, so lost here)."""
    dry_run: bool = False

    def lines(self) -> list[str]:
        """The report as ``tablectl floor resolve`` prints it."""
        out = [f"table {self.table}: stored chain head {self.head_before}"]
        if self.fork_seq is None:
            out.append("no stored record is contradicted by a record the table signed: no fork")
            closed = self.refused + self.copies
            if closed:
                out.append(
                    f"{'would close' if self.dry_run else 'closed'} {closed} quarantined records (kept as evidence "
                    f"in floor_quarantine): {self.refused} not the table's (not signed by its key; the store holds "
                    f"the table's own signed record at their seq), {self.copies} copies of the record stored at "
                    "their seq; floor status, reconcile and the pit no longer alert on them"
                )
            else:
                out.append("nothing to resolve, nothing changed")
            if self.left_open:
                out.append(f"{self.left_open} quarantined records stay open: the store does not answer them yet")
            if self.dry_run and closed:
                out.append("dry run: nothing changed")
            if self.unsigned_from is not None:
                out.append(
                    f"quarantined records from seq {self.unsigned_from} are not signed by the table: if they are its "
                    "own, resend them signed (floor.signing_key set; tablectl floor resend --config TABLE.yaml "
                    f"--journal JOURNAL --from {self.unsigned_from}), then resolve again"
                )
            return out
        assert self.stored_side is not None
        out.append(f"fork at seq {self.fork_seq}:")
        out.append(
            f"  stored      {self.stored_side[0][:16]}... ({self.stored_side[1]}): not signed by the table's key"
        )
        for qid, digest, reason, signed in self.other_side:
            who = "signed by the table" if signed else "not signed by the table"
            out.append(f"  quarantined {digest[:16]}... (floor_quarantine id {qid}, {who}): {reason}")
        if not self.other_side:
            out.append("  quarantined nothing at that seq (the table's record was never received)")
        verb = "would move" if self.dry_run else "moved"
        out.append(f"{verb} {self.removed} stored records (seq {self.fork_seq} on) to floor_quarantine as evidence")
        out.append(
            f"{'would replay' if self.dry_run else 'replayed'} {self.replayed} signed records, {self.released} "
            f"waiting records stored after them, {self.still_quarantined} quarantined again; "
            f"chain head {'would be' if self.dry_run else 'now'} {self.head_after}"
        )
        if self.resend_from is not None:
            out.append(
                f"records from seq {self.resend_from} are not on the floor: "
                f"tablectl floor resend --config TABLE.yaml --journal JOURNAL --from {self.resend_from}"
            )
        if self.dry_run:
            out.append("dry run: nothing changed")
        return out


class _DryRun(Exception):
    pass


async def resolve_fork(url: str, table: str, prefix: str = "floor", dry_run: bool = False) -> ForkReport:
    """Resolve ``table``'s fork in the store at ``url`` (the registrar role closes a quarantine; a
    fork's removal needs the owner role); see the module's text."""
    try:
        async with await psycopg.AsyncConnection.connect(url, connect_timeout=10) as conn:
            report: ForkReport | None = None
            try:
                async with conn.transaction():
                    report = await _resolve(conn, table, prefix, dry_run)
                    if dry_run:
                        raise _DryRun
            except _DryRun:
                pass
            assert report is not None
            return report
    except psycopg.errors.InsufficientPrivilege as exc:
        raise ResolveError(
            f"{url}: {str(exc).strip().splitlines()[0]}; closing a quarantine is the registrar's (floor_registrar), "
            "removing a fork's stored records the owner's (floor_owner, in its audit log): run it again as that role "
            '(docs/floor.md, "Database roles"); nothing was changed'
        ) from exc
    except psycopg.Error as exc:
        raise ResolveError(f"{url}: {str(exc).strip().splitlines()[0]}") from exc


async def _resolve(conn: psycopg.AsyncConnection[TupleRow], table: str, prefix: str, dry_run: bool) -> ForkReport:
    async with conn.cursor() as cur:
        await cur.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (table,))
        await cur.execute(
            "SELECT head_seq, public_key, anchor_seq, anchor_hash FROM floor_chain WHERE table_id = %s FOR UPDATE",
            (table,),
        )
        chain = await cur.fetchone()
        if chain is None:
            raise ResolveError(f"the floor store has no table {table!r}")
        head, public_key, anchor_seq, anchor_hash = chain
        if public_key is None:
            raise ResolveError(
                f"table {table} has no public key registered, so its own records cannot be told from others': "
                "register it first (tablectl floor add-table NAME --db URL --public-key FILE.pub)"
            )
        report = ForkReport(table, head, dry_run=dry_run)
        await cur.execute(
            "SELECT seq, prev, hash, mac, sig, class FROM floor_record WHERE table_id = %s ORDER BY seq", (table,)
        )
        stored = await cur.fetchall()
        signed = await _signed_quarantine(cur, table, 1, prefix, public_key)
        fork_seq = _fork(stored, signed)
        if fork_seq is None:
            report.head_after = head
            await _settle(cur, table, prefix, public_key, report)
            return report
        fork = next(row for row in stored if row[0] == fork_seq)
        if signature_ok(public_key, fork[4], table, *fork[:4]):
            raise ResolveError(
                f"table {table}: both records at seq {fork_seq} carry the table's signature: the table's key or "
                'its journal is compromised; resolve will not choose (docs/floor.md, "Resolving a fork")'
            )
        report.fork_seq, report.stored_side = fork_seq, (str(fork[2]), str(fork[5]))
        replay = [r for r in signed if r.seq >= fork_seq]
        await cur.execute(
            "SELECT id, hash, reason, payload FROM floor_quarantine WHERE table_id = %s AND seq = %s ORDER BY id",
            (table, fork_seq),
        )
        for qid, digest, reason, payload in await cur.fetchall():
            by_table = any(r.payload == bytes(payload) for r in replay)
            report.other_side.append((int(qid), str(digest), str(reason), by_table))
        removed = [row for row in stored if row[0] >= fork_seq]
        replayed_seqs = {r.seq for r in replay}
        lost = [int(row[0]) for row in removed if signature_ok(public_key, row[4], table, *row[:4])]
        lost = [s for s in lost if s not in replayed_seqs]
        report.resend_from = min(lost) if lost else None
        await _to_evidence(cur, table, fork_seq, prefix)
        report.removed = len(removed)
        for name in _RECORD_TABLES:
            await cur.execute(f"DELETE FROM {name} WHERE table_id = %s AND seq >= %s", (table, fork_seq))
        before = [row for row in stored if row[0] < fork_seq]
        if before:
            new_head: tuple[Any, Any] = (before[-1][0], before[-1][2])
        elif anchor_seq is not None and anchor_seq == fork_seq - 1 and anchor_seq > 0:
            new_head = (anchor_seq, anchor_hash)
        else:
            new_head = (None, None)
        await cur.execute(
            "UPDATE floor_chain SET head_seq = %s, head_hash = %s, "
            "anchor_seq = CASE WHEN %s::bigint IS NULL THEN NULL ELSE anchor_seq END, "
            "anchor_hash = CASE WHEN %s::bigint IS NULL THEN NULL ELSE anchor_hash END WHERE table_id = %s",
            (*new_head, new_head[0], new_head[0], table),
        )
        await _bookkeeping(cur, table)
    outcome = await store_messages(conn, replay, ChainPolicy(prefix=prefix))
    report.replayed = outcome.count(Verdict.STORED)
    report.released = outcome.released
    report.still_quarantined = len(outcome.quarantined)
    async with conn.cursor() as cur:
        await cur.execute("SELECT head_seq FROM floor_chain WHERE table_id = %s", (table,))
        row = await cur.fetchone()
        report.head_after = row[0] if row else None
        await cur.execute("SELECT coalesce(max(id), 0) FROM floor_quarantine WHERE table_id = %s", (table,))
        through = await cur.fetchone()
        await cur.execute(
            "INSERT INTO floor_resolution (table_id, fork_seq, head_before, head_after, removed, replayed, "
            "quarantine_through) VALUES (%s, %s, %s, %s, %s, %s, %s)",
            (table, fork_seq, head, report.head_after, report.removed, report.replayed, through[0] if through else 0),
        )
    return report


async def _settle(
    cur: psycopg.AsyncCursor[TupleRow], table: str, prefix: str, public_key: str, report: ForkReport
) -> None:
    """With no fork: close the table's open quarantined records the store answers, in id order up
    to the first it does not (see the module's text), with a ``floor_resolution`` row."""
    await cur.execute(
        "SELECT q.id, q.seq, q.hash, q.subject, q.msg_id, q.payload, r.hash, r.prev, r.mac, r.sig "
        "FROM floor_quarantine_open q LEFT JOIN floor_record r ON r.table_id = q.table_id AND r.seq = q.seq "
        "WHERE q.table_id = %s ORDER BY q.id",
        (table,),
    )
    rows = await cur.fetchall()
    through = 0
    for qid, seq, digest, subject, msg_id, payload, stored_hash, prev, mac, sig in rows:
        if stored_hash is None:  # the store holds nothing at that seq: the table's record may still come
            break
        if stored_hash == digest:
            report.copies += 1
        elif not signature_ok(public_key, sig, table, int(seq), str(prev), str(stored_hash), str(mac)):
            break  # neither side is known to be the table's: a fork for resolve once the table's is signed
        else:
            try:
                rec: FloorRecord | None = check_message(subject, msg_id, bytes(payload), prefix)
            except BadMessage:
                rec = None
            if rec is not None and signature_ok(public_key, rec.sig, table, rec.seq, rec.prev, rec.hash, rec.mac):
                break  # the table's own record, yet not the stored one: not for this to close
            report.refused += 1
        through = int(qid)
    still = [row for row in rows if int(row[0]) > through]
    report.left_open = len(still)
    unsigned = [int(row[1]) for row in still]
    report.unsigned_from = min(unsigned) if unsigned else None
    if through and not report.dry_run:
        await cur.execute(
            "INSERT INTO floor_resolution (table_id, fork_seq, head_before, head_after, removed, replayed, "
            "quarantine_through, settled, note) VALUES (%s, NULL, %s, %s, 0, 0, %s, %s, %s)",
            (
                table,
                report.head_before,
                report.head_after,
                through,
                report.refused + report.copies,
                f"closed without a fork: {report.refused} not the table's, {report.copies} copies of stored records",
            ),
        )


def _fork(stored: list[tuple[Any, ...]], signed: list[FloorRecord]) -> int | None:
    """The first stored seq that a record the table signed contradicts (None: none does).

    ``stored`` are (seq, prev, hash, mac, sig, class) rows in seq order. A signed record ``r``
    contradicts the stored record at its own seq when the hashes differ, and the stored record
    at ``r.seq - 1`` when that one's hash is not ``r.prev``. From there the fork goes back while
    the table's record at the fork (signed, known) does not follow the stored record before it."""
    by_seq = {int(row[0]): str(row[2]) for row in stored}
    mine = {r.seq: r for r in signed if r.cls != "meters"}
    fork: int | None = None
    for r in mine.values():
        if by_seq.get(r.seq, r.hash) != r.hash:
            candidate: int | None = r.seq
        elif by_seq.get(r.seq - 1, r.prev) != r.prev:
            candidate = r.seq - 1
        else:
            candidate = None
        if candidate is not None and (fork is None or candidate < fork):
            fork = candidate
    while fork is not None and fork in mine and by_seq.get(fork - 1, mine[fork].prev) != mine[fork].prev:
        fork -= 1
    return fork


async def _signed_quarantine(
    cur: psycopg.AsyncCursor[TupleRow], table: str, fork_seq: int, prefix: str, public_key: str
) -> list[FloorRecord]:
    """The quarantined records of ``table`` from ``fork_seq`` on that the table signed, each
    message once, in seq order."""
    await cur.execute(
        "SELECT subject, msg_id, payload FROM floor_quarantine WHERE table_id = %s AND seq >= %s ORDER BY seq, id",
        (table, fork_seq),
    )
    out: list[FloorRecord] = []
    seen: set[bytes] = set()
    for subject, msg_id, payload in await cur.fetchall():
        data = bytes(payload)
        if data in seen:
            continue
        try:
            rec = check_message(subject, msg_id, data, prefix)
        except BadMessage:
            continue
        if rec.table == table and signature_ok(public_key, rec.sig, table, rec.seq, rec.prev, rec.hash, rec.mac):
            seen.add(data)
            out.append(rec)
    return out


async def _to_evidence(cur: psycopg.AsyncCursor[TupleRow], table: str, fork_seq: int, prefix: str) -> None:
    """Copy each stored record from ``fork_seq`` on (its floor_record row and its event or round
    rows, as JSON) into ``floor_quarantine`` with the reason."""
    await cur.execute(
        """
        SELECT r.seq, r.prev, r.hash, r.class, jsonb_build_object(
            'floor_record', to_jsonb(r),
            'journal_event', (SELECT to_jsonb(e) FROM journal_event e WHERE e.table_id = r.table_id AND e.seq = r.seq),
            'round', (SELECT to_jsonb(o) FROM round o WHERE o.table_id = r.table_id AND o.seq = r.seq))::text
        FROM floor_record r WHERE r.table_id = %s AND r.seq >= %s ORDER BY r.seq
        """,
        (table, fork_seq),
    )
    rows = await cur.fetchall()
    await cur.executemany(
        "INSERT INTO floor_quarantine (table_id, seq, subject, msg_id, reason, prev, hash, payload) "
        "VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
        [
            (
                table,
                seq,
                f"{prefix}.{table}.{cls}",
                f"{table}/{seq}",
                f"removed by tablectl floor resolve: stored at seq {seq} from a fork at seq {fork_seq} "
                "(not signed by the table's key); payload: the stored rows as JSON",
                prev,
                digest,
                orjson.dumps(orjson.loads(text)),
            )
            for seq, prev, digest, cls, text in rows
        ],
    )


async def _bookkeeping(cur: psycopg.AsyncCursor[TupleRow], table: str) -> None:
    """floor_table's last record and round as the store now holds them (the removed ones gone)."""
    await cur.execute(
        """
        UPDATE floor_table t SET
            last_seq = coalesce((SELECT max(seq) FROM floor_record r WHERE r.table_id = t.table_id), 0),
            last_round = (SELECT max(round_no) FROM round o WHERE o.table_id = t.table_id),
            last_at = greatest(t.first_at, (SELECT max(at) FROM journal_event e WHERE e.table_id = t.table_id),
                (SELECT max(ended_at) FROM round o WHERE o.table_id = t.table_id))
        WHERE t.table_id = %s
        """,
        (table,),
    )

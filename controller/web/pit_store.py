"""What the pit view reads from the floor store: a small read interface and its PostgreSQL reader.

The floor store's schema is ``floor/migrations`` (docs/floor.md). The pit view needs, per table,
more than the totals: today's rounds, handle and win, the theoretical win when par figures exist,
and the table's state as its events show it (a round in play, a device fault not yet cleared, a
link down, no report for a while). :class:`FloorReader` is that interface; :class:`PgFloorReader`
reads it from PostgreSQL, read only, one short connection per call. It is the floor store's one
read model (tests read the store through it too); its figures are the floor report's sums and
theoretical win (controller.floor.report, controller.par.service), over today's rounds.

The floor never has a card of a round in play (``CardDealt`` events arrive with the card hidden);
a round's cards come with its finished record, so a recall is always of a finished round.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from controller.floor.report import (
    ROUNDS_SQL,
    WAGERS_SQL,
    SheetSource,
    group_theoretical,
    groups_from_rows,
    hold_percent_of,
)
from controller.host import install_hint

if TYPE_CHECKING:
    from controller.configuration import TableConfig
    from controller.par.sheet import ParSheet

__all__ = ["TableState", "RoundLine", "RoundHold", "FloorReader", "PgFloorReader", "STALE_S"]

log = logging.getLogger("tablectl.web")

STALE_S = 120.0
"""A table that has sent nothing for this long is shown as not reporting."""

_CLEARS = {"fault cleared", "card corrected", "void"}

FAULT_KINDS = ("DeviceFault", "LinkDown", "CardUnreadable", "JournalFault")
"""What a round's ``faults`` counts (docs/journal.md; the table's ``faults`` meter, the floor
report's faults column): the pit lists these when journaled during a round."""


@dataclass(frozen=True, slots=True)
class TableState:
    """One table on the pit view."""

    table_id: str
    game: str | None
    last_at: datetime
    last_round: int | None
    in_play: bool
    """Bets, cards or buttons since the last finished round: a round is under way."""
    activity: str
    """The last thing the table reported, in words."""
    hold: str | None
    """A fault not yet cleared (the table is holding on it), or ``None``."""
    faults_today: list[str]
    """Today's faults, in words: the fault events journaled during today's finished rounds and
    since the last one (the round under way), of the kinds a round's ``faults`` counts
    (:data:`FAULT_KINDS`); for the finished rounds, as many as the floor report's faults."""
    rounds_today: int
    handle_today: int
    win_today: int
    voids_today: int
    theoretical_win_today: int | None = None
    stale_s: float = 0.0
    """Seconds since the table last said anything: a record or a heartbeat."""
    unreadable: str | None = None
    """What of this table's stored rows could not be read (the row says so; the others are drawn)."""
    quarantined: int = 0
    """Records the ingest quarantined for this table (controller.floor.alerts)."""
    rejected: int = 0
    """Messages naming this table the ingest rejected."""
    dealer: str | None = None
    """Who is dealing (roster id; None: nobody signed in, or the table has no roster)."""
    pending: int = 0
    """Records waiting for a gap in this table's chain to fill."""
    feed_held: str | None = None
    """The table holds its floor feed (its heartbeat says why: the floor holds a record it never wrote)."""
    throttled: str | None = None
    """The broker refuses the table's records: its share of the floor stream is full (its heartbeat)."""

    @property
    def hold_percent(self) -> float | None:
        return hold_percent_of(self.win_today, self.handle_today)

    @property
    def theoretical_percent(self) -> float | None:
        return hold_percent_of(self.theoretical_win_today, self.handle_today)


@dataclass(frozen=True, slots=True)
class RoundLine:
    """A finished round in a table's list."""

    round_no: int
    started_at: datetime
    ended_at: datetime
    void: bool
    seats: int
    handle: int
    win: int
    faults: int


@dataclass(frozen=True, slots=True)
class RoundHold:
    """A finished round's part in the hold chart: its handle and win, and what par expects of its
    wagers (``None`` while no par sheet is ready): the win's expectation and variance, in cents
    and cents squared (each wager ``c`` adds ``edge * c`` and ``variance_per_unit * c**2``)."""

    round_no: int
    ended_at: datetime
    void: bool
    handle: int
    win: int
    theoretical: float | None
    variance: float | None


class FloorReader(Protocol):
    """What the pit view reads (see the module docstring)."""

    def hold_series(self, table_id: str, limit: int = 500) -> list[RoundHold]: ...

    def tables(self, since: datetime, now: datetime) -> list[TableState]: ...

    def rounds(self, table_id: str, limit: int = 20) -> list[RoundLine]: ...

    def recall(self, table_id: str, round_no: int) -> dict[str, Any] | None: ...

    def rounds_at(self, table_id: str, at: datetime) -> tuple[list[RoundLine], int | None]: ...
    def has_table(self, table_id: str) -> bool: ...


def _event_text(kind: str, data: dict[str, Any]) -> str:
    device = data.get("device", "")
    if kind == "LinkDown":
        return f"{device} link down ({data.get('reason', '')})"
    if kind == "Jam":
        return "shoe jammed"
    if kind == "DoorChanged":
        return "shoe door open" if data.get("open") else "shoe door closed"
    if kind == "DeviceFault":
        return f"{device}: {data.get('error', 'fault')}"
    if kind == "CardUnreadable":
        return f"card {data.get('index', '?')} unreadable"
    if kind == "JournalFault":
        return f"journal: {data.get('reason', '')}"
    if kind == "SupervisorAction":
        return f"supervisor: {data.get('action', '')}"
    return kind


@dataclass
class _Open:
    links: dict[str, str] = field(default_factory=dict)
    faults: list[str] = field(default_factory=list)
    door: bool = False


def table_state(events: list[tuple[int, str, dict[str, Any]]], last_round_seq: int) -> str | None:
    """The fault a table is holding on, from its fault and supervisor events ``(seq, kind, data)``
    and the shoe's states, in journal order: a link down until its link is up; a door open until
    closed (or the shoe's state says ok); a jam of the round under way until the shoe's state is
    no longer jammed; an unreadable card, a journal fault or a failed command of the round under
    way until the supervisor clears it, corrects the card or voids. Other device faults are
    listed, not holds."""
    state = _Open()
    for seq, kind, data in events:
        device = str(data.get("device", ""))
        if kind == "LinkDown":
            state.links[device] = _event_text(kind, data)
        elif kind == "LinkUp":
            state.links.pop(device, None)
        elif kind == "DoorChanged":
            state.door = bool(data.get("open"))
        elif kind == "ShoeState":  # the shoe's whole state: its status says jammed or open now
            status = data.get("status")
            state.door = status == "door_open"
            if status != "jam":  # the protocol has no event for a jam cleared: this says so
                state.faults = [f for f in state.faults if f != _event_text("Jam", {})]
        elif kind == "SupervisorAction" and data.get("action") in _CLEARS:
            state.faults = []
        elif kind in ("Jam", "CardUnreadable", "JournalFault") and seq > last_round_seq:
            state.faults.append(_event_text(kind, data))
        elif kind == "DeviceFault" and data.get("kind") == "command_failed" and seq > last_round_seq:
            state.faults.append(_event_text(kind, data))  # a command the round depends on failed
    open_ = list(state.links.values()) + (["shoe door open"] if state.door else []) + state.faults
    return "; ".join(open_) if open_ else None


def dealer_signed_in(kind: str, data: Mapping[str, object]) -> str | None:
    """Who deals after a table's last dealer record (``SignedIn`` or ``SignedOff``, role dealer):
    the id signed in (or the one signing in for the next round), None after a sign-off."""
    person = data.get("person")
    if kind != "SignedIn" or not isinstance(person, str):
        return None
    return person[:32] + (" from the next round" if data.get("from_round") else "")


_ACTIVITY = {
    "SpotReport": "bets on the layout",
    "CardDealt": "dealing",
    "ButtonChanged": "dealer at the panel",
    "ShoeStatus": "counting the stub",
    "StartDrawn": "starting number drawn",
}


class PgFloorReader:
    """:class:`FloorReader` on the PostgreSQL floor store at ``url`` (read only)."""

    def __init__(self, url: str, sheets: SheetSource | None = None) -> None:
        self.url = url
        self.sheets: SheetSource = sheets or PitSheets()

    def _connect(self) -> Any:
        import psycopg

        conn = psycopg.connect(self.url, autocommit=True, connect_timeout=10)
        conn.read_only = True
        return conn

    def check(self) -> str | None:
        """What keeps the store from being read (``None`` when it can be): unreachable, or no schema."""
        try:
            import psycopg
        except ImportError:
            return f"psycopg is not installed; install the floor extra: {install_hint('floor')}"
        try:
            with self._connect() as conn:
                if conn.execute("SELECT to_regclass('floor_table')").fetchone()[0] is None:
                    return f"{_safe(self.url)} has no floor store schema (run `tablectl floor migrate --db URL`)"
        except psycopg.Error as exc:
            return f"cannot read the floor store at {_safe(self.url)}: {str(exc).strip().splitlines()[0]}"
        return None

    def tables(self, since: datetime, now: datetime) -> list[TableState]:
        """Every table that has reported, with today's figures from ``since`` (the floor report's
        figures for the rounds that ended since then: controller.floor.report), each read on its
        own: a stored value that cannot be read makes only its own table's row unreadable."""
        with self._connect() as conn:
            ids = [str(t) for (t,) in conn.execute("SELECT table_id FROM floor_table ORDER BY table_id").fetchall()]
            alerts = self._alerts(conn)
            out = []
            for table_id in ids:
                try:
                    state = self._table(conn, table_id, since, now)
                except Exception as exc:  # any stored value: this table's row only
                    log.warning("pit view: table %r is unreadable: %s", table_id, type(exc).__name__)
                    state = _unreadable(table_id, now, type(exc).__name__)
                q, r, p = alerts.get(table_id, (0, 0, 0))
                out.append(replace(state, quarantined=q, rejected=r, pending=p))
            known = set(ids)
            for table_id in sorted(set(alerts) - known):  # every record quarantined: still on the page
                q, r, p = alerts[table_id]
                state = _unreadable(table_id, now, None, "nothing stored: every record kept aside")
                out.append(replace(state, quarantined=q, rejected=r, pending=p))
            return out

    def has_table(self, table_id: str) -> bool:
        """Whether the floor store knows ``table_id`` (a page for any other is 404)."""
        with self._connect() as conn:
            return conn.execute("SELECT 1 FROM floor_table WHERE table_id = %s", (table_id,)).fetchone() is not None

    @staticmethod
    def _alerts(conn: Any) -> dict[str, tuple[int, int, int]]:
        try:
            from controller.floor.alerts import floor_alerts

            return {str(a.table_id): (int(a.quarantined), int(a.rejected), int(a.pending)) for a in floor_alerts(conn)}
        except Exception as exc:  # the alert tables unreadable: the tables are still drawn
            log.warning("pit view: the floor's alerts are unreadable: %s", type(exc).__name__)
            return {}

    def _table(self, conn: Any, table_id: str, since: datetime, now: datetime) -> TableState:
        row = conn.execute(
            """
            SELECT t.game, t.config, t.last_at, t.last_round, coalesce(lr.seq, 0), t.heartbeat_at, t.heartbeat
            FROM floor_table t
            LEFT JOIN LATERAL (SELECT seq FROM round WHERE round.table_id = t.table_id
                               ORDER BY seq DESC LIMIT 1) lr ON true
            WHERE t.table_id = %s
            """,
            (table_id,),
        ).fetchone()
        game, config, last_at, last_round, round_seq, beat_at, beat = row
        where = "r.ended_at >= %s AND r.table_id = %s"
        gs = groups_from_rows(
            conn.execute(ROUNDS_SQL.format(where=where), (since, table_id)).fetchall(),
            conn.execute(WAGERS_SQL.format(where=where), (since, table_id)).fetchall(),
        )
        events = conn.execute(
            "SELECT seq, kind, data FROM journal_event WHERE table_id = %s "
            "AND (class <> 'event' OR kind = 'ShoeState') AND at >= %s ORDER BY seq",
            (table_id, since),
        ).fetchall()
        in_rounds = conn.execute(
            "SELECT e.kind, e.data FROM journal_event e WHERE e.table_id = %s AND e.at >= %s "
            "AND e.kind = ANY(%s) AND (e.seq > %s OR EXISTS (SELECT 1 FROM round r WHERE "
            "r.table_id = e.table_id AND e.seq BETWEEN r.first_seq AND r.seq AND r.ended_at >= %s)) "
            "ORDER BY e.seq",
            (table_id, since, list(FAULT_KINDS), round_seq, since),
        ).fetchall()
        last = conn.execute(
            "SELECT kind FROM journal_event WHERE table_id = %s AND seq > %s AND kind = ANY(%s) "
            "AND (kind <> 'ButtonChanged' OR data->>'pressed' = 'true') ORDER BY seq DESC LIMIT 1",
            (table_id, round_seq, list(_ACTIVITY)),
        ).fetchone()
        hold = table_state([(int(s), str(k), _mapping(d)) for s, k, d in events], int(round_seq))
        signed = conn.execute(
            "SELECT kind, data FROM journal_event WHERE table_id = %s AND kind = ANY(%s) "
            "AND data->>'role' = 'dealer' ORDER BY seq DESC LIMIT 1",
            (table_id, ["SignedIn", "SignedOff"]),
        ).fetchone()
        beat = _mapping(beat)
        if beat_at is not None and (last_at is None or beat_at >= last_at):
            said = beat.get("hold")  # the table's own word on its hold, however long it holds
            hold = str(said)[:300] if said else None if beat else hold
        feed_held = beat.get("feed_held")
        heard = max(t for t in (last_at, beat_at) if t is not None)
        return TableState(
            table_id=table_id,
            game=str(game) if game else self.game_of(config),
            last_at=heard,
            last_round=int(last_round) if last_round is not None else None,
            in_play=last is not None,  # bets, cards or buttons since the last finished round
            activity=_ACTIVITY.get(str(last[0]), "open for bets") if last else "open for bets",
            hold=hold,
            feed_held=str(feed_held)[:300] if feed_held else None,
            throttled=str(beat["throttled"])[:300] if beat.get("throttled") else None,
            faults_today=[_event_text(str(k), _mapping(d)) for k, d in in_rounds],
            rounds_today=sum(g.rounds for g in gs),
            handle_today=sum(g.handle for g in gs),
            win_today=sum(g.win for g in gs),
            voids_today=sum(g.voids for g in gs),
            theoretical_win_today=group_theoretical(gs, self.sheets) if gs else None,
            stale_s=max(0.0, (now - heard).total_seconds()),
            dealer=dealer_signed_in(str(signed[0]), _mapping(signed[1])) if signed else None,
        )

    def game_of(self, config: object) -> str | None:
        """The game of a table that has not finished a round yet, from its table config."""
        if not isinstance(config, str) or not config:
            return None
        try:
            table = self.sheets._table(config) if isinstance(self.sheets, PitSheets) else None
        except Exception:
            return None
        game = getattr(table, "game", None)
        return str(game) if game else None

    def rounds(self, table_id: str, limit: int = 20) -> list[RoundLine]:
        """The table's last ``limit`` finished rounds, newest first."""
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT round_no, started_at, ended_at, void, seats, handle, win, faults FROM round "
                "WHERE table_id = %s ORDER BY seq DESC LIMIT %s",
                (table_id, limit),
            ).fetchall()
        return [RoundLine(*row) for row in rows]

    def recall(self, table_id: str, round_no: int) -> dict[str, Any] | None:
        """The finished round as ``tablectl recall --json`` wrote it at the table."""
        with self._connect() as conn:
            row = conn.execute(
                "SELECT recall FROM round WHERE table_id = %s AND round_no = %s ORDER BY seq DESC LIMIT 1",
                (table_id, round_no),
            ).fetchone()
        return dict(row[0]) if row else None

    def rounds_at(self, table_id: str, at: datetime) -> tuple[list[RoundLine], int | None]:
        """The table's round in play at ``at`` with the one before and the one after (:func:`around`),
        oldest first, and the number of the one in play (``None``: none was)."""
        columns = "round_no, started_at, ended_at, void, seats, handle, win, faults"
        with self._connect() as conn:
            before = conn.execute(
                f"SELECT {columns} FROM round WHERE table_id = %s AND ended_at < %s ORDER BY ended_at DESC, seq DESC "
                "LIMIT 1",
                (table_id, at),
            ).fetchone()
            after = conn.execute(
                f"SELECT {columns} FROM round WHERE table_id = %s AND ended_at >= %s ORDER BY ended_at, seq LIMIT 2",
                (table_id, at),
            ).fetchall()
        return around(RoundLine(*before) if before else None, [RoundLine(*row) for row in after], at)

    def hold_series(self, table_id: str, limit: int = 500) -> list[RoundHold]:
        """The table's last ``limit`` finished rounds, oldest first, with par's expectation of each."""
        with self._connect() as conn:
            rows = conn.execute(
                "SELECT r.seq, r.round_no, r.ended_at, r.void, r.handle, r.win, r.game, r.config, w.spot, "
                "coalesce(sum(w.cents), 0), coalesce(sum(w.cents::float8 * w.cents), 0) "
                "FROM (SELECT * FROM round WHERE table_id = %s ORDER BY seq DESC LIMIT %s) r "
                "LEFT JOIN wager w ON w.table_id = r.table_id AND w.seq = r.seq "
                "GROUP BY r.seq, r.round_no, r.ended_at, r.void, r.handle, r.win, r.game, r.config, w.spot "
                "ORDER BY r.seq",
                (table_id, limit),
            ).fetchall()
        return round_holds(rows, self.sheets)


def around(before: RoundLine | None, after: list[RoundLine], at: datetime) -> tuple[list[RoundLine], int | None]:
    """The rounds around ``at`` as ``tablectl recall --at`` shows them: ``before`` (the last that
    ended before ``at``) and ``after`` (the next two that ended at or after it, in order). The
    first of ``after`` was in play at ``at`` when it started at or before it: it is shown with the
    one before and the one after; otherwise no round was (the table between rounds) and the
    nearest before and after are shown. Returns them oldest first, and the number in play."""
    shown = [before] if before is not None else []
    if after and after[0].started_at <= at:
        return shown + after[:2], after[0].round_no
    return shown + after[:1], None


def round_holds(rows: list[tuple[Any, ...]], sheets: Callable[[str, str], ParSheet | None]) -> list[RoundHold]:
    """:class:`RoundHold` per round from rows ``(seq, round_no, ended_at, void, handle, win, game,
    config, spot, sum of cents, sum of cents squared)`` in round order; ``sheets(game, config)``
    gives a par sheet or ``None`` (not ready)."""
    out: list[RoundHold] = []
    current: list[Any] | None = None
    for seq, round_no, ended_at, void, handle, win, game, config, spot, cents, squares in rows:
        if current is None or current[0] != seq:
            if current is not None:
                out.append(RoundHold(*current[1:]))
            current = [seq, int(round_no), ended_at, bool(void), int(handle), int(win), 0.0, 0.0]
        sheet = sheets(game, config) if game and config else None
        if spot is None or current[6] is None:
            continue
        if sheet is None:
            current[6] = current[7] = None
            continue
        par = sheet.spots.get(spot)
        if par is not None and not void:
            current[6] += float(par.edge_per_unit) * float(cents)
            current[7] += float(par.variance_per_unit) * float(squares)
    if current is not None:
        out.append(RoundHold(*current[1:]))
    return out


def _mapping(value: object) -> dict[str, Any]:
    """A stored JSON object, or an empty one for anything else."""
    return dict(value) if isinstance(value, dict) else {}


def _unreadable(table_id: str, now: datetime, why: str | None, activity: str = "") -> TableState:
    """A table whose stored rows could not be read (``why``), drawn as such."""
    return TableState(
        table_id=table_id,
        game=None,
        last_at=now,
        last_round=None,
        in_play=False,
        activity=activity,
        hold=None,
        faults_today=[],
        rounds_today=0,
        handle_today=0,
        win_today=0,
        voids_today=0,
        unreadable=why,
    )


def _safe(url: str) -> str:
    """``url`` without its password."""
    return re.sub(r"(://[^:/@]+):[^@]*@", r"\1:***@", url)


class PitSheets:
    """Par sheets for the pit view by (game, table config path), from the par service without
    waiting (controller.par.service.sheet_nowait): a sheet whose results are kept (shipped for the
    shipped paytables, or in the cache folder) is there at once; one that is not is computed in a
    separate process (so the pit process never carries the solver's memory), and the theoretical
    figure is shown as not available until it is ready."""

    def __init__(self) -> None:
        self._tables: dict[str, TableConfig | None] = {}
        self._lock = threading.Lock()

    def __call__(self, game: str, config: str | None) -> ParSheet | None:
        if not config:
            return None
        from controller.par import service

        table = self._table(config)
        if table is None or table.game != game:
            return None
        try:
            return service.sheet_nowait(table)
        except (ValueError, KeyError, TypeError):
            return None

    def _table(self, config: str) -> TableConfig | None:
        with self._lock:
            if config not in self._tables:
                from controller.configuration import ConfigError, load_table
                from controller.game.record import resolve_table_path

                try:
                    self._tables[config] = load_table(resolve_table_path(config))
                except (ConfigError, OSError, ValueError):
                    self._tables[config] = None  # not on this machine: no figure rather than a wrong one
            return self._tables[config]

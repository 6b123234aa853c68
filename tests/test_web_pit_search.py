"""The pit view's round search (issue 31): ``/search?table=ID&at=TIME`` finds a table's round in
play at a time with the one before and the one after, as ``tablectl recall --at`` does, from the
floor store's reader; a table id or a time that is not one is a 400 naming it. The app is called
directly over ASGI, on a reader whose rounds the test sets: round N of ``t-7`` is played from
``T0 + 600 N`` to ``T0 + 600 N + 120``."""

from __future__ import annotations

import asyncio
import re
import urllib.parse
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the web views need the web extra: pip install -e '.[web]'")

from controller.web.pit_app import pit_app
from controller.web.pit_store import RoundLine, around

pytestmark = pytest.mark.usefixtures("new_york")  # the table's local time is New York's

T0 = datetime(2026, 12, 4, 9, 0, tzinfo=UTC)
"""09:00 UTC, 04:00 in New York (EST)."""


def line(n: int) -> RoundLine:
    return RoundLine(n, T0 + timedelta(seconds=600 * n), T0 + timedelta(seconds=600 * n + 120), False, 2, 1000, 50, 0)


ROUNDS = [line(n) for n in range(1, 7)]


class Store:
    """The floor store's reader, with ``ROUNDS`` for table ``t-7``: ``rounds_at`` as the
    PostgreSQL reader selects (the last that ended before, the next two), then :func:`around`."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, datetime]] = []

    def rounds_at(self, table_id: str, at: datetime) -> tuple[list[RoundLine], int | None]:
        self.asked.append((table_id, at))
        rounds = ROUNDS if table_id == "t-7" else []
        before = [r for r in rounds if r.ended_at < at][-1:]
        return around(before[0] if before else None, [r for r in rounds if r.ended_at >= at][:2], at)


def get(app: Any, path: str, query: dict[str, str]) -> tuple[int, str]:
    """GET ``path?query`` from the ASGI ``app``: (status, body)."""
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": urllib.parse.urlencode(query).encode(),
        "headers": [(b"host", b"127.0.0.1")],
        "client": ("127.0.0.1", 1),
        "server": ("127.0.0.1", 80),
        "root_path": "",
    }
    asyncio.run(app(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, body.decode()


def search(store: Store, table: str, at: str) -> tuple[int, str]:
    app = pit_app(store, clock=lambda: T0 + timedelta(hours=3))  # 07:00 in New York, the same day
    return get(app, "/search", {"table": table, "at": at})


def found(body: str) -> list[int]:
    """The rounds listed, in order."""
    return [int(n) for n in re.findall(r'class="round-row[^"]*" data-round="(\d+)"', body)]


@pytest.mark.parametrize(
    ("at", "rounds", "in_play"),
    [
        ("04:31", [2, 3, 4], 3),  # in the middle of round 3 (04:30-04:32 in New York), HH:MM today
        ("2026-12-04T04:30", [2, 3, 4], 3),  # its first moment, local
        ("2026-12-04T09:32:00Z", [2, 3, 4], 3),  # its last, with a zone
        ("04:11", [1, 2], 1),  # the first round: none before it
        ("05:01", [5, 6], 6),  # the last: none after it
        ("04:33", [3, 4], None),  # between rounds
        ("03:00", [1], None),  # before the first
        ("06:00", [6], None),  # after the last
    ],
)
def test_search_finds_the_round_in_play_with_the_one_before_and_after(
    at: str, rounds: list[int], in_play: int | None
) -> None:
    store = Store()
    status, body = search(store, "t-7", at)
    assert status == 200, body
    assert found(body) == rounds
    assert store.asked[0][0] == "t-7"
    if in_play is None:
        assert "no round was in play at 2026-12-04" in body and "in-play" not in body
    else:
        assert f"round {in_play} was in play at 2026-12-04" in body
        assert f'class="round-row in-play" data-round="{in_play}"' in body
    assert "EST" in body  # the times with the zone
    assert f'href="/tables/t-7/rounds/{rounds[0]}"' in body  # each a link to its recall


def test_search_without_a_query_shows_the_form_and_asks_nothing() -> None:
    store = Store()
    app = pit_app(store, clock=lambda: T0)
    status, body = get(app, "/search", {})
    assert status == 200 and 'id="round-search"' in body and 'id="found"' not in body and not store.asked


@pytest.mark.parametrize(
    ("table", "at", "problem"),
    [
        ("t-7", "25:00", "time: &#39;25:00&#39;: not a time (use HH:MM today"),
        ("t-7", "", "time: &#39;&#39;: not a time"),
        ("<b>x</b>", "04:31", "table: &#39;&lt;b&gt;x&lt;/b&gt;&#39; is not a table id"),
        ("", "04:31", "table: &#39;&#39; is not a table id"),
        ("<b>x</b>", "noon", "table: "),  # both wrong: the table is named first
    ],
)
def test_a_bad_table_or_time_is_a_400_naming_it(table: str, at: str, problem: str) -> None:
    store = Store()
    status, body = search(store, table, at)
    assert status == 400 and problem in body, body
    assert 'id="round-search"' in body and "<b>x" not in body and not store.asked


def test_a_table_the_floor_does_not_have_finds_nothing() -> None:
    status, body = search(Store(), "t-8", "04:31")
    assert status == 200 and "no finished round at 2026-12-04 04:31:00 EST" in body and found(body) == []


def test_the_floor_stores_reader_finds_the_rounds_around_a_time(floor_db: Any) -> None:
    """:meth:`PgFloorReader.rounds_at` on PostgreSQL: two tables' rounds interleaved in time; each
    table's own, by end time (round numbers started over at one of them)."""
    import psycopg

    from controller.web.pit_store import PgFloorReader

    with psycopg.connect(floor_db.owner, autocommit=True) as conn:
        for table_id, shift, numbers in (("t-7", 0, range(1, 7)), ("t-8", 300, range(1, 7))):
            for seq, n in enumerate(numbers, 1):
                r = line(n)
                started, ended = r.started_at + timedelta(seconds=shift), r.ended_at + timedelta(seconds=shift)
                number = n if table_id == "t-7" or n < 4 else n - 3  # t-8 started its numbers over after round 3
                conn.execute(
                    "INSERT INTO round (table_id, seq, round_no, game, started_at, ended_at, void, seats, handle, "
                    "win, paid, collected, commission, late_bets, faults, first_seq, recall) VALUES "
                    "(%s, %s, %s, 'mississippi_stud', %s, %s, false, 2, 1000, 50, 0, 50, 0, 0, 0, %s, '{}')",
                    (table_id, seq * 10, number, started, ended, seq * 10 - 5),
                )
    reader = PgFloorReader(floor_db.reader)
    for at, want in (
        (line(3).started_at + timedelta(seconds=60), ([2, 3, 4], 3)),
        (line(3).ended_at + timedelta(seconds=1), ([3, 4], None)),
        (line(1).started_at - timedelta(hours=1), ([1], None)),
        (line(6).ended_at + timedelta(hours=1), ([6], None)),
    ):
        rounds, in_play = reader.rounds_at("t-7", at)
        assert ([r.round_no for r in rounds], in_play) == want, at
    rounds, in_play = reader.rounds_at("t-8", line(5).started_at + timedelta(seconds=360))  # t-8's 5th round
    assert [r.round_no for r in rounds] == [1, 2, 3] and in_play == 2  # its numbers as the table gave them
    assert reader.rounds_at("t-9", line(3).started_at) == ([], None)

"""The pit view in a real browser: three bench tables (one of each game) publishing to one floor
store through the real floor link (NATS JetStream, the ingest, PostgreSQL: the session's servers on
127.0.0.1 with TLS, per-table identities and database roles); the pit view lists the three, shows the one holding on a device fault, and clicks
through to a table's rounds and a round's full recall, which equals the table's own recall."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from deadlines import STATE_TIMEOUT_S
from web_helpers import (
    SCREENS,
    BenchProcess,
    WebClient,
    browser,
    need_browser,
    open_table_row,
    tablectl,
    wait_for,
)

from controller.game import game_name

pytest.importorskip("starlette", reason="the web views need the web extra: pip install -e '.[web]'")

REPO = Path(__file__).resolve().parent.parent
TIMEOUT = 180.0
psycopg: Any = None
TABLES = {"ms-01": "mississippi_stud", "b5-02": "boston5", "pg-03": "pai_gow"}
ROUNDS = 3
PAGE_ROUNDS = 4


def count(db: str, sql: str, *args: Any) -> int:
    with psycopg.connect(db, autocommit=True) as conn:
        return int(conn.execute(sql, args).fetchone()[0])


def post(url: str, action: str, body: dict[str, Any]) -> None:
    """Drive a bench table's controls as its page does (session, Origin, CSRF)."""
    port = int(url.rstrip("/").rsplit(":", 1)[1])
    status, data = WebClient(port).post(action, body)
    assert status == 200, data


@pytest.fixture(scope="module")
def floor(floor_site: Any) -> Iterator[dict[str, Any]]:
    """One floor store with three bench tables in it; ms-01 is left in play, holding on a jammed shoe.
    On the session's floor servers (tests/floor_fixtures.py): its own prefix, stream and database;
    the ingest writes as floor_ingest, the pit view reads as floor_reader."""
    need_browser()
    global psycopg
    psycopg = pytest.importorskip("psycopg", reason="the pit view reads the floor store: pip install -e '.[test]'")
    base = floor_site.base / "pit"
    base.mkdir()
    link = floor_site.link()
    link.create_stream()
    database = floor_site.database()
    procs: list[subprocess.Popen[str]] = []
    manual: BenchProcess | None = None
    try:
        db = database.reader
        ingest = subprocess.Popen(
            [sys.executable, "-m", "controller", "floor", "ingest", "--nats", link.servers[0], "--db", database.ingest]
            + link.ingest_args(),
            stdout=subprocess.DEVNULL,
            stderr=(base / "ingest.err").open("w"),
        )
        procs.append(ingest)
        journals = {t: base / f"{t}.db" for t in TABLES}
        configs = {t: link.yaml(base, t, g) for t, g in TABLES.items()}
        benches = [
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "controller",
                    "bench",
                    "--config",
                    str(configs[t]),
                    "--journal",
                    str(journals[t]),
                ]
                + ["--rounds", str(ROUNDS), "--seats", "3", "--seed", str(i + 7), "--quiet"],
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
            )
            for i, t in enumerate(TABLES)
        ]
        for b in benches:
            assert b.returncode == 0, b.stdout + b.stderr
            assert "backlog 0" in b.stdout, b.stdout
        # ms-01 starts its next round from the page's controls, and its shoe jams.
        manual = BenchProcess(
            base, "mississippi_stud", extra=("--config", str(configs["ms-01"])), journal=journals["ms-01"]
        )
        wait_for(lambda: manual is not None and manual.get("/state")[0] == 200, "ms-01's table view")
        post(manual.url, "spot", {"seat": 2, "spot": "ante", "cents": 2500})
        post(manual.url, "fault", {"kind": "shoe_jam"})
        wait_for(
            lambda: (
                count(db, "SELECT count(*) FROM round") == ROUNDS * len(TABLES)
                and count(db, "SELECT count(*) FROM journal_event WHERE kind = 'Jam'") == 1
            ),
            "every round and the jam in the floor store",
            TIMEOUT,
        )
        web = subprocess.Popen(  # port 0: it binds a free one and names it (no port taken meanwhile)
            [sys.executable, "-m", "controller", "floor", "web", "--db", db, "--web", "127.0.0.1:0"],
            stdout=subprocess.DEVNULL,
            stderr=(base / "web.err").open("w"),
        )
        procs.append(web)
        listening = wait_for(
            lambda: re.search(r"pit view on (http://\S+?/)", (base / "web.err").read_text()),
            "the pit view to listen",
            TIMEOUT,
        )
        yield {"url": listening.group(1), "db": db, "journals": journals}
    finally:
        if manual is not None:
            manual.stop()
        for p in procs:
            p.terminate()
            try:
                p.wait(timeout=STATE_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                p.kill()


def test_pit_view_shows_three_bench_tables_from_one_floor_store(floor: dict[str, Any]) -> None:
    with browser(1560, 900) as d:
        from selenium.webdriver.common.by import By

        d.get(floor["url"])
        # The overview is live (its body swapped when the floor changes): read it in one script, never
        # element by element across a swap.
        read_rows = """return Array.from(document.querySelectorAll('tr.table-row')).map(r => ({
            id: r.dataset.table, hold: r.dataset.hold, text: r.innerText,
            cells: Array.from(r.querySelectorAll('td')).map(c => c.innerText.trim())}));"""
        rows = wait_for(lambda: d.execute_script(read_rows), "the tables on the pit view")
        assert [r["id"] for r in rows] == sorted(TABLES)
        by_id = {r["id"]: r for r in rows}
        for table_id, game in TABLES.items():
            assert by_id[table_id]["cells"][1] == game_name(game)  # "Boston 5", not "boston5"
            assert by_id[table_id]["cells"][3] == str(ROUNDS)  # rounds today
        assert by_id["ms-01"]["hold"] == "yes"
        assert "jam" in by_id["ms-01"]["text"].lower()
        assert "PLAYING" not in by_id["b5-02"]["text"] and by_id["b5-02"]["hold"] == "no"
        assert "NOT REPORTING" not in by_id["b5-02"]["text"]
        SCREENS.mkdir(parents=True, exist_ok=True)
        d.save_screenshot(str(SCREENS / "pit.png"))

        d.execute_script("document.querySelector('tr.table-row[data-table=\"b5-02\"] a.table-link').click()")
        rounds = wait_for(lambda: d.find_elements(By.CSS_SELECTOR, "tr.round-row"), "b5-02's rounds")
        assert d.find_elements(By.CSS_SELECTOR, "#hold-chart svg #hold-line")  # the band comes once par is ready
        assert [r.get_attribute("data-round") for r in rounds] == [str(n) for n in range(ROUNDS, 0, -1)]
        rounds[-2].find_element(By.TAG_NAME, "a").click()  # round 2
        wait_for(lambda: d.find_elements(By.CSS_SELECTOR, "#recall-seats tr.seat-row"), "round 2's recall")

        recalled = tablectl("recall", "--journal", str(floor["journals"]["b5-02"]), "--round", "2", "--json")
        assert recalled.returncode == 0, recalled.stderr
        record = json.loads(recalled.stdout)
        settled = json.loads(tablectl("settle", "-", stdin=recalled.stdout).stdout)
        seats = d.find_elements(By.CSS_SELECTOR, "#recall-seats tr.seat-row")
        assert {s.get_attribute("data-seat"): int(s.get_attribute("data-net")) for s in seats} == {
            n: s["net"] for n, s in settled["seats"].items()
        }
        dealt = d.find_elements(By.CSS_SELECTOR, "#dealt li.dealt")
        cards = [li.find_element(By.CSS_SELECTOR, "span.pc").get_attribute("data-card") for li in dealt]
        assert cards == [c["card"] for c in record["recall"]["cards"]]  # in dealt order
        assert [li.find_element(By.CSS_SELECTOR, ".to").text for li in dealt] == [
            c["to"] for c in record["recall"]["cards"]
        ]
        d.save_screenshot(str(SCREENS / "pit-round.png"))


class JournalFloor:
    """A :class:`controller.web.pit_store.FloorReader` over bench journals (what the floor store would hold
    of them), so the pit pages are tested in the browser even where the floor link is not installed."""

    def __init__(self, journals: dict[str, Path], games: dict[str, str]) -> None:
        self.journals, self.games = journals, games

    def _rounds(self, table_id: str) -> list[Any]:
        from controller.journal import SqliteJournal
        from controller.journal.recall import recall

        j = SqliteJournal(self.journals[table_id])
        try:
            return recall(j, last=1000)
        finally:
            j.close()

    def tables(self, since: Any, now: Any) -> list[Any]:
        from datetime import UTC, datetime

        out = []
        for table_id in sorted(self.journals):
            rounds = self._rounds(table_id)
            handle = sum(sum(s["wagers"].values()) for r in rounds for s in r.data["record"]["seats"].values())
            win = sum(r.data["settlement"]["house_net"] for r in rounds if r.data["settlement"])
            out.append(
                open_table_row(
                    table_id=table_id,
                    game=self.games[table_id],
                    last_at=datetime.fromtimestamp(rounds[-1].ended, UTC),
                    last_round=rounds[-1].number,
                    rounds_today=len(rounds),
                    handle_today=handle,
                    win_today=win,
                )
            )
        return out

    def rounds(self, table_id: str, limit: int = 20) -> list[Any]:
        from datetime import UTC, datetime

        from controller.web.pit_store import RoundLine

        return [
            RoundLine(
                r.number,
                datetime.fromtimestamp(r.started, UTC),
                datetime.fromtimestamp(r.ended, UTC),
                r.void,
                len(r.data["record"]["seats"]),
                sum(sum(s["wagers"].values()) for s in r.data["record"]["seats"].values()),
                r.data["settlement"]["house_net"] if r.data["settlement"] else 0,
                0,
            )
            for r in reversed(self._rounds(table_id)[-limit:])
        ]

    def hold_series(self, table_id: str, limit: int = 500) -> list[Any]:
        """Each round's wagers by spot through the store's own :func:`round_holds`, with a par
        of 3% and variance 1.5 per unit on every spot (the chart's drawing is tested here, not par)."""
        from datetime import UTC, datetime
        from types import SimpleNamespace

        from controller.web.pit_store import round_holds

        par = SimpleNamespace(edge_per_unit=0.03, variance_per_unit=1.5)
        sheet = SimpleNamespace(
            spots={
                spot: par
                for spot in ("ante", "first", "second", "bonus", "third", "fourth", "fifth", "pai_gow", "insurance")
            }
        )

        def fixed_par(game: str, config: str) -> Any:
            return sheet

        rows = []
        for r in self._rounds(table_id)[-limit:]:
            seats = r.data["record"]["seats"].values()
            handle = sum(sum(s["wagers"].values()) for s in seats)
            win = r.data["settlement"]["house_net"] if r.data["settlement"] else 0
            by_spot: dict[str, list[int]] = {}
            for s in seats:
                for spot, cents in s["wagers"].items():
                    by_spot.setdefault(spot, []).append(cents)
            for spot, amounts in by_spot.items():
                ended = datetime.fromtimestamp(r.ended, UTC)
                rows.append(
                    (
                        r.number,
                        r.number,
                        ended,
                        r.void,
                        handle,
                        win,
                        self.games[table_id],
                        "cfg",
                        spot,
                        sum(amounts),
                        sum(c * c for c in amounts),
                    )
                )
        return round_holds(rows, fixed_par)

    def recall(self, table_id: str, round_no: int) -> dict[str, Any] | None:
        from controller.journal.recall import recall_json

        found = [r for r in self._rounds(table_id) if r.number == round_no]
        return recall_json(found[0]) if found else None


def test_pit_pages_show_three_bench_tables_from_a_read_interface(tmp_path: Path) -> None:
    """The pit pages on :class:`JournalFloor` (three bench journals), served by uvicorn, in Chromium."""
    need_browser()
    journals = {t: tmp_path / f"{t}.db" for t in TABLES}
    benches = [
        subprocess.Popen(
            [sys.executable, "-m", "controller", "bench", "--game", game, "--journal", str(journals[t])]
            + ["--rounds", str(PAGE_ROUNDS), "--seats", "2", "--quiet"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for t, game in TABLES.items()
    ]
    for b in benches:
        out, _ = b.communicate(timeout=TIMEOUT)
        assert b.returncode == 0, out
    from controller.web.pit_app import pit_app
    from controller.web.server import WebAddress, WebServer

    server = WebServer(pit_app(JournalFloor(journals, TABLES)), WebAddress("127.0.0.1", 0))
    url = server.start()
    try:
        with browser() as d:
            from selenium.webdriver.common.by import By

            d.get(url)
            rows = wait_for(lambda: d.find_elements(By.CSS_SELECTOR, "tr.table-row"), "the tables")
            assert [r.get_attribute("data-table") for r in rows] == sorted(TABLES)
            names = [r.find_elements(By.TAG_NAME, "td")[1].text for r in rows]
            assert names == [game_name(TABLES[t]) for t in sorted(TABLES)]
            assert not any(v in d.page_source for v in ("boston5<", "mississippi_stud<", "pai_gow<"))
            rows[0].find_element(By.CSS_SELECTOR, "a.table-link").click()
            rounds = wait_for(lambda: d.find_elements(By.CSS_SELECTOR, "tr.round-row"), "the rounds")
            assert [r.get_attribute("data-round") for r in rounds] == [str(n) for n in range(PAGE_ROUNDS, 0, -1)]
            chart = d.find_element(By.ID, "hold-chart")
            assert chart.get_attribute("data-rounds") == str(PAGE_ROUNDS)
            band = d.find_element(By.ID, "hold-band").get_attribute("points")
            assert len(band.split()) == 2 * PAGE_ROUNDS  # the upper edge out, the lower edge back
            box = d.execute_script("return document.getElementById('hold-band').getBBox().height")
            assert box > 0  # drawn, with a height
            assert d.find_element(By.ID, "hold-line").get_attribute("points")
            assert d.find_element(By.ID, "hold-theoretical").get_attribute("points")
            SCREENS.mkdir(parents=True, exist_ok=True)
            d.save_screenshot(str(SCREENS / "pit-table.png"))
            rounds = d.find_elements(By.CSS_SELECTOR, "tr.round-row")
            rounds[-1].find_element(By.TAG_NAME, "a").click()
            dealt = wait_for(lambda: d.find_elements(By.CSS_SELECTOR, "#dealt li.dealt"), "round 1's cards")
            table_id = sorted(TABLES)[0]
            recalled = json.loads(
                tablectl("recall", "--journal", str(journals[table_id]), "--round", "1", "--json").stdout
            )
            assert [li.get_attribute("data-card") for li in dealt] == [c["card"] for c in recalled["recall"]["cards"]]
    finally:
        server.stop()

"""Issue #34 in a real Chromium: one client address's slow connections leave the page served
(the attacker connects from 127.0.0.2); the bet spots and every control reached by keyboard with
a visible focus; a server on another port holding the session cookie cannot act; a 403 and a 401
on the page said in words with the way back; the logout control; the pit overview updated live
through its event stream (no reload), a held table kept HOLD with its reason, an unreadable table
harming no other, a table's page 404 when unknown. Screenshots: table-denied.png, pit-live.png."""

from __future__ import annotations

import contextlib
import functools
import http.client
import json
import re
import socket
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from web_helpers import (
    SCREENS,
    BenchProcess,
    Page,
    PageServer,
    TablesOnly,
    browser,
    journal_count,
    open_table_row,
    wait_for,
)

pytest.importorskip("starlette", reason="the web views need the web extra: pip install -e '.[web]'")

ATTACKER = "127.0.0.2"


@pytest.fixture
def driver() -> Iterator[Any]:
    with browser() as d:
        yield d


def _login(driver: Any, url: str, token: str) -> None:
    driver.get(url)
    wait_for(lambda: driver.current_url.endswith("/login"), "the login page")
    driver.find_element("id", "token").send_keys(token)
    driver.find_element("id", "login-go").click()
    wait_for(lambda: not driver.current_url.endswith("/login"), "the login's redirect to the table")


def _tab_to(driver: Any, css: str, limit: int = 80) -> Any:
    """Press Tab until the focus is on an element matching ``css``; returns it."""
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.keys import Keys

    for _ in range(limit):
        ActionChains(driver).send_keys(Keys.TAB).perform()
        if driver.execute_script("return document.activeElement.matches(arguments[0])", css):
            return driver.switch_to.active_element
    raise AssertionError(f"Tab never reached {css}")


def _gone(element: Any) -> bool:
    """Whether ``element`` belongs to a page the browser has left."""
    from selenium.common.exceptions import StaleElementReferenceException

    try:
        element.is_enabled()
    except StaleElementReferenceException:
        return True
    return False


def _focus_drawn(driver: Any) -> bool:
    style = driver.execute_script(
        "const s = getComputedStyle(document.activeElement); return [s.outlineStyle, s.outlineWidth]"
    )
    return bool(style[0] != "none" and style[1] not in ("0px", ""))


def test_the_table_page_isolated_from_other_clients_and_ports(tmp_path: Path, driver: Any) -> None:
    from selenium.webdriver.common.keys import Keys
    from web_helpers import can_bind

    from controller.cli._webtoken import new_token

    token = new_token()
    bench = BenchProcess(tmp_path, "mississippi_stud", token=token)
    slow: list[socket.socket] = []
    try:
        # 4. five wrong tokens limit this address; the right one is still let in
        driver.get(bench.url)
        for n in range(6):
            wait_for(lambda: driver.current_url.endswith("/login"), "the login page")
            driver.find_element("id", "token").send_keys(f"wrong-{n}")
            before = driver.find_element("id", "login-error")
            driver.find_element("id", "login-go").click()
            # the form posts and a new page comes back: read the refusal from the new page, not the old
            wait_for(functools.partial(_gone, before), "the login page served again")
            wait_for(
                lambda: (
                    "token" in driver.find_element("id", "login-error").text
                    or "wait a minute" in driver.find_element("id", "login-error").text
                ),
                "the refusal",
            )
        assert "wait a minute" in driver.find_element("id", "login-error").text  # limited now
        _login(driver, bench.url, token)
        page = Page(driver, bench.url)  # a second page load: its secret comes from the first one's keeping
        page.wait_betting()
        # 1. another address holds as many slow connections as it can: the page is still served
        if can_bind(ATTACKER):
            for _ in range(80):
                s = socket.socket()
                s.bind((ATTACKER, 0))
                s.settimeout(10)
                with contextlib.suppress(OSError):  # one past the share may be reset before connect returns
                    s.connect(("127.0.0.1", bench.port))
                    s.sendall(b"GET /state HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                slow.append(s)
        # the bet spots by keyboard: Tab to a spot, Enter opens its dialog, Enter places
        spot = _tab_to(driver, "#spot-1-ante")
        assert _focus_drawn(driver), "the focused spot shows no focus"
        spot.send_keys(Keys.ENTER)
        wait_for(lambda: driver.execute_script("return document.getElementById('spot-dialog').open"), "the dialog")
        amount = driver.switch_to.active_element
        amount.send_keys(Keys.CONTROL, "a")
        amount.send_keys("7.00", Keys.ENTER)
        page.wait_wager(1, "ante", 700)
        assert re.fullmatch(r"\d\d:\d\d:\d\d", driver.find_element("id", "clock").text)  # 24-hour
        # 3. a server on another port of the host that is sent the cookie gets no secret with it
        cookie = next(c for c in driver.get_cookies() if c["name"].startswith("tablectl_session_"))
        jar = {"cookie": f"{cookie['name']}={cookie['value']}"}
        status, body = bench.get("/", {**jar, "accept": "text/html"})
        assert status == 200 and b'name="csrf-token" content=""' in body
        before = journal_count(bench.journal, "ButtonChanged")
        forged = {**jar, "origin": f"http://127.0.0.1:{bench.port}", "content-type": "application/json"}
        for secret in ("", "guess"):
            status, answer = bench.get(
                "/api/press", {**forged, "x-csrf-token": secret}, "POST", b'{"button": "no_more_bets"}'
            )
            assert status == 403 and "session's key" in json.loads(answer)["error"]
        # 2. a 403 on the page says why, with the way back (a page that lost its key)
        secret = driver.execute_script("return localStorage.getItem('tablectl.secret')")
        assert secret
        driver.execute_script("localStorage.setItem('tablectl.secret', 'lost')")
        page.click("#deal-1")
        wait_for(lambda: driver.find_element("id", "denied").is_displayed(), "the refusal on the page")
        assert "session's key" in driver.find_element("id", "denied-why").text
        assert driver.find_element("id", "way-back").text == "Log in again"
        page.screenshot("table-denied.png")
        assert journal_count(bench.journal, "ButtonChanged") == before  # nothing pressed by anyone else
        driver.find_element("id", "way-back").click()
        wait_for(lambda: driver.current_url.endswith("/login"), "the way back: the login page")
        _login(driver, bench.url, token)
        page = Page(driver, bench.url)
        page.wait_betting()
        page.place(2, "ante", 500)
        page.wait_wager(2, "ante", 500)
        # a 401: the session ended elsewhere (logged out with its secret); the page says so
        cookie = next(c for c in driver.get_cookies() if c["name"].startswith("tablectl_session_"))
        jar = {"cookie": f"{cookie['name']}={cookie['value']}"}
        secret = driver.execute_script("return localStorage.getItem('tablectl.secret')")
        ended = {**jar, "origin": f"http://127.0.0.1:{bench.port}", "content-type": "application/json"}
        assert bench.get("/logout", {**ended, "x-csrf-token": secret}, "POST", b"{}")[0] == 303
        page.click("#deal-1")
        wait_for(lambda: driver.find_element("id", "denied").is_displayed(), "the 401 on the page")
        assert "session has ended" in driver.find_element("id", "denied-why").text
        # the logout control on the page
        _login(driver, bench.url, token)
        page = Page(driver, bench.url)
        cookie = next(c for c in driver.get_cookies() if c["name"].startswith("tablectl_session_"))
        old = {"cookie": f"{cookie['name']}={cookie['value']}"}
        logout = _tab_to(driver, "#logout")
        assert _focus_drawn(driver)
        logout.send_keys(Keys.ENTER)
        wait_for(lambda: driver.current_url.endswith("/login"), "the login page after logging out")
        assert bench.get("/state", old)[0] == 401  # the session is over, not only forgotten
        assert driver.execute_script("return localStorage.getItem('tablectl.secret')") is None
    finally:
        for s in slow:
            s.close()
        bench.stop()


FLOOD = """<!doctype html><html><head><title>flood</title></head><body><script>
async function go() {{
  const out = [];
  for (let i = 0; i < 60; i++) {{
    try {{ await fetch("{bench}", {{mode: "no-cors", credentials: "include"}}); out.push("get"); }}
    catch (e) {{ out.push(String(e)); }}
  }}
  try {{
    await fetch("{bench}logout", {{method: "POST", mode: "no-cors", credentials: "include",
      headers: {{"content-type": "text/plain"}}, body: "{{}}"}});
  }} catch (e) {{ out.push(String(e)); }}
  window.out = out; document.title = "done";
}}
go();
</script></body></html>"""


def test_a_flood_of_sessions_from_elsewhere_leaves_the_operators_session(tmp_path: Path, driver: Any) -> None:
    """A token-less (loopback) view: a page on another port of the host makes the browser load
    the view's page 60 times (no-cors) and post a logout; another address floods it with page
    loads. The operator's page keeps its session and acts."""
    from web_helpers import can_bind

    bench = BenchProcess(tmp_path, "mississippi_stud")
    try:
        page = Page(driver, bench.url)
        page.wait_betting()
        cookie = next(c for c in driver.get_cookies() if c["name"].startswith("tablectl_session_"))
        flooded = []
        if can_bind(ATTACKER):
            for _ in range(40):
                conn = http.client.HTTPConnection("127.0.0.1", bench.port, timeout=30, source_address=(ATTACKER, 0))
                conn.request("GET", "/", headers={"accept": "text/html"})
                flooded.append(conn.getresponse().status)
                conn.close()
            assert flooded.count(200) == 20 and flooded.count(429) == 20  # 20 a minute an address
        attacker = PageServer(FLOOD.format(bench=bench.url).encode())
        try:
            driver.get(f"http://127.0.0.1:{attacker.port}/")
            wait_for(lambda: driver.title == "done", "the other port's page to finish")
        finally:
            attacker.close()
        after = next(c for c in driver.get_cookies() if c["name"].startswith("tablectl_session_"))
        assert after["value"] == cookie["value"]  # the browser still holds the operator's session
        page = Page(driver, bench.url)
        page.wait_betting()
        page.place(3, "ante", 1500)  # and the page acts with it
        page.wait_wager(3, "ante", 1500)
        assert not driver.find_element("id", "denied").is_displayed()
    finally:
        bench.stop()


# --- the pit ---------------------------------------------------------------------------------------


class ChangingFloor(TablesOnly):
    """A pit reader whose tables the test changes while the page is open."""

    def __init__(self) -> None:
        now = datetime.now(UTC)
        base = open_table_row(
            table_id="ms-01",
            game="mississippi_stud",
            last_at=now,
            last_round=41,
            rounds_today=41,
            handle_today=123_400,
            win_today=4_100,
        )
        super().__init__(
            [
                base,
                replace(
                    base,
                    table_id="b5-02",
                    game="boston5",
                    last_round=None,
                    rounds_today=0,
                    handle_today=0,
                    win_today=0,
                    quarantined=2,
                    pending=5,
                ),
                replace(base, table_id="pg-03", game="pai_gow", unreadable="DataError"),
                replace(base, table_id="ms-04", hold="shoe link down (cable)", last_at=now - timedelta(hours=2)),
            ]
        )

    def has_table(self, table_id: str) -> bool:
        return any(t.table_id == table_id for t in self.tables_now)


def test_the_pit_overview_is_live_and_isolated_per_table(driver: Any) -> None:
    from controller.web.pit_app import pit_app
    from controller.web.server import WebAddress, WebServer

    floor = ChangingFloor()
    server = WebServer(pit_app(floor, refresh_s=0.2), WebAddress("127.0.0.1", 0))
    url = server.start()
    try:
        driver.get(url)

        def state(table: str) -> str:
            return str(driver.find_element("css selector", f'tr[data-table="{table}"]').get_attribute("data-state"))

        assert state("ms-01") == "idle" and state("pg-03") == "unreadable" and state("ms-04") == "hold"
        row = driver.find_element("css selector", 'tr[data-table="b5-02"]').text
        assert "Boston 5" in row and "2 quarantined" in row and "5 pending" in row
        assert "shoe link down" in driver.find_element("css selector", 'tr[data-table="ms-04"]').text
        driver.execute_script("window.notReloaded = true")
        floor.tables_now[0] = replace(floor.tables_now[0], hold="shoe jammed")
        wait_for(lambda: state("ms-01") == "hold", "the overview to show the new hold by itself")
        assert driver.execute_script("return window.notReloaded") is True  # swapped in, not reloaded
        assert int(driver.execute_script("return document.body.dataset.updates")) >= 1
        assert re.fullmatch(r"\d\d:\d\d:\d\d", driver.find_element("id", "as-of").text)
        href = _tab_to(driver, 'a.table-link[href="/tables/ms-04"]').get_attribute("href")
        assert _focus_drawn(driver)
        driver.execute_script("window.scrollTo(0, 0)")
        SCREENS.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(SCREENS / "pit-live.png"))
        floor.tables_now[1] = replace(floor.tables_now[1], pending=0)
        wait_for(lambda: "5 pending" not in driver.find_element("css selector", 'tr[data-table="b5-02"]').text, "b5")
        assert driver.switch_to.active_element.get_attribute("href") == href  # the focus kept through the swap
        assert _tab_to(driver, "#logout") is not None
        driver.get(url + "tables/nope")
        assert "No table 'nope'" in driver.find_element("id", "missing").text
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
        conn.request("GET", "/tables/ms-01/rounds/" + "9" * 5000)
        assert conn.getresponse().status == 404
        conn.close()
    finally:
        server.stop()

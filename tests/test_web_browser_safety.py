"""The table view's safety in a real Chromium: pages on another origin, and on another port of the
same host, cannot drive the bench (a form and no-cors fetches from an attacker page served by a
second local server; the journal shows nothing pressed); a page cannot frame the view; a foreign
Host (DNS rebinding, by Chromium's host resolver rules) is refused; after login no URL holds the
token; the page works under its CSP; the page says when it is not live and recovers by itself."""

from __future__ import annotations

import os
import re
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import BenchProcess, Page, PageServer, browser, journal_count, wait_for

pytest.importorskip("starlette", reason="the web views need the web extra: pip install -e '.[web]'")

ATTACK = """<!doctype html><html><head><title>cute cats</title></head><body>
<form id="f" method="POST" action="{bench}api/spot" enctype="text/plain" target="sink">
<input name='{{"seat":1,"spot":"ante","cents":700,"x":"' value='"}}'></form>
<iframe name="sink" id="sink"></iframe>
<iframe id="framed" src="{bench}"></iframe>
<script>
const out = [];
async function go() {{
  for (const [path, body, headers] of [
    ["api/spot", JSON.stringify({{seat: 1, spot: "ante", cents: 900}}), {{"content-type": "text/plain"}}],
    ["api/press", JSON.stringify({{button: "no_more_bets"}}), {{}}],
  ]) {{
    try {{
      await fetch("{bench}" + path, {{method: "POST", mode: "no-cors", credentials: "include", headers, body}});
      out.push(path + " sent");
    }} catch (e) {{ out.push(path + " " + e); }}
  }}
  document.getElementById("sink").addEventListener("load", () => {{ document.title = "done"; }});
  document.getElementById("f").submit();
}}
go();
</script></body></html>"""


class AttackerSite(PageServer):
    """A second local web server, on its own port, serving the attacker's page."""

    def __init__(self, bench_url: str) -> None:
        super().__init__(ATTACK.format(bench=bench_url).encode())


@pytest.fixture
def driver() -> Iterator[Any]:
    with browser(extra=("--host-resolver-rules=MAP evil.example 127.0.0.1",)) as d:
        yield d


@pytest.fixture
def bench(tmp_path: Path) -> Iterator[BenchProcess]:
    b = BenchProcess(tmp_path, "mississippi_stud")
    yield b
    os.kill(b.proc.pid, signal.SIGCONT) if b.proc.poll() is None else None
    b.stop()


PRESSES = ("SpotReport", "ButtonChanged")


@pytest.mark.parametrize("where", ["another port of the same host", "another origin"])
def test_a_page_elsewhere_cannot_drive_the_bench(driver: Any, bench: BenchProcess, where: str) -> None:
    page = Page(driver, bench.url)  # the bench's own page open first: its session cookie is in the browser
    wait_for(lambda: page.view()["links"]["bet_spots"] == "up", "the bet spots' link up")
    before = journal_count(bench.journal, *PRESSES)
    attacker = AttackerSite(bench.url)
    try:
        host = "127.0.0.1" if where.startswith("another port") else "localhost"
        driver.get(f"http://{host}:{attacker.port}/")
        wait_for(lambda: driver.title == "done", "the attacker's requests to be answered")
        sent = driver.execute_script("return out")
        assert len(sent) == 2, sent
        # the view refused to be framed: the frame holds Chromium's error page, not the table
        driver.switch_to.frame(driver.find_element(page.By.ID, "framed"))
        assert not driver.find_elements(page.By.ID, "seats")
        driver.switch_to.default_content()
    finally:
        attacker.close()
    # a press from the page itself, after: once it is on the page every earlier press was handled
    page = Page(driver, bench.url)
    page.wait_betting()
    page.place(2, "ante", 500)
    page.wait_wager(2, "ante", 500)
    assert journal_count(bench.journal, *PRESSES) == before + 1  # only the page's own press
    view = page.view()
    assert view["seats"][0]["wagers"] == {} and view["step"] == "betting"


def test_a_foreign_host_is_refused_in_the_browser(driver: Any, bench: BenchProcess) -> None:
    """DNS rebinding: evil.example resolves to 127.0.0.1, and its page asks the view."""
    driver.get(f"http://evil.example:{bench.port}/")
    assert "421" in driver.find_element("tag name", "body").text
    status = driver.execute_async_script(
        "const done = arguments[0]; fetch('/state').then(r => done(r.status), e => done(String(e)));"
    )
    assert status == 421
    assert "evil.example" not in bench.get("/state")[1].decode()


def test_after_login_no_url_holds_the_token(tmp_path: Path, driver: Any) -> None:
    from controller.cli._webtoken import new_token

    token = new_token()
    bench = BenchProcess(tmp_path, "pai_gow", token=token)
    try:
        driver.get(bench.url)
        wait_for(lambda: driver.current_url.endswith("/login"), "the login page")
        field = driver.find_element("id", "token")
        field.send_keys("not-the-token")
        driver.find_element("id", "login-go").click()
        wait_for(lambda: "not this view's token" in driver.find_element("id", "login-error").text, "the refusal")
        driver.find_element("id", "token").send_keys(token)
        driver.find_element("id", "login-go").click()
        # The form's POST and its redirect must finish before the next navigation, which would cancel it.
        wait_for(lambda: not driver.current_url.endswith("/login"), "the login's redirect to the table")
        page = Page(driver, bench.url)
        page.wait_betting()
        page.place(3, "pai_gow", 1000)  # the page's controls work with the session and its CSRF token
        page.wait_wager(3, "pai_gow", 1000)
        urls = driver.execute_script(
            "return [location.href, document.referrer, ...performance.getEntries().map(e => e.name)]"
        )
        assert len(urls) > 3 and not any(token in u for u in urls), urls
        assert driver.execute_script("return document.cookie") == ""  # HttpOnly
        cookies = driver.get_cookies()
        assert cookies and all(c["value"] != token and c["httpOnly"] and c["sameSite"] == "Strict" for c in cookies)
        assert token not in driver.page_source
        logs = " ".join(str(e) for e in driver.get_log("browser"))
        assert token not in logs
    finally:
        bench.stop()
    assert token not in bench.err.read_text()


def test_the_page_works_under_its_csp(driver: Any, bench: BenchProcess) -> None:
    page = Page(driver, bench.url)
    page.wait_betting()
    page.place(1, "ante", 1000)
    page.wait_wager(1, "ante", 1000)
    page.no_more_bets()
    assert driver.execute_script("return document.querySelectorAll('script:not([src]), style').length") == 0
    problems = [e for e in driver.get_log("browser") if "Content Security Policy" in str(e) or "Refused" in str(e)]
    assert not problems, problems
    # and the policy holds: an inline script put in the page does not run, and says so
    driver.execute_script(
        "const s = document.createElement('script'); s.textContent = 'window.ranInline = 1'; document.body.append(s);"
    )
    assert driver.execute_script("return window.ranInline") is None
    wait_for(
        lambda: any("Content Security Policy" in str(e) for e in driver.get_log("browser")),
        "the console's CSP refusal",
    )


def test_the_page_says_when_it_is_not_live_and_recovers(driver: Any, bench: BenchProcess) -> None:
    page = Page(driver, bench.url)
    wait_for(lambda: all(v == "up" for v in page.view()["links"].values()), "every device link up")
    assert not driver.find_element("id", "stale").is_displayed()
    assert driver.find_element("id", "deal-1").is_enabled()
    os.kill(bench.proc.pid, signal.SIGSTOP)  # the server stops answering (heartbeats too)
    try:
        wait_for(lambda: driver.find_element("id", "stale").is_displayed(), "the stale banner")
        text = driver.find_element("id", "stale").text
        assert re.search(r"not live since \d\d:\d\d:\d\d", text), text
        assert page.body("live") == "no"
        for button in ("deal-1", "deal-7", "key", "fault-go", "btn-no_more_bets"):
            assert not driver.find_element("id", button).is_enabled(), button
        led = driver.execute_script("return getComputedStyle(document.querySelector('#links .led')).backgroundColor")
        assert led == "rgb(85, 85, 85)"  # grey, not the link's green
        links = driver.find_elements("css selector", "#links .link")
        assert links and all(x.get_attribute("data-state") == "unknown" and "unknown" in x.text for x in links)
        assert re.fullmatch(r"\d\d:\d\d:\d\d", driver.find_element("id", "clock").text)  # one 24-hour clock
        page.screenshot("table-stale.png")
    finally:
        os.kill(bench.proc.pid, signal.SIGCONT)
    wait_for(lambda: not driver.find_element("id", "stale").is_displayed(), "the page live again by itself")
    assert page.body("live") == "yes"
    wait_for(lambda: all(v == "up" for v in page.view()["links"].values()), "every link known again")
    assert "unknown" not in driver.find_element("id", "links").text
    assert driver.find_element("id", "deal-1").is_enabled() and driver.find_element("id", "btn-deal").is_enabled()
    page.place(2, "ante", 500)
    page.wait_wager(2, "ante", 500)

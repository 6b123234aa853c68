"""The table view in a real browser: a bench round of each game played only through the page's
controls, the page's settlement against `tablectl settle` on the recalled record, no face-down
card in the page, its data or its raw event stream before its reveal, a device fault on the page
within a second, and the token."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from web_helpers import (
    TIMEOUT,
    BenchProcess,
    Page,
    StreamRecorder,
    browser,
    html_cards,
    need_browser,
    round_data,
    shown_cards,
    tablectl,
    wait_for,
)

SETTLED = ("settlement", "round_complete")


def _mississippi_allowed(step: str, by: dict[str, list[str]], seats: dict[str, Any]) -> set[str]:
    """Mississippi Stud: the community cards turned by ``step``; at the settlement each hand not folded."""
    n = {"fourth_street": 1, "fifth_street": 2}.get(step, 3 if step in SETTLED else 0)
    out = set(by.get("community", [])[:n])
    if step in SETTLED:
        for s, seat in seats.items():
            if seat["folded_at"] is None:
                out |= set(by[f"seat {s}"])
    return out


def _boston5_allowed(step: str, by: dict[str, list[str]], seats: dict[str, Any]) -> set[str]:
    """Boston 5: each exposed bonus hand from the bonus on; at the settlement every hand played and the dealer's."""
    out: set[str] = set()
    if step in ("bonus", "bonus_settlement", "second_wager", "final_deal", *SETTLED):
        for s, seat in seats.items():
            if seat["exposed_bonus"] and not seat["folded"]:
                out |= set(by[f"seat {s}"][:3])
    if step in SETTLED:
        playing = [s for s, seat in seats.items() if not seat["folded"]]
        for s in playing:
            out |= set(by[f"seat {s}"])
        if playing:
            out |= set(by["dealer"])
    return out


def _pai_gow_allowed(step: str, by: dict[str, list[str]], seats: dict[str, Any]) -> set[str]:
    """Pai gow: every hand from the setting on."""
    out: set[str] = set()
    if step in ("setting", *SETTLED):
        out |= set(by["dealer"])
        for s in seats:
            out |= set(by[f"seat {s}"])
    return out


def allowed(game: str, step: str, data: dict[str, Any]) -> set[str]:
    """The cards of the journaled round ``data`` that the rules have turned face up by ``step``
    (written from the regulations, independently of the view code)."""
    by: dict[str, list[str]] = {}
    for entry in data["cards"]:
        by.setdefault(entry["to"], []).append(entry["card"])
    seats = data["record"]["seats"]
    if game == "mississippi_stud":
        return _mississippi_allowed(step, by, seats)
    if game == "boston5":
        return _boston5_allowed(step, by, seats)
    if game == "pai_gow":
        return _pai_gow_allowed(step, by, seats)
    return set()


def check_hidden(game: str, data: dict[str, Any], snapshots: list[tuple[str, int, set[str], str]]) -> None:
    """Every snapshot (where, round, cards it shows, step) shows only cards face up at its step."""
    dealt = {entry["card"] for entry in data["cards"]}
    for where, round_no, cards, step in snapshots:
        face_up = allowed(game, step, data) if round_no == data["round"] else set()
        leaked = (cards & dealt) - face_up
        assert not leaked, f"{where} at {step} (round {round_no}) shows face-down cards {sorted(leaked)}"


class Session:
    """A bench table with the page open, the raw stream recorded, and snapshots of the page and
    its data taken at every step."""

    def __init__(self, tmp: Path, game: str, driver: Any) -> None:
        self.game = game
        self.bench = BenchProcess(tmp, game)
        try:
            self.stream = StreamRecorder(self.bench.port)
            self.page = Page(driver, self.bench.url)
            self.snapshots: list[tuple[str, int, set[str], str]] = []
            wait_for(lambda: all(v == "up" for v in self.page.view()["links"].values()), "every device link up")
        except BaseException:  # never opened, so never stopped by the fixture: nothing left running
            self.bench.kill()
            raise

    def snap(self) -> None:
        """The page's HTML and a data request, now."""
        # the step and the HTML in one script call: the page may redraw between two reads
        step, round_no, html = self.page.d.execute_script(
            "return [view.step, view.round, document.documentElement.outerHTML];"
        )
        self.snapshots.append(("page HTML", int(round_no), html_cards(html), step))
        status, body = self.bench.get("/state")
        assert status == 200
        state = json.loads(body)
        self.snapshots.append(("GET /state", state["round"], shown_cards([state]), state["step"]))

    def settle(self, seats: list[int]) -> None:
        """From the settlement step: a snapshot, each wager confirmed back to betting, then
        :meth:`finish`."""
        self.snap()
        self.page.confirm_until("betting")
        self.finish(seats)

    def finish(self, seats: list[int]) -> None:
        """Back to betting: the page's settlement equals `tablectl settle` on the recalled record,
        and nothing showed a card before its reveal."""
        page = self.page
        page.wait_step("betting")
        wait_for(lambda: page.view()["last_settlement"] is not None, "the settlement on the page")
        self.snap()
        shown, house = page.d.execute_script(  # read in one go: the page may redraw between two reads
            "const rows = [...document.querySelectorAll('#settlement tr[data-seat]')];"
            "return [Object.fromEntries(rows.map(r => [r.dataset.seat, Number(r.dataset.net)])),"
            " Number(document.getElementById('house-net').dataset.cents)];"
        )
        views = self.stream.views()
        self.stream.close()
        self.bench.stop()
        recalled = tablectl("recall", "--journal", str(self.bench.journal), "--round", "1", "--json")
        assert recalled.returncode == 0, recalled.stderr
        settled = tablectl("settle", "-", stdin=recalled.stdout)
        assert settled.returncode == 0, settled.stderr
        expected = json.loads(settled.stdout)
        assert shown == {n: s["net"] for n, s in expected["seats"].items()}
        assert house == expected["house_net"]
        assert sorted(int(n) for n in shown) == seats
        data = round_data(self.bench.journal, 1)
        data["round"] = 1
        assert views, "the event stream carried no view"
        stream = [("event stream", v["round"], shown_cards([v]), v["step"]) for v in views]
        check_hidden(self.game, data, stream + self.snapshots)


@pytest.fixture
def driver():
    with browser() as d:
        yield d


@pytest.fixture
def session(tmp_path, driver):
    """Open a bench table of a game with the page on it; stopped at the end whatever happens."""
    opened: list[Session] = []

    def open_session(game: str) -> Session:
        opened.append(Session(tmp_path, game, driver))
        return opened[-1]

    yield open_session
    for s in opened:
        s.stream.close()
        s.bench.stop()


def test_mississippi_round_through_the_page(session):
    s = session("mississippi_stud")
    p = s.page
    p.bets((1, "ante", 1000), (2, "ante", 500), (2, "bonus", 100))
    s.snap()
    p.no_more_bets()
    p.deal(7)  # two 2-card stacks, then the three community cards
    p.wait_step("third_street")
    s.snap()
    assert all(c is None for c in p.view()["dealer"]["cards"]) and len(p.view()["dealer"]["cards"]) == 3
    p.place(1, "third", 2000)
    p.press("seat_2")
    p.press("fold")
    wait_for(lambda: p.view()["seats"][1]["folded"], "seat 2 folded on the page")
    p.ack()
    p.press("reveal")
    p.wait_step("fourth_street")
    wait_for(lambda: p.view()["dealer"]["cards"][0] is not None, "the first community card face up")
    s.snap()
    p.bets((1, "fourth", 1000))
    p.screenshot("table.png")
    p.press("reveal")
    p.wait_step("fifth_street")
    s.snap()
    p.bets((1, "fifth", 3000))
    p.press("reveal")
    p.wait_step("settlement")
    s.settle([1, 2])


def test_boston5_round_through_the_page(session):
    s = session("boston5")
    p = s.page
    for seat in (1, 2):
        p.place(seat, "ante", 500)
        p.place(seat, "first", 1000)
    p.place(1, "bonus", 500)
    p.wait_wager(1, "bonus", 500)
    p.wait_wager(2, "first", 1000)
    p.no_more_bets()
    p.deal(9)  # three to each seat, three to the dealer
    p.wait_step("bonus")
    s.snap()
    p.press("seat_1")  # seat 1 exposes its bonus hand
    wait_for(lambda: all(p.view()["seats"][0]["cards"]), "seat 1's exposed cards face up")
    assert not any(p.view()["seats"][1]["cards"])
    s.snap()
    p.press("next")
    p.wait_step("bonus_settlement", "second_wager")
    s.snap()
    p.confirm_until("second_wager")
    p.bets((1, "second", 1000))
    p.press("seat_2")
    p.press("fold")
    wait_for(lambda: p.view()["seats"][1]["folded"], "seat 2 folded on the page")
    p.ack()
    p.press("deal")
    p.wait_step("final_deal")
    p.deal(4)  # two to seat 1, two to the dealer
    p.wait_step("settlement")
    s.settle([1, 2])


def test_pai_gow_round_through_the_page(session):
    s = session("pai_gow")
    p = s.page
    p.bets((1, "pai_gow", 1000), (2, "pai_gow", 2500), (2, "insurance", 100))
    p.no_more_bets()
    before = p.view()["screen"]
    p.press("next")  # dice total 4
    wait_for(lambda: p.view()["screen"] != before, "the dice total on the dealer's screen")
    assert "4" in " ".join(p.view()["screen"])
    p.press("confirm")
    p.wait_step("dealing")
    p.deal(49)  # seven hands of seven
    p.wait_step("check_deal", "set_hands")
    s.snap()
    p.wait_step("set_hands")  # the shoe counted four cards left: the players set their hands
    s.snap()  # nothing face up (check_hidden): not the dealer's cards, not a seat's
    p.press("confirm")  # every player's hands set and face down
    p.wait_step("setting")
    s.snap()
    p.confirm_until("settlement", "betting")
    s.settle([1, 2])


def test_device_fault_shown_within_one_second(tmp_path, driver):
    """Measured on the page's own clock: from the click that injects the fault to the fault drawn."""
    bench = BenchProcess(tmp_path, "mississippi_stud")
    try:
        p = Page(driver, bench.url)
        wait_for(lambda: p.view()["links"]["shoe"] == "up", "the shoe's link up")
        from selenium.webdriver.support.ui import Select

        Select(p.d.find_element(p.By.ID, "fault-kind")).select_by_value("shoe_jam")
        p.click("#fault-go")
        text, shown = wait_for(
            lambda: p.d.execute_script(
                "const li = document.querySelector('#faults li.fault');"
                "return li ? [li.textContent, Number(li.dataset.shownAt)] : null;"
            ),
            "the fault on the page",
        )
        assert "jam" in text
        clicked = int(p.body("faultClickedAt") or 0)
        assert clicked > 0 and 0 <= shown - clicked < 1000, f"fault shown {shown - clicked} ms after the click"
    finally:
        bench.stop()


def test_link_loss_holds_the_table_and_the_page_says_what_clears_it(session):
    s = session("mississippi_stud")
    p = s.page
    p.bets((3, "ante", 2500), (5, "ante", 1000), (5, "bonus", 500))
    p.no_more_bets()
    p.deal(3)
    p.wait_step("dealing")
    # every card dealt has reached the table before the cable is pulled (else it is lost with it,
    # and the table rightly holds on the shoe's count when the link is back)
    wait_for(
        lambda: sum(len(seat["cards"]) for seat in p.view()["seats"]) == 3,  # the players' cards come first
        "the three cards dealt on the page",
    )
    from selenium.webdriver.support.ui import Select

    Select(p.d.find_element(p.By.ID, "fault-kind")).select_by_value("shoe_unplug")
    p.click("#fault-go")
    p.wait_step("hold")
    wait_for(lambda: p.view()["links"]["shoe"] == "down", "the shoe's link down on the page")
    banner = p.d.find_element(p.By.ID, "hold")
    # what clears it in the panel's own words (its prompt): one instruction, not two (issue 44 item 7)
    assert banner.is_displayed() and "link down: shoe" in banner.text
    assert f"Clears: {p.view()['hold']['clears']}" in banner.text and "wait for the device" in banner.text
    p.screenshot("table-hold.png")
    Select(p.d.find_element(p.By.ID, "fault-kind")).select_by_value("shoe_plug")
    p.click("#fault-go")
    p.wait_step("dealing")  # the link is back: the table resumes where it held
    assert not p.d.find_element(p.By.ID, "hold").is_displayed()
    assert p.view()["links"]["shoe"] == "up"


def test_the_key_button_turns_the_key_on_and_off_and_the_page_shows_the_live_key(session):
    """The page showed "Key ON" always, so its button only ever sent "off": now both follow the panel's key."""
    s = session("mississippi_stud")
    p = s.page
    key = p.d.find_element(p.By.ID, "key")
    assert p.view()["supervisor"] is False
    wait_for(lambda: key.text == "Key off", "the key shown off")
    p.click("#key")
    wait_for(lambda: p.view()["supervisor"] is True, "the key on in the view")
    wait_for(lambda: key.text == "Key ON", "the key shown on")
    p.click("#key")
    wait_for(lambda: p.view()["supervisor"] is False, "the key off in the view")
    wait_for(lambda: key.text == "Key off", "the key shown off again")


def test_token_required_when_set(tmp_path):
    from web_helpers import WebClient

    from controller.cli._webtoken import new_token

    token = new_token()
    bench = BenchProcess(tmp_path, "pai_gow", token=token)
    try:
        for path in ("/state", "/events"):
            status, body = bench.get(path)
            assert status == 401, path
            assert b"log in" in body
        assert bench.get("/", {"accept": "text/html"})[0] == 303  # to the login page
        press = json.dumps({"button": "no_more_bets"}).encode()
        assert bench.get("/api/press", {"content-type": "application/json"}, "POST", press)[0] == 403
        assert bench.get("/state", {"Authorization": "Bearer wrong-token"})[0] == 401
        assert bench.get(f"/state?token={token}")[0] == 401  # a token in a URL is no longer taken
        status, body = bench.get("/state", {"Authorization": f"Bearer {token}"})
        assert status == 200 and json.loads(body)["table"]["game"] == "pai_gow"
        client = WebClient(bench.port, token)  # logs in, as the page does

        def betting() -> bool:
            state = json.loads(client.request("GET", "/state")[2])
            return bool(state["step"] == "betting" and all(v == "up" for v in state["links"].values()))

        wait_for(betting, "betting open with every device link up")  # chips before it are late bets
        assert client.post("spot", {"seat": 3, "spot": "pai_gow", "cents": 1000})[0] == 200
        wait_for(
            lambda: json.loads(client.request("GET", "/state")[2])["seats"][2]["wagers"].get("pai_gow") == 1000,
            "the wager placed",
        )
    finally:
        bench.stop()


def test_web_address_beyond_loopback_needs_a_token(tmp_path):
    need_browser()
    r = tablectl("bench", "--game", "boston5", "--web", "0.0.0.0:8080", "--manual")
    assert r.returncode == 2
    assert "needs --web-token" in r.stderr and "Traceback" not in r.stderr
    r = tablectl("bench", "--game", "boston5", "--web", "localhost", "--manual")
    assert r.returncode == 2 and "HOST:PORT" in r.stderr
    r = tablectl("bench", "--game", "boston5", "--manual")
    assert r.returncode == 2 and "--manual needs --web" in r.stderr


def test_run_serves_a_read_only_view_of_the_real_table(tmp_path, driver):
    """`tablectl run --web` (drivers on ptys): the page shows the table and offers no controls."""
    from cli_helpers import real_table_config
    from test_table_commands import _run_table
    from web_helpers import free_port

    from hil.devices import BetSpotSim, PanelSim, ShoeSim

    sims = {"shoe": ShoeSim(address=1), "bet_spots": BetSpotSim(address=2), "panel": PanelSim(address=3)}
    config = real_table_config(tmp_path)
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    command = [sys.executable, "-m", "controller", "run", "--config", str(config), "--journal", str(tmp_path / "j.db")]
    command += ["--web", f"127.0.0.1:{port}", "--allow-unapproved"]  # the shipped paytables are examples

    def check() -> None:
        wait_for(lambda: _status(port, "GET", "/state") == 200, "the view to listen")
        p = Page(driver, url)
        p.wait_step("betting")
        wait_for(lambda: all(v == "up" for v in p.view()["links"].values()), "every device link up")
        sims["bet_spots"].place(2, "ante", 500)
        p.wait_wager(2, "ante", 500)
        wait_for(lambda: p.view()["seats"][1]["lamps"]["ante"] == "open", "the spot's lamp on the page")
        assert not p.d.find_element(p.By.ID, "bench-bar").is_displayed()
        assert not p.d.find_element(p.By.ID, "panel").is_displayed()
        from web_helpers import WebClient

        assert WebClient(port).post("press", {"button": "no_more_bets"})[0] == 404

    _run_table(command, sims, tmp_path, config, check)


def _status(port: int, method: str, path: str, body: bytes | None = None) -> int:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    try:
        conn.request(method, path, body=body, headers={"content-type": "application/json"})
        return conn.getresponse().status
    except OSError:
        return 0
    finally:
        conn.close()

"""Web view figures: what one view of the live feed costs, and how soon a device fault is drawn on
the page.

Run ``python benchmarks/bench_web.py [--events N] [--faults N]``. Measured in one run:

* the feed's cost per view: the snapshot, the view model (``controller.web.view.table_view``)
  and its JSON, on a six-seat Mississippi Stud table in 4th street, beside the bare cost of the
  table machine handling a spot report. The view is built on the feed's publisher thread, at
  most five times a second, not per event (the controller thread only sets an event); with
  many browsers, ``benchmarks/bench_web_clients.py``;
* fault to page: ``--faults`` jams injected from the page of a ``tablectl bench --web`` table in
  headless Chromium, each time from the click to the fault drawn, both on the page's clock
  (target: under 1 s; the browser test asserts it for one fault).

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
# its helpers from tests/, by bare name as the tests import them (tests/ is no package)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from table_helpers import FedTable

from controller.configuration import config_dir, load_table
from controller.table.game_tables import GAME_TABLES
from controller.table.snapshot_build import build_snapshot
from controller.web.view import table_view
from drivers.bet_spots import SpotReport


def feed_cost(events: int) -> tuple[float, float]:
    """(bare handle per event, snapshot + view model + JSON per view) in microseconds."""
    table = load_table(config_dir() / "bench" / "mississippi_stud.yaml")
    t = FedTable(GAME_TABLES["mississippi_stud"], table)
    for seat in range(1, 7):
        t.spot(seat, "ante", 1000)
    t.press("no_more_bets")
    t.deal("As Kd 2c 3d 4h 5s 6c 7d 8h 9s Tc Jd Qh Ks Ac")
    for seat in range(1, 7):
        t.spot(seat, "third", 1000)
    t.press("reveal")
    # a late-bet report at a locked spot: handled (flashed, refused), the round unchanged
    report = SpotReport(device="bet_spots", seat=1, spot="bonus", cents=100)
    start = time.perf_counter()
    for _ in range(events):
        t.m.handle(report)
    bare = (time.perf_counter() - start) / events * 1e6
    start = time.perf_counter()
    for _ in range(events):
        snapshot = build_snapshot(t.m)
        json.dumps(table_view(snapshot, table, {"shoe": "up"}, []), separators=(",", ":"))
    view = (time.perf_counter() - start) / events * 1e6
    return bare, view


def fault_to_page(faults: int) -> list[float]:
    """Milliseconds from the click that injects a jam to the jam drawn, page clock, per fault."""
    from web_helpers import BenchProcess, Page, browser, wait_for

    out = []
    with tempfile.TemporaryDirectory() as tmp, browser() as d:
        bench = BenchProcess(Path(tmp), "mississippi_stud")
        try:
            p = Page(d, bench.url)
            from selenium.webdriver.support.ui import Select

            Select(p.d.find_element(p.By.ID, "fault-kind")).select_by_value("shoe_jam")
            for n in range(1, faults + 1):
                p.click("#fault-go")
                shown = wait_for(
                    lambda n=n: p.d.execute_script(
                        "const li = document.querySelectorAll('#faults li.fault');"
                        "return li.length >= Math.min(arguments[0], 12) && li[0].dataset.shownAt > "
                        "Number(document.body.dataset.faultClickedAt) - 1 ? Number(li[0].dataset.shownAt) : null;",
                        n,
                    ),
                    "the jam on the page",
                )
                out.append(float(shown) - float(p.body("faultClickedAt") or 0))
        finally:
            bench.stop()
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--events", type=int, default=20_000)
    parser.add_argument("--faults", type=int, default=20)
    args = parser.parse_args()
    bare, view = feed_cost(args.events)
    print(f"controller, bare handle of a spot report: {bare:8.1f} us/event")
    print(f"web feed, snapshot + view model + JSON:   {view:8.1f} us/view ({view / bare:.1f}x the bare handle)")
    if args.faults:
        ms = sorted(fault_to_page(args.faults))
        p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))]
        print(
            f"fault to page ({len(ms)} jams): p50 {statistics.median(ms):.0f} ms, p99 {p99:.0f} ms, max {ms[-1]:.0f} ms"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""However a bench run ends, it prints its summary and says how it ended (issue 21 item 6): a
signal (SIGINT, SIGTERM) mid-round, a round that cannot go on (a fault only a supervisor
clears: the bench has none), a wait that runs out (it names what it waited for), and a process
starved for seconds (its devices all silent at once), which the bench rides out.

Every signal is sent at a state (a round started, read from the table's snapshot file), never
at a time; the timeouts waited out here are for states that cannot come."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hil_helpers import second_shoe_dealt

from controller.cli import main
from controller.configuration import config_dir, load_table
from controller.journal import SqliteJournal
from controller.table._snapshot_file import snapshot_path
from drivers.link import LinkConfig
from hil import bench as bench_module
from hil.bench import BENCH_LINK, Player, run_bench
from hil.device import SimDevice
from hil.devices import BetSpotSim, ShoeSim

ROOT = Path(__file__).resolve().parent.parent


def _finished(journal: Path) -> int:
    j = SqliteJournal(journal, create=False)
    try:
        return len(j.round_seqs())
    finally:
        j.close()


def _snapshot(journal: Path) -> dict[str, Any] | None:
    """The running table's snapshot as ``tablectl status`` reads it (None before the first)."""
    try:
        return json.loads(snapshot_path(journal).read_text())["snapshot"]  # type: ignore[no-any-return]
    except (OSError, ValueError, KeyError):
        return None  # not written yet (it is replaced whole, never seen half written)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_mid_round_prints_the_summary_and_exits_non_zero(tmp_path: Path, sig: signal.Signals) -> None:
    journal = tmp_path / "bench.db"
    cmd = [sys.executable, "-m", "controller", "bench", "--game", "mississippi_stud", "--seats", "3"]
    cmd += ["--rounds", "10000", "--journal", str(journal), "--quiet"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300  # only against a hang: the signal is sent at a state
        while True:
            s = _snapshot(journal)
            if s is not None and s["round_no"] >= 2 and s["step"] not in ("betting", "closed"):
                break  # round 1 finished, round 2 dealt or being dealt: mid-round
            assert proc.poll() is None, f"the bench ended first: {proc.communicate()[1][-2000:]}"
            assert time.monotonic() < deadline, "round 2 never started"
            time.sleep(0.01)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 128 + sig, (proc.returncode, err[-2000:])
    assert "Traceback" not in err, err[-2000:]
    n = _finished(journal)
    assert n >= 1
    assert f"rounds      {n} in " in out, out
    assert "settled rounds re-settled" in out and ": 0 differ" in out, out
    assert f"result      stopped by {sig.name} after {n} of 10000 rounds" in out, out
    assert err.strip().splitlines()[-1].startswith(f"tablectl bench: stopped by {sig.name} after {n} of 10000 rounds")


def test_a_round_held_for_the_supervisor_fails_at_once_with_the_summary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Round 2's first card leaves the shoe unread: only a supervisor clears that hold, so the
    bench fails at once (not after its wait's timeout) and says why; round 1 is in the summary."""

    def misread_first(shoe: ShoeSim, n: int, dealt: Callable[[ShoeSim, int], None]) -> None:
        if shoe.position == 0:
            shoe.unreadable()
            n -= 1
        dealt(shoe, n)

    second_shoe_dealt(monkeypatch, misread_first)
    monkeypatch.setattr(Player, "WAIT_S", 600.0)  # a wait that ran out would not end the test in time
    journal = tmp_path / "bench.db"
    start = time.monotonic()
    status = main(["bench", "--game", "mississippi_stud", "--seats", "2", "--rounds", "4", "--journal", str(journal)])
    assert time.monotonic() - start < 300
    out, err = capsys.readouterr()
    assert status == 1, err
    assert "Traceback" not in err
    assert _finished(journal) == 1
    assert "rounds      1 in " in out and "settlement  1 of 1 settled rounds" in out, out
    result = next(line for line in out.splitlines() if line.startswith("  result "))
    assert "FAILED after 1 of 4 rounds: the table holds for the supervisor, and the bench has none" in result
    assert "round 2, table in hold: unreadable card" in result and "read it again" in result
    last = err.strip().splitlines()[-1]
    assert last == f"tablectl bench: {result.split('result', 1)[1].strip()}"


def test_a_wait_that_runs_out_names_what_it_waited_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bet spots never see the chips: the bench's wait for the bets runs out and its summary
    says what it was waiting for and where the table was."""
    monkeypatch.setattr(BetSpotSim, "place", lambda self, seat, spot, cents: None)
    monkeypatch.setattr(Player, "WAIT_S", 2.0)  # the state cannot come: a short wait is no race
    table = load_table(config_dir() / "bench" / "pai_gow.yaml")
    summary = run_bench(table, seats=2, rounds=3, seed=3, progress=False, journal_path=tmp_path / "j.db")
    assert summary.failure == "timed out after 2 s waiting for bets to register (round 1, table in betting)"
    assert summary.exit_status == 1 and summary.rounds == 0
    assert summary.lines()[-1] == f"result      FAILED after 0 of 3 rounds: {summary.failure}"


def test_a_bug_in_the_players_is_one_line_with_its_place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: Player, s: Any) -> None:
        raise IndexError("tuple index out of range")

    monkeypatch.setattr(bench_module.PaiGowPlayer, "on_setting", broken)
    table = load_table(config_dir() / "bench" / "pai_gow.yaml")
    summary = run_bench(table, seats=2, rounds=3, seed=3, progress=False, journal_path=tmp_path / "j.db")
    line = broken.__code__.co_firstlineno + 1
    assert summary.failure == f"bench error: IndexError at test_bench_ends.py:{line} in broken"
    assert summary.exit_status == 1


class _Starved:
    """Every simulated device silent at once, as in a process starved on a loaded machine: from
    round 2's second shoe load on, each device holds the requests it is sent instead of answering
    them, until every device has held :attr:`copies` of them; then each answers all it holds at
    once (late replies, the retries' answers among them), as a starved thread does when it runs
    again. The stall ends at a state (requests counted), never after a time: the link sends a
    request again only after its response timeout, on its own clock, so that many requests span
    more than a real table's ``link_down_s`` of silence however slowly the machine runs."""

    copies = int(LinkConfig().link_down_s / BENCH_LINK.response_timeout_s) + 2
    """Requests each device holds: ``copies - 1`` response timeouts after the first is longer
    than a real table's ``link_down_s`` (whose links would be down by then, and opened again)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.started = False
        self.released = threading.Event()
        self.devices: set[SimDevice] = set()  # every device asked anything (each is polled from the start)
        self.stalled: frozenset[SimDevice] = frozenset()  # the devices silent from the stall's start
        self.held: dict[SimDevice, list[Any]] = {}
        self.reply_to, self.load = SimDevice.reply_to, ShoeSim.load
        self.loads = 0

    def stalling_load(self, shoe: ShoeSim, cards: Any) -> None:
        """The shoe's load; the second starts the stall (round 2's cards are then dealt into it)."""
        self.load(shoe, cards)
        with self.lock:
            self.loads += 1
            if self.loads == 2:
                self.started, self.stalled = True, frozenset(self.devices)
                self.held = {device: [] for device in self.stalled}

    def reply(self, device: SimDevice, frame: Any) -> bytes | None:
        """The device's reply to ``frame``: none while stalled (held), all held ones at its release."""
        if frame.address != device.address:
            return self.reply_to(device, frame)
        with self.lock:
            self.devices.add(device)
            held = self.held.get(device) if self.started else None
            if held is not None:
                held.append(frame)
                if all(len(frames) >= self.copies for frames in self.held.values()):
                    self.released.set()
                if not self.released.is_set():
                    return None
                del self.held[device]  # answered below; answers directly from now on
        if held is None:
            return self.reply_to(device, frame)
        replies = (self.reply_to(device, f) for f in held)
        return b"".join(r for r in replies if r is not None)


@pytest.mark.parametrize("game", ["mississippi_stud", "boston5", "pai_gow"])
def test_a_process_starved_for_seconds_mid_deal_still_passes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, game: str
) -> None:
    """Every simulated device goes silent at once while round 2's cards are dealt, for longer
    than a real table's ``link_down_s`` on the links' own clocks (:class:`_Starved`), as when the
    bench's process is starved on a loaded machine: with a real device's timing (a command failed
    after three tries, a link down after 1 s) the table held for a supervisor the bench does not
    have; the bench's links (``BENCH_LINK``) ride it out."""
    starved = _Starved()
    monkeypatch.setattr(SimDevice, "reply_to", lambda device, frame: starved.reply(device, frame))
    monkeypatch.setattr(ShoeSim, "load", lambda shoe, cards: starved.stalling_load(shoe, cards))
    table = load_table(config_dir() / "bench" / f"{game}.yaml")
    summary = run_bench(table, seats=3, rounds=3, seed=5, progress=False, journal_path=tmp_path / "j.db")
    assert summary.failure is None and summary.exit_status == 0, summary.lines()
    assert summary.rounds == 3 and summary.link_downs == 0 and summary.holds == 0
    assert starved.released.is_set() and len(starved.stalled) == 3  # the stall did happen, to every device


def test_a_write_whose_thread_ran_late_does_not_take_a_link_down(monkeypatch: pytest.MonkeyPatch) -> None:
    """pyserial failed a write when its thread looked at the clock only after the write timeout,
    even with every byte sent: a starved process. Seen at load 50 as `write failed: Write
    timeout`, a link down and a hold. The transport now writes the descriptor itself and looks at
    the clock only when the port took less than the whole frame. Here the clock moves 2 s at
    every look, with a real table's write timeout and the bench's."""
    import os
    import tty

    from serial import serialutil

    from drivers import transport as transport_module
    from drivers.link import LinkConfig
    from drivers.transport import Transport
    from hil.bench import BENCH_LINK

    clock = [0.0]

    def starved() -> float:
        clock[0] += 2.0
        return clock[0]

    master, slave = os.openpty()
    tty.setraw(slave)
    try:
        monkeypatch.setattr(serialutil.Timeout, "TIME", staticmethod(starved))
        monkeypatch.setattr(transport_module, "monotonic", starved)
        for n, write_timeout_s in enumerate((LinkConfig().write_timeout_s, BENCH_LINK.write_timeout_s)):
            port = Transport(os.ttyname(slave), write_timeout_s=write_timeout_s)
            try:
                port.write(bytes((n + 1,)))
                assert os.read(master, 16) == bytes((n + 1,))
            finally:
                port.close()
    finally:
        os.close(master)
        os.close(slave)

"""The floor link without servers: the floor: config section, the journal outbox, the messages a
journal gives (hidden cards left out), the ingest's rows, and that controller/floor/ never imports drivers/."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from controller.configuration import ConfigError, load_table
from controller.journal import SqliteJournal, verify_journal
from controller.journal.meters import meters_for_round
from controller.journal.outbox import Outbox

pytest.importorskip("nats")
pytest.importorskip("psycopg")

from controller.floor.ingest import parse_batch
from controller.floor.messages import messages_for, record_class

REPO = Path(__file__).resolve().parent.parent


def bench_config(folder: Path, floor: str, game: str = "mississippi_stud") -> Path:
    text = (REPO / "config" / "bench" / f"{game}.yaml").read_text()
    text = text.replace("paytables_dir: ../paytables", f"paytables_dir: {REPO / 'config' / 'paytables'}")
    path = folder / f"{game}.yaml"
    path.write_text(text + floor)
    return path


def test_floor_section_is_read(tmp_path: Path) -> None:
    path = bench_config(
        tmp_path,
        "floor:\n  table_id: ms-01\n  servers: [nats://127.0.0.1:4222, nats://127.0.0.1:4223]\n"
        "  credentials: floor.creds\n  subject_prefix: casino.floor\n",
    )
    floor = load_table(path).floor
    assert floor is not None
    assert floor.table_id == "ms-01"
    assert floor.servers == ("nats://127.0.0.1:4222", "nats://127.0.0.1:4223")
    assert floor.credentials == str(tmp_path / "floor.creds")
    assert floor.subject_prefix == "casino.floor"
    assert load_table(bench_config(tmp_path, "")).floor is None


def test_floor_section_errors_name_file_line_and_key(tmp_path: Path) -> None:
    path = bench_config(tmp_path, "floor:\n  table_id: ms 01\n  servers: [http://x]\n  colour: red\n")
    with pytest.raises(ConfigError) as err:
        load_table(path)
    text = str(err.value)
    assert f"{path}:" in text
    assert "floor.table_id" in text and "floor.servers[0]" in text and "floor.colour" in text


def _journal_with_round(path: Path) -> SqliteJournal:
    """A journal holding one Mississippi Stud round: cards dealt, a supervisor key turn, a fault,
    and the round's record."""
    j = SqliteJournal(path)
    j.append("ButtonChanged", {"button": "supervisor_key", "pressed": True, "device": "panel"}, event=True)
    j.append("CardDealt", {"card": "As", "index": 1, "device": "shoe", "quality": 100}, event=True)
    j.append("CardDealt", {"card": "Kd", "index": 2, "device": "shoe", "quality": 100}, event=True)
    j.append("LinkDown", {"device": "shoe"}, event=True)
    j.append("SpotReport", {"seat": 1, "spot": "ante", "cents": 500, "device": "bet_spots"}, event=True)
    record = {"game": "mississippi_stud", "seats": {"1": {"wagers": {"ante": 500}, "cards": "As Kd"}}}
    data = {
        "round": 1,
        "game": "mississippi_stud",
        "table": "t.yaml",
        "record": record,
        "settlement": None,
        "late_bets": [],
        "faults": 1,
        "cards": [{"index": 1, "card": "As", "to": "seat 1"}, {"index": 2, "card": "Kd", "to": "seat 1"}],
        "first_seq": 1,
        "last_seq": 5,
    }
    j.append_round(1, data, meters_for_round(data))
    return j


def test_outbox_keeps_the_acknowledged_record_in_the_journal(tmp_path: Path) -> None:
    j = _journal_with_round(tmp_path / "j.db")
    box = Outbox(tmp_path / "j.db")
    assert (box.acked(), box.head(), box.backlog()) == (0, 6, 6)
    box.ack(4)
    box.ack(2)  # never moves back
    box.set_state("up", None)
    box.close()
    again = Outbox(tmp_path / "j.db")
    assert again.acked() == 4 and again.backlog() == 2 and again.state()[0] == "up"
    assert [r.seq for r in again.after(4)] == [5, 6]
    j.append("SpotReport", {"seat": 2}, event=True)  # the controller keeps writing beside it
    assert again.head() == 7
    again.close()
    assert verify_journal(j).problems == []  # the outbox is beside the chain, not in it
    j.close()


def test_messages_by_kind_with_hidden_cards(tmp_path: Path) -> None:
    j = _journal_with_round(tmp_path / "j.db")
    box = Outbox(tmp_path / "j.db")
    messages = [m for r in box.after(0) for m in messages_for(r, "ms-01", "floor", box.between)]
    subjects = [m.subject for m in messages]
    assert subjects == [
        "floor.ms-01.supervisor",
        "floor.ms-01.event",
        "floor.ms-01.event",
        "floor.ms-01.fault",
        "floor.ms-01.event",
        "floor.ms-01.round",
        "floor.ms-01.meters",
    ]
    assert [m.msg_id for m in messages][:6] == [f"ms-01/{n}" for n in range(1, 7)]
    assert messages[6].msg_id == "ms-01/6/meters"
    dealt = [json.loads(m.payload) for m in messages if b"CardDealt" in m.payload and m.subject.endswith("event")]
    assert [d["data"]["card"] for d in dealt] == [None, None]
    assert all(d["data"]["hidden"] and d["data"]["index"] for d in dealt)
    for m in messages[:5]:  # no card value on any message before the round is over
        assert b'"As"' not in m.payload and b'"Kd"' not in m.payload
    round_msg = json.loads(messages[5].payload)
    assert round_msg["data"]["recall"]["cards"][0]["card"] == "As"
    assert [e["seq"] for e in round_msg["data"]["recall"]["events"]] == [1, 2, 3, 4, 5]
    meters = json.loads(messages[6].payload)["data"]["meters"]
    assert {(s, n): v for s, n, v in meters} == meters_for_round(json.loads(box.between(6, 6)[0].data))
    box.close()
    j.close()


def test_ingest_rows_and_unreadable_messages_kept(tmp_path: Path) -> None:
    j = _journal_with_round(tmp_path / "j.db")
    box = Outbox(tmp_path / "j.db")
    messages = [m for r in box.after(0) for m in messages_for(r, "ms-01", "floor", box.between)]
    batch = parse_batch(
        [(m.subject, m.msg_id, m.payload) for m in messages] + [("floor.ms-01.event", "ms-01/99", b"{not json")]
    )
    rows = batch.rows()
    assert [(e[1], e[5]) for e in rows.events] == [
        (1, "supervisor"),
        (2, "event"),
        (3, "event"),
        (4, "fault"),
        (5, "event"),
    ]
    assert len(rows.rounds) == 1 and rows.rounds[0][7] is True  # void
    assert [c[4] for c in rows.cards] == ["As", "Kd"]
    assert {(m[3], m[4]): m[5] for m in rows.meters} == meters_for_round(json.loads(box.between(6, 6)[0].data))
    assert len(batch.rejects) == 1 and batch.rejects[0].msg_id == "ms-01/99"
    box.close()
    j.close()


def test_record_class() -> None:
    assert record_class("ButtonChanged", '{"button":"deal"}') == "event"
    assert record_class("SupervisorAction", "{}") == "supervisor"
    assert record_class("DeviceFault", "{}") == "fault"
    assert record_class("RoundSettled", "{}") == "round"


def test_floor_never_imports_drivers() -> None:
    code = (
        "import sys, controller.floor.forwarder, controller.floor.ingest, controller.floor.report, controller.floor.migrate, controller.floor.servers\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('drivers', 'hil')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_run_and_bench_start_a_forwarder_only_with_a_floor_section(tmp_path: Path) -> None:
    from controller.cli._floor import forwarder_for
    from controller.floor.forwarder import Forwarder

    assert forwarder_for(load_table(bench_config(tmp_path, "")), tmp_path / "j.db") is None
    table = load_table(bench_config(tmp_path, "floor:\n  table_id: ms-01\n  servers: nats://127.0.0.1:4222\n"))
    forwarder = forwarder_for(table, tmp_path / "j.db")
    assert isinstance(forwarder, Forwarder) and forwarder.link.table_id == "ms-01"
    assert forwarder.link.servers == ("nats://127.0.0.1:4222",)


def test_the_bench_summary_says_a_floor_never_connected_and_counts_the_backlog_from_the_journal(
    tmp_path: Path,
) -> None:
    """With the broker unreachable the summary said "acknowledged up to record 0, backlog 0" while
    hundreds of records were never sent."""
    from controller.floor.servers import free_port

    config = bench_config(tmp_path, f"floor:\n  table_id: ms-01\n  servers: nats://127.0.0.1:{free_port()}\n")
    journal = tmp_path / "j.db"
    done = subprocess.run(
        [sys.executable, "-m", "controller", "bench", "--config", str(config), "--game", "mississippi_stud"]
        + ["--rounds", "1", "--seed", "3", "--journal", str(journal)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    (line,) = [ln for ln in done.stdout.splitlines() if ln.strip().startswith("floor ")]
    assert "ms-01: never connected" in line
    backlog = int(line.split("backlog ")[1].split()[0])
    assert backlog > 50  # every record of the round, none sent
    status = subprocess.run(
        [sys.executable, "-m", "controller", "status", "--journal", str(journal)], capture_output=True, text=True
    )
    assert "floor: never connected" in status.stdout and f"backlog {backlog} records" in status.stdout, status.stdout

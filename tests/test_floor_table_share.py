"""A table's share of the floor stream comes from where the site sets it (issue 44 item 3;
docs/floor.md, "One table, one feed"): the table config's ``floor.table_share``, the same number
as the floor's ``--table-share``. A forwarder against a stream made with a small share, its config
saying so, sends every record without a refusal; a bad ``table_share`` is refused with the file,
line and key, exit 2 and no traceback."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from floor_fixtures import FloorSite
from floor_helpers import IngestThread, count, wait_for

from controller.configuration import DEFAULT_TABLE_SHARE, ConfigError, load_table

REPO = Path(__file__).resolve().parent.parent
SHARE = 12
"""The stream's share per table and subject in the server test (the default is 1,000)."""
RECORDS = 15 * SHARE
SPOT = {"device": "spots", "seat": 1, "spot": "ante", "cents": 500}


def bench_config(folder: Path, floor: str) -> Path:
    """A bench table config with ``floor`` (its ``floor:`` section) appended."""
    text = (REPO / "config" / "bench" / "mississippi_stud.yaml").read_text()
    text = text.replace("paytables_dir: ../paytables", f"paytables_dir: {REPO / 'config' / 'paytables'}")
    path = folder / "table.yaml"
    path.write_text(text + floor)
    return path


FLOOR = "floor:\n  table_id: ms-01\n  servers: nats://127.0.0.1:4222\n"


def test_table_share_is_read_and_defaults_to_the_floor_default(tmp_path: Path) -> None:
    floor = load_table(bench_config(tmp_path, FLOOR + "  table_share: 40\n")).floor
    assert floor is not None and floor.table_share == 40
    floor = load_table(bench_config(tmp_path, FLOOR)).floor
    assert floor is not None and floor.table_share == DEFAULT_TABLE_SHARE == 1000
    pytest.importorskip("nats")
    from controller.floor.stream import STREAM_MAX_PER_SUBJECT

    assert STREAM_MAX_PER_SUBJECT == DEFAULT_TABLE_SHARE  # both sides agree when neither is set


@pytest.mark.parametrize("value", ["0", "-5", "many", "true", "12.5", "1000001", "[10]", "null"])
def test_a_bad_table_share_names_file_line_and_key(tmp_path: Path, value: str) -> None:
    path = bench_config(tmp_path, FLOOR + f"  table_share: {value}\n")
    with pytest.raises(ConfigError) as err:
        load_table(path)
    (problem,) = [p for p in err.value.problems if p.key == "floor.table_share"]
    assert problem.file == str(path)
    assert problem.line == path.read_text().splitlines().index(f"  table_share: {value}") + 1
    assert "table_share must be a whole number of messages, 1 to 1,000,000" in problem.message


def test_run_refuses_a_bad_table_share_with_exit_2_and_no_traceback(tmp_path: Path) -> None:
    path = bench_config(tmp_path, FLOOR + "  table_share: 0\n")
    line = len(path.read_text().splitlines())
    out = subprocess.run(
        [sys.executable, "-m", "controller", "run", "--config", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert out.returncode == 2, out.stderr
    assert f"{path}:{line}" in out.stderr and "floor.table_share" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr


def test_the_forwarder_takes_its_share_from_the_link(tmp_path: Path) -> None:
    pytest.importorskip("nats")
    from controller.configuration import FloorConfig
    from controller.floor.forwarder import Forwarder

    link = FloorConfig("t1", ("nats://127.0.0.1:1",))
    assert Forwarder(tmp_path / "a.db", link).share == DEFAULT_TABLE_SHARE
    assert Forwarder(tmp_path / "b.db", replace(link, table_share=30)).share == 30
    assert Forwarder(tmp_path / "c.db", replace(link, table_share=30), share=None).share is None  # no credit
    assert Forwarder(tmp_path / "d.db", replace(link, table_share=30), share=8).share == 8


def test_a_table_configured_with_the_streams_small_share_is_never_refused(
    floor_site: FloorSite, floor_folder: Path
) -> None:
    """The stream keeps ``SHARE`` messages a subject for a table, and the table's config says so:
    it sends 15 times that on one subject while the ingest stores them, and the broker refuses none
    of them and none is sent twice. With the default share (1,000) in its config the forwarder
    would send far past the stream's 12 and be refused (tests/test_floor_flood.py shows it)."""
    pytest.importorskip("nats")
    pytest.importorskip("psycopg")
    from controller.floor.forwarder import Forwarder
    from controller.journal import NewRecord, SqliteJournal

    link = floor_site.link()
    link.create_stream(table_share=SHARE)
    db = floor_site.database()
    path = floor_folder / "ts-a.db"
    journal = SqliteJournal(path)
    journal.append_batch([NewRecord("SpotReport", SPOT, event=True)] * RECORDS)
    journal.close()
    config = replace(link.floor_config("ts-a"), table_share=SHARE)
    ingest = IngestThread(link.ingest_config(db.ingest, batch=5, ack_wait_s=5))
    forwarder = Forwarder(path, config).start()  # a heartbeat every 5 s: the floor tells more often
    try:
        wait_for(lambda: forwarder.status().stored >= RECORDS, "every record stored, as the floor tells the table")
        status = forwarder.status()
        assert status.refused == 0 and status.resent == 0, status
        assert status.published == RECORDS, status
        assert count(db.reader, "SELECT head_seq FROM floor_chain WHERE table_id = 'ts-a'") == RECORDS
    finally:
        forwarder.stop()
        ingest.stop()

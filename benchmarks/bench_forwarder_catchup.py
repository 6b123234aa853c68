"""The floor forwarder's catch-up from a backlog: a journal (``--journal``, e.g. one that
``benchmarks/bench_journal_year.py --keep DIR`` built) whose floor acknowledged everything but
its last ``--backlog`` records (default: a week of a year's 20,000,000, 384,615), published by
the table's own forwarder (``controller.floor.forwarder.Forwarder``, its check of the backlog
first) to a local JetStream (open, no TLS: the link's own cost) until every record is
acknowledged.

Run ``python benchmarks/bench_forwarder_catchup.py --journal PATH [--backlog N]`` (the journal is
copied first). Prints the wall time, this process's CPU seconds (the forwarder's thread: the
main thread only waits) and the broker's, per record; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import nats

from controller.configuration import FloorConfig
from controller.floor.forwarder import Forwarder
from controller.floor.ingest import IngestConfig
from controller.floor.servers import LocalNats
from controller.floor.stream import ensure_stream
from controller.journal.outbox import Outbox
from controller.journal.stored import seq_bounds


def proc_cpu(pid: int) -> float:
    """A process's user + system CPU seconds, from /proc."""
    import os

    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def make_stream(url: str) -> None:
    nc = await nats.connect(url)
    try:
        await ensure_stream(nc.jetstream(), IngestConfig((url,), "postgresql://unused"))
    finally:
        await nc.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--journal", type=Path, required=True)
    parser.add_argument("--backlog", type=int, default=20_000_000 // 52)
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="bench-catchup-"))
    broker = LocalNats(base / "nats")
    try:
        path = base / "journal.db"
        shutil.copyfile(args.journal, path)
        db = sqlite3.connect(path)
        head = int((seq_bounds(db) or (0, 0))[1])
        db.close()
        outbox = Outbox(path)
        acked = max(0, head - args.backlog)
        outbox.ack(acked)
        outbox.close()
        broker.start()
        assert broker.proc is not None
        asyncio.run(make_stream(broker.url))
        nats_before = proc_cpu(broker.proc.pid)
        cpu0, t0 = time.process_time(), time.perf_counter()
        f = Forwarder(path, FloorConfig("t1", (broker.url,)), window=1024, batch=2000).start()
        done = f.wait_acked(head, timeout=3600)
        wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        nats_cpu = proc_cpu(broker.proc.pid) - nats_before
        f.stop()
        n = head - acked
        print(
            f"forwarder catch-up of {n:,} records (records {acked + 1:,} to {head:,}): {'done' if done else 'NOT done'} "
            f"in {wall:.1f} s wall; forwarder {cpu:.1f} CPU s ({1e6 * cpu / n:.0f} us/record), "
            f"nats-server {nats_cpu:.1f} CPU s ({1e6 * nats_cpu / n:.0f} us/record)"
        )
    finally:
        broker.stop()
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()

"""The floor ingest's Prometheus metrics (docs/floor.md, "Watching the ingest").

One :class:`IngestMetrics` per ingest process, in its own registry; ``tablectl floor ingest
--metrics-port N`` serves it on ``/metrics``. Records per second is a rate of the stored
counter (``rate(tablectl_floor_records_stored_total[1m])``); lag is how long ago the table wrote
the newest record the ingest just stored, and how many messages the stream still holds for
the ingest's durable consumer.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence

from prometheus_client import CollectorRegistry, Counter, Gauge, start_http_server

from controller.floor.chain import Outcome, Verdict
from controller.floor.validate import FloorRecord

__all__ = ["IngestMetrics", "serve_metrics"]


class IngestMetrics:
    """The counters and gauges one ingest process keeps."""

    def __init__(self, registry: CollectorRegistry | None = None, clock: Callable[[], float] = time.time) -> None:
        self.registry = registry or CollectorRegistry()
        self.clock = clock
        r = self.registry
        self.messages = Counter(
            "tablectl_floor_messages", "Messages the ingest settled, by verdict", ["verdict"], registry=r
        )
        self.stored = Counter("tablectl_floor_records_stored", "Journal records stored in the floor store", registry=r)
        self.rejected = Counter(
            "tablectl_floor_rejected",
            "Messages refused (ingest_reject), by the table the subject names",
            ["table"],
            registry=r,
        )
        self.quarantined = Counter(
            "tablectl_floor_quarantined", "Records quarantined (floor_quarantine), by table", ["table"], registry=r
        )
        self.lag = Gauge(
            "tablectl_floor_lag_seconds",
            "Seconds between a table writing a record and the ingest storing it",
            ["table"],
            registry=r,
        )
        self.backlog = Gauge(
            "tablectl_floor_consumer_pending", "Messages the stream holds not yet delivered to the ingest", registry=r
        )
        self.table_queued = Gauge(
            "tablectl_floor_table_queued",
            "Messages a table has waiting in the stream (looked up every 5 s)",
            ["table"],
            registry=r,
        )
        self.table_full = Gauge(
            "tablectl_floor_table_full",
            "1 while a table fills its share of the stream: the broker refuses its next records",
            ["table"],
            registry=r,
        )
        self.batches = Counter("tablectl_floor_batches", "Batches written", registry=r)
        self.db_retries = Counter(
            "tablectl_floor_db_retries", "Batches kept while the floor database was away", registry=r
        )
        self.last_batch = Gauge(
            "tablectl_floor_last_batch_timestamp_seconds", "When the last batch was written", registry=r
        )

    def observe(self, items: Sequence[object], outcome: Outcome) -> None:
        """Count one written batch: ``items`` its checked messages (records and rejects), in order."""
        now = self.clock()
        newest: dict[str, float] = {}
        for item, verdict in zip(items, outcome.verdicts, strict=True):
            self.messages.labels(verdict.value).inc()
            if verdict is Verdict.REJECTED:
                self.rejected.labels(getattr(item, "table", None) or "").inc()
            elif verdict is Verdict.STORED and isinstance(item, FloorRecord):
                newest[item.table] = max(newest.get(item.table, 0.0), item.at)
        stored = outcome.count(Verdict.STORED) + outcome.released
        if stored:
            self.stored.inc(stored)
        for table, _, _, _ in outcome.quarantined:
            self.quarantined.labels(table).inc()
        for table, at in newest.items():
            self.lag.labels(table).set(max(0.0, now - at))
        self.batches.inc()
        self.last_batch.set(now)


def serve_metrics(metrics: IngestMetrics, port: int, addr: str = "127.0.0.1") -> Callable[[], None]:
    """Serve ``metrics`` on ``http://addr:port/metrics`` from a daemon thread; returns what stops it."""
    server, thread = start_http_server(port, addr=addr, registry=metrics.registry)

    def stop() -> None:
        server.shutdown()
        server.server_close()
        thread.join(5)

    return stop

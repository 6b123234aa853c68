"""The floor's JetStream stream: its settings and making it when it is missing (docs/floor.md,
"One table, one feed"). The ingest and the setup identity (``tablectl floor create-stream``,
:func:`controller.floor.connect.create_stream`) both make it from here.

Each table has its share of the stream, which the broker enforces: the stream is a work queue
(a message leaves it once the ingest has settled it), and each of a table's five record subjects
may hold at most ``stream_max_per_subject`` messages not yet settled; past that the broker
refuses that table's next message on that subject (``discard new per subject``) and the table
keeps it in its journal and sends it again later. So a table that floods the floor can put at
most five times that many messages ahead of any other table's, however much it sends.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

import nats.js.errors
from nats.js.api import DiscardPolicy, RetentionPolicy, StorageType, StreamConfig

from controller.configuration import DEFAULT_TABLE_SHARE
from controller.floor.messages import TABLE_ID
from controller.floor.validate import MAX_MESSAGE_BYTES

if TYPE_CHECKING:
    from nats.js import JetStreamContext

__all__ = ["STREAM_MAX_PER_SUBJECT", "ensure_stream"]

STREAM_MAX_PER_SUBJECT = DEFAULT_TABLE_SHARE
"""Messages one table may have waiting on one of its subjects by default: about five minutes of a
busy table's records while the ingest is away, and at most a few tenths of a second of the
ingest's work ahead of another table's records when one table floods. The same default as a table
config's ``floor.table_share`` (what its forwarder's credit is made of), so both sides agree when
neither is set."""


class StreamSettings(Protocol):
    """What the stream is made of (an ``IngestConfig`` is one)."""

    @property
    def stream(self) -> str: ...

    @property
    def subject_prefix(self) -> str: ...

    @property
    def replicas(self) -> int: ...

    @property
    def stream_max_age_days(self) -> float: ...

    @property
    def stream_max_bytes(self) -> int: ...

    @property
    def stream_max_per_subject(self) -> int: ...


def stream_config(settings: StreamSettings) -> StreamConfig:
    """The floor stream's configuration for ``settings``."""
    return StreamConfig(
        name=settings.stream,
        subjects=[f"{settings.subject_prefix}.>"],
        storage=StorageType.FILE,
        num_replicas=settings.replicas,
        duplicate_window=120.0,
        max_age=settings.stream_max_age_days * 86400,
        max_bytes=settings.stream_max_bytes if settings.stream_max_bytes > 0 else None,
        max_msg_size=MAX_MESSAGE_BYTES,  # a larger one is refused at the broker, never stored
        # each table's share: settled messages leave, and a full subject refuses its table's next one
        retention=RetentionPolicy.WORK_QUEUE,
        discard=DiscardPolicy.NEW,
        discard_new_per_subject=True,
        max_msgs_per_subject=settings.stream_max_per_subject,
    )


async def ensure_stream(js: JetStreamContext, settings: StreamSettings) -> bool:
    """Create the floor stream on JetStream context ``js`` when it is missing; True when it made it."""
    try:
        await js.stream_info(settings.stream)
        return False
    except nats.js.errors.NotFoundError:
        pass
    await js.add_stream(stream_config(settings))
    return True


def missing_limits(config: StreamConfig) -> str | None:
    """What an existing stream's configuration (nats-py ``StreamConfig``) lacks of the tables'
    shares, in words, or None when it has them (a stream made before them keeps its settings:
    JetStream cannot turn a stream into a work queue)."""
    retention, discard = _value(config.retention), _value(config.discard)
    lacks = []
    if retention != RetentionPolicy.WORK_QUEUE.value:
        lacks.append(f"retention {retention}, not workqueue")
    if not config.max_msgs_per_subject or config.max_msgs_per_subject <= 0:
        lacks.append("no max_msgs_per_subject")
    if discard != DiscardPolicy.NEW.value or not config.discard_new_per_subject:
        lacks.append("not discard new per subject")
    return "; ".join(lacks) or None


def _value(setting: object) -> str:
    """An enum setting's value (nats-py gives the enum, or the broker's string)."""
    return str(getattr(setting, "value", setting))


def tables_queued(subjects: Mapping[str, int] | None, prefix: str) -> dict[str, tuple[int, int]]:
    """Per table, from the stream's per-subject counts: the messages it has waiting, and the most
    waiting on one of its subjects (a subject that names no table is left out)."""
    queued: dict[str, tuple[int, int]] = {}
    head = prefix + "."
    for subject, count in (subjects or {}).items():
        if not subject.startswith(head):
            continue
        table = subject[len(head) :].split(".", 1)[0]
        if TABLE_ID.fullmatch(table):
            total, fullest = queued.get(table, (0, 0))
            queued[table] = (total + int(count), max(fullest, int(count)))
    return queued

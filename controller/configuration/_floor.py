"""The ``floor:`` section of a table config: where the table publishes its journal for the floor
(docs/floor.md). Absent: the table keeps its journal to itself."""

from __future__ import annotations

import re
from dataclasses import dataclass

from controller.configuration._yamlfile import Problem, YamlDoc

__all__ = ["DEFAULT_TABLE_SHARE", "MAX_TABLE_SHARE", "FloorConfig", "parse_floor"]

DEFAULT_TABLE_SHARE = 1000
"""A table's share of the floor stream by default: messages one table may have waiting on one of
its subjects, as ``tablectl floor create-stream --table-share`` makes the stream by default."""

MAX_TABLE_SHARE = 1_000_000
"""The largest ``table_share`` a table config may give (a thousand times the default)."""

_KEYS = {"table_id", "servers", "credentials", "ca", "cert", "key", "subject_prefix", "signing_key", "table_share"}
_TOKEN = re.compile(r"[A-Za-z0-9_-]{1,64}")
_PREFIX = re.compile(r"[A-Za-z0-9_-]{1,64}(\.[A-Za-z0-9_-]{1,64})*")


@dataclass(frozen=True, slots=True)
class FloorConfig:
    """The table's floor link: its id on the floor (one NATS subject token), the NATS server
    URLs, its credentials file (``tablectl floor add-table``: an nkey seed, or a ``.creds``
    file), the CA file that signed the brokers' certificates (TLS), an optional client
    certificate and key, the subject prefix, the table's Ed25519 signing key file (every
    record published is signed with it; the floor holds its public key), and the table's share of
    the floor stream (the floor's ``--table-share``: the forwarder's credit is made of it). Paths
    are relative to the config file."""

    table_id: str
    servers: tuple[str, ...]
    credentials: str | None = None
    subject_prefix: str = "floor"
    ca: str | None = None
    cert: str | None = None
    key: str | None = None
    signing_key: str | None = None
    table_share: int = DEFAULT_TABLE_SHARE
    """Messages the floor's stream keeps waiting for this table on one of its subjects (the
    floor's ``--table-share``, ``max_msgs_per_subject``); the forwarder sends at most three
    quarters of it past what the floor confirmed storing (docs/floor.md, "One table, one feed")."""


def parse_floor(doc: YamlDoc, raw: object, problems: list[Problem]) -> FloorConfig | None:
    """The ``floor:`` section of ``doc`` (None when absent); problems are added to ``problems``."""
    refusal = (
        "floor must be a mapping (table_id, servers, credentials, ca, cert, key, subject_prefix, signing_key, "
        "table_share)"
    )
    raw = doc.section("floor", raw, refusal, problems, _KEYS)
    if raw is None:
        return None
    table_id = raw.get("table_id")
    if not isinstance(table_id, str) or not _TOKEN.fullmatch(table_id):
        problems.append(
            doc.problem(("floor", "table_id"), f"table_id must be 1-64 letters, digits, _ or -, got {table_id!r}")
        )
    servers = raw.get("servers")
    if isinstance(servers, str):
        servers = [servers]
    if not isinstance(servers, list) or not servers or not all(isinstance(s, str) and s for s in servers):
        problems.append(doc.problem(("floor", "servers"), f"servers must be a list of NATS URLs, got {servers!r}"))
        servers = []
    else:
        for i, url in enumerate(servers):
            if not re.fullmatch(r"(nats|tls)://[^\s/]+", url):
                problems.append(doc.problem(("floor", "servers", i), f"not a NATS URL (nats://HOST:PORT): {url!r}"))
    paths: dict[str, str | None] = {}
    for name in ("credentials", "ca", "cert", "key", "signing_key"):
        value = raw.get(name)
        if value is not None and (not isinstance(value, str) or not value):
            problems.append(doc.problem(("floor", name), f"{name} must be a path, got {value!r}"))
            value = None
        paths[name] = str(doc.path.parent / value) if value else None
    if paths["key"] and not paths["cert"]:
        problems.append(doc.problem(("floor", "key"), "key needs cert (the client certificate it belongs to)"))
    prefix = raw.get("subject_prefix", "floor")
    if not isinstance(prefix, str) or not _PREFIX.fullmatch(prefix):
        problems.append(
            doc.problem(("floor", "subject_prefix"), f"subject_prefix must be NATS subject tokens, got {prefix!r}")
        )
        prefix = "floor"
    share = raw.get("table_share", DEFAULT_TABLE_SHARE)
    if isinstance(share, bool) or not isinstance(share, int) or not 1 <= share <= MAX_TABLE_SHARE:
        problems.append(
            doc.problem(
                ("floor", "table_share"),
                f"table_share must be a whole number of messages, 1 to {MAX_TABLE_SHARE:,} (the floor's "
                f"--table-share), got {share!r}",
            )
        )
        share = DEFAULT_TABLE_SHARE
    return FloorConfig(
        table_id if isinstance(table_id, str) else "",
        tuple(servers),
        paths["credentials"],
        prefix,
        paths["ca"],
        paths["cert"],
        paths["key"],
        paths["signing_key"],
        share,
    )

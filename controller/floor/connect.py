"""How the floor's clients (a table's forwarder, the ingest, the setup) connect to NATS: an
identity (an nkey seed file, or a decentralised ``.creds`` file with its JWT) and TLS with the
floor's CA (docs/floor.md, "Identities and TLS")."""

from __future__ import annotations

import logging
import ssl
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from controller.floor.identity import inbox_prefix, public_key
from controller.floor.stream import StreamSettings, ensure_stream

__all__ = ["NatsAuth", "create_stream", "nats_auth_options"]


@dataclass(frozen=True, slots=True)
class NatsAuth:
    """A client's identity and TLS: a credential file (nkey seed ``.nk`` or a ``.creds`` with a
    JWT), the CA file that signed the brokers' certificates, and an optional client certificate
    and key (for brokers that verify clients)."""

    credentials: str | None = None
    ca: str | None = None
    cert: str | None = None
    key: str | None = None


class _QuietTlsEof(logging.Filter):
    """asyncio warns "returning true from eof_received() has no effect when using ssl" each time
    a broker closes a TLS connection nats-py reads (nothing is wrong); keep it out of the logs."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "eof_received()" not in record.getMessage()


_QUIET = _QuietTlsEof()


def tls_context(ca: str, cert: str | None = None, key: str | None = None) -> ssl.SSLContext:
    """A client TLS context trusting only ``ca`` (hostnames checked), with a client certificate when given."""
    logging.getLogger("asyncio").addFilter(_QUIET)  # once: adding the same filter again does nothing
    context = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=ca)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    if cert:
        context.load_cert_chain(cert, key)
    return context


def nats_auth_options(auth: NatsAuth) -> dict[str, object]:
    """The ``nats.connect`` keyword arguments for ``auth``. An nkey seed also sets the inbox
    prefix the broker lets that identity subscribe to (controller.floor.identity)."""
    options: dict[str, object] = {}
    if auth.credentials:
        path = Path(auth.credentials)
        try:
            text = path.read_bytes()
        except OSError as exc:
            raise ValueError(f"{path}: cannot read the NATS credentials: {exc.strerror}") from exc
        if b"BEGIN NATS USER JWT" in text:
            options["user_credentials"] = str(path)
        else:
            try:
                public = public_key(text)
            except Exception as exc:  # nkeys raises its own error types for a bad seed
                raise ValueError(f"{path}: not an nkey seed nor a .creds file") from exc
            options["nkeys_seed"] = str(path)
            options["inbox_prefix"] = inbox_prefix(public)
    if auth.ca:
        try:
            options["tls"] = tls_context(auth.ca, auth.cert, auth.key)
        except (OSError, ssl.SSLError) as exc:
            raise ValueError(f"{auth.ca}: cannot load the floor's CA or client certificate: {exc}") from exc
    return options


async def create_stream(servers: Sequence[str], admin: NatsAuth, config: StreamSettings) -> bool:
    """Create the floor stream of ``config`` (an ``IngestConfig``: controller.floor.stream) when missing, as the setup
    identity ``admin`` (an ingest may not create it); True when it made it, False when it was
    there. Raises ``ValueError`` saying why it could not: the brokers unreachable, or the
    identity refused (the broker's permissions violation, not only a timeout)."""
    import nats
    import nats.errors

    refused: list[str] = []

    async def error_cb(exc: Exception) -> None:
        if "permissions violation" in str(exc).lower():
            refused.append(str(exc).strip())

    try:
        nc = await nats.connect(
            servers=list(servers),
            connect_timeout=5,
            allow_reconnect=False,
            error_cb=error_cb,
            **nats_auth_options(admin),
        )
    except (OSError, TimeoutError, nats.errors.Error) as exc:
        raise ValueError(f"cannot connect to {', '.join(servers)}: {type(exc).__name__}: {exc}") from exc
    try:
        return bool(await ensure_stream(nc.jetstream(timeout=10), config))
    except (TimeoutError, nats.errors.Error) as exc:
        why = refused[0] if refused else f"{type(exc).__name__}: {exc}"
        raise ValueError(f"could not make the stream {config.stream}: {why}") from exc
    finally:
        await nc.close()

"""Records the floor verifies without holding a secret (docs/floor.md, "Signed records").

Each table signs every record it publishes with its own Ed25519 key: the signature covers the
record's place in the journal's hash chain (table, seq, ``prev``, ``hash``, ``mac``), and the
hash covers the record's content, so a valid signature on a record that chains and whose hash
is its content's makes the record the table's. The floor holds only the public key, registered
in ``floor_chain.public_key`` by ``tablectl floor add-table --db``; a NATS credential alone
(which lets its holder publish on the table's subjects) cannot make a signature.

The private key is a PEM (PKCS#8) file, as ``tablectl floor signing-key`` or ``openssl genpkey
-algorithm ed25519`` writes it, readable by its owner only (a key others can read signs
nothing: it is refused, like ``journal.hmac_key_file``). A public key is written as 64 hex
digits (its 32 raw bytes); a PEM public key is read too.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from controller.floor._secret_file import write_secret
from controller.journal.keys import read_key_file

__all__ = [
    "SigningKeyError",
    "new_signing_key",
    "read_signing_key",
    "read_public_key",
    "public_hex",
    "sign_record",
    "signature_ok",
]

MAX_KEY_FILE_BYTES = 4096
"""The longest key file read (an Ed25519 PEM is about 120 bytes)."""

SIG_HEX = re.compile(r"[0-9a-f]{128}")
"""What a signature in a message looks like: 64 bytes in lowercase hex."""

_PUBLIC_HEX = re.compile(r"[0-9a-fA-F]{64}")


class SigningKeyError(ValueError):
    """A key file that cannot be used: the message says which file and why."""


def signed_text(table: str, seq: int, prev: str, hash_: str, mac: str) -> bytes:
    """What a table signs for one record: its chain position, nothing a reader could take for
    another record (the table id and seq are in it)."""
    return f"tablectl-floor-record-v1\n{table}\n{seq}\n{prev}\n{hash_}\n{mac}".encode()


def sign_record(key: Ed25519PrivateKey, table: str, seq: int, prev: str, hash_: str, mac: str) -> str:
    """The signature (128 hex digits) of one record's chain position."""
    return key.sign(signed_text(table, seq, prev, hash_, mac)).hex()


@functools.lru_cache(maxsize=4096)
def _public(hex_key: str) -> Ed25519PublicKey:
    return Ed25519PublicKey.from_public_bytes(bytes.fromhex(hex_key))


def signature_ok(public_key_hex: str, sig: str | None, table: str, seq: int, prev: str, hash_: str, mac: str) -> bool:
    """Whether ``sig`` is the table's (``public_key_hex``) signature of this chain position."""
    if sig is None or not SIG_HEX.fullmatch(sig):
        return False
    try:
        _public(public_key_hex).verify(bytes.fromhex(sig), signed_text(table, seq, prev, hash_, mac))
    except (InvalidSignature, ValueError):
        return False
    return True


def public_hex(key: Ed25519PrivateKey | Ed25519PublicKey) -> str:
    """A key's public half as 64 hex digits (what ``floor_chain.public_key`` holds)."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    return public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw).hex()


def new_signing_key(path: Path | str) -> str:
    """Write a new private key to ``path`` (0600, made so before any byte is written; an existing
    file is refused) and ``path.pub`` (its public key, hex); returns the public key."""
    path = Path(path)
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    try:
        write_secret(path, pem, replace=False)
    except FileExistsError:
        raise SigningKeyError(f"{path}: already exists (a table's key is never overwritten)") from None
    public = public_hex(key)
    path.with_name(path.name + ".pub").write_text(public + "\n")
    return public


def _read_small(path: Path, what: str, private: bool) -> bytes:
    return read_key_file(path, what, MAX_KEY_FILE_BYTES, private=private, error=SigningKeyError)


def read_signing_key(path: Path | str) -> Ed25519PrivateKey:
    """The Ed25519 private key in ``path``; raises :class:`SigningKeyError` saying what is wrong:
    missing, unreadable, readable by others, empty, too long, not an Ed25519 PEM key."""
    path = Path(path)
    raw = _read_small(path, "signing key file", private=True)
    try:
        key = serialization.load_pem_private_key(raw, password=None)
    except (ValueError, TypeError) as exc:
        raise SigningKeyError(f"{path}: not a PEM private key without a password ({exc})") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SigningKeyError(f"{path}: a {type(key).__name__}, not an Ed25519 key")
    return key


def read_public_key(path: Path | str) -> str:
    """The Ed25519 public key in ``path`` (64 hex digits, or a PEM public key) as 64 lowercase hex
    digits; raises :class:`SigningKeyError`."""
    path = Path(path)
    raw = _read_small(path, "public key file", private=False)
    text = raw.decode("ascii", "replace").strip()
    if _PUBLIC_HEX.fullmatch(text):
        return text.lower()
    if text.startswith("-----BEGIN PRIVATE KEY"):
        raise SigningKeyError(f"{path}: a private key; give its public half (the .pub file), the floor keeps no secret")
    try:
        key = serialization.load_pem_public_key(raw)
    except (ValueError, TypeError):
        raise SigningKeyError(f"{path}: neither 64 hex digits nor a PEM public key") from None
    if not isinstance(key, Ed25519PublicKey):
        raise SigningKeyError(f"{path}: a {type(key).__name__}, not an Ed25519 key")
    return public_hex(key)

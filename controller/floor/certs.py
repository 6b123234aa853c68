"""``tablectl floor make-certs``: a small certificate authority for the floor's TLS (docs/floor.md,
"Identities and TLS"), made with the ``cryptography`` package.

One CA signs a certificate for the brokers (server and client authentication both: the same
certificate secures the cluster routes, where each node verifies the other) with the host
names and addresses given (always ``localhost`` and ``127.0.0.1``), and optional client
certificates. Keys are ECDSA P-256 and written 0600; certificates are PEM.
"""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from controller.floor._secret_file import write_secret

__all__ = ["make_certs"]


@dataclass(frozen=True, slots=True)
class Certificates:
    """What :func:`make_certs` wrote."""

    ca: Path
    ca_key: Path
    server: Path
    server_key: Path
    clients: tuple[tuple[Path, Path], ...]


def _key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def _write_key(path: Path, key: ec.EllipticCurvePrivateKey) -> None:
    write_secret(
        path,
        key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()),
    )


def _name(common: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "tablectl floor"),
            x509.NameAttribute(NameOID.COMMON_NAME, common),
        ]
    )


def _san(hosts: tuple[str, ...]) -> x509.SubjectAlternativeName:
    names: list[x509.GeneralName] = []
    for host in hosts:
        try:
            names.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            names.append(x509.DNSName(host))
    return x509.SubjectAlternativeName(names)


def _sign(
    subject: str,
    key: ec.EllipticCurvePrivateKey,
    ca_key: ec.EllipticCurvePrivateKey,
    ca_name: x509.Name,
    days: int,
    usages: list[x509.ObjectIdentifier],
    hosts: tuple[str, ...],
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=days))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage(usages), critical=False)
    )
    if hosts:
        builder = builder.add_extension(_san(hosts), critical=False)
    return builder.sign(ca_key, hashes.SHA256())


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def make_certs(
    folder: Path | str, hosts: tuple[str, ...] = (), clients: tuple[str, ...] = (), days: int = 825
) -> Certificates:
    """Make (or keep) the CA in ``folder`` and write a broker certificate for ``hosts`` (plus
    localhost and 127.0.0.1) and one client certificate per name in ``clients``."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    out.chmod(0o700)
    ca_path, ca_key_path = out / "ca.pem", out / "ca-key.pem"
    if ca_path.exists() and ca_key_path.exists():
        ca_cert = x509.load_pem_x509_certificate(ca_path.read_bytes())
        loaded = serialization.load_pem_private_key(ca_key_path.read_bytes(), password=None)
        if not isinstance(loaded, ec.EllipticCurvePrivateKey):
            raise ValueError(f"{ca_key_path}: not an EC private key")
        ca_key = loaded
    else:
        ca_key = _key()
        now = datetime.datetime.now(datetime.UTC)
        ca_name = _name("tablectl floor CA")
        ca_cert = (
            x509.CertificateBuilder()
            .subject_name(ca_name)
            .issuer_name(ca_name)
            .public_key(ca_key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=3650))
            .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
            .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
            .sign(ca_key, hashes.SHA256())
        )
        _write_key(ca_key_path, ca_key)
        ca_path.write_bytes(_pem(ca_cert))
    all_hosts = tuple(dict.fromkeys(("localhost", "127.0.0.1", *hosts)))
    server_key = _key()
    server = _sign(
        "tablectl floor broker",
        server_key,
        ca_key,
        ca_cert.subject,
        days,
        [ExtendedKeyUsageOID.SERVER_AUTH, ExtendedKeyUsageOID.CLIENT_AUTH],
        all_hosts,
    )
    _write_key(out / "server-key.pem", server_key)
    (out / "server.pem").write_bytes(_pem(server))
    made = []
    for name in clients:
        key = _key()
        cert = _sign(name, key, ca_key, ca_cert.subject, days, [ExtendedKeyUsageOID.CLIENT_AUTH], ())
        key_path, cert_path = out / "clients" / f"{name}-key.pem", out / "clients" / f"{name}.pem"
        _write_key(key_path, key)
        cert_path.write_bytes(_pem(cert))
        made.append((cert_path, key_path))
    return Certificates(ca_path, ca_key_path, out / "server.pem", out / "server-key.pem", tuple(made))

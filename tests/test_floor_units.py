"""The floor's systemd units as shipped (deploy/): the ingest serves its metrics, and both the
ingest and the pit view reach PostgreSQL over TLS with the server's certificate and name
checked (``sslmode=verify-full`` and the CA), with no secret among their arguments."""

from __future__ import annotations

import argparse
import configparser
import shlex
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from controller.cli import build_parser

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"


def _args(name: str) -> argparse.Namespace:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string((DEPLOY / name).read_text())
    argv = shlex.split(parser["Service"]["ExecStart"])
    return build_parser().parse_args(argv[1:])


@pytest.mark.parametrize(
    ("unit", "role"),
    [("tablectl-floor-ingest.service", "floor_ingest"), ("tablectl-floor-web.service", "floor_reader")],
)
def test_the_floor_units_reach_postgres_over_verified_tls(unit: str, role: str) -> None:
    args = _args(unit)
    url = urlsplit(args.db)
    query = parse_qs(url.query)
    assert url.username == role and url.password is None and "password" not in query
    assert query["sslmode"] == ["verify-full"] and query["sslrootcert"][0].endswith(".pem")
    assert query["passfile"][0].startswith("/etc/tablectl/")


def test_the_ingest_unit_serves_its_metrics_on_loopback() -> None:
    args = _args("tablectl-floor-ingest.service")
    assert args.metrics_port == 9464 and args.metrics_addr == "127.0.0.1"

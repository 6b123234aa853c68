"""The deployment files: the systemd unit runs a `tablectl run` the CLI accepts, as a notify service
with a watchdog, restarted on failure, its journal folder 0700; the prune timer runs a prune the CLI
accepts, daily; the udev rules name every role."""

from __future__ import annotations

import configparser
import shlex
from pathlib import Path

from controller.cli import build_parser

DEPLOY = Path(__file__).resolve().parent.parent / "deploy"


def unit(name: str = "tablectl.service") -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string((DEPLOY / name).read_text())
    return parser


def test_the_unit_is_a_notify_service_with_a_watchdog_restarted_on_failure() -> None:
    service = unit()["Service"]
    assert service["Type"] == "notify" and service["WatchdogSec"] == "10s" and service["Restart"] == "on-failure"
    assert service["StateDirectoryMode"] == "0700" and service["UMask"] == "0077"
    argv = shlex.split(service["ExecStart"])
    assert argv[0].endswith("/tablectl")
    args = build_parser().parse_args(argv[1:])
    assert args.command == "run" and args.log_format == "json" and args.config == "/etc/tablectl/table.yaml"


def test_the_udev_rules_name_every_device_role() -> None:
    rules = [line for line in (DEPLOY / "99-tablectl.rules").read_text().splitlines() if line and line[0] != "#"]
    links = {part.split('"')[1] for line in rules for part in line.split(", ") if part.startswith("SYMLINK+=")}
    assert links == {"tablectl/shoe", "tablectl/bet_spots", "tablectl/panel"}
    assert all('SUBSYSTEM=="tty"' in line and 'MODE="0660"' in line for line in rules)


def test_the_prune_timer_runs_a_prune_the_cli_accepts_daily() -> None:
    service = unit("tablectl-prune.service")["Service"]
    assert service["Type"] == "oneshot" and service["User"] == "tablectl" and service["UMask"] == "0077"
    argv = shlex.split(service["ExecStart"])
    args = build_parser().parse_args(argv[1:])
    assert args.command == "journal" and args.run.__name__ == "run_prune"
    assert args.config == "/etc/tablectl/table.yaml"
    timer = unit("tablectl-prune.timer")["Timer"]
    assert timer["OnCalendar"].startswith("*-*-*") and timer["Persistent"] == "true"


def test_the_pit_view_unit_runs_a_floor_web_the_cli_accepts_with_no_secret_in_its_arguments() -> None:
    service = unit("tablectl-floor-web.service")["Service"]
    argv = shlex.split(service["ExecStart"])
    args = build_parser().parse_args(argv[1:])
    assert args.command == "floor" and args.db.startswith("postgresql://floor_reader@")
    assert "passfile=" in args.db and ":" not in args.db.split("@")[0].removeprefix("postgresql://")
    assert args.web_token is None and args.web_token_file and args.web_cert and args.web_key
    assert service["User"] == "tablectl-floor" and service["UMask"] == "0077"

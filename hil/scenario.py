"""Scripted scenarios for simulated devices, from Python or YAML.

A scenario file::

    steps:
      - {device: spots, place: {seat: 1, spot: ante, cents: 500}}
      - {device: panel, press: no_more_bets}
      - {device: shoe, deal: 3}
      - {wait: 0.2}
      - {device: shoe, do: jam}
      - {device: shoe, do: reboot}
      - {device: spots, do: restart}
      - {device: panel, key: true}

Each step names a device (by the name it was given) and one action with its argument: a
mapping of keyword arguments, a single value, or ``do: ACTION`` for an action without one.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.configuration import ConfigError, load_yaml
from hil.device import SimDevice

__all__ = ["Step", "Scenario", "load_scenario", "ACTIONS"]

ACTIONS: dict[str, set[str]] = {
    "shoe": {"deal", "unreadable", "duplicate", "jam", "door", "self_test", "load", "reboot", "restart"},
    "bet_spots": {"place", "put", "fault", "reboot", "restart"},
    "panel": {"press", "key", "hold", "reboot", "restart"},
}
"""The actions each kind of simulator accepts in a scenario."""


@dataclass(frozen=True, slots=True)
class Step:
    """One scripted step: ``device`` does ``action`` with ``args`` (or, with no device, waits ``args``)."""

    device: str | None
    action: str
    args: Any
    line: int


@dataclass(frozen=True, slots=True)
class Scenario:
    """An ordered list of steps."""

    steps: tuple[Step, ...]

    def run(self, devices: Mapping[str, SimDevice]) -> None:
        """Play the steps against ``devices`` (name -> simulator)."""
        for step in self.steps:
            if step.device is None:
                time.sleep(float(step.args))
                continue
            action = getattr(devices[step.device], step.action)
            if isinstance(step.args, dict):
                action(**step.args)
            elif step.args is None:
                action()
            else:
                action(step.args)


def load_scenario(path: Path | str, kinds: Mapping[str, str]) -> Scenario:
    """Read a scenario for devices named in ``kinds`` (name -> simulator kind); every problem
    is reported with file and line."""
    doc = load_yaml(path)
    problems = []
    steps = []
    raw = doc.data.get("steps") if isinstance(doc.data, dict) else None
    if not isinstance(raw, list):
        raise ConfigError([doc.problem((), "a scenario holds a list under 'steps:'")])
    for i, item in enumerate(raw):
        where = ("steps", i)
        line = doc.line(where)
        if isinstance(item, dict) and set(item) == {"wait"}:
            steps.append(Step(None, "wait", item["wait"], line))
            continue
        if not isinstance(item, dict) or "device" not in item or len(item) != 2:
            problems.append(doc.problem(where, "a step is {device: NAME, ACTION: ARGS} or {wait: SECONDS}"))
            continue
        name = item["device"]
        ((action, args),) = [(k, v) for k, v in item.items() if k != "device"]
        if action == "do":
            action, args = str(args), None
        kind = kinds.get(name)
        if kind is None:
            problems.append(doc.problem(where + ("device",), f"no device '{name}' (known: {', '.join(sorted(kinds))})"))
        elif action not in ACTIONS[kind]:
            problems.append(
                doc.problem(where, f"a {kind} cannot '{action}' (it can: {', '.join(sorted(ACTIONS[kind]))})")
            )
        else:
            steps.append(Step(name, action, args, line))
    if problems:
        raise ConfigError(problems)
    return Scenario(tuple(steps))

"""Tests' helpers for ``tablectl simulate``: a bug put in that the simulation is to find, and a
run of it that must fail on every seed."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pytest
from cli_helpers import cli

from hil.simulate.faults import CI_KINDS


def card_shown_early(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug put in: a Mississippi Stud community card turned a street early (found as
    ``model_hidden`` in round 1's third street)."""
    from controller.table import snapshot_build

    real = snapshot_build.face_up

    def early(game: str, step: str, *args: Any, **kwargs: Any) -> Any:
        return real(game, "fourth_street" if step == "third_street" else step, *args, **kwargs)

    monkeypatch.setattr(snapshot_build, "face_up", early)


def simulate_failing(monkeypatch: pytest.MonkeyPatch, seeds: Iterable[int], *chosen: str) -> str:
    """The output of ``tablectl simulate --game mississippi_stud CHOSEN --rounds 1 --workers 1
    --faults ci --quiet`` with :func:`card_shown_early` put in: it exits 1 and names each of
    ``seeds`` as failing in round 1's third street, with a replay naming the CI kinds one by one."""
    card_shown_early(monkeypatch)
    code, out, _ = cli(
        "simulate",
        "--game",
        "mississippi_stud",
        *chosen,
        "--rounds",
        "1",
        "--workers",
        "1",
        "--faults",
        "ci",
        "--quiet",
    )
    assert code == 1
    for seed in seeds:
        assert f"seed {seed}: model_hidden: round 1, third_street" in out
        assert f"--seed {seed} --rounds 1 --faults {','.join(CI_KINDS)} --shrink" in out
    return out

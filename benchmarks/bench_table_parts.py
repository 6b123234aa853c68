"""Where the in-process table's round goes, part by part, in machine instructions (valgrind), beside
the mandated floor's: ``bench_table.py``'s rounds counted rather than timed, for a shared machine.

Run ``python benchmarks/bench_table_parts.py [--rounds 30] [--game G ...]`` (needs ``valgrind`` and a C
compiler; a few minutes a game on a quiet machine). For each game, ``bench_table.py``'s rounds are
played once untimed (the hands and cards they look up are then known, as in the bench's pairs
after its first), then again under ``valgrind --tool=callgrind`` with the instrumentation started
only for the measured rounds (the hand tables and the warm-up run uninstrumented). Two runs:

* **bare**: nothing wrapped; the table's instructions a round, then the floor's on the same rounds
  (a bare ``transitions`` machine firing as many triggers, and ``settle_record`` on the records
  played), and their ratio (the bench's ratio, counted instead of timed);
* **parts**: each part's functions called through a C function of its own, named for the part and
  the part it was called from (``c_<part>__in__<caller>``), so that callgrind's inclusive count of
  each gives every part's own instructions (less the parts it calls). The calls through them cost
  instructions of their own, measured on a no-op and taken off; the shares are of the parts run's
  total less that cost (6-12% above the bare run's: the cost taken off is an estimate).

Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

PARTS = tuple(
    "top total handle transitions callbacks screen_show screen_state screen_details render screen_other settle_walk settle_record"
    " step_text journal late holds wagers intake links supervisor signins stub commands game"
    " house_way cal calo calb floor_bare floor_settle".split()
)
"""The parts a round is counted in (``top``: outside any; ``cal*``: the calibration's)."""

WHAT = {
    "transitions": "`transitions`' own code (a trigger's path, less the callbacks)",
    "callbacks": "the machine's callbacks and conditions looked up by name (`Machine.callback`, `Condition.check`)",
    "handle": "the round's dispatch and own methods (`RoundTable`)",
    "game": "the game's hooks and machine methods (its package's `RoundTable` subclass)",
    "settle_record": "the round's settlement (`settle_written`: the record's JSON, `settle_record`)",
    "settle_walk": "the settlement walk (`SettlementWalk`)",
    "step_text": "the settlement steps' texts (`Step._make_text`)",
    "journal": "each event's record (`Engine._append`, the in-memory journal)",
    "screen_show": "the screen: `DealerScreen.show`",
    "screen_state": "the screen: its state made (`DealerScreen.state`)",
    "screen_details": "the screen: the details (`screen_details`, `hold_prompt`)",
    "render": "the screen: rendered (`screen.render`)",
    "screen_other": "the screen: the texts shown, notes, notices, presses (`DealerScreen`'s other methods)",
    "intake": "the cards (`CardIntake`, `CardLedger`)",
    "wagers": "the wagers (`Wagers`, `BetBoard`)",
    "commands": "device commands (`ShownState`: lamps, the screen sent)",
    "links": "the links (`LinkReconciler`, `DeviceLinks`)",
    "supervisor": "the supervisor's actions and key (`Supervisor`, `SupervisorKey`)",
    "holds": "holds (`Holds`, `ShoeFaults`)",
    "late": "late bets (`LateBets`)",
    "stub": "the stub count (`StubCount`)",
    "signins": "sign-ins (`SignIns`)",
    "house_way": "pai gow's house way (`HouseWay.set`)",
    "total": "the bench's loop and the engine's step (outside every part)",
}

CALIBRATION_CALLS = 2000
GAMES = ("mississippi_stud", "boston5", "pai_gow")


def build_module(where: Path) -> None:
    """Write and compile ``cgparts``: a C function per (part, caller) that calls what it is given,
    and ``start`` (callgrind's instrumentation started)."""
    src = [
        "#define PY_SSIZE_T_CLEAN",
        "#include <Python.h>",
        "#include <valgrind/callgrind.h>",
        "static PyObject* start(PyObject* s, PyObject* a) { CALLGRIND_START_INSTRUMENTATION; Py_RETURN_NONE; }",
    ]
    names = [f"c_{a}__in__{b}" for a in PARTS for b in PARTS]
    src += [
        f"static PyObject* {n}(PyObject* s, PyObject* const* args, Py_ssize_t n)"
        " { return PyObject_Call(args[0], args[1], args[2] == Py_None ? NULL : args[2]); }"
        for n in names
    ]
    src.append("static PyMethodDef M[] = {")
    src.append('  {"start", (PyCFunction)start, METH_NOARGS, NULL},')
    src += [f'  {{"{n}", (PyCFunction)(void(*)(void)){n}, METH_FASTCALL, NULL}},' for n in names]
    src.append("  {NULL, NULL, 0, NULL}};")
    src.append('static struct PyModuleDef D = {PyModuleDef_HEAD_INIT, "cgparts", NULL, -1, M};')
    src.append("PyMODINIT_FUNC PyInit_cgparts(void) { return PyModule_Create(&D); }")
    c_file = where / "cgparts.c"
    c_file.write_text("\n".join(src) + "\n")
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    include = sysconfig.get_paths()["include"]
    subprocess.run(
        ["cc", "-O1", "-g", "-fno-optimize-sibling-calls", "-shared", "-fPIC", f"-I{include}", "-o",
         str(where / f"cgparts{suffix}"), str(c_file)],
        check=True,
    )  # fmt: skip


class Parts:
    """Functions wrapped so that each call goes through its part's C function (child side)."""

    def __init__(self, module: Any) -> None:
        self.fns = {(a, b): getattr(module, f"c_{a}__in__{b}") for a in PARTS for b in PARTS}
        self.stack = ["top"]
        self.calls: dict[str, int] = {}

    def wrap(self, orig: Callable[..., Any], part: str) -> Callable[..., Any]:
        stack, calls, fns = self.stack, self.calls, self.fns

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            key = (part, stack[-1])
            name = f"{part}__in__{key[1]}"
            calls[name] = calls.get(name, 0) + 1
            stack.append(part)
            try:
                return fns[key](orig, args, kwargs or None)
            finally:
                stack.pop()

        wrapper.__name__ = getattr(orig, "__name__", "wrapped")
        return wrapper

    def wrap_class(self, cls: type, part: str, only: tuple[str, ...] = (), skip: tuple[str, ...] = ()) -> None:
        for name, value in list(vars(cls).items()):
            if name.startswith("__") or name in skip or (only and name not in only):
                continue
            if inspect.isfunction(value):
                setattr(cls, name, self.wrap(value, part))


def child(game: str, rounds: int, mode: str, out: Path) -> None:
    """One game's rounds under valgrind (``mode``: ``parts`` or ``bare``)."""
    import random

    sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "tests")]
    import bench_table as bench

    cgparts = importlib.import_module("cgparts")  # built by build_module, on PYTHONPATH

    from controller.configuration import config_dir, load_table
    from controller.game.record import settle_record
    from controller.hands.fast import evaluator_for
    from controller.hands.rules import Wheel
    from controller.table.devices import RecordingDevices
    from controller.table.engine import Engine
    from controller.table.game_tables import GAME_TABLES
    from controller.table.runtime import freeze_start_up
    from drivers.shoe import ShoeStatus

    for wheel in Wheel:  # as bench_table.py: the hand tables complete
        evaluator = evaluator_for(wheel)
        evaluator.rank_table  # noqa: B018
        evaluator.complete_joker_tables()
    cls = GAME_TABLES[game]
    make = {
        "mississippi_stud": bench.mississippi_events,
        "boston5": bench.boston5_events,
        "pai_gow": bench.pai_gow_events,
    }[game]
    table = load_table(config_dir() / "bench" / f"{game}.yaml")
    bench.warm_up(cls, table, make, 50)
    rng = random.Random(1)
    rounds_events = [make(rng) for _ in range(rounds)]
    for record in bench.play_ours(cls, table, rounds_events)[3]:  # once untimed, as the bench's later pairs
        settle_record(record, table)
    parts = Parts(cgparts)
    if mode == "parts":
        _wrap_parts(parts, cls, game)

        def noop() -> None:
            return None

        inner = parts.wrap(noop, "cal")

        def calibrated() -> None:
            for _ in range(CALIBRATION_CALLS):
                inner()

        def baseline() -> None:
            for _ in range(CALIBRATION_CALLS):
                noop()

    played: list[dict[str, Any]] = []
    model = cls(table, RecordingDevices(), on_round=lambda result: played.append(result.record))
    engine = Engine(model.handle)
    model.open_table()
    freeze_start_up()
    parts.calls.clear()  # the table's making is not counted (the instrumentation starts now)
    cgparts.start()
    if mode == "parts":
        parts.wrap(calibrated, "calo")()
        parts.wrap(baseline, "calb")()

    def loop() -> None:
        for events in rounds_events:
            for e in events:
                engine.step(e)
            while model.phase.value == "count_stub":
                engine.step(ShoeStatus(device="shoe", stub_count=model.stub.expected, deck_size=model.DECK))

    parts.wrap(loop, "total")()
    triggers = sum(n for k, n in parts.calls.items() if k.startswith("transitions__"))
    if mode == "bare":
        n = {"pai_gow": 8}.get(game, 14)  # the bench's triggers a round (its prepare_event count)
        parts.wrap(lambda: bench.bare_transitions(n, rounds), "floor_bare")()
        parts.wrap(lambda: [settle_record(r, table) for r in played], "floor_settle")()
        triggers = n * rounds
    out.write_text(json.dumps({"calls": parts.calls, "rounds": rounds, "triggers": triggers / rounds}))


def _wrap_parts(parts: Parts, cls: type, game: str) -> None:
    import transitions.core as library

    import controller.table._dealer_screen as dealer_screen
    import controller.table._settlement_walk as walk
    from controller.table import (
        _bet_board,
        _card_intake,
        _device_state,
        _holds,
        _late_bets,
        _links,
        _shoe_faults,
        _sign_in,
        _stub_count,
        _supervisor,
        _wagers,
        card_ledger,
    )
    from controller.table.engine import Engine
    from controller.table.round import RoundTable
    from controller.wagers._procedure import Step

    w = parts.wrap_class
    w(library.Event, "transitions", only=("trigger",))
    w(library.Machine, "callbacks", only=("callback",))
    w(library.Condition, "callbacks", only=("check",))
    screen_hooks = ("screen_details", "hold_prompt")
    for k in cls.__mro__:
        if k.__module__.startswith("controller.game"):
            w(k, "game", skip=screen_hooks)
            w(k, "screen_details", only=screen_hooks)
    w(RoundTable, "handle", skip=screen_hooks)
    w(RoundTable, "screen_details", only=screen_hooks)
    w(dealer_screen.DealerScreen, "screen_other", skip=("show", "state"))
    w(dealer_screen.DealerScreen, "screen_show", only=("show",))
    w(dealer_screen.DealerScreen, "screen_state", only=("state",))
    setattr(dealer_screen, "render", parts.wrap(dealer_screen.render, "render"))  # noqa: B010
    w(walk.SettlementWalk, "settle_walk")
    setattr(walk, "settle_written", parts.wrap(walk.settle_written, "settle_record"))  # noqa: B010
    w(Step, "step_text", only=("_make_text",))
    w(Engine, "journal", only=("_append",))
    w(_late_bets.LateBets, "late")
    w(_holds.Holds, "holds")
    w(_shoe_faults.ShoeFaults, "holds")
    w(_wagers.Wagers, "wagers")
    w(_bet_board.BetBoard, "wagers")
    w(_card_intake.CardIntake, "intake")
    w(card_ledger.CardLedger, "intake")
    w(_links.LinkReconciler, "links")
    w(_device_state.DeviceLinks, "links")
    w(_device_state.ShownState, "commands")
    w(_supervisor.Supervisor, "supervisor")
    w(_supervisor.SupervisorKey, "supervisor")
    w(_sign_in.SignIns, "signins")
    w(_stub_count.StubCount, "stub")
    if game == "pai_gow":
        from controller.game.pai_gow._house_way import HouseWay

        w(HouseWay, "house_way", only=("set",))


def inclusive(callgrind_out: Path) -> dict[tuple[str, str], int]:
    """Each part's C function's inclusive instructions, by (part, caller)."""
    text = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--threshold=100", str(callgrind_out)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    found: dict[tuple[str, str], int] = {}
    for m in re.finditer(r"^\s*([\d,]+) .*?:c_(\w+?)__in__(\w+?) \[", text, re.MULTILINE):
        found[(m.group(2), m.group(3))] = int(m.group(1).replace(",", ""))
    return found


def measure(game: str, rounds: int, where: Path) -> None:
    """Both runs of ``game`` and its table."""
    runs = {}
    for mode in ("bare", "parts"):
        out, cg = where / f"{game}.{mode}.json", where / f"{game}.{mode}.callgrind"
        subprocess.run(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={cg}", sys.executable,
             __file__, "--child", game, mode, str(rounds), str(out)],
            check=True, capture_output=True, env={**os.environ, "PYTHONPATH": str(where), "PYTHONHASHSEED": "0"},
        )  # fmt: skip
        runs[mode] = (json.loads(out.read_text()), inclusive(cg))
    meta, bare = runs["bare"]
    ours, floor_bare, floor_settle = (bare[(k, "top")] / rounds for k in ("total", "floor_bare", "floor_settle"))
    floor = floor_bare + floor_settle
    print(f"\n{game}: {rounds} rounds, {meta['triggers']:.1f} triggers a round (the floor's)")
    print(f"  the table, instructions a round        {ours:>12,.0f}")
    print(f"  the floor: bare triggers + settlement  {floor:>12,.0f}  ({floor_bare:,.0f} + {floor_settle:,.0f})")
    print(f"  ours / the floor, by instructions      {floor / ours:>11.2f}x")
    meta, incl = runs["parts"]
    k = CALIBRATION_CALLS
    full = (incl[("calo", "top")] - incl[("calb", "top")]) / k
    callee = incl[("cal", "calo")] / k
    calls = {tuple(name.split("__in__")): n for name, n in meta["calls"].items()}
    own: dict[str, float] = {}
    for (part, caller), count in incl.items():
        if {part, caller} & {"cal", "calo", "calb"}:
            continue
        n = calls.get((part, caller), 0)
        own[part] = own.get(part, 0) + count - n * callee
        own[caller] = own.get(caller, 0) - count - n * (full - callee)
    cost = sum(n for (part, _), n in calls.items() if part not in ("cal", "calo", "calb", "total")) * full
    total = incl[("total", "top")] - cost
    print(f"  parts run: {total / rounds:,.0f} a round once the wrapping's cost is taken off ({full:,.0f} a call)")
    print(f"  {'part':<16} {'a round':>10} {'share':>6} {'calls':>6}  what")
    for part, value in sorted(own.items(), key=lambda kv: -kv[1]):
        if part == "top":
            continue
        n = sum(c for (p, _), c in calls.items() if p == part) / rounds
        print(f"  {part:<16} {value / rounds:>10,.0f} {100 * value / total:>5.1f}% {n:>6.1f}  {WHAT.get(part, '')}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        game, mode, rounds, out = sys.argv[2:6]
        child(game, int(rounds), mode, Path(out))
        return
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=30)
    p.add_argument("--game", action="append", choices=GAMES, help="a game (default: the three bench_table plays)")
    args = p.parse_args()
    for tool in ("valgrind", "callgrind_annotate", "cc"):
        if shutil.which(tool) is None:
            p.error(f"needs {tool} on PATH")
    with tempfile.TemporaryDirectory() as tmp:
        where = Path(tmp)
        build_module(where)
        for game in args.game or GAMES:
            measure(game, args.rounds, where)


if __name__ == "__main__":
    main()

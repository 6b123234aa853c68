"""Where a simulated round's instructions go, part by part (issue 41 item 6), counted by callgrind.

Run ``python benchmarks/bench_sim_parts.py --game G --seed N [--no-faults] [--rounds 10] [--by-event]``.
It plays one swarm seed (every ``ci`` fault kind; ``--no-faults``: the same seed with none) under
``valgrind --tool=callgrind`` after one warm-up seed played uncounted, and prints the instructions
a round of each part: the table's handling of an event (``table``, ``--by-event``: by the event's
kind), its journal writes, its snapshot built or published again, the fold of a closed round, the
checks after each event, the links (the protocol's steps and receives, the simulated device's
answers, the frames' encoding and decoding, the delivery of what a link returns, the pace), the
table's starts, the checks at a seed's end, and the rest (the players, the clock, the world).
Instructions do not depend on the machine's load, which CPU time on a shared machine does.

How: each part's functions are called through a C function of their own (one per place in the
call tree: ``table/journal`` is not ``boot/table/journal``), built here with ``gcc`` from
``valgrind/callgrind.h``; callgrind's inclusive count of each C function is that part with what
it calls, less the parts called within it. The wrapping costs about 8,600 instructions a call
(1,900 inside the part, 6,700 in its caller; measured on an empty function), taken off each part
by its count of calls. ``--counts`` instead plays the seed without valgrind and counts what a
round does: ticks, link runs, requests and replies by type, replies with nothing new, events by
kind, snapshots, journal writes.

Needs ``valgrind``, ``callgrind_annotate``, ``gcc`` and valgrind's headers; prints figures,
asserts nothing.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SLOTS = 128
"""C functions made: places in the call tree a run may reach."""
INSIDE, CALLER = 1900, 6700
"""The wrapping's instructions a call, inside the part and in its caller (an empty function's)."""


def _source() -> str:
    lines = ["#include <valgrind/callgrind.h>", "typedef void (*cb_t)(void);"]
    lines += [f'void sc_{i}(cb_t cb){{ cb(); __asm__ volatile("" ::: "memory"); }}' for i in range(SLOTS)]
    lines.append("void sc_toggle(void){ CALLGRIND_TOGGLE_COLLECT; }")
    return "\n".join(lines) + "\n"


def _parts() -> list[tuple[Any, str, str]]:
    """(owner, attribute, part) of every function counted as a part."""
    import controller.table._round_folder as folder
    import drivers._exchange as exchange
    import hil.device as device
    import hil.simulate.run as run
    from controller.table.engine import Engine
    from controller.table.runtime import TableRuntime
    from drivers.framing import Decoder
    from drivers.link import Link
    from drivers.link_pace import LinkPace
    from drivers.protocol import LinkProtocol
    from hil.simulate.world import SimJournal, World
    from hil.wire import SimWire

    return [
        (World, "_boot", "boot"),
        (World, "close", "close"),
        (World, "_drain", "drain"),
        (SimWire, "run", "links"),
        (LinkPace, "turn", "pace"),
        (LinkProtocol, "step", "protocol"),
        (LinkProtocol, "receive", "protocol"),
        (LinkProtocol, "opened", "protocol"),
        (device.SimDevice, "reply_to", "device"),
        (Decoder, "feed", "decode"),
        (exchange, "encode_fields", "encode"),
        (device, "encode_fields", "encode"),
        (Link, "dispatch", "deliver"),
        (Engine, "run_one", "table"),
        (SimJournal, "append", "journal"),
        (SimJournal, "append_round", "journal"),
        (SimJournal, "append_batch", "journal"),
        (SimJournal, "snapshot", "journal"),
        (folder, "fold_closed_rounds", "fold"),
        (TableRuntime, "publish", "snapshot"),
        (TableRuntime, "_publish_again", "snapshot again"),
        (World, "_observe", "checks"),
        (run, "read_seed_journal", "end"),
        (run, "check_journal", "end"),
        (run, "check_rounds", "end"),
        (World, "check_cards", "end"),
    ]


def child(args: argparse.Namespace) -> None:
    """Under callgrind: play the seed, each part through its C function, collecting only then."""
    import hil.simulate.run as run
    from hil.simulate.faults import CI_KINDS

    run.run_seed(args.game, 99, CI_KINDS, rounds=1, swarm=True)  # the imports and caches, uncounted
    lib = ctypes.CDLL(os.environ["SIM_PARTS_LIB"])
    callback_type = ctypes.PYFUNCTYPE(None)
    paths: dict[tuple[str, ...], int] = {}
    stack: list[tuple[str, ...]] = [()]
    thunks: list[tuple[Callable[..., Any], tuple[Any, ...], dict[str, Any]]] = []
    results: list[tuple[bool, Any]] = []

    def trampoline() -> None:
        f, a, k = thunks[-1]
        try:
            results.append((True, f(*a, **k)))
        except BaseException as exc:  # handed back to the caller below
            results.append((False, exc))

    callback = callback_type(trampoline)
    slots = []
    for i in range(SLOTS):
        fn = getattr(lib, f"sc_{i}")
        fn.argtypes, fn.restype = [callback_type], None
        slots.append(fn)

    def wrap(orig: Callable[..., Any], part: str) -> Callable[..., Any]:
        def wrapped(*a: Any, **k: Any) -> Any:
            name = f"table:{type(a[1]).__name__}" if args.by_event and part == "table" else part
            here = stack[-1]
            if name in here:
                return orig(*a, **k)
            path = (*here, name)
            slot = paths.setdefault(path, len(paths))
            thunks.append((orig, a, k))
            stack.append(path)
            try:
                slots[slot](callback)
            finally:
                thunks.pop()
                stack.pop()
            ok, value = results.pop()
            if ok:
                return value
            raise value

        return wrapped

    for owner, attr, part in _parts():
        setattr(owner, attr, wrap(getattr(owner, attr), part))
    lib.sc_toggle()
    res = run.run_seed(
        args.game, args.seed, CI_KINDS, rounds=args.rounds, swarm=True, faults=[] if args.no_faults else None
    )
    lib.sc_toggle()
    Path(os.environ["SIM_PARTS_PATHS"]).write_text(
        json.dumps({"rounds": res.rounds, "ok": res.ok, "paths": {"/".join(p): i for p, i in paths.items()}})
    )


def breakdown(out: Path, source: Path, found: dict[str, Any]) -> None:
    """Each part's instructions a round (less the parts within it and the wrapping), from ``out``."""
    text = subprocess.run(
        ["callgrind_annotate", "--inclusive=yes", "--tree=calling", "--threshold=100", str(out), str(source)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    total_m = re.search(r"([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS", text)
    assert total_m is not None
    total = int(total_m.group(1).replace(",", ""))
    inclusive: dict[int, int] = {}
    calls: dict[int, int] = {}
    slot: int | None = None
    for line in text.splitlines():
        head = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+void sc_(\d+)\(", line)
        if head:
            slot = int(head.group(2))
            inclusive[slot] = int(head.group(1).replace(",", ""))
            continue
        call = re.match(r"\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+=> ", line)
        if call and slot is not None:
            inclusive[slot] += int(call.group(1).replace(",", ""))
            n = re.search(r"\(([\d,]+)x\)", line)
            if n and slot not in calls:
                calls[slot] = int(n.group(1).replace(",", ""))
            continue
        slot = None
    names = {i: p for p, i in found["paths"].items()}
    incl = {names[i]: c for i, c in inclusive.items() if i in names}
    count = {names[i]: calls.get(i, 0) for i in inclusive if i in names}
    own: dict[str, int] = {}
    for p, c in incl.items():
        kids = [q for q in incl if q.startswith(p + "/") and q.count("/") == p.count("/") + 1]
        own[p] = c - sum(incl[q] for q in kids) - INSIDE * count[p] - CALLER * sum(count[q] for q in kids)
    top = [p for p in incl if "/" not in p]
    own["the rest (players, clock, world)"] = total - sum(incl[p] for p in top) - CALLER * sum(count[p] for p in top)
    total -= (INSIDE + CALLER) * sum(count.values())
    rounds = max(1, int(found["rounds"]))
    by_part: dict[str, int] = defaultdict(int)
    for p, c in own.items():
        by_part[p.split("/")[-1]] += c
    print(f"{rounds} rounds, seed ok: {found['ok']}; {total / rounds / 1e6:.2f} M instructions a round")
    print(f"{'part':34s} {'M a round':>10s} {'share':>7s}")
    for part, c in sorted(by_part.items(), key=lambda x: -x[1]):
        print(f"{part:34s} {c / rounds / 1e6:10.2f} {100 * c / total:6.1f}%")


def counts(args: argparse.Namespace) -> None:
    """Play the seed without valgrind, counting what a round does."""
    import hil.simulate.run as run
    from controller.table.engine import Engine
    from controller.table.runtime import TableRuntime
    from drivers.framing import MsgType, decode_frame
    from drivers.protocol import LinkProtocol
    from hil.device import SimDevice
    from hil.simulate.faults import CI_KINDS
    from hil.simulate.world import SimJournal, World
    from hil.wire import SimWire

    run.run_seed(args.game, 99, CI_KINDS, rounds=1, swarm=True)  # the imports and caches, uncounted
    seen: Counter[str] = Counter()
    last: dict[int, bytes] = {}

    def count(owner: Any, attr: str, what: Callable[..., list[str]]) -> None:
        orig = getattr(owner, attr)

        def counted(*a: Any, **k: Any) -> Any:
            value = orig(*a, **k)
            seen.update(what(a, value))
            return value

        setattr(owner, attr, counted)

    def reply(a: tuple[Any, ...], wire: bytes | None) -> list[str]:
        asked = MsgType(a[1].type).name
        if wire is None:
            return [f"request {asked}, no reply"]
        frame, _ = decode_frame(wire[:-1])
        out = [f"request {asked}", f"reply {asked} -> {MsgType(frame.type).name if frame else '?'}"]
        if last.get(id(a[0])) == wire:
            out.append("reply bytes the same as the device's last")
        last[id(a[0])] = wire
        return out

    def received(a: tuple[Any, ...], outputs: list[Any]) -> list[str]:
        kinds = [type(o).__name__ for o in outputs]
        return ["reply pieces with nothing but how far the device reported" if set(kinds) <= {"Reported"} else ""]

    count(World, "_check_no_spin", lambda a, v: ["ticks run"])
    count(World, "_run_links", lambda a, v: ["passes over the links"])
    count(SimWire, "run", lambda a, v: ["link runs"])
    count(SimDevice, "reply_to", reply)
    count(LinkProtocol, "receive", received)
    count(Engine, "run_one", lambda a, v: [f"event {type(a[1]).__name__}", "events"])
    count(TableRuntime, "publish", lambda a, v: ["snapshots built"])
    count(TableRuntime, "_publish_again", lambda a, v: ["snapshots published again"])
    for attr in ("append", "append_round", "append_batch", "snapshot"):
        count(SimJournal, attr, lambda a, v: ["journal writes"])
    res = run.run_seed(
        args.game, args.seed, CI_KINDS, rounds=args.rounds, swarm=True, faults=[] if args.no_faults else None
    )
    rounds = max(1, res.rounds)
    print(f"{rounds} rounds, {res.sim_seconds:.2f} simulated s ({res.sim_seconds / rounds / 0.025:.1f} ticks a round)")
    for what, n in sorted(seen.items()):
        if what:
            print(f"  {what}: {n / rounds:.1f} a round")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--game", default="mississippi_stud")
    ap.add_argument("--seed", type=int, default=6)
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--no-faults", action="store_true", help="the seed with no fault")
    ap.add_argument("--by-event", action="store_true", help="the table's part by the event's kind")
    ap.add_argument("--counts", action="store_true", help="count what a round does (no valgrind)")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args)
        return
    if args.counts:
        counts(args)
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        source = folder / "parts.c"
        source.write_text(_source())
        lib = folder / "libparts.so"
        subprocess.run(["gcc", "-O0", "-g", "-fPIC", "-shared", "-o", str(lib), str(source)], check=True)
        out, found = folder / "callgrind.out", folder / "paths.json"
        env = {**os.environ, "SIM_PARTS_LIB": str(lib), "SIM_PARTS_PATHS": str(found), "PYTHONHASHSEED": "0"}
        cmd = ["valgrind", "--tool=callgrind", "--collect-atstart=no", f"--callgrind-out-file={out}"]
        cmd += [sys.executable, __file__, "--child", "--game", args.game, "--seed", str(args.seed)]
        cmd += ["--rounds", str(args.rounds)] + ["--no-faults"] * args.no_faults + ["--by-event"] * args.by_event
        subprocess.run(cmd, env=env, check=True, stderr=subprocess.DEVNULL)
        breakdown(out, source, json.loads(found.read_text()))


if __name__ == "__main__":
    main()

"""Framing robustness and speed: mutated frames per message type, and frames decoded per second.

Run ``python benchmarks/bench_framing.py [--mutations N]``. For every message type, N mutated
frames (bit flips, byte changes, deletions, insertions, swaps; the same mutations as the test
suite's sample) are decoded: any exception is a crash, any frame accepted that is not one of the
originals is a false accept. Then frames decoded per second by ``drivers.framing.Decoder`` are
measured beside a bare ``read_until(b"\\x00")`` loop that only splits frames, both reading the
same bytes through a pty in the same run. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import threading
import time
import tty
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

import serial
from test_framing import mutate, random_wires

from drivers.framing import Decoder, Frame, MsgType, decode_frame, encode


def mutations(n: int, seed: int) -> None:
    rng = random.Random(seed)
    print(
        f"{'type':<6} {'mutated':>10} {'crashes':>8} {'false accepts':>14} {'rejected':>10} {'unchanged':>10} {'s':>6}"
    )
    for kind in MsgType:
        originals = random_wires(rng, kind, 200, longest=60)
        valid = set(originals)
        crashes = false_accepts = rejected = unchanged = 0
        start = time.perf_counter()
        for _ in range(n):
            wire = mutate(rng, rng.choice(originals))
            try:
                frame, _ = decode_frame(wire)
            except Exception:
                crashes += 1
                continue
            if frame is None:
                rejected += 1
            elif wire not in valid:
                false_accepts += 1
            else:
                unchanged += 1  # the mutation gave back a valid original (e.g. swapping equal bytes)
        print(
            f"{kind.name:<6} {n:>10,} {crashes:>8} {false_accepts:>14} {rejected:>10,} {unchanged:>10,} {time.perf_counter() - start:>6.1f}"
        )


def throughput(count: int) -> None:
    rng = random.Random(1)
    frames = [encode(Frame(1, i % 256, i % 256, MsgType.EVENT, rng.randbytes(20))) for i in range(1000)]
    blob = b"".join(frames[i % 1000] for i in range(count))

    def run(consume) -> float:  # type: ignore[no-untyped-def]
        master, slave = os.openpty()
        tty.setraw(slave)
        port = serial.serial_for_url(os.ttyname(slave), timeout=0.5)
        writer = threading.Thread(
            target=lambda: [os.write(master, blob[i : i + 4096]) for i in range(0, len(blob), 4096)]
        )
        start = time.perf_counter()
        writer.start()
        got = consume(port)
        elapsed = time.perf_counter() - start
        writer.join()
        port.close()
        os.close(master)
        os.close(slave)
        assert got == count, got
        return count / elapsed

    def ours(port) -> int:  # type: ignore[no-untyped-def]
        d, n = Decoder(), 0
        while n < count:
            n += len(d.feed(port.read(port.in_waiting or 1)))
        return n

    def bare(port) -> int:  # type: ignore[no-untyped-def]
        n = 0
        while n < count:
            if port.read_until(b"\x00"):
                n += 1
        return n

    a, b = run(ours), run(bare)
    print(
        f"\nframes/s through a pty: Decoder {a:,.0f}; bare read_until(b'\\x00') split only {b:,.0f}; ratio {a / b:.2f}x"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--mutations", type=int, default=1_000_000, help="mutated frames per message type")
    p.add_argument("--frames", type=int, default=100_000, help="frames for the throughput run")
    p.add_argument("--seed", type=int, default=2026)
    args = p.parse_args()
    mutations(args.mutations, args.seed)
    throughput(args.frames)


if __name__ == "__main__":
    main()

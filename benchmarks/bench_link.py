"""Link latency over ptys: our driver and simulator beside a pymodbus RTU client and server.

Run ``pip install -e '.[bench]'`` then ``python benchmarks/bench_link.py [--n N]``. Both stacks
run over the same arrangement: two ptys whose masters a relay thread joins, the controller on
one slave, the device on the other, in one run. Printed (p50 / p99, milliseconds):

* pty transit: a byte written on the device side until the controller side reads it (the floor
  of this arrangement);
* driver-added: the driver's own work per event, from the bytes of an EVENT frame through the
  link's checks to the event on the queue, timed directly (no port involved), in wall-clock and
  thread CPU time (the latter leaves out time the OS gave to other processes, which dominates the
  wall-clock tail on a shared machine), beside the same path without the link's checks;
* event end to end: the simulator (in its own process, as a device is) writing an EVENT frame
  until the driver puts the event on the queue; its tail is the OS's (ptys on a shared machine);
* command round trip: a driver command call until its result is on the queue, beside a
  pymodbus ``read_holding_registers`` round trip;
* the wire time of each frame at 115200 baud, the floor on real hardware.

It asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import queue
import select
import statistics
import struct
import sys
import threading
import time
import tty
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from drivers._exchange import Request
from drivers.framing import Frame, MsgType, decode_frame, encode
from drivers.link import CommandResult, LinkConfig, LinkUp
from drivers.panel import ButtonChanged, PanelDriver
from hil.devices import PanelSim
from hil.faults import Faults
from hil.serve import SerialServer


class Relay:
    """Two ptys with their masters joined: open ``a`` on one side and ``b`` on the other."""

    def __init__(self) -> None:
        self.ma, sa = os.openpty()
        self.mb, sb = os.openpty()
        for fd in (sa, sb):
            tty.setraw(fd)
        self._slaves = (sa, sb)
        self.a, self.b = os.ttyname(sa), os.ttyname(sb)
        self._stop = False
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        pair = {self.ma: self.mb, self.mb: self.ma}
        while not self._stop:
            for fd in select.select(list(pair), [], [], 0.05)[0]:
                try:
                    os.write(pair[fd], os.read(fd, 4096))
                except OSError:
                    return

    def close(self) -> None:
        self._stop = True
        self._thread.join()
        for fd in (self.ma, self.mb, *self._slaves):
            os.close(fd)


def pct(values: list[float]) -> str:
    q = statistics.quantiles(values, n=100)
    return f"{q[49] * 1000:7.3f} / {q[98] * 1000:7.3f}"


def transit(n: int) -> list[float]:
    import serial

    relay = Relay()
    a = serial.serial_for_url(relay.a, timeout=1)
    b = serial.serial_for_url(relay.b, timeout=1)
    out = []
    for _ in range(n):
        start = time.perf_counter()
        b.write(b"\x55")
        a.read(1)
        out.append(time.perf_counter() - start)
    a.close()
    b.close()
    relay.close()
    return out


class StampedFaults(Faults):
    """No faults: only records when each EVENT frame is written."""

    def __init__(self) -> None:
        super().__init__()
        self.written: dict[int, float] = {}

    def send(self, write, wire: bytes) -> None:  # type: ignore[no-untyped-def]
        frame, _ = decode_frame(wire[:-1])
        if frame is not None and frame.type is MsgType.EVENT:
            self.written.setdefault(struct.unpack_from(">I", frame.payload, 8)[0], time.perf_counter())
        write(wire)


class StampedQueue(queue.Queue):  # type: ignore[type-arg]
    """Records when each event is put."""

    def __init__(self) -> None:
        super().__init__()
        self.put_at: dict[int, float] = {}
        self.results: list[float] = []

    def put(self, item, block=True, timeout=None):  # type: ignore[no-untyped-def]
        now = time.perf_counter()
        if isinstance(item, ButtonChanged):
            self.put_at.setdefault(item.event_no, now)
        elif isinstance(item, CommandResult):
            self.results.append(now)
        super().put(item, block, timeout)


def _device_process(path: str, n: int, conn) -> None:  # type: ignore[no-untyped-def]
    """The simulator in its own process, as a real device is: emits ``n`` events, reports write times."""
    sim = PanelSim(address=3)
    faults = StampedFaults()
    server = SerialServer(sim, path, faults)
    server.start()
    conn.recv()  # the controller is up
    for i in range(n):
        sim.emit(ButtonChanged, button=1 + i % 18, pressed=True)
        time.sleep(0.003)
    conn.recv()  # the controller has them all
    server.close()
    conn.send(faults.written)


def ours(n: int) -> tuple[list[float], list[float]]:
    import multiprocessing

    relay = Relay()
    q = StampedQueue()
    ctx = multiprocessing.get_context("fork")
    here, there = ctx.Pipe()
    device = ctx.Process(target=_device_process, args=(relay.b, n, there))
    device.start()
    driver = PanelDriver("panel", relay.a, q, address=3, config=LinkConfig(poll_interval_s=0.002))
    driver.start()
    while not isinstance(q.get(), LinkUp):
        pass
    here.send("up")
    deadline = time.monotonic() + 60
    while len(q.put_at) < n and time.monotonic() < deadline:
        time.sleep(0.01)
    driver.close()
    here.send("done")
    written = here.recv()
    device.join()
    events = [q.put_at[k] - written[k] for k in q.put_at if k in written]
    sim = PanelSim(address=3)
    server = SerialServer(sim, relay.b)
    server.start()
    driver = PanelDriver("panel", relay.a, q, address=3, config=LinkConfig(poll_interval_s=1.0))
    driver.start()
    while not isinstance(q.get(), LinkUp):
        pass
    trips = []
    for _ in range(n):
        before = len(q.results)
        start = time.perf_counter()
        driver.beep(1)
        while len(q.results) == before:
            time.sleep(0)
        trips.append(q.results[-1] - start)
    driver.close()
    server.close()
    relay.close()
    return events, trips


def pymodbus_round_trips(n: int) -> list[float] | None:
    try:
        from pymodbus import FramerType
        from pymodbus.client import ModbusSerialClient
        from pymodbus.datastore import ModbusDeviceContext, ModbusSequentialDataBlock, ModbusServerContext
        from pymodbus.server import ServerStop, StartSerialServer
    except ImportError:
        print("pymodbus not installed (pip install -e '.[bench]'): its figures are skipped", file=sys.stderr)
        return None
    relay = Relay()
    context = ModbusServerContext(devices=ModbusDeviceContext(hr=ModbusSequentialDataBlock(1, [7] * 10)), single=True)
    server = threading.Thread(
        target=lambda: StartSerialServer(context=context, framer=FramerType.RTU, port=relay.b, baudrate=115200),
        daemon=True,
    )
    server.start()
    client = ModbusSerialClient(relay.a, framer=FramerType.RTU, baudrate=115200, timeout=1)
    client.connect()
    for _ in range(50):  # until the server answers
        if not client.read_holding_registers(0, count=1, device_id=1).isError():
            break
        time.sleep(0.1)
    trips = []
    for _ in range(n):
        start = time.perf_counter()
        reply = client.read_holding_registers(0, count=1, device_id=1)
        trips.append(time.perf_counter() - start)
        assert not reply.isError()
    client.close()
    ServerStop()
    server.join(timeout=5)
    relay.close()
    return trips


def driver_processing(n: int, checks: bool = True) -> tuple[list[float], list[float]]:
    """What the driver adds per event, measured directly: decoding the bytes of an EVENT frame,
    the link's checks (boot id, the event window with its reset and gap checks, the held state
    snapshot, the counters' log check) and the driver's decoding, through to the event being on
    the queue (no port involved). ``checks=False``: the frame decoding and the driver's decoding
    only (the path without the link's checks, for comparison). Returns wall-clock times and the
    thread's CPU times (which leave out the time the OS gave to other processes)."""
    from drivers.framing import Decoder

    q: queue.Queue = queue.Queue()
    driver = PanelDriver("panel", "loop://", q, address=3)
    link = driver.link
    decoder = Decoder(stats=link.stats.decoder)
    boot = 0x1234ABCD
    wires = [
        encode(
            Frame(3, 0, 1, MsgType.EVENT, struct.pack(">IIIIIB", boot, i, boot, i, i, 0x40) + bytes((1 + i % 18, 1)))
        )
        for i in range(1, n + 1)
    ]
    poll = Request(MsgType.POLL, 1, b"", float("inf"))  # the request each EVENT answers
    wall, cpu = [], []
    for wire in wires:
        start, start_cpu = time.perf_counter(), time.thread_time()
        for frame in decoder.feed(wire):
            if checks:
                link.protocol._handle(frame, poll)
                link.dispatch(link.protocol._out.take())
            else:
                p = frame.payload
                q.put(driver._read_event(struct.unpack_from(">I", p, 12)[0], p[20], bytes(p[21:]), time.time()))
        if checks:
            link.protocol.log_counters(time.monotonic())
        cpu.append(time.thread_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    driver.close()
    assert q.qsize() == n + checks  # the events (and the LinkUp)
    return wall, cpu


def wire_times() -> None:
    bits = 10 / 115200 * 1000  # ms per byte, 8N1
    rows = {
        "POLL": encode(Frame(3, 1, 0, MsgType.POLL, bytes(9))),
        "EVENT (button)": encode(Frame(3, 0, 1, MsgType.EVENT, bytes(21) + bytes(2))),
        "EVENT (card dealt)": encode(Frame(1, 0, 1, MsgType.EVENT, bytes(21) + bytes(4))),
        "ACK": encode(Frame(3, 0, 1, MsgType.ACK, bytes(8))),
        "CMD (beep)": encode(Frame(3, 1, 0, MsgType.CMD, bytes(3))),
        "RESP": encode(Frame(3, 0, 1, MsgType.RESP, bytes(6))),
        "STATE_REQ": encode(Frame(3, 1, 0, MsgType.STATE_REQ, bytes(1))),
        "STATE (panel)": encode(Frame(3, 0, 1, MsgType.STATE, bytes(10) + bytes(4))),
    }
    print("\nwire time at 115200 baud 8N1:")
    for name, wire in rows.items():
        print(f"  {name:<20} {len(wire):3d} bytes  {len(wire) * bits:6.3f} ms")
    print(f"  {'Modbus RTU read 1':<20} {8 + 7:3d} bytes  {(8 + 7) * bits:6.3f} ms (request 8 + response 7)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=2000, help="samples per figure")
    args = p.parse_args()
    processing, processing_cpu = driver_processing(args.n * 10)
    bare, bare_cpu = driver_processing(args.n * 10, checks=False)
    floor = transit(args.n)
    events, trips = ours(args.n)
    modbus = pymodbus_round_trips(args.n)
    print(f"{'figure (ms)':<48} {'p50':>7}   {'p99':>7}")
    print(f"{'driver-added: frame bytes -> event on the queue':<48} {pct(processing)}")
    print(f"{'  the same, thread CPU time':<48} {pct(processing_cpu)}")
    print(f"{'  without the link checks (decode only)':<48} {pct(bare)}")
    print(f"{'  without the link checks, thread CPU time':<48} {pct(bare_cpu)}")
    print(f"{'pty transit, one byte (relayed ptys)':<48} {pct(floor)}")
    print(f"{'event end to end: device write -> driver queue':<48} {pct(events)}")
    print(f"{'command round trip, tablectl':<48} {pct(trips)}")
    if modbus:
        print(f"{'read_holding_registers round trip, pymodbus':<48} {pct(modbus)}")
        print(f"round trip ratio tablectl / pymodbus: p50 {statistics.median(trips) / statistics.median(modbus):.2f}x")
    wire_times()


if __name__ == "__main__":
    main()

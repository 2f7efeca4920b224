"""Farm heartbeat benchmark: 256 simulated hubs, NATS bytes per second and hub CPU, with the
change-only heartbeats (issue 25) and with the old full-list ones, side by side.

Real parts on 127.0.0.1: ``nats-server`` (its ``/varz`` monitoring gives the bytes), one
real hub (``mobridge serve --farm``, its own process: the CPU measured is its
``/proc/PID/stat`` user+system time) that hears every other hub, and in this process 256
simulated hubs — ``bridge.farm.announcer.Announcer`` (the hubs' own heartbeat code) over a
few NATS connections, each hub with ``DEVICES`` fake devices, answering ``announce.get``
like a hub. Every second each simulated hub announces; ``CHANGE_SHARE`` of them change one
device's lease that second (a test starting or ending).

NATS "in" is what the hubs publish; "out" is what it delivers to the one real hub, i.e. what
each hub of a farm receives (a farm of N hubs moves N times that). The 256 x 256 projection
scales the measured per-message sizes and the per-message receive cost measured in-process
(``Registry.heard`` on a decoded message) to 256 devices per hub.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import anyio
import msgspec

from bridge.farm.announcer import Announcer
from bridge.farm.registry import Registry
from bridge.wire.client_protocol import DeviceSummary, LeaseInfo
from bridge.wire.enums import Platform
from bridge.wire.farm import Announced, AnnounceGet, FarmRequest, HubAnnounce

ROOT = Path(__file__).resolve().parents[2]
HUBS = 256
DEVICES = 4
CHANGE_SHARE = 0.05
CONNECTIONS = 8
PREFIX = "mobridge.farm"

_encode = msgspec.msgpack.Encoder().encode
_requests = msgspec.msgpack.Decoder(FarmRequest)


def run(quick: bool) -> list[str]:
    return measure(HUBS, 4.0 if quick else 10.0)


def measure(hubs: int, window: float) -> list[str]:
    """The table for ``hubs`` simulated hubs over ``window`` seconds, then the projection."""
    binary = shutil.which("nats-server") or (
        "/usr/sbin/nats-server" if Path("/usr/sbin/nats-server").exists() else None
    )
    if binary is None:
        return ["farm_heartbeat: no nats-server (scripts/system-packages --install); skipped"]
    lines = [
        f"farm heartbeats: {hubs} simulated hubs x {DEVICES} devices, {CHANGE_SHARE:.0%} of "
        f"hubs change a device each second, {window:g} s windows; one real hub hears them all",
        f"{'mode':<8} {'NATS in B/s':>12} {'out B/s/hub':>12} {'msgs/s':>8} "
        f"{'hub CPU %':>9} {'resyncs':>8}",
    ]
    measured: dict[str, dict[str, float]] = {}
    for mode in ("changes", "full"):
        got = anyio.run(_measure, binary, mode == "full", window, hubs)
        measured[mode] = got
        lines.append(
            f"{mode:<8} {got['in_bps']:>12,.0f} {got['out_bps']:>12,.0f} "
            f"{got['msgs']:>8,.0f} {got['cpu']:>9.1f} {got['resyncs']:>8.0f}"
        )
    lines += _projection()
    return lines


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def _process(command: list[str], log: Path, **kw: Any) -> Iterator[subprocess.Popen[str]]:
    with open(log, "w") as out:
        proc = subprocess.Popen(command, stderr=out, text=True, **kw)
    try:
        yield proc
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _varz(port: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/varz", timeout=5) as resp:
        return dict(json.loads(resp.read()))


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _devices(hub: int) -> list[DeviceSummary]:
    return [
        DeviceSummary(
            id=f"h{hub:03d}-d{i}", platform=Platform.ANDROID, online=True, model="Pixel 8",
            os_version="14", owner=f"sim{hub:03d}",
        )
        for i in range(DEVICES)
    ]  # fmt: skip


def _healthz(port: int) -> dict[str, Any]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=5) as resp:
        return dict(json.loads(resp.read()))


async def _measure(binary: str, full: bool, window: float, count: int) -> dict[str, float]:
    import nats

    with tempfile.TemporaryDirectory(prefix="mobridge-bench-hb-") as tmp_name:
        tmp = Path(tmp_name)
        port, monitor = _free_port(), _free_port()
        conf = tmp / "nats.conf"
        conf.write_text(f"listen: 127.0.0.1:{port}\nhttp: 127.0.0.1:{monitor}\nmax_payload: 8MB\n")
        with _process([binary, "-c", str(conf)], tmp / "nats.log", stdout=subprocess.DEVNULL):
            for _ in range(100):
                try:
                    _varz(monitor)
                    break
                except OSError:
                    await anyio.sleep(0.05)
            hub_port = _free_port()
            env = {**os.environ, "PYTHONUNBUFFERED": "1", "XDG_RUNTIME_DIR": tmp_name}
            with _process(
                [sys.executable, "-m", "bridge.cli", "serve", "--port", str(hub_port), "--no-sim",
                 "--no-dashboard", "--no-journal", "--token", "bench-token",
                 "--farm", f"nats://127.0.0.1:{port}", "--farm-name", "observer"],
                tmp / "hub.log", stdout=subprocess.DEVNULL, cwd=ROOT, env=env,
            ) as hub:  # fmt: skip
                conns = [
                    await nats.connect(f"nats://127.0.0.1:{port}", inbox_prefix=f"_INBOX.sim{c}")
                    for c in range(CONNECTIONS)
                ]
                try:
                    return await _drive(conns, hub, hub_port, monitor, full, window, count)
                finally:
                    for nc in conns:
                        await nc.close()


async def _drive(
    conns: list[Any], hub: subprocess.Popen[str], hub_port: int, monitor: int, full: bool,
    window: float, count: int,
) -> dict[str, float]:  # fmt: skip
    rng = random.Random(25)
    hubs = [
        (
            f"sim{i:03d}",
            Announcer(f"sim{i:03d}", f"run{i}", 1000, always_whole=full),
            _devices(i),
            conns[i % len(conns)],
        )
        for i in range(count)
    ]

    def answerer(announcer: Announcer, nc: Any) -> Any:
        async def answer(msg: Any) -> None:
            if isinstance(_requests.decode(msg.data), AnnounceGet) and msg.reply:
                await nc.publish(msg.reply, _encode(Announced(announce=announcer.whole())))

        return answer

    for name, announcer, _, nc in hubs:
        await nc.subscribe(f"{PREFIX}.req.{name}.*", cb=answerer(announcer, nc))

    async def beat() -> None:
        for name, announcer, devices, nc in hubs:
            if rng.random() < CHANGE_SHARE:
                i = rng.randrange(DEVICES)
                lease = None if devices[i].lease else LeaseInfo("exclusive", ("s",), ("ci",))
                devices[i] = msgspec.structs.replace(devices[i], lease=lease)
            await nc.publish(f"{PREFIX}.announce.{name}", _encode(announcer.next(devices, ())))
        for nc in {id(c): c for *_, c in hubs}.values():
            await nc.flush()

    async def beating(seconds: float) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            started = time.monotonic()
            await beat()
            await anyio.sleep(max(0.0, 1.0 - (time.monotonic() - started)))

    # warm up until the real hub hears every simulated hub
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        await beating(1.0)
        try:
            heard = _healthz(hub_port)["farm"]["hubs"]
        except OSError:
            continue
        if sum(1 for online in heard.values() if online) >= count:
            break
    await beating(2.0)
    resyncs0 = await anyio.to_thread.run_sync(_resyncs, hub_port)
    before, cpu0, t0 = _varz(monitor), _cpu_s(hub.pid), time.monotonic()
    await beating(window)
    after, cpu1, t1 = _varz(monitor), _cpu_s(hub.pid), time.monotonic()
    elapsed = t1 - t0
    resyncs = await anyio.to_thread.run_sync(_resyncs, hub_port) - resyncs0
    return {
        "in_bps": (after["in_bytes"] - before["in_bytes"]) / elapsed,
        "out_bps": (after["out_bytes"] - before["out_bytes"]) / elapsed,
        "msgs": (after["in_msgs"] - before["in_msgs"]) / elapsed,
        "cpu": (cpu1 - cpu0) / elapsed * 100,
        "resyncs": float(resyncs),
    }


def _resyncs(hub_port: int) -> int:
    """Whole announcements the real hub asked for so far (``/v1/stats``)."""
    request = urllib.request.Request(
        f"http://127.0.0.1:{hub_port}/v1/stats", headers={"Authorization": "Bearer bench-token"}
    )
    with urllib.request.urlopen(request, timeout=5) as resp:
        return int(json.loads(resp.read())["farm"]["link"]["resyncs"])


def _projection() -> list[str]:
    """256 hubs x 256 devices: message sizes and receive cost measured in-process."""
    devices = [
        DeviceSummary(
            id=f"00008110-{i:016X}", platform=Platform.IOS, online=True, model="iPhone15,2",
            os_version="17.4", owner="host-000", tags=("usb3",),
        )
        for i in range(256)
    ]  # fmt: skip
    sender = Announcer("host-000", "a1b2c3d4e5f6", 1000)
    whole = _encode(sender.next(devices, ()))
    beat = _encode(sender.next(devices, ()))
    changed = list(devices)
    changed[3] = msgspec.structs.replace(changed[3], lease=LeaseInfo("exclusive", ("s",)))
    change = _encode(sender.next(changed, ()))
    typed = msgspec.msgpack.Decoder(HubAnnounce)

    def cost(payloads: list[bytes], rounds: int) -> float:
        reg = Registry("me", 3000)
        reg.heard(typed.decode(whole), 0)
        started = time.perf_counter()
        for r in range(rounds):
            for p in payloads:
                reg.heard(typed.decode(p), r)
        return (time.perf_counter() - started) / (rounds * len(payloads))

    full_sender = Announcer("host-000", "a1b2c3d4e5f6", 1000, always_whole=True)
    full_msgs = [_encode(full_sender.next(devices, ())) for _ in range(3)]
    beat_sender = Announcer("host-000", "a1b2c3d4e5f6", 1000)
    beat_sender.next(devices, ())
    beats = [_encode(beat_sender.next(devices, ())) for _ in range(200)]
    full_cost = cost(full_msgs, 20)
    beat_cost = cost(beats, 5)
    hubs = 256
    rows = [
        ("full lists (before)", len(whole), full_cost),
        ("changes, idle hubs", len(beat), beat_cost),
    ]
    lines = [
        "",
        f"projection, {hubs} hubs x 256 devices, 1 heartbeat/s each (sizes and receive cost "
        "measured here):",
        f"{'heartbeat':<22} {'bytes/msg':>9} {'NATS in/s':>11} {'per hub in/s':>13} "
        f"{'NATS out/s':>11} {'hub CPU/s':>10}",
    ]
    for label, size, per_msg in rows:
        lines.append(
            f"{label:<22} {size:>9,} {_bytes(size * hubs):>11} {_bytes(size * hubs):>13} "
            f"{_bytes(size * hubs * hubs):>11} {per_msg * hubs * 1000:>8.1f}ms"
        )
    busy = len(beat) * hubs + CHANGE_SHARE * hubs * (len(change) - len(beat))
    lines.append(
        f"{'changes, 5% hubs/s':<22} {'':>9} {_bytes(busy):>11} {_bytes(busy):>13} "
        f"{_bytes(busy * hubs):>11}"
    )
    lines.append(
        f"a change (one device's lease) adds {len(change):,} B per changing hub "
        f"({len(change) - len(beat)} B over a heartbeat); a resync answers {len(whole):,} B "
        "to the one hub that asked"
    )
    return lines


def _bytes(n: float) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n:.0f} B"

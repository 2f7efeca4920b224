"""Pictures for many viewers (issue 43): one device screenshot per screen, and the mirror.

Rows (hub, viewers and the driver each in their own processes; ``--quick`` is smaller):

- ``pictures``: ``VIEWERS`` dashboard-like viewers (in ``PROCESSES`` processes) follow the
  settled stream with ``pictures`` and fetch the viewer-sized WebP of every picture, while a
  controller makes ``CHANGES`` screen changes (a typed value, one a second): device
  screenshots per change (goal 1), hub CPU per change, settle -> picture at the viewer (from
  the viewer receiving the settled delta to the WebP downloaded) p50 / p99;
- ``mirror``: ``MIRROR_VIEWERS`` viewers of the simulated device's mirror at 30 fps for
  ``MIRROR_S`` seconds (the screen changing once a second): sources started (goal: 1 stream
  for all), frames encoded, frames delivered per viewer (min / median), hub CPU.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time
from statistics import median
from typing import Any

VIEWERS, PROCESSES, CHANGES = 100, 4, 60
MIRROR_VIEWERS, MIRROR_PROCESSES, MIRROR_S = 20, 4, 60
PACE_S = 1.0


def _spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "bridge.bench.pictures_proc", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


def _line(proc: subprocess.Popen[str]) -> Any:
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if not line:
        raise RuntimeError("a bench process ended early")
    return json.loads(line)


def _stats(hub: subprocess.Popen[str]) -> Any:
    assert hub.stdin is not None
    hub.stdin.write("stats\n")
    hub.stdin.flush()
    return _line(hub)


def _viewers(
    hub: dict[str, Any], token: str, mode: str, total: int, procs: int, seconds: float
) -> list[subprocess.Popen[str]]:
    out = []
    for i in range(procs):
        count = total // procs + (1 if i < total % procs else 0)
        config = {
            **hub,
            "token": token,
            "count": count,
            "mode": mode,
            "fps": 30,
            "seconds": seconds,
        }
        out.append(_spawn("viewers", json.dumps(config)))
    for proc in out:
        _line(proc)  # ready
    return out


def _drive(port: int, device: str, token: str, changes: int) -> None:
    from bridge.client import build_query
    from bridge.client.sync import connect_sync

    with connect_sync(f"ws://127.0.0.1:{port}/v1", token=token, name="driver") as hub:
        dev = hub.device(device)
        for i in range(changes):
            started = time.monotonic()
            dev.type_text(build_query(resource_id="username"), f"viewer {i}")
            time.sleep(max(0.0, PACE_S - (time.monotonic() - started)))


def _drawing_ms() -> float:
    """CPU the simulated device spends drawing one screenshot of the login screen (PNG
    included): it runs in the hub's process, so the hub's CPU per change counts it."""
    from bridge.devices.sim.device import DemoDevice
    from bridge.devices.sim.png import render_scene
    from bridge.wire.enums import Platform

    scene = DemoDevice(Platform.ANDROID, now=0.0, start="login").scene(0.0)
    runs = []
    for _ in range(5):
        started = time.process_time()
        render_scene(scene)
        runs.append((time.process_time() - started) * 1000)
    return median(runs)


def _fetch_cost(hub: subprocess.Popen[str], where: dict[str, Any], token: str, n: int) -> float:
    """Hub CPU (ms) per HTTP fetch of a view it holds already (a new connection each, as a
    page's fetch of a new picture is)."""
    import urllib.request

    from bridge.client.sync import connect_sync

    with connect_sync(f"ws://127.0.0.1:{where['port']}/v1", token=token, name="fetch") as c:
        shot = c.device(where["device"]).screenshot()
    url = shot.url.removesuffix(".png") + ".webp?width=360"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    opener.open(request).read()  # derived once
    before = _stats(hub)
    for _ in range(n):
        opener.open(request).read()
    after = _stats(hub)
    return float(after["cpu_ns"] - before["cpu_ns"]) / 1e6 / n


def run(quick: bool) -> list[str]:
    viewers, procs, changes = (10, 2, 6) if quick else (VIEWERS, PROCESSES, CHANGES)
    m_viewers, m_procs, m_seconds = (
        (4, 2, 4.0) if quick else (MIRROR_VIEWERS, MIRROR_PROCESSES, MIRROR_S)
    )
    token = secrets.token_urlsafe(16)
    hub = _spawn("hub", token)
    lines = []
    try:
        where = _line(hub)
        # ---- pictures ----
        watchers = _viewers(where, token, "pictures", viewers, procs, changes * PACE_S + 5)
        time.sleep(1.0)  # the picture every viewer gets when it joins
        before = _stats(hub)
        _drive(where["port"], where["device"], token, changes)
        time.sleep(2.0)  # the last settle and its pictures
        after = _stats(hub)
        seen = [v for w in watchers for v in _line(w)]
        for w in watchers:
            w.wait()
        lat = sorted(x for v in seen for x in v.get("latencies", [])[1:])  # [0]: at joining
        errors = sum(len(v.get("errors", [])) for v in seen)
        shots = (after["screenshots"] - before["screenshots"]) / changes
        cpu = (after["cpu_ns"] - before["cpu_ns"]) / 1e6 / changes

        def p(q: float) -> float:
            return lat[min(len(lat) - 1, int(q * len(lat)))] if lat else float("nan")

        load = os.getloadavg()
        derived = after["pictures"]["views"]["derived"] - before["pictures"]["views"]["derived"]
        lines.append(
            f"pictures  {viewers} viewers in {procs} processes, {changes} changes: "
            f"device screenshots per change {shots:.2f} (goal 1)  hub CPU per change {cpu:.1f} ms "
            f"(of which the simulated device drawing its screenshot ~{_drawing_ms():.0f} ms)  "
            f"settle->picture p50 {p(0.5):.0f} ms p99 {p(0.99):.0f} ms ({len(lat)} pictures)  "
            f"views derived {derived}  fetch errors {errors}  "
            f"load average {load[0]:.2f}"
        )
        fetches = 50 if quick else 300
        fetch_ms = _fetch_cost(hub, where, token, fetches)
        lines.append(
            f"view fetch  hub CPU per HTTP fetch of a held view {fetch_ms:.2f} ms "
            f"({fetches} fetches, a new connection each)"
        )
        # ---- mirror ----
        before = _stats(hub)
        started = time.monotonic()
        watchers = _viewers(where, token, "mirror", m_viewers, m_procs, m_seconds)
        _drive(where["port"], where["device"], token, int(m_seconds / PACE_S) - 1)
        seen = [v for w in watchers for v in _line(w)]
        wall = time.monotonic() - started
        for w in watchers:
            w.wait()
        after = _stats(hub)
        mirror = after["mirror"][where["device"]]
        frames = sorted(v.get("frames", 0) for v in seen)
        starts = mirror["source_starts"] - before["mirror"].get(where["device"], {}).get(
            "source_starts", 0
        )
        cpu_s = (after["cpu_ns"] - before["cpu_ns"]) / 1e9
        load = os.getloadavg()
        lines.append(
            f"mirror    {m_viewers} viewers in {m_procs} processes, 30 fps, {m_seconds:.0f} s: "
            f"sources started {starts} (goal 1)  frames encoded {mirror['frames']}  "
            f"frames per viewer min {frames[0]} median {median(frames):.0f} "
            f"({frames[0] / m_seconds:.1f}/s)  cut off {mirror['cut_off']}  "
            f"hub CPU {cpu_s / wall * 100:.0f}% of a core  load average {load[0]:.2f}"
        )
    finally:
        if hub.stdin is not None:
            hub.stdin.write("quit\n")
            hub.stdin.flush()
        try:
            hub.wait(timeout=10)
        except subprocess.TimeoutExpired:
            hub.kill()
    return lines

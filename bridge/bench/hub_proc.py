"""The hub of the hub benchmark, in its own process: ``python -m bridge.bench.hub_proc CONFIG``.

``CONFIG`` is a JSON object: ``agent`` (the bench agent's URL), ``agent_token``, ``token``
(the controller token of the bench's clients), optionally ``loop`` (``asyncio`` or
``uvloop``, see ``bridge.hub.event_loop``), ``journal`` (a path) and ``frames`` (``whole``:
agent frames decoded as before issue 41, ``WholeFrames``, for the side-by-side row). The
process starts a real ``Hub`` on 127.0.0.1 (no simulated device, request rate limit lifted:
the bench measures latency, not the limiter; logs below WARNING dropped), prints
``{"port": P, "pid": PID}`` once the agent is linked, then answers one JSON line per command
line on stdin:

- ``stats``: the process's own CPU time (``time.process_time_ns``; ``sys_ns`` is the part
  spent in the kernel, ``getrusage``'s system time), its RSS, garbage
  collection pauses, and what happened since the last ``stats``: per new generation
  ``[generation, capture, prepare CPU ns, commit CPU ns]`` (the agent's capture number the
  generation came from, and the CPU each half of the ingest took on its own thread), and the
  CPU time of each ``resolve_ref`` the hub ran for a ``resolve`` request;
- ``gc``: run one full garbage collection now; its wall time and how many objects the
  collector tracked (what every full collection walks);
- ``quit``: stop.

Instrumenting costs a few hundred nanoseconds per ingest and per resolve; nothing else in
the hub is touched.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

from bridge.hub import service as service_module
from bridge.hub.app import AgentTarget, Hub, HubConfig
from bridge.hub.collector import freeze_startup
from bridge.hub.device import DeviceRuntime
from bridge.hub.event_loop import backend_options
from bridge.hub.logs import configure as configure_logs
from bridge.net import agent_link as agent_link_module
from bridge.net.auth import Principal
from bridge.wire.agent_link import AgentToHub
from bridge.wire.codec import AGENT_TO_HUB, DecodeFailure
from bridge.wire.raw import RawTree


class Recorder:
    def __init__(self) -> None:
        self.commits: list[tuple[int, int, int, int]] = []
        self.resolve_ns: list[int] = []
        self.gc_ns = 0
        self.gc_max_ns = 0
        self.gc_count = 0
        self._gc_start = 0
        self._prepare_ns = 0

    def on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._gc_start = time.perf_counter_ns()
        else:
            spent = time.perf_counter_ns() - self._gc_start
            self.gc_ns += spent
            self.gc_count += 1
            self.gc_max_ns = max(self.gc_max_ns, spent)

    def instrument(self, device: DeviceRuntime) -> None:
        """Wrap ``prepare`` and ``commit``: CPU of each on its own thread, and which agent
        capture each new generation came from."""
        prepare, commit = device.prepare, device.commit

        def timed_prepare(*args: Any, **kwargs: Any) -> Any:
            t = time.thread_time_ns()
            try:
                return prepare(*args, **kwargs)
            finally:
                self._prepare_ns = time.thread_time_ns() - t

        def timed_commit(*args: Any, **kwargs: Any) -> Any:
            before = device.generation
            t = time.thread_time_ns()
            try:
                return commit(*args, **kwargs)
            finally:
                spent = time.thread_time_ns() - t
                current = device.current
                if device.generation != before and current is not None:
                    self.commits.append(
                        (device.generation, current.capture_no, self._prepare_ns, spent)
                    )

        device.prepare = timed_prepare  # type: ignore[method-assign]
        device.commit = timed_commit  # type: ignore[method-assign]

    def timed(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        """``fn`` timed in CPU time of its thread (the machine is shared: wall time would
        count other processes' turns on the cores)."""

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            t = time.thread_time_ns()
            try:
                return fn(*args, **kwargs)
            finally:
                self.resolve_ns.append(time.thread_time_ns() - t)

        return wrapper

    def stats(self) -> dict[str, Any]:
        out = {
            "cpu_ns": time.process_time_ns(),
            "sys_ns": int(resource.getrusage(resource.RUSAGE_SELF).ru_stime * 1e9),
            "rss_kb": rss_kb(),
            "commits": self.commits,
            "resolve_ns": self.resolve_ns,
            "gc_ns": self.gc_ns,
            "gc_max_ns": self.gc_max_ns,
            "gc_count": self.gc_count,
        }
        self.commits, self.resolve_ns = [], []
        self.gc_ns = self.gc_max_ns = self.gc_count = 0
        return out


def full_collection() -> dict[str, int]:
    """Time one full garbage collection now, and count the objects it had to walk."""
    tracked = len(gc.get_objects())
    t = time.perf_counter_ns()
    gc.collect()
    return {"objects": tracked, "full_ns": time.perf_counter_ns() - t}


def rss_kb() -> int:
    """Resident set size of this process now (kB); the peak where /proc is absent."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") // 1024
    except (OSError, ValueError, IndexError):
        return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)


class WholeFrames:
    """The agent link's decoding before issue 41, for the side-by-side row: every frame
    decoded whole, every tree's structure checked and mirrored again."""

    def decode(self, data: bytes) -> AgentToHub | DecodeFailure:
        return AGENT_TO_HUB.decode(data)

    def kept_shape(self, before: RawTree, tree: RawTree) -> bool:
        return False


async def _main(config: dict[str, Any]) -> None:
    if config.get("frames") == "whole":
        vars(agent_link_module)["TreeFrameDecoder"] = WholeFrames
    recorder = Recorder()
    gc.callbacks.append(recorder.on_gc)
    hub = Hub(
        HubConfig(
            host="127.0.0.1",
            port=0,
            tokens={config["token"]: Principal("controller", "bench")},
            sim=False,
            agents=[AgentTarget(config["agent"], config["agent_token"])],
            journal=Path(config["journal"]) if config.get("journal") else None,
        )
    )
    hub.server.rate_per_s = hub.server.burst = 1e9
    names = vars(service_module)
    names["resolve_ref"] = recorder.timed(names["resolve_ref"])
    async with anyio.create_task_group() as tg:
        port = await tg.start(hub.run)
        devices = list(hub.service.devices.values())
        if not devices or not devices[0].online:
            raise SystemExit("the hub did not link the bench agent")
        recorder.instrument(devices[0])
        if not config.get("unfrozen"):
            freeze_startup()  # as ``mobridge serve`` does once it listens
        print(json.dumps({"port": port, "pid": os.getpid()}), flush=True)
        while True:
            line = await anyio.to_thread.run_sync(sys.stdin.readline)
            command = line.strip()
            if command == "gc":
                print(json.dumps(full_collection()), flush=True)
            elif command == "stats":
                print(json.dumps(recorder.stats()), flush=True)
            elif command in ("quit", ""):
                break
        tg.cancel_scope.cancel()


CPROFILE_ENV = "MOBRIDGE_BENCH_CPROFILE"
"""Set to a file path: the hub process runs under cProfile and writes its stats there."""


def main(argv: list[str]) -> None:
    configure_logs(json_lines=True, level=logging.WARNING, stream=sys.stderr)
    config = json.loads(argv[0])
    options = backend_options(config.get("loop", "asyncio"))
    out = os.environ.get(CPROFILE_ENV)
    if not out:
        anyio.run(_main, config, backend_options=options)
        return
    import cProfile

    profile = cProfile.Profile()
    try:
        profile.runcall(lambda: anyio.run(_main, config, backend_options=options))
    finally:
        profile.dump_stats(out)


if __name__ == "__main__":
    main(sys.argv[1:])

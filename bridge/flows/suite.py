"""Running a suite: tests spread over devices, each test under an exclusive lease.

Rules:
- one worker per device takes the next test in suite order (lexical by file) when it is free,
  so a faster device runs more tests; the report keeps suite order and says which device ran
  which test;
- a worker holds the device's **exclusive lease for the duration of one test** (acquired
  before its reset, released after it), so another runner, a script or a person at the
  dashboard never acts between two steps of a test; a lease someone else holds is waited for
  (``lease_wait_s``, polling with back-off) and the test is an ``error`` if it never frees;
- a failing test never stops the suite; a lost connection makes the remaining tests errors.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import anyio

from bridge import __version__
from bridge.client import ClientError, HubConnection, PolicyBlockedError
from bridge.flows.compile import Flow
from bridge.flows.report import (
    REPORT_SCHEMA_VERSION,
    DeviceReport,
    Failure,
    SuiteReport,
    TestReport,
    summarize,
)
from bridge.flows.runner import FlowRunner

DEFAULT_LEASE_WAIT_S = 120.0
Progress = Callable[[TestReport], None]


@dataclass
class SuiteOptions:
    report_dir: Path | None = None
    lease_wait_s: float = DEFAULT_LEASE_WAIT_S
    progress: Progress | None = None
    alerts: str | None = None
    """``accept`` / ``dismiss``: every test's lease answers every alert that shows that way."""
    first_match: bool = False
    """Maestro flows: take the first of several matches (``--first-match``), noted per step."""
    variables: dict[str, str] = field(default_factory=dict)
    """``--env`` values (a Maestro flow's JavaScript sees them as globals)."""
    allow_http: bool = False
    """Maestro flows' scripts may call ``http`` (loopback URLs only: ``--allow-http``)."""


@dataclass
class _Queue:
    flows: list[Flow]
    next: int = 0
    results: dict[int, TestReport] = field(default_factory=dict)

    def take(self) -> tuple[int, Flow] | None:
        if self.next >= len(self.flows):
            return None
        index = self.next
        self.next += 1
        return index, self.flows[index]


def slugs(flows: list[Flow]) -> list[str]:
    """A directory name per test for its screenshots: the file's stem, numbered when two
    tests share one."""
    stems = [re.sub(r"[^A-Za-z0-9._-]+", "-", f.path.stem).strip("-") or "flow" for f in flows]
    return [
        stem if stems.count(stem) == 1 else f"{i + 1:02d}-{stem}" for i, stem in enumerate(stems)
    ]


async def run_suite(
    conn: HubConnection, flows: list[Flow], device_ids: list[str], options: SuiteOptions
) -> SuiteReport:
    """Run ``flows`` over ``device_ids`` (each id once, online, checked by the caller)."""
    started_at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    started = time.monotonic()
    queue = _Queue(flows)
    names = slugs(flows)
    devices = {d: DeviceReport(id=d) for d in device_ids}
    platforms = await device_platforms(conn)

    async def worker(device_id: str) -> None:
        while (taken := queue.take()) is not None:
            index, flow = taken
            began = time.monotonic()
            report = await _one_test(
                conn, device_id, flow, names[index], started, options, platforms.get(device_id)
            )
            devices[device_id].tests += 1
            devices[device_id].busy_ms += round((time.monotonic() - began) * 1000)
            queue.results[index] = report
            if options.progress is not None:
                options.progress(report)

    async with anyio.create_task_group() as tg:
        for device_id in device_ids:
            tg.start_soon(worker, device_id)
    tests = [queue.results[i] for i in range(len(flows))]
    duration = round((time.monotonic() - started) * 1000)
    return SuiteReport(
        schema_version=REPORT_SCHEMA_VERSION,
        tool=f"mobridge {__version__}",
        hub=conn.url,
        started_at=started_at,
        summary=summarize(tests, len(device_ids), duration),
        devices=list(devices.values()),
        tests=tests,
    )


async def _one_test(
    conn: HubConnection,
    device_id: str,
    flow: Flow,
    test_slug: str,
    suite_start: float,
    options: SuiteOptions,
    platform: str | None = None,
) -> TestReport:
    device = conn.device(device_id)
    runner = FlowRunner(
        device,
        options.report_dir,
        test_slug,
        suite_start=suite_start,
        platform=platform,
        first_match=options.first_match,
        variables=dict(options.variables),
        allow_http=options.allow_http,
    )
    try:
        await _acquire(conn, device_id, options.lease_wait_s, options.alerts)
    except ClientError as exc:
        return TestReport(
            name=flow.name,
            file=flow.file,
            device=device_id,
            status="error",
            started_ms=round((time.monotonic() - suite_start) * 1000),
            failure=Failure(message=f"no lease on {device_id}: {exc}", at=flow.file, kind="lease"),
        )
    try:
        return await runner.run_test(flow)
    finally:
        with anyio.CancelScope(shield=True):
            try:
                await device.release_lease()
            except ClientError:
                pass


async def device_platforms(conn: HubConnection) -> dict[str, str]:
    """Each device's platform in lower case (``android``, ``ios``), for ``when: {platform}``."""
    return {d.id: d.platform.value.lower() for d in await conn.devices()}


async def acquire(conn: HubConnection, device_id: str, wait_s: float) -> None:
    """Take the device's exclusive lease (see ``_acquire``)."""
    await _acquire(conn, device_id, wait_s)


async def _acquire(
    conn: HubConnection, device_id: str, wait_s: float, alerts: str | None = None
) -> None:
    """Take the device's exclusive lease, waiting (with back-off) while someone else has it;
    ``alerts``: the lease answers every alert that way (the hub's lease option)."""
    device = conn.device(device_id)
    deadline = time.monotonic() + wait_s
    pause = 0.1
    while True:
        try:
            await device.acquire_lease("exclusive", alerts=alerts)
            return
        except PolicyBlockedError:
            if time.monotonic() + pause > deadline:
                raise
            await anyio.sleep(pause)
            pause = min(2.0, pause * 2)

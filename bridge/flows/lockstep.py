"""One flow on several devices in lockstep, and the divergence report.

Rules:
- each step starts on every device together: the next step starts only when every device
  finished the current one (a barrier), so the screens compared after a step are the screens
  that step left;
- the steps are the reset, ``onFlowStart``, the header's ``setup`` and the flow's steps (a
  block — repeat, retry, runFlow, expectRefusal — is one step); ``onFlowComplete`` runs on
  every device at the end, not compared;
- a device whose step failed stops there (its later steps are ``skipped``) while the others
  go on; the header's ``timeout`` bounds the whole lockstep run of the flow;
- after every step each device's screen is read (a full snapshot) and compared semantically:
  elements (role and text or label) present on one device and missing on another, elements
  of the same id whose texts differ, and different screen names. Coordinates, node ids and
  platform class names are never compared;
- every device holds its exclusive lease for the whole flow.

The caller gets a ``LockstepFlow`` per flow and one ``TestReport`` per device per flow (the
suite report, JUnit and HTML are built from those as for a normal run).
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import anyio

from bridge import __version__
from bridge.client import ClientError, HubConnection
from bridge.flows.compile import Flow, Launch, Step
from bridge.flows.errors import Place
from bridge.flows.report import (
    LOCKSTEP_SCHEMA_VERSION,
    REPORT_SCHEMA_VERSION,
    DeviceOutcome,
    DeviceReport,
    Failure,
    LockstepFlow,
    LockstepReport,
    LockstepStep,
    StepReport,
    SuiteReport,
    TestReport,
    summarize,
)
from bridge.flows.runner import MARKER, FlowRunner, TestAborted, _skipped
from bridge.flows.suite import SuiteOptions, acquire, device_platforms, slugs
from bridge.wire.snapshot import ScreenSnapshot

MAX_DIFFERENCES = 60
"""Difference lines kept per step (the count of the others is said)."""


@dataclass
class Screen:
    """A screen reduced to what the comparison looks at."""

    markers: list[str] = field(default_factory=list)
    elements: Counter[str] = field(default_factory=Counter)
    """``ROLE 'text'`` -> how many."""
    texts: dict[str, str] = field(default_factory=dict)
    """Resource id (without its package) -> the element's text."""


def screen_of(snapshot: ScreenSnapshot) -> Screen:
    screen = Screen()
    for node in snapshot.nodes:
        for ident in (node.resource_id, node.automation_id):
            found = MARKER.search(ident or "")
            if found and found.group("name") not in screen.markers:
                screen.markers.append(found.group("name"))
        shown = node.label or node.text or node.hint
        if shown:
            screen.elements[f"{node.role.value} {shown!r}"] += 1
        ident = (node.resource_id or node.automation_id or "").rsplit("/", 1)[-1]
        said = node.text or node.value or node.label
        if ident and said is not None and not ident.startswith("__screen_"):
            screen.texts.setdefault(ident, said)
    return screen


def differences(screens: dict[str, Screen | None]) -> list[str]:
    """The semantic difference of the devices' screens, one line each."""
    seen = {d: s for d, s in screens.items() if s is not None}
    lines: list[str] = []
    if len(seen) < 2:
        return lines
    names = {d: ", ".join(s.markers) or "an unmarked screen" for d, s in seen.items()}
    if len(set(names.values())) > 1:
        lines.append("screens: " + "; ".join(f"{n} on {d}" for d, n in names.items()))
    every = sorted({e for s in seen.values() for e in s.elements})
    for element in every:
        counts = {d: s.elements.get(element, 0) for d, s in seen.items()}
        missing = [d for d, n in counts.items() if n == 0]
        if len(missing) == len(counts):
            continue
        if missing:
            lines.append(f"{element} missing on {', '.join(missing)}")
        elif len(set(counts.values())) > 1:
            lines.append(f"{element}: " + ", ".join(f"{n} on {d}" for d, n in counts.items()))
    ids = sorted({i for s in seen.values() for i in s.texts})
    for ident in ids:
        texts = {d: s.texts.get(ident) for d, s in seen.items()}
        present = {d: t for d, t in texts.items() if t is not None}
        if len(present) == len(seen) and len(set(present.values())) > 1:
            lines.append(f"id {ident}: " + ", ".join(f"{t!r} on {d}" for d, t in present.items()))
    return lines


@dataclass
class _Lane:
    device_id: str
    runner: FlowRunner
    report: TestReport
    go: bool = True
    leased: bool = False


async def run_lockstep(
    conn: HubConnection,
    flow: Flow,
    device_ids: list[str],
    *,
    platforms: dict[str, str],
    report_dir: Path | None,
    slug: str,
    lease_wait_s: float,
    suite_start: float,
    first_match: bool = False,
    variables: dict[str, str] | None = None,
    allow_http: bool = False,
) -> tuple[LockstepFlow, list[TestReport]]:
    """Run ``flow`` on every device of ``device_ids`` in lockstep (module rules)."""
    started = time.monotonic()
    lanes = [
        _Lane(
            d,
            FlowRunner(
                conn.device(d),
                report_dir,
                f"{slug}-{d}",
                suite_start=suite_start,
                platform=platforms.get(d),
                first_match=first_match,
                variables=dict(variables or {}),
                allow_http=allow_http,
            ),
            TestReport(
                name=flow.name,
                file=flow.file,
                device=d,
                status="passed",
                started_ms=round((started - suite_start) * 1000),
                tags=list(flow.header.tags),
            ),
        )
        for d in device_ids
    ]
    steps: list[tuple[str, Step]] = []
    if flow.header.reset != "none":
        reset = Step(
            kind="reset",
            place=Place(flow.file, 1),
            source=f"reset: {flow.header.reset} {flow.app_id}",
            action=Launch(flow.app_id, clear_state=flow.header.reset == "clearState"),
        )
        steps.append(("setup", reset))
    steps += [("setup", s) for s in flow.on_start + flow.setup]
    steps += [("steps", s) for s in flow.steps]
    out = LockstepFlow(
        name=flow.name, file=flow.file, devices=list(device_ids), steps=[], divergent_steps=0
    )
    try:
        for lane in lanes:
            try:
                await acquire(conn, lane.device_id, lease_wait_s)
                lane.leased = True
            except ClientError as exc:
                lane.go = False
                lane.report.status = "error"
                lane.runner.failure = Failure(
                    message=f"no lease on {lane.device_id}: {exc}", at=flow.file, kind="lease"
                )
        limit = flow.timeout_s
        with anyio.move_on_after(math.inf if limit is None else limit) as timer:
            before: set[str] = set()
            for number, (section, step) in enumerate(steps, 1):
                done, lines = await _one_step(lanes, number, section, step)
                done.differences = [line for line in lines if line not in before]
                done.persisting = len(lines) - len(done.differences)
                if len(done.differences) > MAX_DIFFERENCES:
                    extra = len(done.differences) - MAX_DIFFERENCES
                    done.differences = [*done.differences[:MAX_DIFFERENCES], f"... {extra} more"]
                before = set(lines)
                out.steps.append(done)
        if timer.cancelled_caught:
            for lane in lanes:
                current = lane.runner.current
                lane.runner.failure = lane.runner.failure or Failure(
                    message=f"the test timed out after {limit:g} s (timeout)",
                    at=(
                        f"{current.place.file}:{current.place.line}"
                        if current is not None
                        else flow.file
                    ),
                    kind="timeout",
                )
        await _finish(lanes, flow)
    finally:
        with anyio.CancelScope(shield=True):
            for lane in lanes:
                if lane.leased:
                    try:
                        await conn.device(lane.device_id).release_lease()
                    except ClientError:
                        pass
    out.divergent_steps = sum(1 for s in out.steps if s.differences)
    duration = round((time.monotonic() - started) * 1000)
    for lane in lanes:
        lane.report.duration_ms = duration
    return out, [lane.report for lane in lanes]


async def _one_step(
    lanes: list[_Lane], number: int, section: str, step: Step
) -> tuple[LockstepStep, list[str]]:
    """The step on every device (a barrier), then every screen read: the step's record and
    every difference seen after it."""
    reports: dict[str, StepReport] = {}
    screens: dict[str, Screen | None] = {}

    async def run(lane: _Lane) -> None:
        listed = lane.report.setup if section == "setup" else lane.report.steps
        index = len(listed) + 1
        if not lane.go:
            got = _skipped(step, index)
        else:
            lane.runner.current = step
            try:
                got = await lane.runner.run_step(step, index)
            except TestAborted as exc:
                got = _skipped(step, index)
                got.status, got.message = "failed", str(exc)
                lane.report.status = "error"
            if got.status == "failed":
                lane.go = False
                await lane.runner.record_failure(got)
        listed.append(got)
        reports[lane.device_id] = got

    async with anyio.create_task_group() as tg:  # the barrier: every device ends the step
        for lane in lanes:
            tg.start_soon(run, lane)

    async def look(lane: _Lane) -> None:
        try:
            got = await lane.runner.device.snapshot(compact=False)
            screens[lane.device_id] = screen_of(got.snapshot)
        except ClientError:
            screens[lane.device_id] = None

    async with anyio.create_task_group() as tg:
        for lane in lanes:
            tg.start_soon(look, lane)
    outcomes = []
    for lane in lanes:
        got = reports[lane.device_id]
        screen = screens.get(lane.device_id)
        outcomes.append(
            DeviceOutcome(
                device=lane.device_id,
                status=got.status,
                elapsed_ms=got.elapsed_ms,
                message=got.message,
                refusal=got.refusal.code if got.refusal is not None else None,
                markers=list(screen.markers) if screen is not None else [],
                elements=sum(screen.elements.values()) if screen is not None else 0,
            )
        )
    lines: list[str] = []
    if len({o.status for o in outcomes}) > 1:
        lines.append(
            "outcomes: "
            + "; ".join(
                f"{o.status} on {o.device}" + (f" ({o.refusal or o.message})" if o.message else "")
                for o in outcomes
            )
        )
    lines += differences({lane.device_id: screens.get(lane.device_id) for lane in lanes})
    record = LockstepStep(
        index=number,
        kind=step.kind,
        file=step.place.file,
        line=step.place.line,
        source=step.source,
        outcomes=outcomes,
    )
    return record, lines


async def _finish(lanes: list[_Lane], flow: Flow) -> None:
    """End screens, the onFlowComplete hook on every device (shielded), statuses."""

    async def end(lane: _Lane) -> None:
        if lane.report.status == "error":
            return
        lane.report.end_screen = await lane.runner.end_screen()
        if flow.on_complete:
            with anyio.CancelScope(shield=True), anyio.move_on_after(120):
                try:
                    await lane.runner.run_steps(
                        flow.on_complete, lane.report.teardown, True, top=True
                    )
                except TestAborted:
                    lane.report.status = "error"

    async with anyio.create_task_group() as tg:
        for lane in lanes:
            tg.start_soon(end, lane)
    for lane in lanes:
        if lane.runner.failure is not None and lane.report.status == "passed":
            lane.report.status = "failed"
        lane.report.failure = lane.runner.failure
        lane.report.screenshots = list(lane.runner.shots)


async def run_lockstep_suite(
    conn: HubConnection,
    flows: list[Flow],
    device_ids: list[str],
    options: SuiteOptions,
    on_flow: Callable[[LockstepFlow, list[TestReport]], None] | None = None,
) -> tuple[SuiteReport, LockstepReport]:
    """Every flow in turn, each in lockstep on every device: the suite report (one test per
    device per flow, in suite order) and the divergence report."""
    started_at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    started = time.monotonic()
    platforms = await device_platforms(conn)
    names = slugs(flows)
    tests: list[TestReport] = []
    divergence = LockstepReport(
        schema_version=LOCKSTEP_SCHEMA_VERSION,
        tool=f"mobridge {__version__}",
        hub=conn.url,
        started_at=started_at,
        devices=list(device_ids),
        flows=[],
    )
    devices = {d: DeviceReport(id=d) for d in device_ids}
    for flow, slug in zip(flows, names, strict=True):
        one, reports = await run_lockstep(
            conn,
            flow,
            device_ids,
            platforms=platforms,
            report_dir=options.report_dir,
            slug=slug,
            lease_wait_s=options.lease_wait_s,
            suite_start=started,
            first_match=options.first_match,
            variables=options.variables,
            allow_http=options.allow_http,
        )
        divergence.flows.append(one)
        tests.extend(reports)
        for report in reports:
            if report.device in devices:
                devices[report.device].tests += 1
                devices[report.device].busy_ms += report.duration_ms
            if options.progress is not None:
                options.progress(report)
        if on_flow is not None:
            on_flow(one, reports)
    duration = round((time.monotonic() - started) * 1000)
    suite = SuiteReport(
        schema_version=REPORT_SCHEMA_VERSION,
        tool=f"mobridge {__version__}",
        hub=conn.url,
        started_at=started_at,
        summary=summarize(tests, len(device_ids), duration),
        devices=list(devices.values()),
        tests=tests,
    )
    return suite, divergence

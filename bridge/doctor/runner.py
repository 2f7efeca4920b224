"""The doctor's measurements, as a client of a running hub (``bridge.client`` only).

``run_doctor`` opens one session, finds the device, and runs the checks in order: hub, device,
environment (the section of ``env_checks``: this machine, the phone's tools and state, all
read-only), the private-API probes (from the agent's start-up warnings, before anything acts),
capture (``samples`` fresh captures), tree, health, ping, screenshot, then — when
acting — a tap on a text field, a typed marker (timed until a subscriber sees it: the delta
check) and the field's old value typed back; last the clock. It never raises for what it finds:
every failure is a ``fail`` check in the report (an unreachable hub, a refused token and a
missing device included), and checks that need an earlier one that failed are ``skip``.

What it acts on: the first enabled, non-password text field of the current screen, found by
the hub (``find`` role INPUT). Nothing else is touched; the field gets its old value back.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import anyio
import msgspec

from bridge import __version__
from bridge.client import (
    ClientError,
    ConnectionFailed,
    Device,
    HubConnection,
    HubError,
    ProtocolFailure,
    connect,
)
from bridge.client.local_hub import LOOPBACK_HOSTS
from bridge.client.screenshot import capture_url
from bridge.doctor import env_checks, rules
from bridge.doctor.environment import (
    Probe,
    android_facts,
    host_facts,
    ios_facts,
    probe_adb,
    probe_usbmux,
)
from bridge.doctor.report import Check, Report, count, finished, holds, overall, redact_url
from bridge.wire.client_protocol import DeviceSummary, FindMatch
from bridge.wire.enums import ActionVerb, ProtocolErrorCode, Role
from bridge.wire.node import SemanticNode
from bridge.wire.query import SemanticQuery
from bridge.wire.snapshot import ScreenSnapshot

MAX_SAMPLES = 200
MAX_TEXTS = 500
MAX_STATS_BYTES = 4 << 20
DELTA_WAIT_S = 5.0
RESTORE_WAIT_S = 3.0
PROBE_TIMEOUT_S = 15.0
MARKER = "mobridge-doctor"
LATER = (
    "capture",
    "tree",
    "health",
    "ping",
    "screenshot",
    "tap",
    "type",
    "delta",
    "clock",
)


@dataclass(frozen=True)
class DoctorOptions:
    url: str
    token: str | None = None
    device: str | None = None
    act: bool | None = None
    """True: tap and type; False: read-only; None: by device kind (``rules.acts_by_default``)."""
    samples: int = 20
    include_texts: bool = False
    request_timeout: float = 10.0
    hub_label: str | None = None
    """How the report names the hub (default: the URL without credentials)."""
    wait_for_device_s: float = 0.0
    """How long to wait for the device to be listed and online (an agent still linking)."""
    name: str = "mobridge-doctor"


Clock = Callable[[], float]


def _now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class _Run:
    def __init__(self, options: DoctorOptions, clock: Clock) -> None:
        self.options = options
        self.clock = clock
        self.checks: list[Check] = []
        self.device: DeviceSummary | None = None
        self.kind: str | None = None
        self.acting = False
        self.snapshot: ScreenSnapshot | None = None

    def ms_since(self, start: float) -> float:
        return (self.clock() - start) * 1000.0

    def add(self, check: Check) -> None:
        self.checks.append(check)

    def skip_rest(self, because: str) -> None:
        done = {c.name for c in self.checks}
        for name in LATER:
            if name not in done:
                self.add(rules.skipped(name, because))


async def run_doctor(options: DoctorOptions, clock: Clock = time.perf_counter) -> Report:
    """Check the chain to ``options.device`` and measure it; never raises for a finding."""
    created = _now_iso()
    run = _Run(options, clock)
    label = options.hub_label or redact_url(options.url)
    started = clock()
    try:
        async with connect(
            options.url,
            token=options.token,
            name=options.name,
            kind="doctor",
            request_timeout=options.request_timeout,
        ) as hub:
            await _with_hub(run, hub, run.ms_since(started), label)
    except (ClientError, OSError) as exc:
        if not any(c.name == "hub" for c in run.checks):
            run.add(_hub_failure(exc, label))
            run.add(rules.skipped("device", "the hub check failed"))
            run.skip_rest("the hub check failed")
        else:
            run.add(
                Check(
                    name="run",
                    verdict="fail",
                    value=f"the session with the hub ended: {type(exc).__name__}: {exc}"[:300],
                    fix="is the hub still running? rerun the doctor",
                )
            )
            run.skip_rest("the session with the hub ended")
    texts = _texts(run.snapshot) if options.include_texts and run.snapshot is not None else None
    checks = finished(run.checks)
    counts = count(checks)
    return Report(
        version=__version__,
        created=created,
        hub=label,
        device=run.device.id if run.device is not None else options.device,
        kind=run.kind,
        acting=run.acting,
        holds=holds(checks),
        checks=checks,
        verdict=overall(counts),
        counts=counts,
        texts=texts,
    )


def _hub_failure(exc: BaseException, label: str) -> Check:
    text = str(exc)
    if (isinstance(exc, ConnectionFailed) and "401" in text) or (
        isinstance(exc, ProtocolFailure) and exc.code is ProtocolErrorCode.UNAUTHENTICATED
    ):
        return msgspec.structs.replace(
            rules.hub_failed(
                f"{label} refused the token",
                "use the token `mobridge serve` printed: --token T or export MOBRIDGE_TOKEN=T",
            ),
            next="mobridge doctor --token TOKEN",
        )
    if isinstance(exc, ConnectionFailed):
        return msgspec.structs.replace(
            rules.hub_failed(
                f"no hub at {label}: {text}"[:300],
                "start one with `mobridge serve`, or point --url at it (or use --embedded)",
            ),
            next="mobridge serve",
        )
    return msgspec.structs.replace(
        rules.hub_failed(f"{type(exc).__name__}: {text}"[:300], "rerun with --debug"),
        next="mobridge doctor --debug",
    )


async def _with_hub(run: _Run, hub: HubConnection, connect_ms: float, label: str) -> None:
    options = run.options
    role = hub.session.role if hub.session is not None else "observer"
    summary = await _find_device(hub, options)
    if summary is None:
        wanted_acting = options.act is True
        run.add(rules.hub_check(connect_ms, role, label, wanted_acting))
        listed = [d.id for d in await hub.devices()]
        run.add(rules.device_missing(options.device, listed))
        run.skip_rest("the device check failed")
        return
    run.device = summary
    run.kind = rules.device_kind(summary.agent, summary.model, summary.platform)
    observer = role != "controller"
    wants_act = options.act if options.act is not None else rules.acts_by_default(run.kind)
    run.acting = wants_act and not observer
    run.add(rules.hub_check(connect_ms, role, label, options.act is True))
    run.add(
        rules.device_check(
            summary.id,
            summary.online,
            summary.health,
            summary.platform.value,
            summary.model,
            summary.os_version,
            _agent_name(summary),
            summary.agent_version or _version_of(summary.agent),
            summary.reason,
        )
    )
    for check in await _environment(run, hub, summary):
        run.add(check)
    stats_warnings = await _capture_warnings(hub, summary) if summary.online else None
    for check in env_checks.private_api_checks(summary.platform.value, run.kind, stats_warnings):
        run.add(check)
    if not summary.online:
        run.skip_rest("the device is offline")
        return
    device = hub.device(summary.id)
    await _captures(run, device)
    for check in await _health(hub, summary):
        if check.name.startswith("capture-warning-") and env_checks.private_warning(check.value):
            continue  # said once, in the private-API section
        run.add(check)
    await _pings(run, hub)
    await _screenshot(run, device)
    if not run.acting:
        if observer and wants_act:
            reason = "this token may only read (observer): give the controller token to act"
        elif options.act is False:
            reason = "--read-only: rerun without it (or with --act) to tap and type"
        else:
            reason = (
                "read-only (the default on a real phone): rerun with --act to tap and type "
                "into a text field"
            )
        for name in ("tap", "type", "delta"):
            run.add(rules.not_applicable(name, reason))
    else:
        await _act(run, device)
    run.add(rules.not_applicable("clock", rules.CLOCK_UNMEASURABLE))


def _agent_name(summary: DeviceSummary) -> str | None:
    agent = summary.agent
    version = summary.agent_version
    if agent and version and agent.endswith(f" {version}"):
        return agent[: -len(version) - 1]
    return agent


def _version_of(agent: str | None) -> str | None:
    """The version at the end of an older hub's ``agent`` field (``name version``)."""
    if not agent or " " not in agent:
        return None
    return agent.rsplit(" ", 1)[1]


async def _find_device(hub: HubConnection, options: DoctorOptions) -> DeviceSummary | None:
    deadline = time.monotonic() + max(0.0, min(options.wait_for_device_s, 120.0))
    while True:
        devices = await hub.devices()
        chosen: DeviceSummary | None = None
        if options.device is not None:
            chosen = next((d for d in devices if d.id == options.device), None)
        elif len(devices) == 1:
            chosen = devices[0]
        if (chosen is not None and chosen.online) or time.monotonic() >= deadline:
            return chosen
        await anyio.sleep(0.2)


def _is_remote(url: str) -> bool:
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return True
    return host not in LOOPBACK_HOSTS


async def _environment(run: _Run, hub: HubConnection, summary: DeviceSummary) -> list[Check]:
    """The environment section: adb/usbmux reachable, this machine, then the phone's tools
    and state (all read-only, each under ``PROBE_TIMEOUT_S``)."""
    kind = run.kind or rules.ANDROID_PHONE
    remote = _is_remote(hub.url)
    probe: Probe | None = None
    if kind in (rules.ANDROID_PHONE, rules.IPHONE) and not remote:
        with anyio.move_on_after(PROBE_TIMEOUT_S):
            if kind == rules.ANDROID_PHONE:
                probe = await anyio.to_thread.run_sync(probe_adb, abandon_on_cancel=True)
            else:
                probe = await probe_usbmux()
        if probe is None:
            probe = Probe(
                "adb" if kind == rules.ANDROID_PHONE else "usbmux",
                False,
                problem=f"no answer within {PROBE_TIMEOUT_S:g} s",
            )
    first = rules.environment_check(kind, summary.id, remote, probe)
    if probe is not None and summary.id in probe.unauthorized:
        first = msgspec.structs.replace(
            first,
            verdict="fail",
            value=f"adb lists {summary.id} as unauthorized",
            fix="unlock the phone and accept 'Allow USB debugging?'",
        )
    if first.verdict == "fail" and first.next is None:
        first = msgspec.structs.replace(
            first, next="adb devices" if kind == rules.ANDROID_PHONE else "mobridge devices"
        )
    checks = [msgspec.structs.replace(first, section="environment")]
    ios = summary.platform.value.upper() == "IOS"
    runtime = ("swift" if ios else "java") if kind == rules.HOST_AGENT else None
    host = await anyio.to_thread.run_sync(host_facts, runtime, abandon_on_cancel=True)
    checks.extend(env_checks.host_checks(kind, host))
    if kind == rules.ANDROID_PHONE:
        facts = None
        if probe is not None and not remote:
            listed = summary.id in probe.serials
            with anyio.move_on_after(PROBE_TIMEOUT_S):
                facts = await anyio.to_thread.run_sync(
                    android_facts, summary.id, listed, abandon_on_cancel=True
                )
        checks.extend(env_checks.android_checks(summary.id, probe if not remote else None, facts))
    elif kind == rules.IPHONE:
        ifacts = None
        if not remote:
            with anyio.move_on_after(PROBE_TIMEOUT_S):
                ifacts = await ios_facts(summary.id)
        checks.extend(env_checks.ios_checks(summary.os_version, ifacts, remote))
    return checks


async def _capture_warnings(hub: HubConnection, summary: DeviceSummary) -> list[str] | None:
    """The agent's capture warnings from ``/v1/stats`` (its start-up probe of the private
    API included); None when unreadable."""
    try:
        url = capture_url(hub.url, "/v1/stats")
        stats = await anyio.to_thread.run_sync(_get_json, url, hub.token, hub.request_timeout)
    except urllib.error.HTTPError as exc:
        exc.close()
        return None
    except (OSError, ValueError, ClientError):
        return None
    devices = stats.get("devices") if isinstance(stats, dict) else None
    entry = devices.get(summary.id) if isinstance(devices, dict) else None
    warnings = entry.get("capture_warnings") if isinstance(entry, dict) else None
    if not isinstance(warnings, list):
        return [] if isinstance(entry, dict) else None
    return [str(w)[:300] for w in warnings[:16]]


async def _captures(run: _Run, device: Device) -> None:
    samples: list[float] = []
    failures = 0
    fresh = True
    for _ in range(max(1, min(run.options.samples, MAX_SAMPLES))):
        start = run.clock()
        try:
            result = await device.snapshot(compact=False, fresh=fresh)
        except ProtocolFailure as exc:
            if fresh and exc.code in (
                ProtocolErrorCode.MALFORMED,
                ProtocolErrorCode.INVALID_PARAMS,
            ):
                fresh = False  # an older hub: measure what it offers, and say so
                continue
            raise
        except HubError:
            failures += 1
            continue
        samples.append(run.ms_since(start))
        run.snapshot = result.snapshot
    run.add(rules.capture_check(samples, failures, fresh))
    snapshot = run.snapshot
    if snapshot is None:
        try:
            snapshot = (await device.snapshot(compact=False)).snapshot
        except HubError:
            run.add(rules.skipped("tree", "no capture to look at"))
            return
        run.snapshot = snapshot
    run.add(
        rules.tree_check(
            len(snapshot.nodes),
            rules.tree_depth(snapshot.nodes),
            snapshot.truncated,
            len(msgspec.json.encode(snapshot)),
        )
    )


def _get_json(url: str, token: str | None, timeout: float) -> Any:
    request = urllib.request.Request(url, method="GET")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(request, timeout=timeout) as response:
        body: bytes = response.read(MAX_STATS_BYTES + 1)
    if len(body) > MAX_STATS_BYTES:
        raise ValueError("the statistics are over the size cap")
    return json.loads(body)


async def _health(hub: HubConnection, summary: DeviceSummary) -> list[Check]:
    """The health check, then one check per capture warning the agent reports."""
    try:
        url = capture_url(hub.url, "/v1/stats")
        stats = await anyio.to_thread.run_sync(_get_json, url, hub.token, hub.request_timeout)
    except urllib.error.HTTPError as exc:
        exc.close()
        problem = f"HTTP {exc.code}"
        return rules.health_checks(None, summary.reason, problem)
    except (OSError, ValueError, ClientError) as exc:
        return rules.health_checks(None, summary.reason, f"{type(exc).__name__}: {exc}")
    devices = stats.get("devices") if isinstance(stats, dict) else None
    entry = devices.get(summary.id) if isinstance(devices, dict) else None
    if not isinstance(entry, dict):
        problem = "the device is not this hub's own (a farm's remote device?)"
        return rules.health_checks(None, summary.reason, problem)
    return rules.health_checks(entry, summary.reason, None)


async def _pings(run: _Run, hub: HubConnection) -> None:
    samples: list[float] = []
    for _ in range(max(1, min(run.options.samples, MAX_SAMPLES))):
        start = run.clock()
        await hub.ping()
        samples.append(run.ms_since(start))
    run.add(rules.ping_check(samples))


def _refusal(exc: HubError) -> str:
    return f"{exc.code.value}: {exc}"[:300]


async def _screenshot(run: _Run, device: Device) -> None:
    start = run.clock()
    try:
        result = await device.screenshot()
        png = await device.fetch_screenshot(result)
    except HubError as exc:
        run.add(rules.screenshot_check(None, 0, 0, 0, _refusal(exc)))
        return
    elapsed = run.ms_since(start)
    run.add(rules.screenshot_check(elapsed, result.width, result.height, len(png), None))


def pick_field(matches: tuple[FindMatch, ...]) -> FindMatch | None:
    """The first enabled, non-password text field that takes SET_TEXT and has a size."""
    for match in matches:
        node = match.node
        state = node.effective_state
        bounds = node.bounds
        if (
            node.role is Role.INPUT
            and state.enabled
            and not state.password
            and ActionVerb.SET_TEXT in node.actions
            and (bounds is None or (bounds[2] > bounds[0] and bounds[3] > bounds[1]))
        ):
            return match
    return None


def _describe(node: SemanticNode, include_texts: bool) -> str:
    """The field as the report names it: role and resource id (its label only with texts)."""
    name = node.resource_id or node.automation_id or node.node_id
    if include_texts and node.label:
        return f"{node.role.value} {name} ({node.label!r})"
    return f"{node.role.value} {name}"


async def _act(run: _Run, device: Device) -> None:
    found = await device.find(SemanticQuery(role=Role.INPUT))
    field = pick_field(found.matches)
    if field is None:
        reason = (
            "no harmless target: this screen has no enabled, non-password text field; open a "
            "screen with one and rerun"
        )
        for name in ("tap", "type", "delta"):
            run.add(rules.not_applicable(name, reason))
        return
    target = _describe(field.node, run.options.include_texts)
    original = field.node.value or ""
    start = run.clock()
    try:
        tapped = await device.tap(field)
        tap_ms: float | None = run.ms_since(start)
        run.add(
            rules.action_check("tap", rules.TAP, tap_ms, tapped.dispatch.status.value, None, target)
        )
    except HubError as exc:
        run.add(rules.action_check("tap", rules.TAP, None, None, _refusal(exc), target))
    marker = f"{MARKER}-{int(time.time()) % 100000}"
    await _type_and_watch(run, device, field, marker, target, original)


async def _type_and_watch(
    run: _Run, device: Device, field: FindMatch, marker: str, target: str, original: str
) -> None:
    seen: list[float] = []
    arrived = anyio.Event()
    node_id = field.node.node_id
    refusal: str | None = None
    elapsed: float | None = None
    status: str | None = None
    async with device.watch(compact=False) as watch:

        async def watch_for_marker() -> None:
            async for update in watch:
                if any(_shows(n, marker) for n in update.snapshot.nodes):
                    seen.append(run.clock())
                    arrived.set()
                    return

        async with anyio.create_task_group() as tg:
            tg.start_soon(watch_for_marker)
            typed_at = run.clock()
            try:
                result = await device.type_text(field, marker)
                elapsed = run.ms_since(typed_at)
                status = result.dispatch.status.value
            except HubError as exc:
                refusal = _refusal(exc)
            with anyio.move_on_after(DELTA_WAIT_S if refusal is None else 0):
                await arrived.wait()
            tg.cancel_scope.cancel()
    restored = await _restore(device, node_id, original) if refusal is None else None
    extra: dict[str, Any] = {"chars": len(marker), "restored": restored}
    type_check = rules.action_check("type", rules.TYPE, elapsed, status, refusal, target, extra)
    if restored is False and type_check.verdict == "ok":
        type_check = msgspec.structs.replace(
            type_check,
            verdict="warn",
            fix="the field kept the doctor's marker text: clear it by hand",
        )
    run.add(type_check)
    if refusal is not None:
        run.add(rules.skipped("delta", "typing failed, so nothing changed"))
    else:
        latency = (seen[0] - typed_at) * 1000.0 if seen else None
        run.add(rules.delta_check(latency, DELTA_WAIT_S * 1000.0))


def _shows(node: SemanticNode, marker: str) -> bool:
    return any(marker in (t or "") for t in (node.value, node.text))


async def _restore(device: Device, node_id: str, original: str) -> bool:
    """Type the field's old value back; true when the hub then shows it (best effort)."""
    found = await device.find(SemanticQuery(role=Role.INPUT))
    match = next((m for m in found.matches if m.node.node_id == node_id), None)
    if match is None:
        return False
    try:
        await device.type_text(match, original)
    except HubError:
        return False
    with anyio.move_on_after(RESTORE_WAIT_S):  # a busy screen may show it a little later
        while True:
            after = await device.find(SemanticQuery(role=Role.INPUT))
            now = next((m for m in after.matches if m.node.node_id == node_id), None)
            if now is not None and (now.node.value or "") == original:
                return True
            await anyio.sleep(0.1)
    return False


def _texts(snapshot: ScreenSnapshot) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for node in snapshot.nodes:
        for text in (node.label, node.text, node.value, node.hint):
            if text and len(seen) < MAX_TEXTS:
                seen.setdefault(text, None)
    return tuple(seen)

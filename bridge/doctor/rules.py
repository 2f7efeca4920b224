"""The verdict of every doctor check from what was measured (sans-I/O: no clock, no socket).

Each function takes measured values and returns a ``Check``; the limits are named constants
here so the report and docs/cli.md say the same thing. Limits are what a person would notice:
a capture slower than 2 s at p99 makes every command feel stuck, a delta later than 1 s makes
a watcher lag behind the screen. ``warn`` is "works, but worse than it should"; ``fail`` is
"this part of the chain does not work".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bridge.doctor.environment import Probe
from bridge.doctor.report import Check, Scalar, Verdict
from bridge.wire.enums import Platform
from bridge.wire.node import SemanticNode


@dataclass(frozen=True)
class Limit:
    """``ok`` up to ``ok_ms``, ``warn`` up to ``warn_ms``, else ``fail``."""

    ok_ms: float
    warn_ms: float

    def verdict(self, ms: float) -> Verdict:
        if ms <= self.ok_ms:
            return "ok"
        return "warn" if ms <= self.warn_ms else "fail"


CONNECT = Limit(1000, 5000)
CAPTURE_P50 = Limit(1000, 3000)
CAPTURE_P99 = Limit(2000, 8000)
DELTA = Limit(1000, 3000)
TAP = Limit(3000, 10_000)
TYPE = Limit(3000, 10_000)
SCREENSHOT = Limit(3000, 10_000)
PING_P50 = Limit(100, 1000)
LARGE_TREE = 2000
"""Nodes above which a tree is flagged: every capture and every delta grows with it."""
DEEP_TREE = 60
"""Depth above which a tree is flagged (iOS snapshots deeper than about 60 used to fail)."""

SIMULATED, HOST_AGENT, ANDROID_PHONE, IPHONE = "simulated", "host-agent", "android-phone", "iphone"


def percentile(samples: Sequence[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100) of a non-empty sample."""
    if not samples:
        raise ValueError("no samples")
    ordered = sorted(samples)
    rank = max(1, -(-len(ordered) * q // 100))
    return ordered[min(len(ordered), int(rank)) - 1]


def worst(*verdicts: Verdict) -> Verdict:
    order: tuple[Verdict, ...] = ("fail", "warn", "ok")
    for verdict in order:
        if verdict in verdicts:
            return verdict
    return "ok"


def device_kind(agent: str | None, model: str | None, platform: Platform) -> str:
    """What is on the other end: the simulated device, a host agent (the agents' host mode on
    this machine), or a real phone (anything else, agentless included)."""
    name = (agent or "").lower()
    if name.startswith("mobridge-sim"):
        return SIMULATED
    if "agent-host" in name or "host fake" in (model or "").lower():
        return HOST_AGENT
    return IPHONE if platform is Platform.IOS else ANDROID_PHONE


def acts_by_default(kind: str) -> bool:
    """The doctor taps and types only on devices it set up itself (simulated, host agents);
    a real phone is read-only unless ``--act``."""
    return kind in (SIMULATED, HOST_AGENT)


def tree_depth(nodes: Sequence[SemanticNode]) -> int:
    """Levels of the tree (a lone root: 1); nodes come in document order, parents first."""
    depth: dict[str, int] = {}
    deepest = 0
    for node in nodes:
        parent = depth.get(node.parent_id) if node.parent_id is not None else None
        level = 1 if parent is None else parent + 1
        depth[node.node_id] = level
        deepest = max(deepest, level)
    return deepest


def ms(value: float) -> str:
    return f"{value:.0f} ms" if value >= 10 else f"{value:.1f} ms"


def _size(size: int) -> str:
    return f"{size} B" if size < 10_240 else f"{size / 1024:.0f} KiB"


def _round(value: float) -> float:
    return round(value, 2)


# ---- the checks ------------------------------------------------------------------------------


def hub_check(connect_ms: float, role: str, hub: str, acting: bool) -> Check:
    verdict = CONNECT.verdict(connect_ms)
    fix = None
    if verdict != "ok":
        fix = "the hub answers slowly: is it on another network, or overloaded?"
    if acting and role != "controller":
        verdict = worst(verdict, "warn")
        fix = "this token may only read: give the controller token to test tap and type"
    return Check(
        name="hub",
        verdict=verdict,
        value=f"reached {hub} in {ms(connect_ms)}, token accepted as {role}",
        measured={"connect_ms": _round(connect_ms), "role": role, "hub": hub},
        fix=fix,
    )


def hub_failed(reason: str, fix: str) -> Check:
    return Check(name="hub", verdict="fail", value=reason, fix=fix)


def device_check(
    device: str,
    online: bool,
    health: str,
    platform: str,
    model: str | None,
    os_version: str | None,
    agent: str | None,
    agent_version: str | None,
    reason: str | None,
) -> Check:
    measured: dict[str, Scalar] = {
        "online": online,
        "health": health,
        "platform": platform,
        "model": model,
        "os_version": os_version,
        "agent": agent,
        "agent_version": agent_version,
    }
    what = (
        f"{platform} {model or '(model unknown)'}, OS {os_version or '?'}, "
        f"agent {agent or '?'} {agent_version or '(version unknown)'}"
    )
    if not online:
        return Check(
            name="device",
            verdict="fail",
            value=f"offline: {reason or 'no reason given'} ({what})",
            measured=measured,
            fix="start the agent on the phone (docs/android.md, docs/ios.md) and keep it "
            "unlocked; `mobridge devices` shows when it is back",
            next="mobridge devices",
        )
    if health != "online":
        return Check(
            name="device",
            verdict="warn",
            value=f"{health}: {reason or 'no reason given'} ({what})",
            measured=measured,
            fix="see the health checks below",
        )
    version = "" if agent_version else " (agent version not reported: update the hub)"
    return Check(name="device", verdict="ok", value=f"online, {what}{version}", measured=measured)


def device_missing(wanted: str | None, listed: Sequence[str]) -> Check:
    known = ", ".join(listed) or "none"
    if wanted is None:
        value = f"no device named and {len(listed)} listed ({known})"
        fix = "name the device: mobridge doctor DEVICE (ids from `mobridge devices`)"
    else:
        value = f"{wanted!r} is not on this hub (devices: {known})"
        fix = "check the id with `mobridge devices`; a phone appears once its agent is linked"
    return Check(name="device", verdict="fail", value=value, fix=fix, next="mobridge devices")


def health_checks(
    stats: dict[str, object] | None, reason: str | None, stats_problem: str | None
) -> list[Check]:
    """The hub's health flags for the device (``/v1/stats``), then one ``warn`` per capture
    warning the agent reports."""
    if stats is None:
        return [
            Check(
                name="health",
                verdict="n/a",
                value=f"the hub's statistics were not readable: {stats_problem}",
                fix="needs a hub that serves /v1/stats to this token",
            )
        ]
    flags: dict[str, Scalar] = {}
    for key in ("truncated_captures", "normalize_failures", "reconnects", "captures"):
        value = stats.get(key)
        if isinstance(value, int):
            flags[key] = value
    link = stats.get("link")
    if isinstance(link, dict):
        for key in ("bad_frames", "delta_refusals", "trees", "deltas", "commands"):
            value = link.get(key)
            if isinstance(value, int):
                flags[f"link_{key}"] = value
    problems = [
        f"{label} {flags[key]}"
        for key, label in (
            ("truncated_captures", "truncated captures"),
            ("normalize_failures", "trees the hub could not use"),
            ("link_bad_frames", "bad frames from the agent"),
            ("link_delta_refusals", "tree deltas that did not apply"),
            ("reconnects", "agent reconnects"),
        )
        if isinstance(flags.get(key), int) and flags[key]
    ]
    hub_health = stats.get("health")
    if isinstance(hub_health, str):
        flags["health"] = hub_health
    if hub_health not in (None, "online") and reason:
        problems.insert(0, f"{hub_health}: {reason}")
    checks = [
        Check(
            name="health",
            verdict="warn" if problems else "ok",
            value="; ".join(problems)
            if problems
            else "no flags (no truncation, bad frames, refused deltas or reconnects)",
            measured=flags,
            fix="send this report: the flags say which part of the capture misbehaves"
            if problems
            else None,
        )
    ]
    web = stats.get("web")
    if isinstance(web, dict) and isinstance(web.get("problem"), str):
        checks.append(
            Check(
                name="web",
                verdict="warn",
                value=f"a WebView's page is not merged: {str(web['problem'])[:300]}",
                fix="enable page debugging in the app — Android: "
                "WebView.setWebContentsDebuggingEnabled(true); iPhone: Settings > Safari > "
                "Advanced > Web Inspector on (iOS 18: Settings > Apps > Safari > Advanced) and "
                "WKWebView.isInspectable = true in the app (iOS 16.4+) — see docs/webviews.md; "
                "until then the WebView is one node and its content is pixels only",
            )
        )
    elif isinstance(web, dict) and web.get("attached"):
        checks.append(
            Check(
                name="web",
                verdict="ok",
                value=f"a WebView's page is merged ({web.get('nodes')} nodes)",
            )
        )
    warnings = stats.get("capture_warnings")
    if isinstance(warnings, list):
        for i, text in enumerate(warnings[:8]):
            checks.append(
                Check(
                    name=f"capture-warning-{i + 1}",
                    verdict="warn",
                    value=str(text)[:300],
                    fix="the agent reports this about its captures; send this report",
                )
            )
    return checks


def capture_check(samples_ms: Sequence[float], failures: int, fresh: bool) -> Check:
    if not samples_ms:
        return Check(
            name="capture",
            verdict="fail",
            value=f"no capture succeeded ({failures} failed)",
            fix="the agent does not capture: check it is running and the screen is unlocked",
            next="mobridge screen DEVICE",
        )
    p50, p99 = percentile(samples_ms, 50), percentile(samples_ms, 99)
    verdict = worst(CAPTURE_P50.verdict(p50), CAPTURE_P99.verdict(p99))
    fix = None
    if failures:
        verdict = worst(verdict, "warn")
        fix = f"{failures} of {failures + len(samples_ms)} captures failed"
    elif verdict != "ok":
        fix = "captures are slow: a large or deep screen, or a busy phone (see tree)"
    how = "fresh captures" if fresh else "snapshot reads (this hub cannot force a capture)"
    if not fresh:
        verdict = worst(verdict, "warn")
        fix = fix or "update the hub to measure real captures (snapshot.get fresh)"
    return Check(
        name="capture",
        verdict=verdict,
        value=f"p50 {ms(p50)}, p99 {ms(p99)} over {len(samples_ms)} {how}",
        measured={
            "p50_ms": _round(p50),
            "p99_ms": _round(p99),
            "min_ms": _round(min(samples_ms)),
            "max_ms": _round(max(samples_ms)),
            "samples": len(samples_ms),
            "failures": failures,
            "fresh": fresh,
        },
        fix=fix,
    )


def tree_check(nodes: int, depth: int, truncated: bool, encoded_bytes: int) -> Check:
    measured: dict[str, Scalar] = {
        "nodes": nodes,
        "depth": depth,
        "truncated": truncated,
        "snapshot_bytes": encoded_bytes,
    }
    value = f"{nodes} nodes, depth {depth}, {encoded_bytes / 1024:.1f} KiB as JSON"
    if nodes == 0:
        return Check(
            name="tree",
            verdict="fail",
            value=value,
            measured=measured,
            fix="the capture is empty: is the screen off or locked?",
            next="mobridge screen DEVICE",
        )
    if truncated:
        return Check(
            name="tree",
            verdict="warn",
            value=value + ", truncated",
            measured=measured,
            fix="the screen is larger or deeper than the capture limits; part of it is missing",
        )
    if nodes > LARGE_TREE or depth > DEEP_TREE:
        return Check(
            name="tree",
            verdict="warn",
            value=value,
            measured=measured,
            fix=f"a tree over {LARGE_TREE} nodes or {DEEP_TREE} levels makes captures slow",
        )
    return Check(name="tree", verdict="ok", value=value, measured=measured)


def not_applicable(name: str, reason: str) -> Check:
    return Check(name=name, verdict="n/a", value="not measured", fix=reason)


def skipped(name: str, because: str) -> Check:
    return Check(name=name, verdict="skip", value="not run", fix=because)


def action_check(
    name: str,
    limit: Limit,
    elapsed_ms: float | None,
    status: str | None,
    refusal: str | None,
    target: str,
    extra: dict[str, Scalar] | None = None,
) -> Check:
    """A tap or a type: ``status`` the dispatch status, ``refusal`` the hub's refusal."""
    measured: dict[str, Scalar] = {"target": target, "status": status, **(extra or {})}
    if refusal is not None or elapsed_ms is None:
        return Check(
            name=name,
            verdict="fail",
            value=f"refused on {target}: {refusal}",
            measured=measured,
            fix="the agent could not act: check its permissions (accessibility, automation)",
            next="mobridge capabilities DEVICE",
        )
    measured["round_trip_ms"] = _round(elapsed_ms)
    verdict = limit.verdict(elapsed_ms)
    if status != "DISPATCHED":
        verdict = "fail"
    value = f"{ms(elapsed_ms)} on {target} ({status})"
    fix = None
    if verdict == "warn":
        fix = "actions are slow: the app may never go idle (animations)"
    elif verdict == "fail":
        fix = "the action did not go through in time: send this report"
    return Check(
        name=name,
        verdict=verdict,
        value=value,
        measured=measured,
        fix=fix,
        next="mobridge doctor DEVICE --debug" if verdict == "fail" else None,
    )


def delta_check(latency_ms: float | None, waited_ms: float) -> Check:
    if latency_ms is None:
        return Check(
            name="delta",
            verdict="fail",
            value=f"no delta within {ms(waited_ms)} of the change",
            measured={"waited_ms": _round(waited_ms)},
            fix="subscribers do not see changes: the agent does not push trees (send this report)",
            next="mobridge watch DEVICE",
        )
    return Check(
        name="delta",
        verdict=DELTA.verdict(latency_ms),
        value=f"{ms(latency_ms)} from the typed change to the delta at a subscriber",
        measured={"latency_ms": _round(latency_ms)},
        fix=None if latency_ms <= DELTA.ok_ms else "the agent pushes changes late (debounce?)",
    )


def screenshot_check(
    elapsed_ms: float | None, width: int, height: int, size: int, refusal: str | None
) -> Check:
    if refusal is not None or elapsed_ms is None:
        secure = refusal is not None and "SECURE" in refusal
        return Check(
            name="screenshot",
            verdict="warn" if secure else "fail",
            value=f"refused: {refusal}",
            fix="the app forbids screenshots of this screen (FLAG_SECURE); open another"
            if secure
            else "the agent cannot take screenshots (screen recording permission?)",
            next=None if secure else "mobridge screenshot DEVICE",
        )
    verdict = SCREENSHOT.verdict(elapsed_ms)
    if size == 0:
        verdict = "fail"
    return Check(
        name="screenshot",
        verdict=verdict,
        value=f"{ms(elapsed_ms)}, {width}x{height}, {_size(size)} PNG",
        measured={
            "elapsed_ms": _round(elapsed_ms),
            "width": width,
            "height": height,
            "bytes": size,
        },
        fix=None if verdict == "ok" else "screenshots are slow or empty",
    )


def ping_check(samples_ms: Sequence[float]) -> Check:
    p50 = percentile(samples_ms, 50)
    return Check(
        name="ping",
        verdict=PING_P50.verdict(p50),
        value=f"p50 {ms(p50)}, max {ms(max(samples_ms))} over {len(samples_ms)} pings "
        "(this machine to the hub)",
        measured={
            "p50_ms": _round(p50),
            "max_ms": _round(max(samples_ms)),
            "samples": len(samples_ms),
        },
        fix=None if p50 <= PING_P50.ok_ms else "the network to the hub is slow",
    )


CLOCK_UNMEASURABLE = (
    "the agent link carries no device timestamp (snapshot times are the hub's clock), so the "
    "skew between hub and device cannot be measured"
)


def environment_check(
    kind: str,
    device: str,
    remote_hub: bool,
    probe: Probe | None,
) -> Check:
    """adb (Android phones) or usbmux (iPhones) on this machine; not applicable to the
    simulated device and host agents, nor when the hub runs on another machine."""
    if kind in (SIMULATED, HOST_AGENT):
        what = "the simulated device" if kind == SIMULATED else "a host agent"
        return not_applicable(
            "environment", f"{device} is {what} on this machine: no adb or usbmux involved"
        )
    if remote_hub or probe is None:
        return not_applicable(
            "environment", "the hub runs on another machine: run the doctor there for adb/usbmux"
        )
    tool = probe.tool
    if not probe.installed:
        return Check(
            name="environment",
            verdict="warn",
            value=f"{tool}: not installed",
            fix=probe.problem,
        )
    measured: dict[str, Scalar] = {
        "tool": tool,
        "reachable": probe.reachable,
        "version": probe.version,
        "devices": len(probe.serials),
        "listed": device in probe.serials,
    }
    if not probe.reachable:
        fix = (
            "install Android platform-tools and run `adb devices` (accept the prompt on the phone)"
            if tool == "adb"
            else "connect the iPhone by USB, trust this computer, and check usbmuxd runs"
        )
        return Check(
            name="environment",
            verdict="fail",
            value=f"{tool} not reachable: {probe.problem}",
            measured=measured,
            fix=fix,
            next="adb start-server" if tool == "adb" else "mobridge devices",
        )
    version = f" (server version {probe.version})" if probe.version else ""
    listed = "lists" if device in probe.serials else "does not list"
    value = f"{tool} reachable{version}, {len(probe.serials)} device(s), {listed} {device}"
    if not probe.serials:
        return Check(
            name="environment",
            verdict="fail",
            value=value,
            measured=measured,
            fix="no phone is connected: plug it in, unlock it and allow this computer",
            next="adb devices -l" if tool == "adb" else "mobridge devices",
        )
    if device not in probe.serials:
        return Check(
            name="environment",
            verdict="warn",
            value=value,
            measured=measured,
            fix="the hub's id for the phone is not a serial here: is it plugged into this machine?",
        )
    return Check(name="environment", verdict="ok", value=value, measured=measured)

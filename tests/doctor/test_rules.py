"""The doctor's verdict rules (sans-I/O): limits, percentiles, device kinds, health flags."""

from __future__ import annotations

import pytest

from bridge.doctor import rules
from bridge.doctor.environment import Probe
from bridge.wire.enums import Platform, Role
from bridge.wire.node import SemanticNode


def test_percentile_is_nearest_rank() -> None:
    samples = [float(v) for v in range(1, 21)]  # 1..20
    assert rules.percentile(samples, 50) == 10
    assert rules.percentile(samples, 99) == 20
    assert rules.percentile([7.0], 99) == 7
    assert rules.percentile([3.0, 1.0, 2.0], 50) == 2
    with pytest.raises(ValueError):
        rules.percentile([], 50)


def test_limits_split_ok_warn_fail_at_their_edges() -> None:
    limit = rules.Limit(100, 300)
    assert [limit.verdict(v) for v in (0, 100, 100.1, 300, 301)] == [
        "ok",
        "ok",
        "warn",
        "warn",
        "fail",
    ]
    assert rules.worst("ok", "warn") == "warn"
    assert rules.worst("warn", "fail", "ok") == "fail"
    assert rules.worst("ok") == "ok"


def test_capture_verdict_takes_the_worse_of_p50_and_p99() -> None:
    fast = rules.capture_check([20.0] * 20, 0, True)
    assert fast.verdict == "ok" and fast.measured["p50_ms"] == 20 and fast.measured["samples"] == 20
    one_slow = rules.capture_check([20.0] * 19 + [2500.0], 0, True)
    assert one_slow.verdict == "warn" and one_slow.measured["p99_ms"] == 2500
    assert rules.capture_check([20.0] * 19 + [9000.0], 0, True).verdict == "fail"
    some_failed = rules.capture_check([20.0] * 18, 2, True)
    assert some_failed.verdict == "warn" and "2 of 20" in (some_failed.fix or "")
    assert rules.capture_check([], 20, True).verdict == "fail"
    cached = rules.capture_check([1.0] * 20, 0, False)
    assert cached.verdict == "warn" and "cannot force" in cached.value


def node(node_id: str, parent: str | None, role: Role = Role.SCREEN) -> SemanticNode:
    return SemanticNode(node_id=node_id, role=role, parent_id=parent)


def test_tree_depth_and_tree_verdicts() -> None:
    chain = [node("a", None), node("b", "a"), node("c", "b"), node("d", "a")]
    assert rules.tree_depth(chain) == 3
    assert rules.tree_depth([node("a", None)]) == 1
    assert rules.tree_depth([]) == 0
    assert rules.tree_check(40, 6, False, 9000).verdict == "ok"
    assert rules.tree_check(0, 0, False, 10).verdict == "fail"
    assert rules.tree_check(40, 6, True, 9000).verdict == "warn"
    assert rules.tree_check(rules.LARGE_TREE + 1, 6, False, 1).verdict == "warn"
    deep = rules.tree_check(301, 300, False, 1)
    assert deep.verdict == "warn" and deep.measured["depth"] == 300


@pytest.mark.parametrize(
    ("agent", "model", "platform", "kind", "acts"),
    [
        ("mobridge-sim 0.1.0", "Simulated Pixel", Platform.ANDROID, rules.SIMULATED, True),
        ("mobridge-android-agent-host 0.3", "x", Platform.ANDROID, rules.HOST_AGENT, True),
        (
            "mobridge-ios-agent-host 0.3",
            "mobridge iOS host fake",
            Platform.IOS,
            rules.HOST_AGENT,
            True,
        ),
        ("mobridge-android-agent 0.3", "Pixel 8", Platform.ANDROID, rules.ANDROID_PHONE, False),
        ("mobridge-ios-runner 0.3", "iPhone15,2", Platform.IOS, rules.IPHONE, False),
        (None, None, Platform.ANDROID, rules.ANDROID_PHONE, False),
    ],
)
def test_device_kind_and_who_is_acted_on_by_default(
    agent: str | None, model: str | None, platform: Platform, kind: str, acts: bool
) -> None:
    assert rules.device_kind(agent, model, platform) == kind
    assert rules.acts_by_default(kind) is acts


def test_device_check_fails_offline_warns_degraded_and_names_the_version() -> None:
    args = ("ANDROID", "Pixel", "14", "agent", "1.2")
    ok = rules.device_check("d", True, "online", *args, None)
    assert ok.verdict == "ok" and ok.measured["agent_version"] == "1.2"
    assert ok.measured["os_version"] == "14"
    assert rules.device_check("d", True, "degraded", *args, "tree truncated").verdict == "warn"
    off = rules.device_check("d", False, "offline", *args, "agent link lost")
    assert off.verdict == "fail" and "agent link lost" in off.value
    missing = rules.device_missing("phone", ["sim-android"])
    assert missing.verdict == "fail" and "sim-android" in missing.value


def test_health_flags_warn_and_each_capture_warning_is_its_own_warn() -> None:
    clean = {"health": "online", "truncated_captures": 0, "link": {"bad_frames": 0}}
    (only,) = rules.health_checks(clean, None, None)
    assert only.verdict == "ok"
    flagged = {
        "health": "degraded",
        "truncated_captures": 3,
        "reconnects": 1,
        "link": {"bad_frames": 2, "delta_refusals": 0},
        "capture_warnings": ["cache clear refused by the hidden-API policy", "slow walk"],
    }
    head, *warnings = rules.health_checks(flagged, "tree truncated: depth", None)
    assert head.verdict == "warn"
    assert "truncated captures 3" in head.value and "bad frames from the agent 2" in head.value
    assert "degraded: tree truncated: depth" in head.value
    assert [w.verdict for w in warnings] == ["warn", "warn"]
    assert warnings[0].value == "cache clear refused by the hidden-API policy"
    (unreadable,) = rules.health_checks(None, None, "HTTP 403")
    assert unreadable.verdict == "n/a" and "HTTP 403" in unreadable.value


def test_actions_deltas_screenshots_and_pings() -> None:
    tap = rules.action_check("tap", rules.TAP, 120.0, "DISPATCHED", None, "INPUT username")
    assert tap.verdict == "ok" and tap.measured["round_trip_ms"] == 120
    assert rules.action_check("tap", rules.TAP, 120.0, "FAILED", None, "x").verdict == "fail"
    refused = rules.action_check("type", rules.TYPE, None, None, "NODE_NOT_FOUND: gone", "x")
    assert refused.verdict == "fail" and "NODE_NOT_FOUND" in refused.value
    assert rules.action_check("tap", rules.TAP, 4000.0, "DISPATCHED", None, "x").verdict == "warn"
    assert rules.delta_check(80.0, 5000).verdict == "ok"
    assert rules.delta_check(None, 5000).verdict == "fail"
    assert rules.delta_check(2000.0, 5000).verdict == "warn"
    shot = rules.screenshot_check(300.0, 1080, 2400, 200_000, None)
    assert shot.verdict == "ok" and shot.measured["width"] == 1080
    assert rules.screenshot_check(300.0, 1, 1, 0, None).verdict == "fail"
    assert rules.screenshot_check(None, 0, 0, 0, "SECURE_WINDOW: no").verdict == "warn"
    assert rules.screenshot_check(None, 0, 0, 0, "ACTION_REJECTED: no").verdict == "fail"
    assert rules.ping_check([1.0, 2.0, 3.0]).measured["p50_ms"] == 2
    assert rules.ping_check([2000.0]).verdict == "fail"


def test_hub_check_warns_when_acting_with_an_observer_token() -> None:
    assert rules.hub_check(5.0, "controller", "ws://h/v1", True).verdict == "ok"
    assert rules.hub_check(5.0, "observer", "ws://h/v1", False).verdict == "ok"
    observer = rules.hub_check(5.0, "observer", "ws://h/v1", True)
    assert observer.verdict == "warn" and "controller token" in (observer.fix or "")
    assert rules.hub_check(6000.0, "controller", "ws://h/v1", False).verdict == "fail"


def test_environment_is_not_applicable_off_phones_and_checks_the_tool_on_them() -> None:
    sim = rules.environment_check(rules.SIMULATED, "sim-android", False, None)
    assert sim.verdict == "n/a" and "simulated" in (sim.fix or "")
    host = rules.environment_check(rules.HOST_AGENT, "h", False, None)
    assert host.verdict == "n/a"
    remote = rules.environment_check(rules.ANDROID_PHONE, "R5", True, None)
    assert remote.verdict == "n/a" and "another machine" in (remote.fix or "")
    adb_ok = Probe("adb", True, version="41", serials=("R5",))
    ok = rules.environment_check(rules.ANDROID_PHONE, "R5", False, adb_ok)
    assert ok.verdict == "ok" and ok.measured["version"] == "41" and "lists R5" in ok.value
    other = rules.environment_check(rules.ANDROID_PHONE, "Q1", False, adb_ok)
    assert other.verdict == "warn"
    none = rules.environment_check(rules.ANDROID_PHONE, "R5", False, Probe("adb", True, "41"))
    assert none.verdict == "fail"
    down = Probe("adb", False, problem="ConnectionRefusedError")
    assert rules.environment_check(rules.ANDROID_PHONE, "R5", False, down).verdict == "fail"
    no_extra = Probe("usbmux", False, installed=False, problem="pip install 'mobridge[ios]'")
    iphone = rules.environment_check(rules.IPHONE, "U1", False, no_extra)
    assert iphone.verdict == "warn" and "mobridge[ios]" in (iphone.fix or "")

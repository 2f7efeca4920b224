"""The doctor's environment and private-API sections from facts (sans-I/O), issue 34: what a
person holding a phone must have right, "not measured" where it could not be looked at, and one
next step (a command) for every failure."""

from __future__ import annotations

from bridge.doctor import env_checks, rules
from bridge.doctor.environment import AndroidFacts, HostFacts, IosFacts, Probe
from bridge.doctor.report import Check

HOST = HostFacts(system="Linux 6 (x86_64)", python="3.11.7")


def by_name(checks: list[Check]) -> dict[str, Check]:
    return {c.name: c for c in checks}


def assert_failures_name_a_command(checks: list[Check]) -> None:
    for c in checks:
        assert c.section == "environment"
        if c.verdict == "fail":
            assert c.next and c.next.split()[0] in (
                "adb",
                "pip",
                "pymobiledevice3",
                "sudo",
                "mobridge",
            ), c


def test_an_android_phone_that_has_not_accepted_usb_debugging_is_told_so() -> None:
    """It used to get a hint about serials."""
    probe = Probe("adb", True, version="41", serials=(), unauthorized=("R5CT",))
    checks = by_name(
        env_checks.android_checks(
            "R5CT", probe, AndroidFacts(adb_client="Android Debug Bridge version 1.0.41")
        )
    )
    auth = checks["usb-authorization"]
    assert auth.verdict == "fail" and "Allow USB debugging" in (auth.fix or "")
    assert auth.next == "adb devices"
    assert checks["api-level"].verdict == "n/a" and checks["abi"].verdict == "n/a"
    assert_failures_name_a_command(list(checks.values()))


def test_an_authorized_android_phone_reports_adb_api_level_and_abi() -> None:
    probe = Probe("adb", True, version="41", serials=("R5CT",))
    facts = AndroidFacts(
        adb_client="Android Debug Bridge version 1.0.41", sdk=34, release="14", abi="arm64-v8a"
    )
    checks = by_name(env_checks.android_checks("R5CT", probe, facts))
    assert [checks[n].verdict for n in ("adb", "usb-authorization", "api-level", "abi")] == [
        "ok"
    ] * 4
    assert checks["api-level"].value == "API 34 (Android 14)"
    assert checks["abi"].measured == {"abi": "arm64-v8a"}
    old = by_name(env_checks.android_checks("R5CT", probe, AndroidFacts(sdk=24)))
    assert old["api-level"].verdict == "fail" and old["api-level"].next
    down = by_name(
        env_checks.android_checks("R5CT", Probe("adb", False, problem="refused"), AndroidFacts())
    )
    assert down["adb"].verdict == "fail" and down["adb"].next == "adb start-server"
    assert down["usb-authorization"].verdict == "n/a"


def test_an_iphone_on_ios_17_needs_the_tunnel_developer_mode_and_pymobiledevice3() -> None:
    facts = IosFacts(xcode=None, pymobiledevice3=None, developer_mode=False, tunnel=False)
    checks = by_name(env_checks.ios_checks("17.4", facts, remote=False))
    assert checks["xcode"].verdict == "n/a" and "Mac" in (checks["xcode"].fix or "")
    assert checks["ios"].verdict == "ok"
    assert checks["pymobiledevice3"].next == "pip install 'mobridge[ios]'"
    assert checks["developer-mode"].next == "pymobiledevice3 amfi enable-developer-mode"
    assert checks["tunnel"].next == "sudo pymobiledevice3 remote tunneld"
    assert_failures_name_a_command(list(checks.values()))
    ready = IosFacts(
        xcode="Xcode 16.3 Build version 16E140",
        pymobiledevice3="4.14.16",
        developer_mode=True,
        tunnel=True,
    )
    assert {c.verdict for c in env_checks.ios_checks("17.4", ready, remote=False)} == {"ok"}
    older = by_name(env_checks.ios_checks("16.7", ready, remote=False))
    assert older["tunnel"].verdict == "n/a", "no tunnel before iOS 17"
    remote = env_checks.ios_checks("17.4", None, remote=True)
    assert {c.verdict for c in remote} == {"n/a"}


def test_simulated_and_host_agents_get_this_machine_and_their_runtime() -> None:
    sim = by_name(env_checks.host_checks(rules.SIMULATED, HOST))
    assert sim["host"].verdict == "ok" and sim["phone-tools"].verdict == "n/a"
    java = HostFacts(
        system="Linux", python="3.11", runtime='openjdk version "17.0.9"', runtime_tool="java"
    )
    host = by_name(env_checks.host_checks(rules.HOST_AGENT, java))
    assert host["agent-runtime"].verdict == "ok" and "openjdk" in host["agent-runtime"].value
    missing = HostFacts(system="Linux", python="3.11", runtime=None, runtime_tool="swift")
    assert (
        by_name(env_checks.host_checks(rules.HOST_AGENT, missing))["agent-runtime"].verdict == "n/a"
    )


def test_each_ios_private_api_is_reported_from_the_agents_start_up_warnings() -> None:
    """The fallbacks show before anything acts: the agent probes at start and says so in the
    first capture's warnings."""
    warnings = [
        "snapshot depth cannot be limited: XCAXClient_iOS.defaultParameters missing; "
        "using the public snapshot",
        "apps in front unknown: XCAXClient_iOS.activeApplications missing; "
        "only known bundle ids are checked",
    ]
    checks = by_name(env_checks.private_api_checks("IOS", rules.HOST_AGENT, warnings))
    assert checks["private-api.snapshot-depth"].verdict == "warn"
    assert checks["private-api.apps-in-front"].verdict == "warn"
    assert checks["private-api.idle-wait"].verdict == "ok"
    assert checks["private-api.keyboard-focus"].verdict == "ok"
    assert all(c.section == "private-api" for c in checks.values())
    unread = env_checks.private_api_checks("IOS", rules.IPHONE, None)
    assert {c.verdict for c in unread} == {"n/a"}
    assert env_checks.private_api_checks("ANDROID", rules.ANDROID_PHONE, [])[0].verdict == "ok"
    assert env_checks.private_api_checks("IOS", rules.SIMULATED, [])[0].verdict == "n/a"
    assert env_checks.private_warning(warnings[0]) and not env_checks.private_warning("other")

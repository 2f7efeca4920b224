"""The doctor's report model: holding, exit status, file names, the table, no credentials."""

from __future__ import annotations

import msgspec

from bridge.doctor.report import (
    Check,
    Report,
    exit_status,
    file_name,
    holds,
    redact_url,
    table,
    to_json,
)


def report(*checks: Check) -> Report:
    return Report(
        version="0.1.0",
        created="2026-12-02T03:04:05Z",
        hub="ws://127.0.0.1:8765/v1",
        device="sim-android",
        kind="simulated",
        acting=True,
        holds=holds(checks),
        checks=checks,
    )


def test_a_report_holds_unless_a_check_failed() -> None:
    ok = Check(name="capture", verdict="ok", value="p50 3 ms")
    warn = Check(name="tree", verdict="warn", value="deep", fix="x")
    na = Check(name="clock", verdict="n/a", value="not measured", fix="why")
    assert exit_status(report(ok, warn, na)) == 0
    bad = report(ok, Check(name="delta", verdict="fail", value="none", fix="send it"))
    assert not bad.holds and exit_status(bad) == 1
    assert [c.name for c in bad.failed] == ["delta"]
    lines = table(bad)
    assert any("FAIL" in line and "delta" in line for line in lines)
    assert any("-> send it" in line for line in lines)
    assert lines[-1].startswith("verdict: FAIL (1 failed: delta")
    assert table(report(ok, warn))[-1] == (
        "verdict: ok (1 ok, 1 warnings, 0 not measured, 0 skipped)"
    )


def test_file_names_are_safe_and_dated() -> None:
    assert file_name("sim-android", "2026-12-02T03:04:05Z") == (
        "doctor-sim-android-20261202T030405Z.json"
    )
    assert file_name("../etc/x y", "2026-12-02T03:04:05Z") == "doctor-etc_x_y-20261202T030405Z.json"
    assert file_name(None, "2026-12-02T03:04:05Z").startswith("doctor-no-device-")


def test_urls_lose_credentials_and_the_json_round_trips() -> None:
    assert redact_url("ws://user:secret@hub.local:8765/v1?token=abc#t=1") == (
        "ws://hub.local:8765/v1"
    )
    assert redact_url("wss://[::1]:9/v1") == "wss://[::1]:9/v1"
    data = to_json(report(Check(name="ping", verdict="ok", value="1 ms", measured={"p50_ms": 1})))
    back = msgspec.json.decode(data, type=Report)
    assert back.checks[0].measured == {"p50_ms": 1} and back.texts is None


def test_the_verdict_counts_not_measured_apart_from_ok_and_every_failure_has_a_next_step() -> None:
    """Issue 34: ``ok (12 checks)`` was printed when five were not measured; now the tally
    says so, a report where nothing was measured is "not measured", and a failed check without
    a next step of its own gets one."""
    from bridge.doctor.report import DEFAULT_NEXT, count, finished, overall

    ok = Check(name="capture", verdict="ok", value="p50 3 ms")
    na = [Check(name=f"n{i}", verdict="n/a", value="not measured", fix="why") for i in range(5)]
    counts = count([ok, *na])
    assert (counts.ok, counts.not_measured, counts.fail) == (1, 5, 0)
    assert overall(counts) == "ok"
    assert table(report(ok, *na))[-1] == "verdict: ok (1 ok, 0 warnings, 5 not measured, 0 skipped)"
    assert overall(count(na)) == "not measured"
    assert table(report(*na))[-1].startswith("verdict: not measured (0 ok")
    bad = Check(name="delta", verdict="fail", value="none", fix="send it")
    env = Check(name="adb", verdict="fail", value="x", section="environment", next="adb devices")
    done = finished([ok, bad, env])
    assert [c.name for c in done] == ["adb", "capture", "delta"], "environment first"
    assert [c.next for c in done if c.verdict == "fail"] == ["adb devices", DEFAULT_NEXT]
    lines = table(report(*done))
    assert "environment:" in lines and "chain:" in lines
    assert any(line.strip() == "next: adb devices" for line in lines)

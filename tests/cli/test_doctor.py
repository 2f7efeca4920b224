"""``mobridge doctor`` as a person runs it: against a served hub, embedded, and over the Java
and Swift host agents (real subprocesses, real websockets on 127.0.0.1); the report file,
its privacy (no token, no screen text unless asked), failing checks (exit 1) and mistakes
(exit 2, one line)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.cli.hubproc import ROOT, clean_env, mobridge_command, served_hub
from tests.skips import need_jdk

DEV = "sim-android"
MEASURED_CHECKS = {"hub", "device", "capture", "tree", "health", "ping", "screenshot"}
ACTING_CHECKS = {"tap", "type", "delta"}


def run(tmp_path: Path, *args: str, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    return subprocess.run(
        mobridge_command("doctor", *args),
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**clean_env(runtime), "PYTHONPATH": str(ROOT)},
        timeout=timeout,
        check=False,
    )


def written(directory: Path, device: str) -> tuple[Path, dict[str, Any]]:
    (path,) = directory.glob(f"doctor-{device}-*.json")
    return path, json.loads(path.read_text())


def assert_healthy_report(report: dict[str, Any], kind: str, acting: bool) -> None:
    checks = {c["name"]: c for c in report["checks"]}
    assert report["holds"] is True, report
    assert report["kind"] == kind and report["acting"] is acting
    with_values = [c for c in report["checks"] if c["measured"]]
    assert len(report["checks"]) >= 12 and len(with_values) >= (10 if acting else 7), report
    expected = MEASURED_CHECKS | (ACTING_CHECKS if acting else set())
    assert expected <= {c["name"] for c in with_values}
    assert all(checks[name]["verdict"] in ("ok", "warn") for name in expected), checks
    assert checks["capture"]["measured"]["samples"] == 20
    assert checks["capture"]["measured"]["fresh"] is True
    assert 0 < checks["capture"]["measured"]["p50_ms"] <= checks["capture"]["measured"]["p99_ms"]
    assert checks["tree"]["measured"]["nodes"] > 3 and checks["tree"]["measured"]["depth"] >= 2
    assert checks["screenshot"]["measured"]["bytes"] > 0
    assert checks["device"]["measured"]["agent_version"]
    assert checks["environment"]["verdict"] == "n/a"
    assert checks["clock"]["verdict"] == "n/a"
    # Issue 34: the environment section, the private-API probes, an honest tally, the schema.
    sections = [c["section"] for c in report["checks"]]
    assert sections == sorted(sections, key=["environment", "private-api", "chain"].index)
    assert checks["host"]["verdict"] == "ok" and "Python" in checks["host"]["value"]
    if kind == "host-agent":
        assert checks["agent-runtime"]["verdict"] == "ok", checks["agent-runtime"]
    else:
        assert checks["phone-tools"]["verdict"] == "n/a"
    assert any(c["section"] == "private-api" for c in report["checks"])
    counts = report["counts"]
    assert report["verdict"] == "ok"
    assert counts["not_measured"] == sum(1 for c in report["checks"] if c["verdict"] == "n/a")
    assert counts["ok"] + counts["warn"] + counts["not_measured"] + counts["skipped"] == len(
        report["checks"]
    )
    validate_report(report)
    if acting:
        assert checks["type"]["measured"]["restored"] is True
        assert checks["delta"]["measured"]["latency_ms"] > 0


def validate_report(report: dict[str, Any]) -> None:
    """The report validates against protocol/doctor/doctor-report.schema.json, and every
    failed check names a next step."""
    import jsonschema

    schema = json.loads((ROOT / "protocol" / "doctor" / "doctor-report.schema.json").read_text())
    jsonschema.validate(report, schema)
    for check in report["checks"]:
        if check["verdict"] == "fail":
            assert check["next"], check


def test_doctor_over_a_served_hub_writes_a_private_report(tmp_path: Path) -> None:
    with served_hub(tmp_path, "--sim-scene", "login") as hub:
        token = (hub.runtime_dir / "mobridge" / f"hub-{hub.port}.token").read_text().strip()
        screen = json.loads(hub.run("screen", DEV, "--json").stdout)
        texts = {
            t
            for n in screen["snapshot"]["nodes"]
            for t in (n.get("text"), n.get("label"), n.get("hint"))
            if t and len(t) >= 4
        }
        assert {"Username", "Sign in"} <= texts
        out = tmp_path / "reports"
        out.mkdir()
        proc = hub.run("doctor", DEV, "--json", "-o", str(out), timeout=180)
        assert proc.returncode == 0, (proc.stdout, proc.stderr)
        report = json.loads(proc.stdout)
        assert_healthy_report(report, "simulated", acting=True)
        path, on_disk = written(out, DEV)
        assert on_disk == report
        raw = path.read_text()
        assert token not in raw and "Bearer" not in raw
        assert not [t for t in texts if t in raw], "screen texts only with --include-texts"
        assert report["texts"] is None
        # The field the doctor typed into has its old (empty) value back.
        after = json.loads(hub.run("screen", DEV, "--json").stdout)
        user = next(
            n
            for n in after["snapshot"]["nodes"]
            if (n.get("resourceId") or "").endswith("username")
        )
        assert not user.get("value")

        proc = hub.run("doctor", "--read-only", "--include-texts", "-o", str(out / "r.json"))
        assert proc.returncode == 0, (proc.stdout, proc.stderr)
        lines = proc.stdout.splitlines()
        assert lines[0].startswith("mobridge doctor ") and "read-only" in lines[0]
        assert any(line.split()[:2] == ["ok", "capture"] for line in lines), lines
        assert lines[-1].startswith("verdict: ok")
        shown = json.loads((out / "r.json").read_text())
        assert {"Username", "Sign in"} <= set(shown["texts"])
        assert token not in (out / "r.json").read_text()
        assert {c["name"]: c["verdict"] for c in shown["checks"]}["tap"] == "n/a"

        wrong = hub.run("doctor", DEV, "--token", "not-the-token", "-o", str(out / "w.json"))
        assert wrong.returncode == 1, (wrong.stdout, wrong.stderr)
        assert "FAILED hub" in wrong.stderr and "refused the token" in wrong.stderr
        assert "not-the-token" not in (out / "w.json").read_text()
        missing = hub.run("doctor", "no-such-phone", "-o", str(out))
        assert missing.returncode == 1 and "FAILED device" in missing.stderr
        assert "sim-android" in missing.stderr


def test_embedded_doctor_on_both_simulated_platforms(tmp_path: Path) -> None:
    proc = run(tmp_path, "--embedded", "--json")
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    assert_healthy_report(json.loads(proc.stdout), "simulated", acting=True)
    written(tmp_path, DEV)
    ios = run(tmp_path, "--embedded", "--sim-platform", "ios", "--json", "--read-only")
    assert ios.returncode == 0, (ios.stdout, ios.stderr)
    report = json.loads(ios.stdout)
    assert report["device"] == "sim-ios"
    assert_healthy_report(report, "simulated", acting=False)


def test_no_hub_is_a_failed_check_not_a_crash(tmp_path: Path) -> None:
    proc = run(tmp_path, DEV, "--url", "ws://127.0.0.1:9/v1", "--token", "t")
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "FAILED hub" in proc.stderr and "no hub at ws://127.0.0.1:9/v1" in proc.stderr
    _, report = written(tmp_path, DEV)
    assert [c["verdict"] for c in report["checks"]][:2] == ["fail", "skip"]
    assert report["verdict"] == "fail" and report["checks"][0]["next"] == "mobridge serve"
    validate_report(report)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("--samples", "0"), "--samples 0"),
        (("--url", "http://127.0.0.1:8765"), "use ws://127.0.0.1:8765/v1"),
        (("--agent", "ws://127.0.0.1:1"), "add --embedded"),
        (("--embedded", "--agent", "http://x"), "expected ws://HOST:PORT"),
        (("--embedded", "--url", "ws://127.0.0.1:1/v1"), "not both"),
        (("--act", "--read-only"), "not allowed with argument"),
        (("-o", "/no/such/dir/r.json"), "does not exist"),
        (("--embedded", "--sim-scene", "nowhere"), "choose one of"),
    ],
)
def test_mistakes_exit_2_with_one_line(tmp_path: Path, args: tuple[str, ...], says: str) -> None:
    proc = run(tmp_path, *args, timeout=60)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert len(proc.stderr.strip().splitlines()) == 1 and says in proc.stderr, proc.stderr
    assert not list(tmp_path.glob("doctor-*.json"))


@need_jdk
def test_doctor_over_the_java_host_agent(tmp_path: Path) -> None:
    from tests.e2e.test_java_agent import AGENT_TOKEN, java_agent

    with java_agent() as (_proc, url):
        proc = run(tmp_path, "--embedded", "--agent", url, "--agent-token", AGENT_TOKEN, "--json")
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    report = json.loads(proc.stdout)
    assert_healthy_report(report, "host-agent", acting=True)
    written(tmp_path, report["device"])


def test_doctor_over_the_swift_host_agent(tmp_path: Path) -> None:
    from tests.devices.ios_fakes.swift_host import swift_agent

    token = "swift-doctor-token"
    with swift_agent(token) as (_proc, url):
        proc = run(tmp_path, "--embedded", "--agent", url, "--agent-token", token, "--json")
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    report = json.loads(proc.stdout)
    assert_healthy_report(report, "host-agent", acting=True)
    checks = {c["name"]: c for c in report["checks"]}
    assert checks["device"]["measured"]["platform"] == "IOS"
    # The Swift host has XCTest's private entry points modelled as present: no fallback.
    private = [c for c in report["checks"] if c["section"] == "private-api"]
    assert len(private) == 4 and {c["verdict"] for c in private} == {"ok"}, private
    written(tmp_path, report["device"])


@need_jdk
def test_an_offline_device_fails_the_device_check(tmp_path: Path) -> None:
    from tests.e2e.test_java_agent import AGENT_TOKEN, java_agent

    with java_agent() as (proc, url):
        with served_hub(tmp_path, "--no-sim", "--agent", url, "--agent-token", AGENT_TOKEN) as hub:
            for _ in range(100):  # the hub links the agent
                listed = json.loads(hub.run("devices", "--json").stdout)
                if any(d["id"] == "host-fake" and d["online"] for d in listed["devices"]):
                    break
            else:
                raise AssertionError(f"the Java agent never came online: {listed}")
            proc.terminate()
            proc.wait(10)
            out = tmp_path / "reports"
            out.mkdir()
            for _ in range(50):  # the hub notices the link is gone
                offline = hub.run("doctor", "host-fake", "--read-only", "-o", str(out / "r.json"))
                if "FAILED device" in offline.stderr:
                    break
            assert offline.returncode == 1, (offline.stdout, offline.stderr)
            assert "FAILED device: offline" in offline.stderr
            report = json.loads((out / "r.json").read_text())
            verdicts = {c["name"]: c["verdict"] for c in report["checks"]}
            assert verdicts["device"] == "fail" and verdicts["capture"] == "skip"


def test_doctor_shows_private_api_fallbacks_before_acting(tmp_path: Path) -> None:
    """Issue 34: a private-API fallback showed only after an input; the agent now probes its
    private entry points at start, so a read-only doctor sees every fallback."""
    from tests.devices.ios_fakes.swift_host import swift_agent

    token = "swift-doctor-token"
    with swift_agent(token, 0, "--without-private-api") as (_proc, url):
        proc = run(
            tmp_path, "--embedded", "--agent", url, "--agent-token", token, "--json", "--read-only"
        )
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    report = json.loads(proc.stdout)
    assert report["acting"] is False
    private = {c["name"]: c for c in report["checks"] if c["section"] == "private-api"}
    assert set(private) == {
        "private-api.snapshot-depth",
        "private-api.idle-wait",
        "private-api.apps-in-front",
        "private-api.keyboard-focus",
    }
    assert {c["verdict"] for c in private.values()} == {"warn"}, private
    assert not [c for c in report["checks"] if c["name"].startswith("capture-warning-")]
    validate_report(report)

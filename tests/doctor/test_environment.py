"""The adb probe against the real adb server adbutils ships (on a private port), and against
no server at all (reported, never started); the usbmux probe never raises."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from bridge.doctor import rules
from bridge.doctor.environment import probe_adb, probe_usbmux

pytestmark = pytest.mark.anyio


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def adb_binary() -> Path:
    from adbutils import adb_path  # type: ignore[import-untyped]

    path = Path(adb_path())
    if not path.exists():
        pytest.skip("adbutils ships no adb binary for this platform")
    return path


@pytest.fixture
def adb_server(adb_binary: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    port = free_port()
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(port))
    subprocess.run([str(adb_binary), "-P", str(port), "start-server"], check=True, timeout=60)
    try:
        yield port
    finally:
        subprocess.run([str(adb_binary), "-P", str(port), "kill-server"], timeout=30, check=False)


def test_no_adb_server_is_reported_and_not_started(monkeypatch: pytest.MonkeyPatch) -> None:
    port = free_port()
    monkeypatch.setenv("ANDROID_ADB_SERVER_PORT", str(port))
    probe = probe_adb()
    assert not probe.reachable and f"127.0.0.1:{port}" in (probe.problem or "")
    with pytest.raises(OSError):  # nothing listens there now either
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    check = rules.environment_check(rules.ANDROID_PHONE, "R5", False, probe)
    assert check.verdict == "fail" and "adb devices" in (check.fix or "")


def test_a_real_adb_server_answers_its_version_and_lists_no_phone(adb_server: int) -> None:
    probe = probe_adb()
    assert probe.reachable, probe.problem
    assert probe.version is not None and int(probe.version) > 30
    assert probe.serials == ()
    check = rules.environment_check(rules.ANDROID_PHONE, "R5", False, probe)
    assert check.verdict == "fail" and "no phone is connected" in (check.fix or "")


async def test_usbmux_probe_reports_instead_of_raising() -> None:
    probe = await probe_usbmux()
    assert probe.tool == "usbmux"
    assert probe.reachable or probe.problem  # no usbmuxd here: a reason, not an exception

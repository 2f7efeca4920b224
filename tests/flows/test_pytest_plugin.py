"""The pytest plugin (``pytest --mobridge-url ...``), run as a user would: a real pytest
subprocess in a directory of its own, loading the plugin through its ``pytest11`` entry
point, against a real hub. Its device fixture holds an exclusive lease during each test."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest

from bridge.client import connect
from tests.hub.hubfixture import CONTROLLER, running_hub

pytestmark = pytest.mark.anyio

USER_TESTS = """
from bridge.client import build_query
from bridge.wire.enums import VerificationResult


def test_sign_in_screen(mobridge_device, mobridge_hub):
    mobridge_device.tap(build_query(text="Login"))
    assert mobridge_device.wait_for_screen("login").result is VerificationResult.CONDITION_MET
    summary = next(d for d in mobridge_hub.devices() if d.id == mobridge_device.id)
    assert summary.lease is not None and summary.lease.mode == "exclusive"
    assert summary.lease.holder_names == ("pytest",)


def test_each_test_starts_from_the_relaunched_app(mobridge_device):
    assert mobridge_device.wait_for_screen("menu", 2000).result is VerificationResult.CONDITION_MET
"""


def run_pytest(directory: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MOBRIDGE_", "PYTEST_"))}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        capture_output=True,
        text=True,
        cwd=directory,
        env=env,
        timeout=120,
        check=False,
    )


async def test_the_device_fixture_holds_a_lease_and_acts(tmp_path: Path) -> None:
    (tmp_path / "test_app.py").write_text(USER_TESTS)
    async with running_hub() as rh:
        done = await anyio.to_thread.run_sync(
            lambda: run_pytest(
                tmp_path,
                "--mobridge-url",
                rh.url,
                "--mobridge-token",
                CONTROLLER,
                "--mobridge-app",
                "dev.mobridge.demo",
            )
        )
        assert done.returncode == 0, done.stdout + done.stderr
        assert "2 passed" in done.stdout
        async with connect(rh.url, token=CONTROLLER, name="check") as hub:
            summary = next(d for d in await hub.devices() if d.id == rh.device_id)
        assert summary.lease is None  # released after the last test


def test_without_a_hub_the_fixture_fails_and_says_what_to_pass(tmp_path: Path) -> None:
    (tmp_path / "test_app.py").write_text(USER_TESTS)
    done = run_pytest(tmp_path)
    assert done.returncode == 1
    assert "mobridge_hub needs a hub: pass --mobridge-url" in done.stdout
    assert "2 errors" in done.stdout

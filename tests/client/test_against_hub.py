"""The client against the real hub (``mobridge serve`` on the simulated device, a subprocess).

The fake hub tests the client's mechanics; these check that the client and the real hub
agree: a login through the demo app with find / type (value and secret reference) / tap /
wait, while a watch reconstructs from deltas exactly what ``snapshot.get`` returns; and the
client's refusal to pick one of two "Continue" buttons.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from bridge.client import AmbiguousError, build_query, connect
from bridge.wire.enums import VerificationResult

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "client-e2e-token"
PACKAGE = "dev.mobridge.demo"

pytestmark = pytest.mark.anyio


@pytest.fixture
def hub_url(request: pytest.FixtureRequest) -> Iterator[str]:
    scene = getattr(request, "param", "login")
    env = {**os.environ, "MOBRIDGE_SECRET_DEMO_PASSWORD": "s3cret-value"}
    command = [sys.executable, "-m", "bridge.cli", "serve", "--port", "0", "--token", TOKEN]
    process = subprocess.Popen(
        [*command, "--sim-scene", scene],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    found: list[str] = []

    def read_url() -> None:
        assert process.stdout is not None
        for line in process.stdout:
            if "listening on " in line:
                found.append(line.split("listening on ", 1)[1].strip())
                return

    reader = threading.Thread(target=read_url, daemon=True)
    reader.start()
    reader.join(30)
    try:
        assert found, "the hub did not print its URL within 30 s"
        yield found[0]
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def test_login_with_a_watch_that_matches_snapshot_get(hub_url: str) -> None:
    with anyio.fail_after(60):
        async with connect(hub_url, token=TOKEN, name="client-e2e") as hub:
            (summary,) = await hub.devices()
            assert summary.online
            device = hub.device(summary.id)
            async with device.watch() as watch:
                assert (
                    await device.wait_for_screen("login")
                ).result is VerificationResult.CONDITION_MET
                await device.type_text(build_query(resource_id=f"{PACKAGE}:id/username"), "demo")
                await device.type_text(
                    build_query(resource_id=f"{PACKAGE}:id/password"),
                    value_ref="secret://demo_password",
                )
                await device.tap(build_query(text="Sign in"))
                home = await device.wait_for_screen("home")
                assert home.result is VerificationResult.CONDITION_MET, home.evidence
                current = (await device.snapshot()).snapshot
                async for update in watch:
                    if update.snapshot.snapshot_id == current.snapshot_id:
                        assert update.snapshot == current
                        break
                assert watch.tracker.desyncs == 0 and watch.tracker.deltas_applied > 0
                assert "s3cret-value" not in repr(current)


@pytest.mark.parametrize("hub_url", ["ambiguous"], indirect=True)
async def test_two_continue_buttons_are_refused_with_both_candidates(hub_url: str) -> None:
    with anyio.fail_after(60):
        async with connect(hub_url, token=TOKEN) as hub:
            (summary,) = await hub.devices()
            device = hub.device(summary.id)
            await device.wait_for_screen("ambiguous")
            with pytest.raises(AmbiguousError) as caught:
                await device.tap(build_query(text="Continue"))
            assert len(caught.value.candidates) == 2
            # decided by the hub: candidate refs, both named in the message
            assert caught.value.matches == ()
            for ref in caught.value.candidates:
                assert f"BUTTON 'Continue' ({ref.node_id})" in caught.value.envelope.message

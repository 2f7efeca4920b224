"""Idempotency keys survive a crash: ``kill -9`` a real ``mobridge serve`` during one keyed
action and after another, restart it on the same journal, retry both keys. The finished one
answers its recorded result, the interrupted one is refused (OUTCOME_UNKNOWN), and the device
(a simulated phone in this process, outside the killed hub) saw each action exactly once."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import anyio
import pytest

from bridge.client import HubError, build_query, connect
from bridge.devices.sim import SimConfig, SimDevice
from bridge.wire.action import ActionRequest, Verify
from bridge.wire.conditions import Present
from bridge.wire.enums import ActionVerb, ErrorCode, VerificationPolicy
from tests.cli.hubproc import LISTENING, ROOT, clean_env, mobridge_command

pytestmark = pytest.mark.anyio
CONTROL = "restart-test-controller-token"
AGENT = "restart-test-agent-token"


def start_hub(tmp_path: Path, agent_port: int, db: Path) -> tuple[subprocess.Popen[str], int]:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    process = subprocess.Popen(
        mobridge_command(
            "serve",
            "--port",
            "0",
            "--no-sim",
            "--no-dashboard",
            "--token",
            CONTROL,
            "--agent",
            f"ws://127.0.0.1:{agent_port}",
            "--agent-token",
            AGENT,
            "--journal",
            str(db),
        ),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        cwd=ROOT,
        env=clean_env(runtime),
    )
    assert process.stdout is not None
    port = None
    for _ in range(50):
        line = process.stdout.readline()
        if not line:
            break
        if (found := LISTENING.match(line.rstrip("\n"))) is not None:
            port = int(found.group(1))
        if line.startswith("devices:"):
            break
    if port is None:
        process.kill()
        raise AssertionError("the hub did not start")
    return process, port


def tap(text: str, key: str, verify: Verify | None = None) -> tuple[ActionRequest, object]:
    return ActionRequest(action=ActionVerb.CLICK, idempotency_key=key, verify=verify), build_query(
        text=text
    )


async def test_after_kill_9_a_finished_key_answers_and_an_interrupted_one_is_refused(
    tmp_path: Path,
) -> None:
    db = tmp_path / "journal.sqlite3"
    sim = SimDevice(SimConfig(token=AGENT, port=0, scene="settings", device_id="sim-restart"))
    never = Verify(
        policy=VerificationPolicy.NODE_APPEARED,
        expected=Present(query=build_query(text="Never shown anywhere")),
        timeout_ms=30_000,
    )
    done_req, done_query = tap("Bluetooth", "key-finished")
    slow_req, slow_query = tap("Wi-Fi", "key-interrupted", never)
    async with anyio.create_task_group() as tg:
        agent_port = await tg.start(sim.serve)
        assert sim.device.toggles == {"wifi": True, "bluetooth": False, "dark": False}
        process, port = await anyio.to_thread.run_sync(start_hub, tmp_path, agent_port, db)
        try:
            async with connect(f"ws://127.0.0.1:{port}/v1", token=CONTROL, name="t") as hub:
                dev = hub.device("sim-restart")
                first = await dev.act(done_req, query=done_query)  # type: ignore[arg-type]
                assert sim.device.toggles["bluetooth"] is True

                async def slow() -> None:
                    try:
                        await dev.act(slow_req, query=slow_query)  # type: ignore[arg-type]
                    except Exception as exc:
                        errors.append(exc)  # the hub dies under it

                errors: list[Exception] = []
                tg.start_soon(slow)
                with anyio.fail_after(10):
                    while sim.device.toggles["wifi"]:  # dispatched: the device did it
                        assert not errors, errors
                        await anyio.sleep(0.01)
                await anyio.sleep(0.2)  # well inside the 30 s verify wait
                os.kill(process.pid, signal.SIGKILL)
                await anyio.to_thread.run_sync(process.wait)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
        assert process.returncode == -signal.SIGKILL
        process, port = await anyio.to_thread.run_sync(start_hub, tmp_path, agent_port, db)
        try:
            async with connect(f"ws://127.0.0.1:{port}/v1", token=CONTROL, name="t2") as hub:
                dev = hub.device("sim-restart")
                with anyio.fail_after(10):
                    while not (await hub.devices())[0].online:
                        await anyio.sleep(0.05)
                again = await dev.act(done_req, query=done_query)  # type: ignore[arg-type]
                assert again == first  # the recorded result, not a new run
                with pytest.raises(HubError) as refused:
                    await dev.act(slow_req, query=slow_query)  # type: ignore[arg-type]
                assert refused.value.envelope.error is ErrorCode.ACTION_REJECTED
                assert "OUTCOME_UNKNOWN" in refused.value.envelope.message
                assert "restarted while this action ran" in refused.value.envelope.message
                # Asked again, still refused: never run.
                with pytest.raises(HubError):
                    await dev.act(slow_req, query=slow_query)  # type: ignore[arg-type]
                # Each action reached the device exactly once: one flip each.
                assert sim.device.toggles == {"wifi": False, "bluetooth": True, "dark": False}
                # A new key runs as usual.
                fresh_req, fresh_query = tap("Bluetooth", "key-new")
                await dev.act(fresh_req, query=fresh_query)  # type: ignore[arg-type]
                assert sim.device.toggles["bluetooth"] is False
        finally:
            process.terminate()
            await anyio.to_thread.run_sync(process.wait)
        tg.cancel_scope.cancel()

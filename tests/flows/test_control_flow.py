"""Control flow on the simulated device: optional steps, when (visible, notVisible, platform,
true), repeat (times, while), retry from the block's start, runFlow with inline commands,
onFlowStart / onFlowComplete (teardown after a failure and after a timeout), the per-test
timeout, expectRefusal (passing only on the named refusal), and the device-level steps
(points, keys, typing into the focus, orientation)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

import anyio
import pytest

from bridge.client import connect
from bridge.flows.compile import load_suite
from bridge.flows.report import SuiteReport
from bridge.flows.suite import SuiteOptions, run_suite
from bridge.hub.app import AgentTarget
from tests.hub.hubfixture import CONTROLLER, running_hub
from tests.hub.scripted_agent import TOKEN, serve_scripted

pytestmark = pytest.mark.anyio
HEADER = "appId: dev.mobridge.demo\n---\n"


async def run_flows(tmp: Path, env: dict[str, str] | None = None, **files: str) -> SuiteReport:
    for name, text in files.items():
        (tmp / f"{name}.yaml").write_text(text)
    flows = load_suite([str(tmp)], env or {}, {})
    async with running_hub() as rh, connect(rh.url, token=CONTROLLER, name="runner") as hub:
        return await run_suite(hub, flows, [rh.device_id], SuiteOptions())


async def test_optional_when_repeat_retry_and_inline_commands(tmp_path: Path) -> None:
    report = await run_flows(
        tmp_path,
        {"FLAG": "false"},
        a_optional=HEADER
        + "- tap: {text: Maybe later, optional: true}\n"
        + "- tap: Nowhere\n  optional: true\n"
        + "- tap: Settings\n"
        + "- tap: {text: Bluetooth, when: {platform: ios}}\n"
        + "- tap:\n    text: Bluetooth\n    when: {true: '${FLAG}'}\n"
        + "- assertState: {element: Bluetooth, checked: false}\n"
        + "- runFlow:\n    when: {visible: Wi-Fi, notVisible: Login}\n"
        + "    commands:\n      - tap: Dark mode\n"
        + "- assertState: {element: Dark mode, checked: true}\n"
        + "- runFlow:\n    when: {visible: Login}\n    commands:\n      - tap: Login\n",
        b_repeat=HEADER
        + "- tap: Settings\n"
        + "- repeat:\n    times: 3\n    commands:\n      - tap: Bluetooth\n"
        + "- assertState: {element: Bluetooth, checked: true}\n"
        + "- pressKey: back\n- tap: List\n"
        + "- repeat:\n    while: {notVisible: Item 30}\n    times: 20\n"
        + "    commands:\n      - swipe: up\n"
        + "- assertVisible: Item 30\n",
        c_retry=HEADER
        + "- tap: Settings\n"
        + "- retry:\n    maxRetries: 2\n    commands:\n      - tap: Wi-Fi\n"
        + "      - assertState: {element: Wi-Fi, checked: true, timeoutMs: 300}\n",
        d_retry_gives_up=HEADER
        + "- retry:\n    maxRetries: 1\n    commands:\n"
        + "      - assertVisible: {text: Never, timeoutMs: 200}\n",
    )
    optional, repeat, retry, gives_up = report.tests
    assert optional.status == "passed", optional.failure
    statuses = [s.status for s in optional.steps]
    assert statuses == [
        "tolerated",
        "tolerated",
        "passed",
        "skipped",
        "skipped",
        "passed",
        "passed",
        "passed",
        "skipped",
    ]
    assert "NODE_NOT_FOUND" in (optional.steps[0].message or "")
    assert optional.steps[3].message == "when (platform ios) does not hold"
    assert optional.steps[4].message == "when (true is false) does not hold"
    assert repeat.status == "passed", repeat.failure
    assert repeat.steps[1].message == "ran 3 times"
    assert (repeat.steps[5].message or "").startswith("ran ")
    assert retry.status == "passed", retry.failure
    assert (retry.steps[1].message or "").startswith("passed on attempt 2 of 3")
    assert gives_up.status == "failed" and gives_up.failure is not None
    assert "failed 2 attempts (maxRetries 1)" in (gives_up.steps[0].message or "")
    assert gives_up.failure.kind == "assertVisible"


async def test_hooks_run_even_after_a_failure_or_a_timeout(tmp_path: Path) -> None:
    report = await run_flows(
        tmp_path,
        a_hooks="appId: dev.mobridge.demo\nonFlowStart:\n  - tap: Settings\n"
        + "onFlowComplete:\n  - pressKey: back\n  - assertScreen: menu\n---\n"
        + "- assertScreen: settings\n- assertVisible: {text: Nope, timeoutMs: 200}\n",
        b_timeout="appId: dev.mobridge.demo\ntimeout: 1s\nonFlowComplete:\n"
        + "  - tap: Settings\n---\n"
        + "- waitFor: {condition: {kind: screen, name: home}, timeoutMs: 8000}\n",
    )
    hooks, timed = report.tests
    assert hooks.status == "failed" and hooks.failure is not None
    assert [s.kind for s in hooks.setup] == ["reset", "tap"]
    assert [s.status for s in hooks.teardown] == ["passed", "passed"]
    assert hooks.failure.kind == "assertVisible"
    assert timed.status == "failed" and timed.failure is not None
    assert timed.failure.kind == "timeout" and "timed out after 1 s" in timed.failure.message
    assert [s.status for s in timed.teardown] == ["passed"]
    assert timed.duration_ms < 6000


async def test_expect_refusal_passes_only_on_that_refusal(tmp_path: Path) -> None:
    report = await run_flows(
        tmp_path,
        a_expected=HEADER
        + "- tap: Ambiguous\n"
        + "- expectRefusal:\n    code: AMBIGUOUS_MATCH\n    commands:\n      - tap: Continue\n"
        + "      - tap: Never runs\n"
        + "- tap: {text: Continue, within: Pro plan}\n",
        b_wrong_code=HEADER
        + "- tap: Ambiguous\n"
        + "- expectRefusal:\n    code: NODE_NOT_FOUND\n    commands:\n      - tap: Continue\n",
        c_no_refusal=HEADER
        + "- expectRefusal:\n    code: AMBIGUOUS_MATCH\n    commands:\n      - tap: Login\n",
    )
    expected, wrong, none = report.tests
    assert expected.status == "passed", expected.failure
    block = expected.steps[1]
    assert block.refusal is not None and block.refusal.code == "AMBIGUOUS_MATCH"
    assert len(block.refusal.candidates) == 2
    assert [s.status for s in block.steps] == ["refused", "skipped"]
    assert wrong.status == "failed" and wrong.failure is not None
    assert "expected the hub to refuse with NODE_NOT_FOUND" in wrong.steps[1].message  # type: ignore[operator]
    assert "(AMBIGUOUS_MATCH)" in (wrong.steps[1].message or "")
    assert none.status == "failed"
    assert (
        none.steps[0].message
        == "expected the hub to refuse with AMBIGUOUS_MATCH; every step passed"
    )


async def test_device_level_steps(tmp_path: Path) -> None:
    report = await run_flows(
        tmp_path,
        a_points=HEADER
        + "- tap: Game\n"
        + "- tap: {point: '540,1200'}\n- assertVisible: Tapped at (540, 1200)\n"
        + "- doubleTap: '540,1300'\n- assertVisible: Double-tapped at (540, 1300)\n"
        + "- longPress: {point: '500,1250', holdMs: 300}\n"
        + "- assertVisible: Long-pressed at (500, 1250) for 300 ms\n"
        + "- swipe: {direction: up, from: '540,1800'}\n"
        + "- assertVisible: {text: 'Swiped from (540, 1800)', match: CONTAINS}\n"
        + "- pressKey: volume_up\n"
        + "- setOrientation: landscape\n- setOrientation: portrait\n",
        b_focus=HEADER
        + "- tap: Login\n- tap: Username\n"
        + "- inputText: {text: dem}\n- pressKey: {key: del}\n- inputText: {text: mo}\n"
        + "- assertValue: {element: {id: username}, equals: demo}\n"
        + "- pressKey: tab\n- inputText: {secret: 'secret://demo_password', optional: true}\n"
        + "- terminateApp: {approve: true}\n"
        + "- assertNotVisible: Username\n",
    )
    points, focus = report.tests
    assert points.status == "passed", points.failure
    assert focus.status == "passed", focus.failure
    assert focus.steps[-2].action_result is not None


async def test_clear_state_resets_what_relaunch_keeps(tmp_path: Path) -> None:
    report = await run_flows(
        tmp_path,
        a_toggle=HEADER
        + "- tap: Settings\n- tap: Bluetooth\n- assertState: {element: Bluetooth, checked: true}\n",
        b_relaunch="appId: dev.mobridge.demo\nreset: relaunch\n---\n"
        + "- tap: Settings\n- assertState: {element: Bluetooth, checked: true, timeoutMs: 500}\n",
        c_clear="appId: dev.mobridge.demo\nreset: clearState\n---\n"
        + "- tap: Settings\n- assertState: {element: Bluetooth, checked: false, timeoutMs: 500}\n",
        d_step=HEADER
        + "- tap: Settings\n- tap: Bluetooth\n- clearState\n- tap: Settings\n"
        + "- assertState: {element: Bluetooth, checked: false, timeoutMs: 500}\n",
    )
    toggle, relaunch, clear, step = report.tests
    assert toggle.status == "passed", toggle.failure
    assert relaunch.status == "passed", relaunch.failure  # relaunch keeps the app's state
    assert clear.status == "passed", clear.failure
    assert clear.setup[0].source == "reset: clearState dev.mobridge.demo"
    assert step.status == "passed", step.failure


async def test_clear_state_on_a_device_that_cannot_clear_fails_with_the_hubs_reason(
    tmp_path: Path,
) -> None:
    """The agent can terminate but not clear: the reset fails there, no terminate in its place."""
    (tmp_path / "bank.yaml").write_text(
        "appId: com.example.bank\nreset: clearState\n---\n- assertVisible: Transfer\n"
    )
    flows = load_suite([str(tmp_path)], {}, {})
    async with anyio.create_task_group() as tg:
        port = await tg.start(
            partial(serve_scripted, capabilities=("tree", "node_action", "app", "terminate"))
        )
        agent = AgentTarget(f"ws://127.0.0.1:{port}", TOKEN)
        async with (
            running_hub(sim=False, agents=[agent]) as rh,
            connect(rh.url, token=CONTROLLER, name="runner") as hub,
        ):
            report = await run_suite(hub, flows, [rh.device_id], SuiteOptions())
        tg.cancel_scope.cancel()
    (test,) = report.tests
    assert test.status == "failed"
    assert test.failure is not None
    said = test.failure.message
    assert "clearState needs the hub to clear com.example.bank's data (app.clear)" in said
    assert "ACTION_UNSUPPORTED" in said and "does not offer clear" in said
    assert all(s.status != "passed" for s in test.steps)

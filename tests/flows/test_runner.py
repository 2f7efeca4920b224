"""What each kind of step does on the simulated device, and how a failing step is reported:
scrolling until present (and giving up), verify, waits on hub conditions, header setup,
swipes, the screenshot at a failure, skipped steps after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.client import connect
from bridge.flows.compile import load_suite
from bridge.flows.report import SuiteReport
from bridge.flows.suite import SuiteOptions, run_suite
from tests.hub.hubfixture import CONTROLLER, running_hub

pytestmark = pytest.mark.anyio
HEADER = "appId: dev.mobridge.demo\n---\n"


async def run_flows(tmp: Path, report_dir: Path | None = None, **files: str) -> SuiteReport:
    for name, text in files.items():
        (tmp / f"{name}.yaml").write_text(text)
    flows = load_suite([str(tmp)], {}, {})
    async with running_hub() as rh, connect(rh.url, token=CONTROLLER, name="runner") as hub:
        return await run_suite(hub, flows, [rh.device_id], SuiteOptions(report_dir=report_dir))


async def test_scrolling_until_present_gives_up_with_a_reason(tmp_path: Path) -> None:
    report = await run_flows(
        tmp_path,
        a_too_few=HEADER
        + "- tap: List\n- scrollUntilVisible: {element: Item 57, maxScrolls: 2}\n- tap: Item 57\n",
        b_list_end=HEADER
        + "- tap: List\n"
        + "- scrollUntilVisible: {element: Item 999, in: {id: list}, maxScrolls: 40}\n",
        c_swipe=HEADER
        + "- tap: List\n- swipe: up\n- swipe: {direction: up, in: {role: LIST}}\n"
        + "- assertVisible: Item 21\n- swipe: down\n- assertVisible: Item 11\n",
    )
    few, end, swipe = report.tests
    assert few.status == "failed" and few.failure is not None
    assert "'Item 57' not found after 2 scrolls (maxScrolls)" in few.failure.message
    assert [s.status for s in few.steps] == ["passed", "failed", "skipped"]
    assert end.status == "failed" and end.failure is not None
    assert "'Item 999' not found after 19 scrolls; the next scroll failed" in end.failure.message
    assert swipe.status == "passed", swipe.failure


async def test_verify_waits_and_header_setup(tmp_path: Path) -> None:
    report = await run_flows(
        tmp_path,
        a_verify=HEADER
        + "- tap: Settings\n"
        + "- tap:\n    text: Bluetooth\n    verify:\n      policy: NODE_STATE_CHANGED\n"
        + "- assertState: {element: Bluetooth, checked: true}\n"
        + "- tap: {text: Bluetooth}\n"
        + "- waitFor:\n    condition:\n      kind: allOf\n      conditions:\n"
        + "        - {kind: screen, name: settings}\n"
        + "        - {kind: state, query: Bluetooth, state: {checked: false}}\n",
        b_setup="appId: dev.mobridge.demo\nsetup:\n  - tap: Dialog\n---\n- assertScreen: dialog\n",
        c_not_met=HEADER
        + "- tap:\n    text: Dialog\n    verify:\n      policy: EXPLICIT_CONDITION\n"
        + "      expected: {kind: screen, name: settings}\n      timeoutMs: 500\n",
    )
    verify, setup, not_met = report.tests
    assert verify.status == "passed", verify.failure
    assert verify.steps[1].action_result is not None
    assert verify.steps[1].action_result.verification is not None
    assert setup.status == "passed" and [s.kind for s in setup.setup] == ["reset", "tap"]
    assert not_met.status == "failed" and not_met.failure is not None
    assert "verification EXPLICIT_CONDITION CONDITION_NOT_MET" in not_met.failure.message


async def test_a_failure_keeps_a_screenshot_in_the_report_dir(tmp_path: Path) -> None:
    flows_dir, report_dir = tmp_path / "flows", tmp_path / "report"
    flows_dir.mkdir()
    report = await run_flows(
        flows_dir,
        report_dir,
        wrong=HEADER
        + "- tap: Login\n- assertScreen: {name: home, timeoutMs: 300}\n- pressKey: back\n",
    )
    (test,) = report.tests
    assert test.status == "failed" and test.failure is not None
    assert test.failure.at.endswith("wrong.yaml:4")
    assert "expected the screen 'home' shown: CONDITION_NOT_MET" in test.failure.message
    shot = test.failure.screenshot
    assert shot is not None and shot.file == "screenshots/wrong/failure.png"
    assert (report_dir / shot.file).read_bytes()[:4] == b"\x89PNG"
    assert test.steps[-1].status == "skipped"
    assert test.end_screen is not None and test.end_screen.markers == ["login"]

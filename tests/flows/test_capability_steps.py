"""The device-capability steps of issue 21 on the simulated device's camera screen: alert and
assertAlert on the permission dialog, setPermission (a grant fails without approve: true),
setLocation / clearLocation, pinch and twoFingerTap, setClipboard / assertClipboard and
hideKeyboard; bad values are load errors naming the line."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.flows.compile import load_suite
from bridge.flows.errors import FlowErrors
from tests.flows.test_runner import HEADER, run_flows

pytestmark = pytest.mark.anyio

STEPS = """- openLink: mobridge-demo://camera
- assertAlert: take pictures
- alert: accept
- assertVisible: "Camera: granted"
- setPermission: {permission: camera, action: revoke}
- assertVisible: "Camera: denied"
- setPermission: {permission: camera, approve: true}
- assertVisible: "Camera: granted"
- setLocation: {latitude: 52.52, longitude: 13.405}
- assertVisible: "Location: 52.52000, 13.40500"
- clearLocation
- assertVisible: "Location: not set"
- pinch: {element: {id: photo}, scale: 2}
- assertVisible: Photo zoom 2.00x
- twoFingerTap: {point: "540,700"}
- assertVisible: Two-finger tap at (540, 700)
- setClipboard: copied text
- assertClipboard: copied text
- tap: Caption
- assertState: {element: Caption, focused: true}
- hideKeyboard
- assertState: {element: Caption, focused: false}
"""


async def test_every_capability_step_on_the_camera_screen(tmp_path: Path) -> None:
    report = await run_flows(
        tmp_path,
        a_steps=HEADER + STEPS,
        b_unapproved=HEADER + "- setPermission: {permission: camera}\n",
        c_no_alert=HEADER + "- assertAlert: {title: Nope, timeoutMs: 300}\n",
    )
    steps, unapproved, no_alert = report.tests
    assert steps.status == "passed", steps.failure
    assert unapproved.status == "failed" and unapproved.failure is not None
    assert "write approve: true to answer it" in unapproved.failure.message
    assert no_alert.status == "failed" and no_alert.failure is not None
    assert "expected an alert 'Nope' within 0.3 s; no alert on screen" in no_alert.failure.message


def test_bad_values_are_load_errors(tmp_path: Path) -> None:
    (tmp_path / "bad.yaml").write_text(
        HEADER
        + "- setLocation: {latitude: 200, longitude: 0}\n"
        + "- pinch: {element: Photo, scale: 0}\n"
        + "- setPermission: {permission: teleport}\n"
        + "- alert: {choice: accept, button: OK}\n"
    )
    with pytest.raises(FlowErrors) as raised:
        load_suite([str(tmp_path)], {}, {})
    text = str(raised.value)
    assert "bad.yaml:3" in text and "bad.yaml:4" in text and "bad.yaml:5" in text
    assert "bad.yaml:6" in text and "alert takes accept, dismiss or {button: TEXT}" in text


async def test_a_suite_whose_leases_auto_accept_needs_no_alert_step(tmp_path: Path) -> None:
    from bridge.client import connect
    from bridge.flows.suite import SuiteOptions, run_suite
    from tests.hub.hubfixture import CONTROLLER, running_hub

    (tmp_path / "auto.yaml").write_text(
        HEADER + '- openLink: mobridge-demo://camera\n- assertVisible: "Camera: granted"\n'
    )
    flows = load_suite([str(tmp_path)], {}, {})
    async with running_hub() as rh, connect(rh.url, token=CONTROLLER, name="runner") as hub:
        report = await run_suite(hub, flows, [rh.device_id], SuiteOptions(alerts="accept"))
    (test,) = report.tests
    assert test.status == "passed", test.failure

"""``run_doctor`` in-process against a real hub (simulated device, real websockets): the
observer token reads but does not act, and a fresh-capture run counts real agent captures."""

from __future__ import annotations

import pytest

from bridge.doctor.runner import DoctorOptions, run_doctor
from tests.hub.hubfixture import CONTROLLER, OBSERVER, running_hub

pytestmark = pytest.mark.anyio


async def test_an_observer_token_measures_but_never_acts() -> None:
    async with running_hub(sim_scene="login") as rh:
        device = rh.hub.service.devices[rh.device_id]
        assert device.link is not None
        before = device.link.stats.commands
        report = await run_doctor(
            DoctorOptions(url=rh.url, token=OBSERVER, device=rh.device_id, act=True, samples=5)
        )
        checks = {c.name: c for c in report.checks}
        assert report.holds and not report.acting
        assert checks["hub"].verdict == "warn" and checks["hub"].measured["role"] == "observer"
        assert [checks[n].verdict for n in ("tap", "type", "delta")] == ["n/a"] * 3
        assert "observer" in (checks["tap"].fix or "")
        assert checks["capture"].measured["samples"] == 5
        # Five fresh captures and one screenshot: at least six agent commands, no action.
        assert device.link.stats.commands - before >= 6
        assert device.stats.captures >= 5


async def test_a_screen_without_a_text_field_is_not_acted_on() -> None:
    async with running_hub(sim_scene="menu") as rh:
        report = await run_doctor(
            DoctorOptions(url=rh.url, token=CONTROLLER, device=rh.device_id, samples=3)
        )
        checks = {c.name: c for c in report.checks}
        assert report.holds and report.kind == "simulated"
        assert checks["tap"].verdict == "n/a" and "no harmless target" in (checks["tap"].fix or "")
        assert checks["capture"].verdict == "ok"

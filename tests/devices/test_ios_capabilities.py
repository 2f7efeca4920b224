"""The iOS device layer's side of issue 21: the location simulated through pymobiledevice3
(the installed release's signatures checked, and the lockdown / RSD choice by iOS version
against fakes of those classes), and the Simulator's ``xcrun simctl privacy|location|pbcopy|
pbpaste`` run against a fake ``xcrun`` (a real subprocess that records its argv and stdin)."""

from __future__ import annotations

import importlib.util
import inspect
import stat
from pathlib import Path
from typing import Any, ClassVar

import pytest

from bridge.devices.ios.location import LocationCalls, load_location_calls, simulate_location
from bridge.devices.ios.simctl import Simctl, SimctlRefused, privacy_argv
from tests.skips import reason

pytestmark = pytest.mark.anyio
needs_pmd3 = pytest.mark.skipif(
    importlib.util.find_spec("pymobiledevice3") is None,
    reason=reason(
        "pymobiledevice3 (the ios extra) is not installed", "MOBRIDGE_EXTRAS=ios scripts/test"
    ),
)


@needs_pmd3
def test_the_location_calls_exist_with_the_signatures_used() -> None:
    real = load_location_calls()
    for cls in (real.dt_simulate_location, real.location_simulation):
        assert inspect.iscoroutinefunction(cls.set) and inspect.iscoroutinefunction(cls.clear)
        assert list(inspect.signature(cls.set).parameters) == ["self", "latitude", "longitude"]
        assert inspect.iscoroutinefunction(cls.__aenter__)
    assert list(inspect.signature(real.dt_simulate_location).parameters)[:1] == ["lockdown"]
    assert list(inspect.signature(real.dvt_provider).parameters)[:1] == ["lockdown"]
    assert list(inspect.signature(real.location_simulation).parameters)[:1] == ["dvt"]
    assert inspect.iscoroutinefunction(real.dvt_provider.__aenter__)


class _Service:
    """Stands in for DtSimulateLocation / DvtProvider / LocationSimulation."""

    log: ClassVar[list[tuple[str, Any]]] = []

    def __init__(self, provider: Any) -> None:
        self.log.append((type(self).__name__, provider))

    async def __aenter__(self) -> _Service:
        return self

    async def __aexit__(self, *exc: object) -> None:
        self.log.append(("closed", type(self).__name__))

    async def set(self, latitude: float, longitude: float) -> None:
        self.log.append(("set", (latitude, longitude)))

    async def clear(self) -> None:
        self.log.append(("clear", None))


class Dt(_Service):
    pass


class Dvt(_Service):
    pass


class Sim(_Service):
    pass


async def test_below_17_lockdown_simulates_and_from_17_the_dvt_service_does() -> None:
    calls = LocationCalls(Dt, Dvt, Sim)
    _Service.log = []
    await simulate_location(calls, "lockdown", 16, 48.8566, 2.3522)
    assert _Service.log == [("Dt", "lockdown"), ("set", (48.8566, 2.3522)), ("closed", "Dt")]
    _Service.log = []
    await simulate_location(calls, "rsd", 17, None, None)
    assert [e[0] for e in _Service.log] == ["Dvt", "Sim", "clear", "closed", "closed"]
    assert _Service.log[0] == ("Dvt", "rsd")


FAKE_XCRUN = """#!/bin/sh
# a fake xcrun: records argv (and stdin for pbcopy); pbpaste prints what pbcopy stored
dir=$(dirname "$0")
echo "$*" >> "$dir/argv.log"
case "$2" in
  pbcopy) cat > "$dir/pasteboard" ;;
  pbpaste) cat "$dir/pasteboard" 2>/dev/null ;;
  privacy) [ "$5" = "camera" ] || { echo "Invalid service $5" >&2; exit 3; } ;;
esac
exit 0
"""


def _fake_xcrun(tmp_path: Path) -> str:
    xcrun = tmp_path / "xcrun"
    xcrun.write_text(FAKE_XCRUN)
    xcrun.chmod(xcrun.stat().st_mode | stat.S_IEXEC)
    return str(xcrun)


async def test_simctl_privacy_location_and_pasteboard_against_a_fake_xcrun(tmp_path: Path) -> None:
    sim = Simctl(_fake_xcrun(tmp_path), "UDID-1")
    assert await sim.privacy("grant", "dev.mobridge.demo", "camera") == (True, "")
    failed, why = await sim.privacy("revoke", "dev.mobridge.demo", "photos")
    assert not failed and why == "simctl privacy failed (3): Invalid service photos"
    assert (await sim.location(-33.8688, 151.2093))[0]
    assert (await sim.location(None, None))[0]
    assert (await sim.pbcopy("s3cret clip"))[0]
    assert await sim.pbpaste() == (True, "s3cret clip")
    argv = (tmp_path / "argv.log").read_text().splitlines()
    assert argv == [
        "simctl privacy UDID-1 grant camera dev.mobridge.demo",
        "simctl privacy UDID-1 revoke photos dev.mobridge.demo",
        "simctl location UDID-1 set -33.868800,151.209300",
        "simctl location UDID-1 clear",
        "simctl pbcopy UDID-1",
        "simctl pbpaste UDID-1",
    ]
    assert "s3cret" not in "\n".join(argv)  # the text went on stdin
    with pytest.raises(SimctlRefused, match="no privacy switch for 'notifications'"):
        privacy_argv("xcrun", "U", "grant", "dev.mobridge.demo", "notifications")
    with pytest.raises(SimctlRefused, match="no such place"):
        await sim.location(200.0, 0.0)
    missing = Simctl(str(tmp_path / "nowhere"), "U")
    ok, why = await missing.pbpaste()
    assert not ok and why.startswith("xcrun could not run")


async def test_the_hub_asks_the_simulator_layer_before_the_agent(tmp_path: Path) -> None:
    from bridge.client import ActionUnsupported
    from bridge.devices.ios.device_layer import SimulatorLayer
    from bridge.wire.enums import Platform
    from tests.hub.hubfixture import running_hub
    from tests.hub.test_device_actions import FAST, watched

    async with running_hub(sim_options=FAST, sim_platform=Platform.IOS) as rh:
        device = rh.hub.service.devices[rh.device_id]
        device.layer = SimulatorLayer(Simctl(_fake_xcrun(tmp_path), "UDID-9"))
        async with watched(rh) as (actor, _, events):
            dev = actor.device(rh.device_id)
            await dev.set_location(35.6762, 139.6503)
            await dev.set_clipboard("from the hub")
            assert await dev.clipboard() == "from the hub"
            argv = (tmp_path / "argv.log").read_text().splitlines()
            assert argv == [
                "simctl location UDID-9 set 35.676200,139.650300",
                "simctl pbcopy UDID-9",
                "simctl pbpaste UDID-9",
            ]
            with pytest.raises(ActionUnsupported, match="no privacy switch for 'notifications'"):
                await dev.permission("revoke", "dev.mobridge.demo", "notifications")
            # an iPhone (no layer offering permission, an agent without it) names the alert route
            device.layer = None
            device.capabilities = tuple(c for c in device.capabilities if c != "permission")
            with pytest.raises(ActionUnsupported, match="answer the app's permission alert"):
                await dev.permission("revoke", "dev.mobridge.demo", "camera")
            del events

"""The pymobiledevice3 calls the iOS driver makes exist in the installed release with the
signatures the driver (and the fake that stands in for them) uses: if pymobiledevice3 renames or
reshapes one, this fails here instead of on a user's iPhone."""

from __future__ import annotations

import dataclasses
import importlib.util
import inspect
import socket

import pytest

from bridge.devices.ios.pmd3 import Pmd3, load_pmd3
from tests.devices.ios_fakes.fake_pmd3 import FakeMuxDevice, FakeTestConfig, FakeUsbmux
from tests.skips import reason

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("pymobiledevice3") is None,
    reason=reason(
        "pymobiledevice3 (the ios extra) is not installed", "MOBRIDGE_EXTRAS=ios scripts/test"
    ),
)


def _params(fn: object) -> list[str]:
    return list(inspect.signature(fn).parameters)  # type: ignore[arg-type]


def test_the_real_calls_exist_and_are_async() -> None:
    real = load_pmd3()
    for call in (
        real.list_devices,
        real.select_device,
        real.create_using_usbmux,
        real.get_tunneld_device_by_udid,
        real.test_config.create_for,
        real.xcuitest_service.run,
    ):
        assert inspect.iscoroutinefunction(call), call
    assert _params(real.select_device)[0] == "udid"
    assert "serial" in _params(real.create_using_usbmux)
    assert _params(real.get_tunneld_device_by_udid)[0] == "udid"
    assert _params(real.test_config.create_for)[:3] == [
        "service_provider",
        "runner_bundle_id",
        "target_bundle_id",
    ]
    assert _params(real.xcuitest_service)[:1] == ["lockdown"]
    assert _params(real.xcuitest_service.run)[:2] == ["self", "cfg"]
    fields = {f.name for f in dataclasses.fields(real.test_config)}
    assert "runner_app_env" in fields
    usbmux = __import__("pymobiledevice3.usbmux", fromlist=["MuxDevice"])
    assert _params(usbmux.MuxDevice.connect)[:2] == ["self", "port"]
    assert inspect.signature(usbmux.MuxDevice.connect).return_annotation in (
        socket.socket,
        "socket.socket",
    )
    assert {"serial", "connection_type"} <= {f.name for f in dataclasses.fields(usbmux.MuxDevice)}
    assert all(isinstance(e, type) and issubclass(e, BaseException) for e in real.errors)


def test_the_fake_has_the_same_shape() -> None:
    real = load_pmd3()
    fake = FakeUsbmux().pmd3()
    assert {f.name for f in dataclasses.fields(Pmd3)} == {f.name for f in dataclasses.fields(fake)}
    assert _params(fake.select_device)[0] == _params(real.select_device)[0]
    assert "serial" in _params(fake.create_using_usbmux)
    assert _params(fake.test_config.create_for)[1:3] == ["runner_bundle_id", "target_bundle_id"]
    assert _params(FakeMuxDevice.connect)[:2] == ["self", "port"]
    assert {f.name for f in dataclasses.fields(FakeTestConfig)} <= {
        f.name for f in dataclasses.fields(real.test_config)
    }
    assert [key for key, _ in fake.hint_errors] == [key for key, _ in real.hint_errors]

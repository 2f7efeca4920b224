"""Selector matching for ``devices.acquire`` (pure)."""

from __future__ import annotations

import msgspec
import pytest

from bridge.core.selector import describe, free, matches, os_in_range
from bridge.wire.acquire import DevicesAcquire, DeviceSelector
from bridge.wire.client_protocol import DeviceSummary, LeaseInfo
from bridge.wire.enums import Platform


@pytest.mark.parametrize(
    ("version", "spec", "expected"),
    [
        ("17.2", ">=17", True),
        ("16.7.1", ">=17", False),
        ("18", ">=17", True),
        ("17.4", "<17", False),
        ("16.9", "<17", True),
        ("17.4", "17", True),
        ("17.4", "=17.4", True),
        ("14", ">=14,<16", True),
        ("16.0", ">=14,<16", False),
        ("17.2.1 (21C62)", ">=17.2", True),
        (None, ">=1", False),
        ("UpsideDownCake", ">=14", False),
    ],
)
def test_os_ranges(version: str | None, spec: str, expected: bool) -> None:
    assert os_in_range(version, spec) is expected


def test_every_field_must_hold() -> None:
    phone = DeviceSummary(
        id="p1", platform=Platform.IOS, online=True, model="iPhone 15 Pro",
        os_version="17.4", owner="host-a", tags=("usb3", "lab:1"),
    )  # fmt: skip
    assert matches(DeviceSelector(platform=Platform.IOS, os=">=17", model="iphone 15"), phone)
    assert matches(DeviceSelector(tags=("usb3",), owner="host-a"), phone)
    assert not matches(DeviceSelector(platform=Platform.ANDROID), phone)
    assert not matches(DeviceSelector(tags=("usb3", "wifi")), phone)
    assert not matches(DeviceSelector(owner="host-b"), phone)
    assert free(phone)
    held = msgspec.structs.replace(phone, lease=LeaseInfo(mode="exclusive", holders=("s1",)))
    assert not free(held)
    assert describe(DeviceSelector(platform=Platform.IOS, os=">=17")) == "platform=IOS os >=17"


def test_the_wire_refuses_a_bad_range_and_an_uncapped_timeout() -> None:
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(b'{"os": ">=17; rm"}', type=DeviceSelector)
    with pytest.raises(msgspec.ValidationError):
        msgspec.json.decode(
            b'{"type": "devices.acquire", "id": 1, "timeoutMs": 600001}', type=DevicesAcquire
        )

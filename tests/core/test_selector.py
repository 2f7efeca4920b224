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


@pytest.mark.parametrize(
    ("version", "spec", "expected"),
    [
        ("17", ">=17.0.1", False),  # missing parts count as zero
        ("17", "<=17.0", True),
        ("17.0.1", ">17", False),  # compared at the precision written: 17 is not > 17
        ("18.1", ">17", True),
        ("17.4", ">=17,junk", False),  # one unreadable term refuses the whole range
        ("17.4", "", False),
        ("", ">=1", False),
    ],
)
def test_os_range_edges(version: str | None, spec: str, expected: bool) -> None:
    assert os_in_range(version, spec) is expected


def test_model_matches_by_substring_ignoring_case_and_needs_a_model() -> None:
    base = DeviceSummary(id="p", platform=Platform.ANDROID, online=True, model="Pixel 8 Pro")
    assert matches(DeviceSelector(model="PIXEL 8"), base)
    assert not matches(DeviceSelector(model="pixel 9"), base)
    nameless = msgspec.structs.replace(base, model=None)
    assert not matches(DeviceSelector(model="pixel"), nameless)
    assert matches(DeviceSelector(os=">=14"), msgspec.structs.replace(base, os_version="14"))
    assert not matches(DeviceSelector(os=">=14"), msgspec.structs.replace(base, os_version="13"))


def test_tags_must_all_be_there_and_equal_sets_match() -> None:
    device = DeviceSummary(id="p", platform=Platform.ANDROID, online=True, tags=("a", "b"))
    assert matches(DeviceSelector(tags=("a", "b")), device)
    assert matches(DeviceSelector(tags=("b",)), device)
    assert matches(DeviceSelector(), device)
    assert not matches(DeviceSelector(tags=("c",)), device)


def test_a_device_is_free_only_online_healthy_and_unleased() -> None:
    device = DeviceSummary(id="p", platform=Platform.ANDROID, online=True)
    assert free(device)
    assert not free(msgspec.structs.replace(device, online=False))
    assert not free(msgspec.structs.replace(device, health="offline"))
    assert free(msgspec.structs.replace(device, health="degraded"))


def test_describe_names_every_field_given() -> None:
    full = DeviceSelector(
        platform=Platform.ANDROID, os=" <15 ", model="Pixel", tags=("usb3", "lab"), owner="h1"
    )
    assert describe(full) == "platform=ANDROID os <15 model~Pixel tags=usb3,lab owner=h1"
    assert describe(DeviceSelector()) == "any device"

"""Which devices a ``devices.acquire`` selector accepts (pure; no I/O).

``matches`` checks what a device *is* (platform, OS range, model, tags, owner); ``free``
checks whether it can be leased now (online, not offline-health, no lease). The OS range is
compared at the precision written: ``>=17`` accepts 17.0 and 17.4 and 18, ``<17`` refuses
17.4, ``17`` (or ``=17``) accepts any 17.x. A version with no leading number never matches
a range.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from bridge.wire.acquire import DeviceSelector
from bridge.wire.client_protocol import DeviceSummary

_TERM = re.compile(r"^\s*(>=|<=|>|<|=)?\s*(\d+(?:\.\d+)*)\s*$")
_COMPARE: dict[str, Callable[[tuple[int, ...], tuple[int, ...]], bool]] = {
    ">=": lambda a, b: a >= b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    "<": lambda a, b: a < b,
    "=": lambda a, b: a == b,
}


def version_numbers(text: str | None) -> tuple[int, ...] | None:
    """The leading dotted numbers of ``text`` (``"17.2.1 (21C62)"`` -> (17, 2, 1))."""
    if not text:
        return None
    found = re.match(r"\s*(\d+(?:\.\d+)*)", text)
    return tuple(int(p) for p in found.group(1).split(".")) if found else None


def os_in_range(version: str | None, spec: str) -> bool:
    numbers = version_numbers(version)
    if numbers is None:
        return False
    for term in spec.split(","):
        found = _TERM.match(term)
        if found is None:
            return False
        op = found.group(1) or "="
        want = tuple(int(p) for p in found.group(2).split("."))
        have = (numbers + (0,) * len(want))[: len(want)]
        if not _COMPARE[op](have, want):
            return False
    return True


def matches(selector: DeviceSelector, device: DeviceSummary) -> bool:
    if selector.platform is not None and device.platform is not selector.platform:
        return False
    if selector.os is not None and not os_in_range(device.os_version, selector.os):
        return False
    if selector.model is not None and selector.model.lower() not in (device.model or "").lower():
        return False
    if selector.owner is not None and device.owner != selector.owner:
        return False
    return set(selector.tags) <= set(device.tags)


def free(device: DeviceSummary) -> bool:
    return device.online and device.health != "offline" and device.lease is None


def describe(selector: DeviceSelector) -> str:
    """The selector in one line, for messages (``platform=IOS os>=17 tags=usb3``)."""
    parts = []
    if selector.platform is not None:
        parts.append(f"platform={selector.platform.value}")
    if selector.os is not None:
        parts.append(f"os {selector.os.strip()}")
    if selector.model is not None:
        parts.append(f"model~{selector.model}")
    if selector.tags:
        parts.append("tags=" + ",".join(selector.tags))
    if selector.owner is not None:
        parts.append(f"owner={selector.owner}")
    return " ".join(parts) or "any device"

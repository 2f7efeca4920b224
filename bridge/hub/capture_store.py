"""CaptureStore: the screenshots the hub keeps for clients to fetch, bounded in bytes.

Rules:
- each capture belongs to a device; a device keeps at most ``per_device_bytes`` and all of them
  together at most ``per_hub_bytes`` (and ``max_count`` captures): storing past a bound evicts
  that device's oldest captures first, then the hub's oldest, until both fit again;
- a capture larger than the per-device bound is refused, never stored (``put`` returns False);
- what is evicted or refused is counted per device and for the hub (``statistics``), so a
  client that finds its capture gone can see why.

Defaults fit a 1 GB hub with 16 devices: 32 MiB per device (two full-resolution screenshots
of a large phone), 192 MiB for the hub.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Final

PER_DEVICE_BYTES: Final = 32 << 20
PER_HUB_BYTES: Final = 192 << 20
MAX_COUNT: Final = 256


@dataclass
class CaptureCounts:
    kept: int = 0
    bytes: int = 0
    evicted: int = 0
    evicted_bytes: int = 0
    refused: int = 0
    refused_bytes: int = 0


class CaptureStore:
    def __init__(
        self,
        *,
        per_device_bytes: int = PER_DEVICE_BYTES,
        per_hub_bytes: int = PER_HUB_BYTES,
        max_count: int = MAX_COUNT,
    ) -> None:
        self.per_device_bytes = per_device_bytes
        self.per_hub_bytes = per_hub_bytes
        self.max_count = max_count
        self._items: OrderedDict[str, tuple[str, bytes]] = OrderedDict()
        self._devices: dict[str, CaptureCounts] = {}
        self.hub = CaptureCounts()

    def get(self, capture_id: str) -> bytes | None:
        item = self._items.get(capture_id)
        return item[1] if item is not None else None

    def __len__(self) -> int:
        return len(self._items)

    def counts(self, device: str) -> CaptureCounts:
        found = self._devices.get(device)
        if found is None:
            found = self._devices[device] = CaptureCounts()
        return found

    def fits(self, png: bytes) -> bool:
        """Whether ``png`` alone is within both bounds (``put`` refuses it otherwise)."""
        return len(png) <= min(self.per_device_bytes, self.per_hub_bytes)

    def refuse(self, device: str, size: int) -> None:
        """Count a capture that was refused before storing (bad PNG, too large)."""
        for counts in (self.counts(device), self.hub):
            counts.refused += 1
            counts.refused_bytes += size

    def put(self, device: str, capture_id: str, png: bytes) -> bool:
        """Keep ``png`` as ``capture_id`` of ``device``, evicting as the rules say; False (and
        counted as refused) when it alone is over the per-device bound."""
        size = len(png)
        if not self.fits(png):
            self.refuse(device, size)
            return False
        own = self.counts(device)
        while own.bytes + size > self.per_device_bytes:
            self._evict_oldest_of(device)
        while self._items and (
            self.hub.bytes + size > self.per_hub_bytes or len(self._items) >= self.max_count
        ):
            self._evict(next(iter(self._items)))
        self._items[capture_id] = (device, png)
        for counts in (own, self.hub):
            counts.kept += 1
            counts.bytes += size
        return True

    def _evict_oldest_of(self, device: str) -> None:
        for capture_id, (owner, _) in self._items.items():
            if owner == device:
                self._evict(capture_id)
                return
        raise AssertionError("device bytes counted without a capture")  # pragma: no cover

    def _evict(self, capture_id: str) -> None:
        device, png = self._items.pop(capture_id)
        for counts in (self.counts(device), self.hub):
            counts.kept -= 1
            counts.bytes -= len(png)
            counts.evicted += 1
            counts.evicted_bytes += len(png)

    def statistics(self) -> dict[str, object]:
        return {
            "per_device_bytes": self.per_device_bytes,
            "per_hub_bytes": self.per_hub_bytes,
            "hub": dict(vars(self.hub)),
            "devices": {d: dict(vars(c)) for d, c in self._devices.items()},
        }

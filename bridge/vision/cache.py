"""Bounded OCR results keyed by a region's image hash.

``key_of`` hashes the region's pixels and size (BLAKE2b, 16 bytes): the same pixels give the
same key whatever node or screen they came from, so a screen seen again costs no OCR. At most
``capacity`` entries (least recently used evicted); hits and misses are counted.
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from typing import Generic, TypeVar

from PIL import Image

V = TypeVar("V")
CAPACITY = 256


def key_of(image: Image.Image) -> bytes:
    h = hashlib.blake2b(digest_size=16)
    h.update(f"{image.mode}:{image.width}x{image.height}".encode())
    h.update(image.tobytes())
    return h.digest()


class ResultCache(Generic[V]):
    def __init__(self, capacity: int = CAPACITY) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self._items: OrderedDict[bytes, V] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: bytes) -> V | None:
        found = self._items.get(key)
        if found is None:
            self.misses += 1
            return None
        self.hits += 1
        self._items.move_to_end(key)
        return found

    def put(self, key: bytes, value: V) -> None:
        self._items[key] = value
        self._items.move_to_end(key)
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)

    def __len__(self) -> int:
        return len(self._items)

    @property
    def hit_rate(self) -> float:
        total = self.hits + self.misses
        return self.hits / total if total else 0.0

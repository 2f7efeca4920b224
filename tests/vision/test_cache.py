"""``ResultCache``: keyed by pixels, bounded, LRU, hits and misses counted."""

from __future__ import annotations

import pytest
from PIL import Image

from bridge.vision.cache import ResultCache, key_of


def test_same_pixels_same_key_other_pixels_other_key() -> None:
    a = Image.new("RGB", (40, 20), (1, 2, 3))
    assert key_of(a) == key_of(a.copy())
    assert key_of(a) != key_of(Image.new("RGB", (40, 20), (1, 2, 4)))
    assert key_of(a) != key_of(Image.new("RGB", (20, 40), (1, 2, 3)))


def test_bounded_least_recently_used_first() -> None:
    cache: ResultCache[str] = ResultCache(capacity=2)
    cache.put(b"a", "A")
    cache.put(b"b", "B")
    assert cache.get(b"a") == "A"  # a is now the most recent
    cache.put(b"c", "C")
    assert cache.get(b"b") is None
    assert cache.get(b"a") == "A" and cache.get(b"c") == "C"
    assert len(cache) == 2
    assert (cache.hits, cache.misses) == (3, 1)
    assert cache.hit_rate == 0.75
    with pytest.raises(ValueError):
        ResultCache(capacity=0)

"""bridge.hub.capture_store: screenshots are bounded in bytes per device and per hub, and
what is evicted or refused is counted."""

from __future__ import annotations

from bridge.hub.capture_store import CaptureStore


def test_a_device_over_its_budget_loses_its_own_oldest_first() -> None:
    store = CaptureStore(per_device_bytes=100, per_hub_bytes=1000)
    store.put("a", "a1", b"x" * 40)
    store.put("b", "b1", b"x" * 40)
    store.put("a", "a2", b"x" * 40)
    store.put("a", "a3", b"x" * 40)  # a: 120 > 100 -> a1 goes, b1 stays
    assert store.get("a1") is None and store.get("b1") is not None
    assert store.get("a2") is not None and store.get("a3") is not None
    a = store.counts("a")
    assert (a.kept, a.bytes, a.evicted, a.evicted_bytes) == (2, 80, 1, 40)


def test_the_hub_budget_evicts_the_oldest_of_any_device() -> None:
    store = CaptureStore(per_device_bytes=100, per_hub_bytes=150)
    for i, device in enumerate("abcd"):
        store.put(device, f"{device}{i}", b"x" * 50)
    assert [store.get(k) is not None for k in ("a0", "b1", "c2", "d3")] == [
        False,
        True,
        True,
        True,
    ]
    assert store.hub.bytes == 150 and store.hub.evicted == 1


def test_a_capture_over_the_device_budget_is_refused_and_counted() -> None:
    store = CaptureStore(per_device_bytes=100, per_hub_bytes=1000)
    assert store.put("a", "big", b"x" * 101) is False
    assert store.get("big") is None
    assert (store.counts("a").refused, store.hub.refused_bytes) == (1, 101)
    assert store.statistics()["hub"] == {
        "kept": 0,
        "bytes": 0,
        "evicted": 0,
        "evicted_bytes": 0,
        "refused": 1,
        "refused_bytes": 101,
    }


def test_the_count_bound_holds_too() -> None:
    store = CaptureStore(per_device_bytes=1000, per_hub_bytes=1000, max_count=3)
    for i in range(5):
        store.put("a", f"c{i}", b"x")
    assert len(store) == 3 and store.get("c1") is None and store.get("c4") is not None

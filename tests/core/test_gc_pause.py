"""``gc_paused``: the collector is off inside, and on again after every pause that found it
on; nested and overlapping pauses, exceptions and a collector the process turned off
(issue 41)."""

from __future__ import annotations

import gc
import threading

import pytest

from bridge.core.gc_pause import gc_paused


def test_nested_pauses_resume_the_collector_once_at_the_end() -> None:
    assert gc.isenabled()
    with gc_paused():
        assert not gc.isenabled()
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the inner pause did not turn it on
    assert gc.isenabled()


def test_a_collector_turned_off_stays_off() -> None:
    gc.disable()
    try:
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_an_exception_inside_still_resumes() -> None:
    with pytest.raises(ValueError), gc_paused():
        raise ValueError("inside")
    assert gc.isenabled()


def test_a_pause_overlapping_one_in_another_thread() -> None:
    inside, release = threading.Event(), threading.Event()

    def other() -> None:
        with gc_paused():
            inside.set()
            release.wait(10)

    thread = threading.Thread(target=other)
    thread.start()
    assert inside.wait(10)
    with gc_paused():
        assert not gc.isenabled()
    assert not gc.isenabled()  # the other thread's pause still runs
    release.set()
    thread.join(10)
    assert gc.isenabled()


def test_a_whole_normalize_pass_holds_the_collector_off(monkeypatch: pytest.MonkeyPatch) -> None:
    import contextlib

    from bridge.bench.core import generated_xml
    from bridge.core import renormalize
    from bridge.core.importers import import_dump
    from bridge.core.normalize import Normalized, SnapshotContext, normalize
    from bridge.wire.raw import RawTree

    raw = import_dump(generated_xml(2000), "gen")
    assert isinstance(raw, RawTree)
    started: list[int] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started.append(info["generation"])

    def collections() -> int:
        started.clear()
        gc.collect()
        started.clear()
        out = normalize(raw, SnapshotContext("d", "s_1", 0))
        assert isinstance(out, Normalized)
        return len(started)

    gc.callbacks.append(count)
    try:
        paused = collections()
        monkeypatch.setattr(renormalize, "gc_paused", contextlib.nullcontext)
        unpaused = collections()
    finally:
        gc.callbacks.remove(count)
    assert paused <= 1  # the one the pass's allocations trigger once it has ended
    assert unpaused > paused
    assert gc.isenabled()

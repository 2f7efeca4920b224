"""``ScreenshotCache``'s rules with a take of our own (the device is a stand-in: the cache reads
only its id and current generation): a waiter's cancel leaves the shared screenshot running
for the others, a refusal reaches every waiter and is not kept, a screen that changed while
the picture was taken keeps nothing, and a capture the store evicted is taken again."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import anyio
import pytest

from bridge.hub.errors import BadRequest, refusal
from bridge.hub.screenshot_cache import KEPT_GENERATIONS, ScreenshotCache, Shot
from bridge.wire.enums import ErrorCode

pytestmark = pytest.mark.anyio


class Device(SimpleNamespace):
    def __init__(self, generation: int) -> None:
        super().__init__(id="d1", current=SimpleNamespace(generation=generation))


class Taker:
    def __init__(self) -> None:
        self.calls = 0
        self.gate = anyio.Event()
        self.fail = False
        self.change_to: int | None = None
        self.stored: set[str] = set()

    async def __call__(self, device: Any) -> Shot:
        self.calls += 1
        await self.gate.wait()
        if self.change_to is not None:
            device.current.generation = self.change_to
        if self.fail:
            raise refusal(ErrorCode.WINDOW_UNAVAILABLE, "no picture", ("retry",))
        capture = f"cap_{self.calls}"
        self.stored.add(capture)
        return Shot(capture, 10, 20, 30, None)


def cache_of(taker: Taker) -> ScreenshotCache:
    return ScreenshotCache(taker, lambda c: c in taker.stored)


async def test_a_cancelled_waiter_leaves_the_shared_screenshot_to_the_others() -> None:
    taker, device = Taker(), Device(7)
    cache = cache_of(taker)
    got: list[tuple[Shot, bool]] = []
    async with anyio.create_task_group() as tg:
        cache.spawn = tg.start_soon
        with anyio.CancelScope() as first:
            tg.start_soon(lambda: cache.screenshot(device))  # type: ignore[arg-type]

            async def keep() -> None:
                got.append(await cache.screenshot(device))  # type: ignore[arg-type]

            tg.start_soon(keep)
            await anyio.wait_all_tasks_blocked()
            first.cancel()
        taker.gate.set()
    cache.spawn = None
    assert taker.calls == 1 and got and got[0][0].capture == "cap_1" and got[0][0].generation == 7
    assert (await cache.screenshot(device))[0].capture == "cap_1"  # type: ignore[arg-type]


async def test_a_refusal_reaches_every_waiter_and_is_not_kept() -> None:
    taker, device = Taker(), Device(7)
    taker.fail = True
    cache = cache_of(taker)
    errors: list[BaseException] = []

    async def ask() -> None:
        try:
            await cache.screenshot(device)  # type: ignore[arg-type]
        except Exception as exc:
            errors.append(exc)

    async with anyio.create_task_group() as tg:
        cache.spawn = tg.start_soon
        for _ in range(5):
            tg.start_soon(ask)
        await anyio.wait_all_tasks_blocked()
        taker.gate.set()
    cache.spawn = None  # its task group is gone: the next one runs in the caller's task
    assert taker.calls == 1 and len(errors) == 5
    taker.fail = False
    assert (await cache.screenshot(device))[0].capture == "cap_2"  # type: ignore[arg-type]


async def test_a_screen_that_changed_meanwhile_keeps_nothing_and_eviction_takes_again() -> None:
    taker, device = Taker(), Device(7)
    taker.gate.set()
    taker.change_to = 8
    cache = cache_of(taker)
    shot, shared = await cache.screenshot(device)  # type: ignore[arg-type]
    assert shot.generation is None and not shared
    taker.change_to = None
    again, _ = await cache.screenshot(device)  # type: ignore[arg-type]
    assert again.capture == "cap_2" and again.generation == 8 and taker.calls == 2
    taker.stored.discard("cap_2")  # the capture store evicted it
    third, _ = await cache.screenshot(device)  # type: ignore[arg-type]
    assert third.capture == "cap_3" and taker.calls == 3
    for generation in range(9, 9 + KEPT_GENERATIONS + 2):
        device.current.generation = generation
        await cache.screenshot(device)  # type: ignore[arg-type]
    assert cache.statistics()["kept"] == KEPT_GENERATIONS


async def test_fresh_is_refused_past_the_session_bound() -> None:
    taker, device = Taker(), Device(7)
    taker.gate.set()
    cache = ScreenshotCache(taker, lambda c: c in taker.stored, fresh_burst=2, fresh_per_s=0.001)
    await cache.screenshot(device, fresh=True, session="s1")  # type: ignore[arg-type]
    await cache.screenshot(device, fresh=True, session="s1")  # type: ignore[arg-type]
    with pytest.raises(BadRequest, match="fresh"):
        await cache.screenshot(device, fresh=True, session="s1")  # type: ignore[arg-type]
    await cache.screenshot(device, fresh=True, session="s2")  # type: ignore[arg-type]
    assert taker.calls == 3 and cache.counts.fresh_refused == 1

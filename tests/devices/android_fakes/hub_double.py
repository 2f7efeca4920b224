"""Stands in for the hub's ``attach(url, token, stage)`` / ``detach(url)`` callbacks, recording
them (``stagers`` keeps each attached URL's package stager)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio


class HubDouble:
    def __init__(self) -> None:
        self.attached: list[tuple[str, str | None]] = []
        self.detached: list[str] = []
        self.stagers: dict[str, Callable[[Path], Awaitable[str]] | None] = {}
        self.media: dict[str, object] = {}
        self.webs: dict[str, object] = {}
        """The WebView page source each attach handed over (Android: adb forward)."""

    def attach(
        self,
        url: str,
        token: str | None,
        stage: Callable[[Path], Awaitable[str]] | None = None,
        media: object = None,
        web: object = None,
    ) -> anyio.Event:
        assert url.startswith("ws://127.0.0.1:"), url
        self.attached.append((url, token))
        self.stagers[url] = stage
        self.media[url] = media
        self.webs[url] = web
        done = anyio.Event()
        done.set()
        return done

    def detach(self, url: str) -> None:
        self.detached.append(url)

    @property
    def linked(self) -> set[str]:
        """URLs attached and not detached since."""
        live: set[str] = set()
        for url, _ in self.attached:
            live.add(url)
        return live - set(self.detached)


async def eventually(check: Callable[[], object], limit_s: float = 5.0) -> None:
    """Wait until ``check()`` is truthy (polling every 10 ms), failing after ``limit_s``."""
    with anyio.fail_after(limit_s):
        while not check():
            await anyio.sleep(0.01)


class SleepRecorder:
    """``AndroidConfig.sleep``: records the back-off delays, sleeps only a moment."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)
        await anyio.sleep(0.005)

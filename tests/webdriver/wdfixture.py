"""A real ``mobridge serve --webdriver 0`` subprocess (simulated device, Android or iOS
flavour), driven with Appium's official Python client; an observer on the hub's websocket in
a blocking portal. Nothing of Appium's client or Selenium is mocked."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from appium import webdriver
from appium.options.common import AppiumOptions

from tests.cli.hubproc import ServedHub, served_hub

TOKEN = "webdriver-test-controller"
OBSERVER = "webdriver-test-observer"
WD_LINE = re.compile(r"^webdriver: (http://127\.0\.0\.1:\d+) \(Appium clients\)$")


@dataclass
class WdHub:
    hub: ServedHub
    url: str
    platform: str

    @property
    def android(self) -> bool:
        return self.platform == "android"

    @property
    def device_id(self) -> str:
        return f"sim-{self.platform}"

    def options(self, **caps: Any) -> AppiumOptions:
        options = AppiumOptions()
        options.set_capability("platformName", "Android" if self.android else "iOS")
        options.set_capability("mobridge:token", TOKEN)
        options.set_capability(
            "appium:appPackage" if self.android else "appium:bundleId", "dev.mobridge.demo"
        )
        options.set_capability("appium:noReset", True)  # opened on the app's menu
        for name, value in caps.items():
            options.set_capability(name, value)
        return options

    def driver(self, **caps: Any) -> Any:
        return webdriver.Remote(self.url, options=self.options(**caps))


@contextmanager
def wd_hub(tmp: Path, platform: str) -> Iterator[WdHub]:
    args = ["--token", TOKEN, "--observer-token", OBSERVER, "--no-journal"]
    args += ["--webdriver", "0", "--sim-platform", platform]
    with served_hub(tmp, *args) as hub:
        url = next(m.group(1) for m in map(WD_LINE.match, hub.lines) if m is not None)
        yield WdHub(hub, url, platform)


@contextmanager
def session(wd: WdHub, **caps: Any) -> Iterator[Any]:
    driver = wd.driver(**caps)
    try:
        yield driver
    finally:
        driver.quit()


@contextmanager
def observer(wd: WdHub) -> Iterator[list[Any]]:
    """A dashboard-kind client with the observer token, recording every hub event it hears
    (in a blocking portal) until the block ends."""
    import anyio.from_thread

    from bridge.client import connect

    events: list[Any] = []
    with anyio.from_thread.start_blocking_portal() as portal:
        hub_cm = portal.wrap_async_context_manager(
            connect(wd.hub.url, token=OBSERVER, name="wall", kind="dashboard")
        )
        hub = hub_cm.__enter__()
        try:
            watch_cm = portal.wrap_async_context_manager(hub.device(wd.device_id).watch())
            watch = watch_cm.__enter__()  # events of a device go to its subscribers
            portal.call(watch.__anext__)
            stream_cm = portal.wrap_async_context_manager(hub.events())
            stream = stream_cm.__enter__()

            async def record() -> None:
                async for event in stream:
                    events.append(event)  # noqa: PERF401 - runs until cancelled

            future = portal.start_task_soon(record)
            try:
                yield events
            finally:
                future.cancel()
                stream_cm.__exit__(None, None, None)
                watch_cm.__exit__(None, None, None)
        finally:
            hub_cm.__exit__(None, None, None)

"""The simulated device's WebView: a real headless Chromium page behind the ``web`` screen.

The hub's simulated device starts Debian's ``chromium`` (``bridge.devices.web.chromium``:
private profile, no network, loopback debugging) the first time a WebView is on screen,
opens the local web shop (``web/shop.html``) sized to the WebView (CSS width = WebView
width / ``DPR``), and then plays the part a phone's WebView plays:

- touches the device model routed to the WebView (``DemoDevice.web_touches``) are delivered
  to the page as mouse events at the mapped CSS point (``deliver``);
- screenshots compose the page's own picture into the WebView's box (``compose``);
- ``source`` offers the page's DevTools target to the hub, as ``adb forward`` of a
  ``webview_devtools_remote`` socket does for a phone (``bridge.devices.web.source``).

Without Chromium the WebView shows (and the tree says) how to install it: ``status``.
Invariants: the browser is started at most once per device and stopped by ``close``;
every CDP wait is bounded.
"""

from __future__ import annotations

import base64
import io
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import anyio
import anyio.abc

from bridge.devices.web.cdp import CdpClient, CdpClosed, CdpError
from bridge.devices.web.chromium import Chromium
from bridge.devices.web.source import WebPageEndpoint
from bridge.wire.base import Bounds
from bridge.wire.cdp import ScreenshotResult

DPR = 2.5
"""Device pixels per CSS pixel of the simulated WebView (a 420 dpi phone is 2.625)."""
PAGE = Path(__file__).parent / "web" / "shop.html"
PAGES: dict[str, str] = {"news": "news.html"}
"""The pages of the other WebViews on a screen, by the WebView's ident (``web/``; the first
WebView shows ``PAGE``)."""
LONG_PRESS_S = 0.6
STARTING = "Starting the browser…"


@dataclass
class ExtraPage:
    """The page of another WebView on the same screen (the same browser, a tab of its own)."""

    page: CdpClient
    target: WebPageEndpoint
    box: Bounds


class SimWebView:
    """The pages behind the simulated device's WebViews (one browser per device: the first
    WebView's page, and ``extras`` for the others, by the WebView's ident)."""

    def __init__(self) -> None:
        self.browser: Chromium | None = None
        self.page: CdpClient | None = None
        self.target: WebPageEndpoint | None = None
        self.status: str | None = None
        """None: the page is up (or not asked for yet); else what the WebView shows."""
        self.box: Bounds | None = None
        self.extras: dict[str, ExtraPage] = {}
        self._started = False
        self._lock = anyio.Lock()

    @property
    def ready(self) -> bool:
        return self.page is not None and not self.page.closed

    async def ensure(self, box: Bounds, tg: anyio.abc.TaskGroup) -> None:
        """Start the browser and open the page sized to ``box`` (once; later calls return).
        Sets ``status`` to the install hint when there is no Chromium."""
        async with self._lock:
            self.box = box
            if self._started:
                return
            self._started = True
            found = Chromium.available()
            if isinstance(found, str):
                self.status = found
                return
            self.status = STARTING
            width = max(1, round((box[2] - box[0]) / DPR))
            height = max(1, round((box[3] - box[1]) / DPR))
            found.width, found.height = width, height
            try:
                await found.start()
                self.browser = found
                target = await found.new_page("about:blank")
                page = await CdpClient.connect(target.webSocketDebuggerUrl)
                tg.start_soon(page.serve)
                await page.call(
                    "Emulation.setDeviceMetricsOverride",
                    {"width": width, "height": height, "deviceScaleFactor": DPR,
                     "mobile": True},
                )  # fmt: skip
                await page.call("Page.enable")
                await page.call("Page.navigate", {"url": PAGE.as_uri()})
                self.page = page
                self.target = WebPageEndpoint(
                    ws_url=target.webSocketDebuggerUrl, title=target.title, url=PAGE.as_uri()
                )
                self.status = None
            except (RuntimeError, OSError, CdpError, CdpClosed, TimeoutError) as exc:
                self.status = f"the browser did not start: {exc!r}"[:300]
                self.close()

    async def ensure_extra(self, ident: str, box: Bounds, tg: anyio.abc.TaskGroup) -> None:
        """Open the page of another WebView (``ident``: its page is ``PAGES[ident]``) in the
        browser the first WebView started (once; nothing while that browser is not up)."""
        async with self._lock:
            browser = self.browser
            if ident in self.extras or browser is None or not self.ready:
                return
            file = PAGE.parent / PAGES.get(ident, PAGE.name)
            width = max(1, round((box[2] - box[0]) / DPR))
            height = max(1, round((box[3] - box[1]) / DPR))
            try:
                target = await browser.new_page("about:blank")
                page = await CdpClient.connect(target.webSocketDebuggerUrl)
                tg.start_soon(page.serve)
                await page.call(
                    "Emulation.setDeviceMetricsOverride",
                    {"width": width, "height": height, "deviceScaleFactor": DPR,
                     "mobile": True},
                )  # fmt: skip
                await page.call("Page.enable")
                await page.call("Page.navigate", {"url": file.as_uri()})
            except (RuntimeError, OSError, CdpError, CdpClosed, TimeoutError):
                return  # that WebView stays empty; the first one's page is unaffected
            endpoint = WebPageEndpoint(
                ws_url=target.webSocketDebuggerUrl, title=target.title, url=file.as_uri(),
                screen=box,
            )  # fmt: skip
            self.extras[ident] = ExtraPage(page, endpoint, box)

    async def resize(self, box: Bounds) -> None:
        """Lay the page out for a WebView that changed size (a turned screen)."""
        page = self.page
        self.box = box
        if page is None:
            return
        width = max(1, round((box[2] - box[0]) / DPR))
        height = max(1, round((box[3] - box[1]) / DPR))
        metrics = {"width": width, "height": height, "deviceScaleFactor": DPR, "mobile": True}
        try:
            await page.call("Emulation.setDeviceMetricsOverride", metrics)
        except (CdpError, CdpClosed, TimeoutError):
            return

    async def deliver(self, touches: list[tuple[str, str, int, int]]) -> None:
        """Hand touches (the WebView's ident, kind, WebView-relative device pixels) to that
        WebView's page as mouse events."""
        at = (0.0, 0.0)
        for ident, kind, x, y in touches:
            extra = self.extras.get(ident)
            page = extra.page if extra is not None else self.page
            if page is None:
                continue
            css = {"x": x / DPR, "y": y / DPR, "button": "left", "clickCount": 1}
            try:
                if kind == "scroll":  # where a swipe starts; ``scroll_by`` follows
                    at = (x / DPR, y / DPR)
                    continue
                if kind == "scroll_by":  # a finger moving up scrolls the page down
                    wheel = {"type": "mouseWheel", "x": at[0], "y": at[1],
                             "deltaX": -x / DPR, "deltaY": -y / DPR}  # fmt: skip
                    await page.call("Input.dispatchMouseEvent", wheel)
                    continue
                await page.call("Input.dispatchMouseEvent", {"type": "mouseMoved", **css})
                await page.call("Input.dispatchMouseEvent", {"type": "mousePressed", **css})
                if kind == "long_press":
                    await anyio.sleep(LONG_PRESS_S)
                await page.call("Input.dispatchMouseEvent", {"type": "mouseReleased", **css})
            except (CdpError, CdpClosed, TimeoutError):
                return

    async def picture(self, ident: str | None = None) -> bytes | None:
        """A WebView's page's picture (PNG, device pixels; None: the first WebView's), or
        None when it cannot be had."""
        extra = self.extras.get(ident) if ident is not None else None
        page = extra.page if extra is not None else self.page
        if page is None:
            return None
        try:
            shot = await page.query(
                "Page.captureScreenshot", {"format": "png"}, ScreenshotResult, timeout_s=10
            )
        except (CdpError, CdpClosed, TimeoutError):
            return None
        return base64.b64decode(shot.data)

    @property
    def problem(self) -> str | None:
        """``WebSource``: the install hint, or why the browser did not start."""
        return self.status if self.status != STARTING else None

    async def pages(self) -> list[WebPageEndpoint]:
        """``WebSource``: the pages that are up (with several, each says where it is, as an
        Android WebView's page description does)."""
        out: list[WebPageEndpoint] = []
        if self.target is not None and self.ready:
            out.append(replace(self.target, screen=self.box) if self.extras else self.target)
        out.extend(e.target for e in self.extras.values() if not e.page.closed)
        return out

    def close(self) -> None:
        browser, self.browser = self.browser, None
        self.page = None
        self.extras.clear()
        if browser is not None:
            browser.stop()


def compose(screen_png: bytes, box: Bounds, page_png: bytes, scale: int) -> bytes:
    """``screen_png`` with ``page_png`` drawn into ``box`` (device pixels; the screenshot is
    1/``scale`` of the device's size)."""
    from PIL import Image

    screen: Any = Image.open(io.BytesIO(screen_png)).convert("RGB")
    page: Any = Image.open(io.BytesIO(page_png)).convert("RGB")
    left, top, right, bottom = (v // scale for v in box)
    width, height = max(1, right - left), max(1, bottom - top)
    page = page.resize((width, min(height, round(page.height * width / max(1, page.width)))))
    screen.paste(page.crop((0, 0, width, min(height, page.height))), (left, top))
    out = io.BytesIO()
    screen.save(out, format="PNG", compress_level=1)
    return out.getvalue()

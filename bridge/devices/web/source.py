"""What a device offers the hub for its web content: page debugging endpoints.

A ``WebSource`` lists the pages a device's WebViews show (``pages``), each as a loopback
DevTools websocket the hub attaches to (``WebPageEndpoint``), and says why there are none
(``problem``: debugging is off, the Web Inspector is not enabled, no browser). Three kinds:
the simulated device's own Chromium (``bridge.devices.sim.webview``), Android's devtools
sockets through ``adb forward`` (``bridge.devices.web.android``), and iOS's Web Inspector
(``bridge.devices.web.ios``).

Invariants: endpoints are loopback URLs; ``pages`` never raises for an expected failure (it
returns no pages and sets ``problem``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from bridge.wire.base import Bounds

if TYPE_CHECKING:
    from collections.abc import Awaitable as _Awaitable  # noqa: F401


@dataclass(frozen=True, slots=True)
class WebPageEndpoint:
    """One page to attach to. ``screen``: where the page is on the screen, in device pixels,
    when the platform says (Android WebViews describe it); None: the hub pairs the page with
    a WebView of the snapshot itself."""

    ws_url: str
    title: str = ""
    url: str = ""
    screen: Bounds | None = None
    visible: bool = True
    open: Callable[[], Awaitable[Any]] | None = None
    """Opens a ``bridge.devices.web.page.PageSession`` on the page (typed loosely here: the page
    module builds on this one)."""
    """How to open a session when the page does not speak CDP at ``ws_url`` (iOS's Web
    Inspector); None: CDP."""


class WebSource(Protocol):
    @property
    def problem(self) -> str | None:
        """Why no page can be had (None: nothing wrong, or not known yet)."""
        ...

    async def pages(self) -> list[WebPageEndpoint]:
        """The pages on screen now (attached and visible first)."""
        ...

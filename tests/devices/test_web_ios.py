"""iOS's Web Inspector path against fakes (no iPhone here): the WIR listing (keys and types
from WebKit's RemoteInspectorConstants.h), "Web Inspector is off", and a ``WebKitPage`` that
speaks WebKit's Inspector protocol — its page walker running in Debian's real Chromium on the
simulated device's web shop through a transport translating WebKit messages to CDP."""

from __future__ import annotations

import anyio
import pytest

from bridge.devices.ios.web_inspector import (
    WEB_INSPECTOR_OFF,
    InspectorTransport,
    IosWebSource,
    WebKitPage,
    WirPage,
    pages_from_listing,
)
from bridge.devices.sim.webview import PAGE
from bridge.devices.web.cdp import CdpClient
from bridge.devices.web.chromium import Chromium
from tests.devices.web_fakes.webkit import ChromiumAsWebKit
from tests.skips import need_web_chromium

pytestmark = pytest.mark.anyio
BOX = (0, 379, 1080, 2337)

# A listing as the device sends it in _rpc_applicationSentListing: (WIRListingKey).
LISTING = {
    "1": {"WIRPageIdentifierKey": 1, "WIRTitleKey": "Web Shop", "WIRURLKey": "https://shop/",
          "WIRTypeKey": "WIRTypeWebPage", "WIRConnectionIdentifierKey": "C1"},
    "2": {"WIRPageIdentifierKey": 2, "WIRTitleKey": "", "WIRURLKey": "",
          "WIRTypeKey": "WIRTypeAutomation"},
    "3": {"WIRPageIdentifierKey": 3, "WIRTypeKey": "WIRTypeJavaScript"},
    "4": "not a page",
}  # fmt: skip


def test_the_listing_keeps_pages_only() -> None:
    pages = pages_from_listing("PID:42", LISTING)
    assert pages == [WirPage("PID:42", 1, "Web Shop", "https://shop/", "WIRTypeWebPage")]


class FakeInspector:
    def __init__(self, pages: list[WirPage], transport: InspectorTransport | None = None):
        self._pages = pages
        self.transport = transport
        self.opened: list[WirPage] = []

    async def pages(self) -> list[WirPage]:
        return self._pages

    async def open(self, page: WirPage) -> InspectorTransport:
        self.opened.append(page)
        assert self.transport is not None
        return self.transport


async def test_no_inspectable_page_says_how_to_turn_the_inspector_on() -> None:
    source = IosWebSource(FakeInspector([]))
    assert await source.pages() == []
    assert source.problem == WEB_INSPECTOR_OFF and "isInspectable" in WEB_INSPECTOR_OFF


@need_web_chromium
async def test_a_webkit_page_is_read_typed_into_and_tapped() -> None:
    browser = Chromium.available()
    assert not isinstance(browser, str)
    browser.width, browser.height = 432, 783
    await browser.start()
    try:
        target = await browser.new_page(PAGE.as_uri())
        client = await CdpClient.connect(target.webSocketDebuggerUrl)
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.serve)
            await client.call(
                "Emulation.setDeviceMetricsOverride",
                {"width": 432, "height": 783, "deviceScaleFactor": 2.5, "mobile": True},
            )
            transport = ChromiumAsWebKit(client)
            inspector = FakeInspector(pages_from_listing("PID:42", LISTING), transport)
            source = IosWebSource(inspector)
            endpoints = await source.pages()
            assert len(endpoints) == 1 and endpoints[0].open is not None
            page = await endpoints[0].open()
            assert isinstance(page, WebKitPage)
            tg.start_soon(page.serve)
            await page.prepare()
            content = await page.read(BOX)
            by_id = {it.automation_id: it for it in content.items}
            assert by_id["web:#email"].role == "textbox" and by_id["web:#email"].name == "Email"
            assert by_id["web:#email"].hint == "you@example.com"
            assert by_id["web:#password"].password and by_id["web:#password"].value is None
            assert by_id["web:#signin"].role == "button" and by_id["web:#signin"].name == "Sign in"
            signin = by_id["web:#signin"]
            assert signin.bounds is not None and BOX[1] < signin.bounds[1] < BOX[3]
            assert signin.bounds[0] == round(16 * 2.5)  # body padding, mapped like CDP's
            # a change in the page arrives as a console marker (no polling)
            page.changed = anyio.Event()
            email = by_id["web:#email"].backend_id
            assert email is not None
            assert await page.set_text(email, "demo@example.com") == "demo@example.com"
            with anyio.fail_after(30):
                await page.changed.wait()
            again = {it.automation_id: it for it in (await page.read(BOX)).items}
            assert again["web:#email"].value == "demo@example.com"
            assert again["web:#email"].backend_id == email  # the same element, the same id
            password = again["web:#password"].backend_id
            assert password is not None
            assert await page.set_text(password, "pw") == "pw"
            await page.click(again["web:#signin"].backend_id or 0)
            with anyio.fail_after(30):
                while True:
                    names = {it.name for it in (await page.read(BOX)).items}
                    if "Welcome, demo@example.com" in names:
                        break
                    page.changed = anyio.Event()
                    await page.changed.wait()
            methods = [m["method"] for m in transport.sent]
            assert {"Console.enable", "Page.enable", "Runtime.evaluate"} <= set(methods)
            assert not any(m.startswith("Accessibility.") for m in methods)
            await page.close()
            tg.cancel_scope.cancel()
    finally:
        browser.stop()

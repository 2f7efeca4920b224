"""Debian's headless Chromium as the simulated device's web engine (``bridge.devices.web.
chromium``): every page it opens is visible, so the page runs its rendering steps (scroll
events, animation frames) whichever page was opened last or whether the start-up tab came late.
A hidden page dispatches no scroll events; a CI run lost one that way."""

from __future__ import annotations

from pathlib import Path

import anyio
import msgspec
import pytest

from bridge.devices.web.cdp import CdpClient
from bridge.devices.web.chromium import Chromium
from tests.skips import need_web_chromium

pytestmark = pytest.mark.anyio


async def _visibility(url: str) -> str:
    client = await CdpClient.connect(url)
    async with anyio.create_task_group() as tg:
        tg.start_soon(client.serve)
        raw = await client.call_raw(
            "Runtime.evaluate", {"expression": "document.visibilityState", "returnByValue": True}
        )
        await client.close()
        tg.cancel_scope.cancel()
    return str(msgspec.json.decode(raw)["result"]["value"])


@need_web_chromium
async def test_every_page_opened_is_visible_not_only_the_last() -> None:
    browser = Chromium.available()
    assert not isinstance(browser, str)
    await browser.start()
    try:
        first = await browser.new_page("about:blank")
        second = await browser.new_page("about:blank")
        assert first.id != second.id
        listed = {t.id for t in await browser.targets()}
        assert {first.id, second.id} <= listed
        assert await _visibility(first.webSocketDebuggerUrl) == "visible"
        assert await _visibility(second.webSocketDebuggerUrl) == "visible"
    finally:
        browser.stop()


@need_web_chromium
async def test_a_page_is_loaded_when_it_is_handed_over(tmp_path: Path) -> None:
    """``Target.createTarget`` answers while the page still shows its first ``about:blank``;
    a caller reading it then read that (a CI run read no ``#email``), or had its script's
    context destroyed by the navigation."""
    page_file = tmp_path / "p.html"
    page_file.write_text("<!doctype html><title>Here</title><input id=email>")
    browser = Chromium.available()
    assert not isinstance(browser, str)
    await browser.start()
    try:
        target = await browser.new_page(page_file.as_uri())
        client = await CdpClient.connect(target.webSocketDebuggerUrl)
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.serve)
            raw = await client.call_raw(
                "Runtime.evaluate",
                {
                    "expression": "document.readyState + ' ' + location.href + ' ' "
                    "+ !!document.getElementById('email')",
                    "returnByValue": True,
                },
            )
            await client.close()
            tg.cancel_scope.cancel()
        state = msgspec.json.decode(raw)["result"]["value"]
        assert state == f"complete {page_file.as_uri()} true"
    finally:
        browser.stop()

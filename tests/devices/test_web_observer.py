"""The page script that says a page changed (``bridge.devices.web.observer``), in Debian's
real Chromium: a frame added after the script ran, first seen on its initial ``about:blank``
document, still has its real document watched once it loads (a scroll inside it is a change);
and the script installed twice watches once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest

from bridge.devices.web.cdp import CdpClient
from bridge.devices.web.chromium import Chromium
from bridge.devices.web.page import CdpPage
from tests.skips import need_web_chromium

pytestmark = [pytest.mark.anyio, need_web_chromium]

FRAME_DOC = (
    '<div id="box" style="height:60px;overflow-y:auto">'
    '<p style="height:600px;margin:0">questions</p></div>'
)


async def _eval(helper: CdpClient, expression: str) -> Any:
    raw = await helper.call_raw(
        "Runtime.evaluate",
        {"expression": expression, "returnByValue": True, "awaitPromise": True},
    )
    return json.loads(bytes(raw))["result"].get("value")


async def test_a_frame_added_later_is_watched_after_it_loads(tmp_path: Path) -> None:
    main = tmp_path / "main.html"
    main.write_text("<!doctype html><html><body><p>Main</p></body></html>")
    browser = Chromium.available()
    assert not isinstance(browser, str)
    await browser.start()
    try:
        target = await browser.new_page(main.as_uri())
        page = await CdpPage.connect(target.webSocketDebuggerUrl)
        helper = await CdpClient.connect(target.webSocketDebuggerUrl)
        async with anyio.create_task_group() as tg:
            tg.start_soon(page.serve)
            tg.start_soon(helper.serve)
            await page.prepare()
            # a frame appears: the observer sees the mutation and hooks its about:blank
            page.changed = anyio.Event()
            await _eval(helper, "document.body.append(Object.assign("
                        "document.createElement('iframe'), {id: 'late'})); 1")  # fmt: skip
            with anyio.fail_after(30):
                await page.changed.wait()
            assert await _eval(helper, "new Promise(r => setTimeout(() => r("
                               "document.getElementById('late').contentDocument.URL), 50))"
                               ) == "about:blank"  # fmt: skip
            # ...then loads its real document (no change to the page's own DOM after that)
            loaded = (
                "new Promise(r => { const f = document.getElementById('late');"
                " f.addEventListener('load', () => r(f.contentDocument.getElementById('box')"
                " !== null), {once: true});"
                f" f.srcdoc = {json.dumps(FRAME_DOC)}; }})"
            )
            assert await _eval(helper, loaded) is True
            # let every notice the load caused arrive, then scroll inside the frame
            with anyio.fail_after(30):
                await page.changed.wait()
            await _eval(helper, "new Promise(r => requestAnimationFrame(() => "
                        "requestAnimationFrame(() => r(1))))")  # fmt: skip
            page.changed = anyio.Event()
            moved = await _eval(
                helper,
                "(() => { const b = document.getElementById('late').contentDocument"
                ".getElementById('box'); b.scrollTop = 200; return b.scrollTop; })()",
            )
            assert moved == 200
            with anyio.fail_after(30):  # the frame's scroll event is a change
                await page.changed.wait()
            # installed again (a read does so): still one observer, no error
            await page.prepare()
            await helper.close()
            await page.close()
            tg.cancel_scope.cancel()
    finally:
        browser.stop()

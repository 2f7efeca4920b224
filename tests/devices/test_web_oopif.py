"""A frame another process renders (site isolation): the page is served on 127.0.0.1 and its
frame from ``localhost`` (another site), so Debian's real Chromium renders the frame in a
process of its own; ``CdpPage`` reaches it as a flattened session (``Target.setAutoAttach``),
merges its document under the frame's node where the frame is, and types into and clicks
its elements through that session."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from bridge.core.web_tree import REMOTE_SHIFT
from bridge.devices.web.chromium import Chromium
from bridge.devices.web.page import CdpPage
from tests.skips import need_web_chromium

pytestmark = [pytest.mark.anyio, need_web_chromium]
BOX = (0, 200, 1080, 2200)

MAIN = """<!doctype html><html><head><title>Checkout</title></head>
<body style="margin:0;font-family:sans-serif">
<h1 style="margin:8px">Checkout</h1>
<button id="top" style="display:block;margin:8px">Back</button>
<iframe id="partner" title="Partner" src="http://localhost:%d/frame.html"
        style="display:block;margin:40px 0 0 20px;width:300px;height:220px;border:0"></iframe>
</body></html>"""
FRAME = """<!doctype html><html><body style="margin:0;font-family:sans-serif">
<label for="card">Card number</label><input id="card">
<button id="pay" style="display:block;margin-top:30px">Pay</button><p id="paid"></p>
<script>
document.getElementById("pay").addEventListener("click", () => {
  document.getElementById("paid").textContent = "Paid";
});
</script></body></html>"""


@pytest.fixture
def served(tmp_path: Path) -> Iterator[int]:
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined,assignment]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    port = int(server.server_address[1])
    (tmp_path / "main.html").write_text(MAIN % port)
    (tmp_path / "frame.html").write_text(FRAME)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield port
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def _browser() -> Chromium:
    browser = Chromium.available()
    assert not isinstance(browser, str)
    own = browser.argv

    def argv(profile: Path) -> list[str]:  # loopback reachable, sites isolated
        keep = [a for a in own(profile) if not a.startswith("--proxy")]
        return [*keep, "--site-per-process"]

    browser.argv = argv  # type: ignore[method-assign]
    browser.width, browser.height = 432, 800
    return browser


async def test_a_cross_process_frame_is_merged_where_it_is_and_acted_on(served: int) -> None:
    browser = _browser()
    await browser.start()
    try:
        target = await browser.new_page(f"http://127.0.0.1:{served}/main.html")
        page = await CdpPage.connect(target.webSocketDebuggerUrl)
        async with anyio.create_task_group() as tg:
            tg.start_soon(page.serve)
            await page.prepare()
            with anyio.fail_after(20):  # the frame's process attaches as a session
                while True:
                    page.changed = anyio.Event()
                    content = await page.read(BOX)
                    if any(it.name == "Pay" for it in content.items):
                        break
                    await page.changed.wait()
            assert page.remote, "the frame was not rendered by another process"
            items = content.items
            frame = next(it for it in items if it.role == "Iframe")
            pay = next(it for it in items if it.name == "Pay")
            card = next(it for it in items if it.html_id == "card")
            assert frame.name == "Partner" and frame.bounds and pay.bounds
            assert pay.backend_id is not None and pay.backend_id >= REMOTE_SHIFT
            assert card.automation_id == "web:#card" and card.name == "Card number"
            # where the frame is: inside its box, below its top by the button's offset
            assert frame.bounds[0] <= pay.bounds[0] and pay.bounds[3] <= frame.bounds[3]
            assert pay.bounds[1] > frame.bounds[1]
            top = next(it for it in items if it.html_id == "top")
            assert top.backend_id is not None and top.backend_id < REMOTE_SHIFT
            # acted on through the frame's own session
            assert card.backend_id is not None
            assert await page.set_text(card.backend_id, "4242") == "4242"
            await page.click(pay.backend_id)
            with anyio.fail_after(20):  # the frame's change notification (no polling)
                while True:
                    page.changed = anyio.Event()
                    names = {it.name for it in (await page.read(BOX)).items}
                    if "Paid" in names:
                        break
                    await page.changed.wait()
            await page.close()
            tg.cancel_scope.cancel()
    finally:
        browser.stop()

"""Web content: what merging a WebView's page costs, and how fast a change in it reaches a
subscriber. Needs Debian's ``chromium`` (``scripts/system-packages --install``).

Rows (``scripts/bench --only web``):

- ``merge``: a 500-element page (a grid of 500 named buttons, all inside the WebView) in
  the real headless Chromium; per round: one read over CDP (``Page.getLayoutMetrics``,
  ``Accessibility.getFullAXTree``, ``DOMSnapshot.captureSnapshot``), the conversion to web
  items, and the merge under a native tree's WebView with the full normalization pass;
  p50 of each part and of the whole;
- ``client``: a ``Runtime.evaluate("1")`` round trip through this project's thin client
  and through Playwright's CDP session (``connect_over_cdp`` + ``new_cdp_session``) on the
  same page, side by side (Playwright only where it is installed: the ``dev`` extra);
- ``delta``: a real hub on the ``web`` scene and a subscriber in another process; a field
  of the page changes (``input`` event, set over a second CDP connection) and the time until
  the subscriber's delta carries the new value is measured, p50 / max over the rounds
  (target: <= 50 ms).
Every row prints the machine's load average beside it.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GRID = 500
BOX = (0, 379, 1080, 2337)


def _page_html(n: int) -> str:
    cells = "".join(f'<button id="b{i}">Item {i}</button>' for i in range(n))
    return (
        "<!doctype html><meta name=viewport content='width=device-width'>"
        "<style>body{margin:0;display:grid;grid-template-columns:repeat(20,1fr);"
        "font:7px sans-serif}button{padding:0;height:30px;font-size:7px}</style>"
        f"<title>Grid</title>{cells}"
    )


def _load() -> str:
    return ", ".join(f"{v:.1f}" for v in os.getloadavg())


def _p(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _merge_rows(rounds: int) -> list[str]:
    import anyio

    from bridge.core.normalize import NormalizeEngine, SnapshotContext
    from bridge.core.web_tree import WebOverlay, viewport_of, web_items
    from bridge.devices.web.cdp import CdpClient
    from bridge.devices.web.chromium import Chromium
    from bridge.devices.web.page import SNAPSHOT
    from bridge.wire.cdp import DomSnapshot, FullAXTree, LayoutMetrics
    from bridge.wire.enums import Platform
    from bridge.wire.raw import RawNode, RawTree

    browser = Chromium.available()
    if isinstance(browser, str):
        return [f"web: skipped: {browser}"]
    browser.width, browser.height = 432, 783
    folder = tempfile.TemporaryDirectory(prefix="mobridge-bench-web-")
    page_file = Path(folder.name) / "grid.html"
    page_file.write_text(_page_html(GRID))
    native = RawTree(
        capture=1,
        platform=Platform.ANDROID,
        nodes=(
            RawNode(handle=1, parent=-1, class_name="android.widget.FrameLayout",
                    bounds=(0, 0, 1080, 2400)),
            RawNode(handle=2, parent=0, class_name="android.webkit.WebView", bounds=BOX),
        ),
    )  # fmt: skip
    lines: list[str] = []
    await browser.start()
    try:
        target = await browser.new_page(page_file.as_uri())
        client = await CdpClient.connect(target.webSocketDebuggerUrl)
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.serve)
            await client.call(
                "Emulation.setDeviceMetricsOverride",
                {"width": 432, "height": 783, "deviceScaleFactor": 2.5, "mobile": True},
            )
            await anyio.sleep(0.5)
            read, convert, merge, whole = [], [], [], []
            count = 0
            for _ in range(rounds):
                t0 = time.perf_counter()
                metrics = await client.query("Page.getLayoutMetrics", {}, LayoutMetrics)
                ax = await client.query("Accessibility.getFullAXTree", {}, FullAXTree)
                snap = await client.query("DOMSnapshot.captureSnapshot", SNAPSHOT, DomSnapshot)
                t1 = time.perf_counter()
                content = web_items(ax, snap, viewport_of(metrics, BOX))
                t2 = time.perf_counter()
                merged = WebOverlay(BOX, content).apply(native)
                NormalizeEngine().run(merged, SnapshotContext("bench", "s_1", 0))
                t3 = time.perf_counter()
                count = len(content.items)
                read.append((t1 - t0) * 1000)
                convert.append((t2 - t1) * 1000)
                merge.append((t3 - t2) * 1000)
                whole.append((t3 - t0) * 1000)
            lines.append(
                f"web merge: {GRID}-element page ({count} web nodes merged), {rounds} rounds"
            )
            lines.append(
                f"  p50 read (3 CDP calls) {statistics.median(read):6.1f} ms  convert "
                f"{statistics.median(convert):5.1f} ms  merge+normalize "
                f"{statistics.median(merge):5.1f} ms  whole {statistics.median(whole):6.1f} ms"
                f"   load average {_load()}"
            )
            # what asking which boxes scroll costs (overflow-y and DOM rects, issue 37 round
            # two): the DOM snapshot alone, without and with, alternating, side by side
            plain: list[float] = []
            scrolls: list[float] = []
            for _ in range(rounds * 2):
                for params, into in (({"computedStyles": []}, plain), (SNAPSHOT, scrolls)):
                    t0 = time.perf_counter()
                    await client.query("DOMSnapshot.captureSnapshot", params, DomSnapshot)
                    into.append((time.perf_counter() - t0) * 1000)
            base, more = statistics.median(plain), statistics.median(scrolls)
            lines.append(
                f"  p50 DOM snapshot: boxes only {base:5.1f} ms  with overflow-y and rects "
                f"{more:5.1f} ms ({more / base if base else 0:.2f}x)   load average {_load()}"
            )
            lines += await _client_rows(client, browser.http, target.id, rounds)
            tg.cancel_scope.cancel()
    finally:
        browser.stop()
        folder.cleanup()
    return lines


async def _client_rows(client: object, http: str, target_id: str, rounds: int) -> list[str]:
    from bridge.devices.web.cdp import CdpClient

    assert isinstance(client, CdpClient)
    thin: list[float] = []
    for _ in range(rounds * 5):
        t0 = time.perf_counter()
        await client.call("Runtime.evaluate", {"expression": "1"})
        thin.append((time.perf_counter() - t0) * 1000)
    row = f"  cdp round trip p50: thin client {statistics.median(thin):5.2f} ms"
    try:
        from playwright.async_api import async_playwright
    except ImportError:
        return [row + "   playwright: not installed (the dev extra)"]
    heavy: list[float] = []
    t_start = time.perf_counter()
    async with async_playwright() as pw:
        browser = await pw.chromium.connect_over_cdp(http)
        started = (time.perf_counter() - t_start) * 1000
        page = next(p for c in browser.contexts for p in c.pages)
        session = await page.context.new_cdp_session(page)
        for _ in range(rounds * 5):
            t0 = time.perf_counter()
            await session.send("Runtime.evaluate", {"expression": "1"})
            heavy.append((time.perf_counter() - t0) * 1000)
        await browser.close()
    ratio = statistics.median(heavy) / max(1e-6, statistics.median(thin))
    return [
        f"{row}   playwright cdp session {statistics.median(heavy):5.2f} ms "
        f"({ratio:.1f}x; its connect {started:.0f} ms, a Node driver process)"
    ]


_SUBSCRIBER = r"""
import sys, time, anyio
from bridge.client import connect

async def main(url, token, device, rounds):
    async with connect(url, token=token, name="bench-sub") as c:
        async with c.device(device).watch() as w:
            print("ready", flush=True)
            want = 0
            async for update in w:
                text = repr(update.delta)
                while f"bench{want}@" in text:
                    print(f"{want} {time.monotonic_ns()}", flush=True)
                    want += 1
                if want >= rounds:
                    return

anyio.run(main, sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]))
"""


async def _delta_rows(rounds: int) -> list[str]:
    import anyio

    from bridge.devices.web.cdp import CdpClient
    from bridge.hub.app import Hub, HubConfig
    from bridge.net.auth import Principal

    token = "bench-web-token"
    hub = Hub(
        HubConfig(
            port=0,
            tokens={token: Principal("controller", "bench")},
            sim_scene="web",
            sim_options={"animations": False},
            journal=None,
        )
    )
    waits: list[float] = []
    async with anyio.create_task_group() as tg:
        port = await tg.start(hub.run)
        device = next(iter(hub.service.devices))
        sim = hub.sim
        with anyio.fail_after(60):
            while device not in hub.service.web.attached or sim.webview.target is None:  # noqa: ASYNC110
                await anyio.sleep(0.05)  # the hub exposes no event for it
        page = await CdpClient.connect(sim.webview.target.ws_url)
        tg.start_soon(page.serve)
        proc = subprocess.Popen(  # noqa: ASYNC220 (returns at once)
            [sys.executable, "-c", _SUBSCRIBER, f"ws://127.0.0.1:{port}/v1", token, device,
             str(rounds)],
            stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        try:
            assert proc.stdout is not None
            out = proc.stdout
            ready = await anyio.to_thread.run_sync(out.readline)
            if ready.strip() != "ready":
                return [f"web delta: the subscriber did not start ({ready!r})"]
            for n in range(rounds):
                await anyio.sleep(0.15)  # let the last change settle: one change at a time
                set_value = (
                    "(() => { const e = document.getElementById('email');"
                    f"e.value = 'bench{n}@example.com';"
                    "e.dispatchEvent(new Event('input', {bubbles: true})); })()"
                )
                t0 = time.monotonic_ns()
                await page.call("Runtime.evaluate", {"expression": set_value})
                with anyio.fail_after(10):
                    line = await anyio.to_thread.run_sync(out.readline, abandon_on_cancel=True)
                seen, at = line.split()
                if int(seen) != n:
                    return [f"web delta: the subscriber saw change {seen}, expected {n}"]
                waits.append((int(at) - t0) / 1e6)
        finally:
            proc.kill()
            proc.wait()
        reads = hub.service.web.statistics()
        tg.cancel_scope.cancel()
    verdict = "ok" if statistics.median(waits) <= 50 else "OVER the 50 ms target"
    return [
        f"web delta: one field of the page changes -> a subscriber (own process) has the "
        f"delta, {rounds} rounds",
        f"  p50 {statistics.median(waits):5.1f} ms  p90 {_p(waits, 0.9):5.1f} ms  max "
        f"{max(waits):5.1f} ms (target <= 50 ms: {verdict})   hub page read p50 "
        f"{reads['read_p50_ms']} ms   load average {_load()}",
    ]


def run(quick: bool) -> list[str]:
    import anyio

    from bridge.devices.web.chromium import find_chromium

    if find_chromium() is None:
        from bridge.devices.web.chromium import INSTALL_HINT

        return [f"web: skipped: {INSTALL_HINT}"]
    rounds = 5 if quick else 30
    lines = anyio.run(_merge_rows, rounds)
    lines += anyio.run(_delta_rows, 5 if quick else 40)
    return lines

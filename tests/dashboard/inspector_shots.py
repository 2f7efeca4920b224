"""The inspector's pictures for the docs (``scripts/inspector-shots``): a real hub with the
simulated device, Debian's Chromium driven by Playwright (the browser tests' own helpers),
written to ``docs/images/inspector-*.png`` as 256-colour PNGs of at most ``MAX_BYTES``:

- ``inspector-picture.png``: a controller's page, the simulated device's readable picture;
- ``inspector-tap.png``: right after a tap made on the picture (Login), the screen changed;
- ``inspector-timeline.png``: the activity timeline showing that tap, made by ``dashboard``;
- ``inspector-observer.png``: an observer's page, an element picked, no act controls;
- ``inspector-record.png``: signed in from the page alone (Act mode, the type box), the
  recording and its mobridge YAML export;
- ``inspector-search.png``: a search's matches marked in the list and on the picture, the
  picked element's ranked selectors with the hub's match counts;
- ``inspector-console.png``: the console after a command line and a flow step, with the
  hub's answers;
- ``inspector-compare.png``: time travel comparing a past moment with now, both pictures;
- ``inspector-offline.png``: the page greyed while the hub is down, retrying;
- ``inspector-phone.png``: the page at 390 px wide, one column.

Not a test: it asserts only what a picture needs to show what its name says.
"""

from __future__ import annotations

import io
import sys
import tempfile
from pathlib import Path

import anyio

from bridge.dashboard import page
from tests.dashboard.test_dashboard_act import _picture_point, _snapshot
from tests.dashboard.test_dashboard_browser import CHROMIUM, ROOT, browser_tab, until
from tests.hub.hubfixture import CONTROLLER, OBSERVER, running_hub

IMAGES = ROOT / "docs" / "images"
MAX_BYTES = 150_000


def _save(png: bytes, name: str) -> Path:
    """``png`` quantized to 256 colours (and halved while it is over ``MAX_BYTES``)."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    while True:
        out = io.BytesIO()
        image.quantize(colors=256, dither=Image.Dither.NONE).save(out, "PNG", optimize=True)
        if out.tell() <= MAX_BYTES or image.width < 400:
            break
        image = image.resize((image.width * 3 // 4, image.height * 3 // 4), Image.LANCZOS)
    IMAGES.mkdir(parents=True, exist_ok=True)
    path = IMAGES / name
    path.write_bytes(out.getvalue())
    return path


async def _controller(written: list[Path]) -> None:
    async with (
        running_hub(sim_scene="menu", dashboard=page()) as rh,
        browser_tab(rh, f"#token={CONTROLLER}") as (tab, expect),
    ):
        await expect(tab.get_by_test_id("act-bar")).to_be_visible()
        await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
        await anyio.sleep(0.5)  # let the picture settle in its frame
        written.append(_save(await tab.screenshot(), "inspector-picture.png"))
        await tab.get_by_test_id("mode-act").click()
        x, y = await _picture_point(tab, rh, "Login")
        await tab.mouse.click(x, y)
        await expect(tab.get_by_test_id("screen-meta")).to_contain_text("login", timeout=5000)
        tapped = tab.get_by_test_id("log").locator(".event.ok").first
        await expect(tapped).to_contain_text("CLICK")
        await until(
            tab,
            "() => [...document.querySelectorAll('#tree .node')].some("
            "n => n.textContent.includes('Username'))",
        )
        await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
        await anyio.sleep(0.8)  # the new screen's picture
        written.append(_save(await tab.screenshot(), "inspector-tap.png"))
        # the activity panel from its title to its last row
        clip: dict[str, float] = await tab.evaluate(
            """() => { const log = document.getElementById('log');
                const panel = log.parentElement.getBoundingClientRect();
                const rows = log.querySelectorAll('.event');
                const last = rows[rows.length - 1].getBoundingClientRect();
                return {x: panel.x, y: panel.y, width: panel.width,
                        height: last.bottom - panel.y + 8}; }"""
        )
        written.append(_save(await tab.screenshot(clip=clip), "inspector-timeline.png"))


async def _observer(written: list[Path]) -> None:
    async with (
        running_hub(sim_scene="login", dashboard=page()) as rh,
        browser_tab(rh, f"#token={OBSERVER}") as (tab, expect),
    ):
        await expect(tab.get_by_test_id("status")).to_contain_text("connected as observer")
        await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
        assert await tab.get_by_test_id("act-bar").count() == 0
        snap = await _snapshot(rh)
        sign_in = next(n for n in snap.nodes if n.text == "Sign in")
        x, y = await _picture_point(tab, rh, "Sign in")
        await tab.mouse.click(x, y)
        await expect(tab.get_by_test_id("node-facts")).to_contain_text(sign_in.node_id)
        await anyio.sleep(0.3)
        written.append(_save(await tab.screenshot(), "inspector-observer.png"))


async def _record(written: list[Path]) -> None:
    async with (
        running_hub(sim_scene="menu", dashboard=page()) as rh,
        browser_tab(rh, f"#token={CONTROLLER}") as (tab, expect),
    ):
        await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
        await tab.keyboard.press("r")
        await tab.keyboard.press("a")
        await tab.mouse.click(*await _picture_point(tab, rh, "Login"))
        await expect(tab.get_by_test_id("screen-meta")).to_contain_text("login", timeout=5000)
        await anyio.sleep(0.5)
        snap = await _snapshot(rh)
        user = next(n for n in snap.nodes if n.hint == "Username")
        box = await tab.get_by_test_id("shot").bounding_box()
        assert box is not None
        root, b = snap.nodes[0].bounds, user.bounds
        await tab.mouse.click(
            box["x"] + ((b[0] + b[2]) / 2 - root[0]) / (root[2] - root[0]) * box["width"],
            box["y"] + ((b[1] + b[3]) / 2 - root[1]) / (root[3] - root[1]) * box["height"],
        )
        await expect(tab.get_by_test_id("act-type-box")).to_be_focused()
        await tab.keyboard.type("demo")
        await tab.keyboard.press("Tab")
        await anyio.sleep(1.0)
        await tab.keyboard.type("any-password")
        await tab.keyboard.press("Enter")
        await expect(tab.get_by_test_id("screen-meta")).to_contain_text("home", timeout=5000)
        await tab.keyboard.press("Escape")
        await tab.keyboard.press("r")
        await anyio.sleep(0.8)
        written.append(_save(await tab.screenshot(), "inspector-record.png"))


async def _search(written: list[Path]) -> None:
    async with (
        running_hub(sim_scene="login", dashboard=page()) as rh,
        browser_tab(rh, f"#token={OBSERVER}") as (tab, expect),
    ):
        await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
        await tab.get_by_test_id("search").fill("//INPUT")
        await expect(tab.get_by_test_id("search-count")).to_have_text("2 found")
        await tab.get_by_test_id("search").press("Enter")
        await expect(tab.get_by_test_id("selectors")).to_contain_text("match")
        await anyio.sleep(0.3)
        written.append(_save(await tab.screenshot(), "inspector-search.png"))
        await tab.get_by_test_id("console-open").click()
        for line in ("mobridge find --role INPUT", "assertVisible: Sign in"):
            await tab.get_by_test_id("console-in").fill(line)
            await tab.get_by_test_id("console-in").press("Enter")
        await expect(tab.get_by_test_id("console-result").last).to_contain_text("PASS")
        written.append(_save(await tab.screenshot(), "inspector-console.png"))


async def _compare(written: list[Path], journal: Path) -> None:
    from bridge.client import build_query, connect

    async with (
        running_hub(journal=journal, dashboard=page(), sim_options={"animations": False}) as rh,
        browser_tab(rh, f"#token={CONTROLLER}") as (tab, expect),
    ):
        await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
        async with connect(rh.url, token=CONTROLLER, name="script") as hub:
            await hub.device(rh.device_id).tap(build_query(text="Settings"))
            await expect(tab.get_by_test_id("screen-meta")).to_contain_text("settings")
            await anyio.sleep(1.0)
            past = await tab.evaluate("() => Date.now()")
            await hub.device(rh.device_id).tap(build_query(text="Wi-Fi"))
            await anyio.sleep(1.0)
        await tab.get_by_test_id("tt-open").click()
        await expect(tab.get_by_test_id("tt-note")).to_contain_text("recorded moments")
        await tab.evaluate(
            """(at) => { const r = document.querySelector('[data-testid=scrubber]');
                         r.value = String(at); r.dispatchEvent(new Event('input')); }""",
            past,
        )
        await expect(tab.get_by_test_id("tt-shot-age")).to_contain_text("picture")
        await tab.get_by_test_id("tt-compare").click()
        await until(tab, "() => document.querySelector('[data-testid=tt-now]')?.naturalWidth > 0")
        await anyio.sleep(0.3)
        written.append(_save(await tab.screenshot(), "inspector-compare.png"))


async def _offline_and_phone(written: list[Path]) -> None:
    from contextlib import AsyncExitStack

    from tests.dashboard.test_dashboard_live import Port

    async with AsyncExitStack() as hub:
        rh = await hub.enter_async_context(running_hub(sim_scene="login", dashboard=page()))
        async with browser_tab(Port(rh.port), f"#token={CONTROLLER}") as (tab, expect):
            await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
            await tab.set_viewport_size({"width": 390, "height": 844})
            await anyio.sleep(0.8)
            written.append(_save(await tab.screenshot(), "inspector-phone.png"))
            await tab.set_viewport_size({"width": 1366, "height": 768})
            await anyio.sleep(0.5)
            await hub.aclose()  # the hub stops: the page greys and retries
            await expect(tab.get_by_test_id("status")).to_contain_text("retrying")
            written.append(_save(await tab.screenshot(), "inspector-offline.png"))


async def _main() -> list[Path]:
    written: list[Path] = []
    await _controller(written)
    await _observer(written)
    await _record(written)
    await _search(written)
    with tempfile.TemporaryDirectory(prefix="mobridge-shots-journal-") as folder:
        await _compare(written, Path(folder) / "j.sqlite3")
    await _offline_and_phone(written)
    return written


def main() -> int:
    if CHROMIUM is None:
        print("inspector-shots: no Chromium (apt-get install chromium)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="mobridge-shots-") as runtime:
        import os

        os.environ["XDG_RUNTIME_DIR"] = runtime
        for path in anyio.run(_main):
            print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The inspector's pictures for the docs (``scripts/inspector-shots``): a real hub with the
simulated device, Debian's Chromium driven by Playwright (the browser tests' own helpers),
written to ``docs/images/inspector-*.png`` as 256-colour PNGs of at most ``MAX_BYTES``:

- ``inspector-picture.png``: a controller's page, the simulated device's readable picture;
- ``inspector-tap.png``: right after a tap made on the picture (Login), the screen changed;
- ``inspector-timeline.png``: the activity timeline showing that tap, made by ``dashboard``;
- ``inspector-observer.png``: an observer's page, an element picked, no act controls.

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
        await expect(tapped).to_contain_text("tap at (")
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


async def _main() -> list[Path]:
    written: list[Path] = []
    await _controller(written)
    await _observer(written)
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

"""The HTML canvas pages behind the PNGs in this folder, and how they were rendered.

Each page draws everything on one <canvas> with its 2D context (no DOM text), the way a game,
a chart library, a map view, a video player overlay or a drawing app does; ``EXPECTED`` lists
the words each one draws horizontally (what OCR should read). Regenerate the PNGs with
``.venv/bin/python tests/vision/screens/pages.py`` (Playwright driving Debian's Chromium at
540x1170, device scale 1); the tests read the PNGs only.
"""

from __future__ import annotations

import asyncio
import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
WIDTH, HEIGHT = 540, 1170

_HEAD = f"""<!doctype html><html><body style="margin:0;background:#000">
<canvas id="c" width="{WIDTH}" height="{HEIGHT}"></canvas><script>
const c = document.getElementById('c').getContext('2d');
function text(t, x, y, px, colour, weight, align) {{
  c.font = (weight || 'normal') + ' ' + px + 'px "DejaVu Sans", sans-serif';
  c.fillStyle = colour; c.textAlign = align || 'left'; c.textBaseline = 'middle';
  c.fillText(t, x, y);
}}
function box(x, y, w, h, r, colour) {{
  c.fillStyle = colour; c.beginPath(); c.roundRect(x, y, w, h, r); c.fill();
}}
"""

PAGES: dict[str, str] = {
    "game-menu": """
const g = c.createLinearGradient(0, 0, 0, 1170);
g.addColorStop(0, '#1b0f3b'); g.addColorStop(1, '#4a1d6e'); c.fillStyle = g;
c.fillRect(0, 0, 540, 1170);
for (let i = 0; i < 60; i++) { c.fillStyle = 'rgba(255,255,255,0.6)';
  c.fillRect((i * 97) % 540, (i * 151) % 1170, 2, 2); }
text('SPACE RAIDERS', 270, 170, 46, '#ffd54a', 'bold', 'center');
text('LEVEL 7', 30, 60, 26, '#ffffff');
text('COINS 2450', 510, 60, 26, '#ffffff', 'normal', 'right');
const items = ['START GAME', 'SETTINGS', 'LEADERBOARD'];
items.forEach((t, i) => { box(110, 430 + i * 130, 320, 84, 18, i ? '#2e7dd7' : '#f39c12');
  text(t, 270, 472 + i * 130, 30, '#ffffff', 'bold', 'center'); });
text('Best score 98120', 270, 900, 24, '#d0c8ff', 'normal', 'center');
""",
    "sales-chart": """
c.fillStyle = '#ffffff'; c.fillRect(0, 0, 540, 1170);
text('Monthly Sales', 30, 70, 34, '#222222', 'bold');
text('Revenue in thousands', 30, 115, 22, '#666666');
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun'];
const values = [120, 340, 260, 410, 380, 520];
c.strokeStyle = '#999999'; c.lineWidth = 2; c.beginPath(); c.moveTo(60, 200);
c.lineTo(60, 800); c.lineTo(520, 800); c.stroke();
months.forEach((m, i) => { const h = values[i];
  box(80 + i * 73, 800 - h, 50, h, 4, i === 5 ? '#e4572e' : '#4c78a8');
  text(String(values[i]), 105 + i * 73, 780 - h, 20, '#333333', 'normal', 'center');
  text(m, 105 + i * 73, 830, 22, '#333333', 'normal', 'center'); });
text('Total 2030', 30, 920, 28, '#222222', 'bold');
text('Best month June', 30, 970, 24, '#444444');
""",
    "street-map": """
c.fillStyle = '#f2efe9'; c.fillRect(0, 0, 540, 1170);
c.fillStyle = '#c8e6c9'; c.fillRect(300, 520, 200, 230);
c.fillStyle = '#aad3df'; c.fillRect(0, 980, 540, 190);
c.strokeStyle = '#ffffff'; c.lineWidth = 34; c.lineCap = 'round';
[[0, 300, 540, 300], [0, 830, 540, 830], [140, 0, 140, 1170], [420, 0, 420, 520]].forEach(
  ([a, b, d, e]) => { c.beginPath(); c.moveTo(a, b); c.lineTo(d, e); c.stroke(); });
text('Main Street', 220, 300, 24, '#555555');
text('Harbor Lane', 220, 830, 24, '#555555');
text('Central Park', 315, 630, 22, '#2e7d32');
text('City Hall', 170, 430, 22, '#333333');
text('Marina Bay', 200, 1070, 26, '#1565c0');
c.save(); c.translate(140, 640); c.rotate(-Math.PI / 2);
text('Oak Avenue', 0, 0, 22, '#555555', 'normal', 'center'); c.restore();
box(20, 20, 500, 64, 32, '#ffffff');
text('Search here', 60, 52, 24, '#777777');
""",
    "video-player": """
const v = c.createRadialGradient(270, 500, 50, 270, 500, 600);
v.addColorStop(0, '#5d7f96'); v.addColorStop(1, '#0c1620'); c.fillStyle = v;
c.fillRect(0, 0, 540, 1170);
c.fillStyle = 'rgba(0,0,0,0.55)'; c.fillRect(0, 0, 540, 120); c.fillRect(0, 930, 540, 240);
text('Episode 3: The Return', 24, 60, 28, '#ffffff', 'bold');
box(360, 800, 150, 56, 8, 'rgba(255,255,255,0.9)');
text('Skip Intro', 435, 828, 22, '#111111', 'bold', 'center');
c.fillStyle = '#e50914'; c.fillRect(24, 960, 200, 6); c.fillStyle = '#777777';
c.fillRect(224, 960, 292, 6);
text('02:15 / 10:48', 24, 1010, 22, '#ffffff');
text('HD', 500, 1010, 22, '#ffffff', 'bold', 'right');
text('Up next', 24, 1080, 22, '#bbbbbb');
text('Episode 4', 130, 1080, 22, '#ffffff', 'bold');
""",
    "drawing-app": """
c.fillStyle = '#fafafa'; c.fillRect(0, 0, 540, 1170);
c.fillStyle = '#37474f'; c.fillRect(0, 0, 540, 90);
['Brush', 'Eraser', 'Undo', 'Redo'].forEach((t, i) => text(t, 20 + i * 130, 45, 24,
  '#ffffff'));
c.strokeStyle = '#ef5350'; c.lineWidth = 8; c.beginPath(); c.moveTo(80, 300);
for (let i = 0; i < 12; i++) c.lineTo(80 + i * 35, 300 + (i % 2 ? 80 : -40)); c.stroke();
c.strokeStyle = '#42a5f5'; c.beginPath(); c.arc(300, 600, 110, 0, 2 * Math.PI); c.stroke();
c.fillStyle = '#eceff1'; c.fillRect(0, 1040, 540, 130);
text('Size 12', 24, 1080, 22, '#263238');
text('Opacity 80%', 24, 1130, 22, '#263238');
box(360, 1075, 150, 64, 10, '#43a047');
text('Save', 435, 1107, 26, '#ffffff', 'bold', 'center');
text('Layers', 400, 140, 22, '#37474f');
""",
}

EXPECTED: dict[str, tuple[str, ...]] = {
    "game-menu": ("SPACE RAIDERS", "LEVEL 7", "COINS 2450", "START GAME", "SETTINGS",
                  "LEADERBOARD", "Best score 98120"),
    "sales-chart": ("Monthly Sales", "Revenue in thousands", "120", "340", "260", "410", "380",
                    "520", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Total 2030",
                    "Best month June"),
    "street-map": ("Main Street", "Harbor Lane", "Central Park", "City Hall", "Marina Bay",
                   "Search here"),
    "video-player": ("Episode 3: The Return", "Skip Intro", "02:15 / 10:48", "HD", "Up next",
                     "Episode 4"),
    "drawing-app": ("Brush", "Eraser", "Undo", "Redo", "Size 12", "Opacity 80%", "Save",
                    "Layers"),
}  # fmt: skip
"""The words each page draws horizontally (``Oak Avenue`` on the map runs vertically and is
left out: OCR of rotated text is not claimed)."""


async def render(out: Path = HERE) -> list[Path]:
    from playwright.async_api import async_playwright

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise SystemExit("no chromium: sudo scripts/system-packages --install")
    written = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        for name, script in PAGES.items():
            page = await browser.new_page(viewport={"width": WIDTH, "height": HEIGHT})
            await page.set_content(_HEAD + script + "</script></body></html>")
            path = out / f"{name}.png"
            await page.locator("#c").screenshot(path=str(path))
            await page.close()
            written.append(path)
        await browser.close()
    return written


if __name__ == "__main__":
    for p in asyncio.run(render(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)):
        print(p)

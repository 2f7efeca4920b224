"""The simulated screen drawn like a phone's, with Pillow: real words for labels, values,
hints, button titles and an app icon's glyph, in the platform's flavour (Android: Material
blue, square-ish buttons; iOS: system blue, rounder shapes, white background).

Invariants: pure (no I/O beyond Pillow's bundled font, loaded once per size); the same scene
gives the same pixels; a password field never draws its value, nor anything that depends on
its length (a filled one shows a fixed row of dots); the image is the scene's size divided by
``scale``. The font is the one Pillow ships (``ImageFont.load_default(size=...)``, FreeType),
so nothing is downloaded and every machine draws the same glyphs.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from bridge.devices.sim.views import Box, Kind, Scene, View

RGB = tuple[int, int, int]
WHITE: RGB = (255, 255, 255)
HIDDEN_DOTS = 8
"""A filled password field shows this many dots whatever its length."""


@dataclass(frozen=True)
class Flavour:
    background: RGB
    ink: RGB
    faint: RGB
    line: RGB
    accent: RGB
    on: RGB
    radius: float
    """Corner radius of buttons and fields, as a share of their height."""


ANDROID = Flavour(
    background=(246, 246, 246),
    ink=(33, 33, 33),
    faint=(150, 150, 150),
    line=(208, 208, 208),
    accent=(33, 118, 210),
    on=(76, 175, 80),
    radius=0.12,
)
IOS = Flavour(
    background=(255, 255, 255),
    ink=(0, 0, 0),
    faint=(160, 160, 166),
    line=(222, 222, 226),
    accent=(0, 122, 255),
    on=(52, 199, 89),
    radius=0.3,
)


@lru_cache(maxsize=32)
def _font(px: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=max(6, px))


class _Painter:
    def __init__(self, scene: Scene, scale: int, flavour: Flavour) -> None:
        self.s = max(1, scale)
        self.f = flavour
        size = (max(1, scene.width // self.s), max(1, scene.height // self.s))
        self.image = Image.new("RGB", size, flavour.background)
        self.draw = ImageDraw.Draw(self.image)

    def box(self, box: Box) -> tuple[int, int, int, int]:
        s = self.s
        return (
            box[0] // s,
            box[1] // s,
            max(box[0] // s, box[2] // s - 1),
            max(box[1] // s, box[3] // s - 1),
        )

    def rect(self, box: Box, fill: RGB | None, outline: RGB | None = None, width: int = 1,
             radius: float = 0.0) -> None:  # fmt: skip
        b = self.box(box)
        if b[2] <= b[0] or b[3] <= b[1]:
            return
        r = int((b[3] - b[1]) * radius)
        w = max(1, width // self.s) if outline else 0
        if r > 0:
            self.draw.rounded_rectangle(b, r, fill=fill, outline=outline, width=w)
        else:
            self.draw.rectangle(b, fill=fill, outline=outline, width=w)

    def text(self, box: Box, words: str | None, colour: RGB, px: int = 40,
             centre: bool = False, pad: int = 24) -> None:  # fmt: skip
        """``words`` in one line inside ``box`` (device pixels), cut with an ellipsis when
        too wide; ``px`` is the font size in device pixels (smaller when the box is low)."""
        if not words:
            return
        left, top, right, bottom = self.box(box)
        room = right - left - 2 * max(1, pad // self.s)
        height = bottom - top
        if room <= 4 or height <= 4:
            return
        size = min(px // self.s, int(height * 0.7))
        font = _font(size)
        shown = " ".join(words.split())
        if self.draw.textlength(shown, font=font) > room:
            while shown and self.draw.textlength(shown + "…", font=font) > room:
                shown = shown[:-1]
            shown = shown.rstrip() + "…"
        cy = (top + bottom) / 2
        if centre:
            self.draw.text(((left + right) / 2, cy), shown, fill=colour, font=font, anchor="mm")
        else:
            self.draw.text((left + max(1, pad // self.s), cy), shown, fill=colour, font=font,
                           anchor="lm")  # fmt: skip

    def dots(self, box: Box, colour: RGB) -> None:
        left, top, right, bottom = self.box(box)
        r = max(1, (bottom - top) // 10)
        x = left + max(2, 24 // self.s) + r
        cy = (top + bottom) // 2
        for _ in range(HIDDEN_DOTS):
            if x + r >= right:
                break
            self.draw.ellipse((x - r, cy - r, x + r, cy + r), fill=colour)
            x += 3 * r

    def dim(self) -> None:
        self.image = self.image.point([v // 2 for v in range(256)] * 3)
        self.draw = ImageDraw.Draw(self.image)


def _paint(p: _Painter, view: View) -> None:
    f = p.f
    box = view.bounds
    left, top, right, bottom = box
    ink = f.ink if view.enabled else f.faint
    match view.kind:
        case Kind.CONTAINER | Kind.LIST:
            p.rect(box, None, f.line, 1)
        case Kind.TEXT:
            p.text(box, view.text, ink, 60 if view.heading else 40, pad=16)
        case Kind.BUTTON:
            p.rect(box, f.accent if view.enabled else f.line, radius=f.radius)
            p.text(box, view.text, WHITE, 42, centre=True)
        case Kind.INPUT:
            p.rect(box, WHITE, f.accent if view.focused else f.faint, 3, radius=f.radius * 0.5)
            if view.password and view.text:
                p.dots(box, f.ink)
            elif view.text and not view.password:
                p.text(box, view.text, f.ink, 40)
            elif view.hint:
                p.text(box, view.hint, f.faint, 40)
        case Kind.ROW:
            p.rect((left, bottom - 2, right, bottom), f.line)
            p.text(box, view.text, ink, 40)
        case Kind.TOGGLE:
            height = bottom - top
            track = (right - 200, top + height // 2 - 36, right - 40, top + height // 2 + 36)
            p.rect(track, f.on if view.checked else f.line, radius=0.5)
            knob = track[2] - 72 if view.checked else track[0]
            p.rect((knob + 6, track[1] + 6, knob + 66, track[3] - 6), WHITE, radius=0.5)
            p.text((left, top, right - 220, bottom), view.text, ink, 40)
        case Kind.SURFACE:
            p.rect(box, (18, 52, 38))
            for i in range(6):
                x = left + (i * 157) % max(1, right - left - 120)
                y = top + (i * 311) % max(1, bottom - top - 120)
                p.rect((x, y, x + 120, y + 120), (240, 200 - 25 * i, 40 + 30 * i), radius=0.2)
            for drawn in view.drawn:
                if drawn.filled:
                    p.rect(drawn.box, (250, 250, 250), radius=0.25)
                    p.text(drawn.box, drawn.text, (20, 20, 20), drawn.px, centre=True, pad=0)
                else:
                    p.text(drawn.box, drawn.text, WHITE, drawn.px, pad=0)
        case Kind.PROGRESS:
            p.rect((left, top + 30, right, bottom - 30), f.line, radius=0.5)
            p.rect((left, top + 30, left + (right - left) // 3, bottom - 30), f.accent, radius=0.5)
        case Kind.ICON:
            tile = (left + 60, top, right - 60, bottom - 100)
            p.rect(tile, f.accent, radius=0.22)
            glyph = (view.text or "?").strip()[:1].upper()
            p.text(tile, glyph, WHITE, 120, centre=True, pad=0)
            p.text((left, bottom - 90, right, bottom), view.text, f.ink, 34, centre=True, pad=0)
        case Kind.ALERT:
            p.rect(box, WHITE, (120, 120, 120), 2, radius=0.04)
        case Kind.WEBVIEW:  # the page's own picture is composed over it (sim.webview)
            p.rect(box, WHITE, f.line, 1)
            p.text(box, view.text or "Loading…", f.faint, 40, centre=True)
        case Kind.DECOR | Kind.IOS_WINDOW:
            pass
    for child in view.children:
        _paint(p, child)


def flavour_of(scene: Scene) -> Flavour:
    ios = any(w.root.kind is Kind.IOS_WINDOW for w in scene.windows)
    return IOS if ios else ANDROID


def paint_scene(scene: Scene, scale: int = 1) -> tuple[int, int, bytes]:
    """``(width, height, rgb)`` of ``scene`` drawn at 1/``scale`` of its size."""
    painter = _Painter(scene, scale, flavour_of(scene))
    for window in scene.windows:
        if window.layer > 0:
            painter.dim()
        _paint(painter, window.root)
    image = painter.image
    return image.width, image.height, image.tobytes()

"""Targets without words: a play triangle, a pause's two bars, a close cross.

A person taps these on a video player or a game and no OCR reads them. ``find`` looks for
them in the ink of a region (``bridge.vision.glyphs.ink_of``: pixels apart from their
surroundings) and, inside a round or square button (a filled disc or square of ink), in the
mark drawn on it (pixels apart from the button's own colour). Each mark is judged by its
geometry alone (``shape_of``):

- **play** ``▶``: one part whose outline is a triangle (three corners, its area within 15%
  of theirs, filling about half of its box) whose left side is upright and spans its
  height, its apex at mid-height on the right;
- **pause** ``⏸``: two parts side by side, each a filled upright bar (at least ``BAR`` times
  as tall as wide), of one height and top, less than two bar widths apart, the pair about as
  wide as tall (``PAUSE_SQUARE``: two bars of a chart are not);
- **close** ``✕``: one part about as wide as tall, inked at its centre and near its four
  corners, blank at the middles of its four sides (``SIDE_WINDOW``), its ink along its
  box's diagonals (``DIAGONAL``).

Sizes: a mark between ``MIN_SIDE`` and ``MAX_SIDE`` of the region's shorter side. Found
shapes come back as (name, box in region pixels, confidence), at most ``MAX_SHAPES``. Pure:
numpy and OpenCV on pixels.
"""

from __future__ import annotations

from typing import Any

from PIL import Image

from bridge.vision.boxes import Box
from bridge.vision.glyphs import ink_of

MIN_SIDE = 0.025
MAX_SIDE = 0.1
BAR = 2.2
PAUSE_SQUARE = (0.55, 1.3)
"""A pause sign's two bars together are about as wide as tall (width / height in this)."""
INSIDE = 40
"""A pixel of a button differing from the button's median grey by more than this is its mark."""
SURROUND = 0.1
"""The surroundings a mark's pixels are compared with: this share of the shorter side (a
filled mark much wider than this would be hollowed: ``MAX_SIDE`` stays near it)."""
MAX_SHAPES = 16
SIDE_WINDOW = 0.06
"""A close cross is blank at the middle of each side within this share of its size (its
corners are looked at within twice that): a small cross's strokes (14 pixels square in the
work copy, strokes 3 wide) come within 0.12 of a side's middle."""
DIAGONAL = 0.95
"""A close cross has at least this share of its ink near its box's diagonals ..."""
DIAGONAL_NEAR = 0.2
"""... within this share of its size (``|u - v|`` or ``|u + v - 1|``, ``u`` and ``v`` the
pixel's place across and down its box). Crosses on the real screens: 1.00; a full-screen
sign 0.82, a shuffle sign 0.90."""
NAMES = ("play", "pause", "close")


def find(image: Image.Image) -> list[tuple[str, Box, float]]:
    """Shapes in ``image`` (see the module doc), top to bottom."""
    import cv2
    import numpy as np

    grey, ink, scale = ink_of(image, SURROUND)
    h, w = ink.shape
    side = min(h, w)
    low, high = MIN_SIDE * side, MAX_SIDE * side
    count, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    out: list[tuple[str, tuple[int, int, int, int], float]] = []
    sized = [
        i
        for i in range(1, count)
        if low <= max(int(stats[i][2]), int(stats[i][3])) <= high
        and min(int(stats[i][2]), int(stats[i][3])) >= 3
    ]
    used: set[int] = set()
    for i in sized:  # a mark drawn straight on the canvas
        if i in used:
            continue
        x, y, bw, bh = (int(v) for v in stats[i][:4])
        part = (labels[y : y + bh, x : x + bw] == i).astype(np.uint8)
        name = shape_of(part)
        if name is not None:
            out.append((name, (x, y, x + bw, y + bh), 0.8))
            used.add(i)
            continue
        partner = _pause_partner(i, stats, sized, used)
        if partner is not None:
            px, py, pw, ph = (int(v) for v in stats[partner][:4])
            used.update((i, partner))
            box = (min(x, px), min(y, py), max(x + bw, px + pw), max(y + bh, py + ph))
            out.append(("pause", box, 0.8))
            continue
        fill = float(part.mean())
        if fill >= 0.6 and 0.75 <= bw / bh <= 1.33:  # a button: read the mark drawn on it
            inner = _mark_on(grey[y : y + bh, x : x + bw], part)
            name = shape_of(inner) if inner is not None else None
            if name is not None:
                out.append((name, (x, y, x + bw, y + bh), 0.9))
                used.add(i)
    out.sort(key=lambda s: (s[1][1], s[1][0]))
    return [
        (
            name,
            (
                int(b[0] / scale),
                int(b[1] / scale),
                min(image.width, int(b[2] / scale + 0.999)),
                min(image.height, int(b[3] / scale + 0.999)),
            ),
            conf,
        )
        for name, b, conf in out[:MAX_SHAPES]
    ]


def _mark_on(patch: Any, part: Any) -> Any | None:
    """The mark drawn on a button (``patch`` grey, ``part`` its mask): pixels inside the
    button unlike its median colour, cropped to their box; None when there is none."""
    import cv2
    import numpy as np

    filled = part.copy()  # the button with the holes its mark cut filled in
    contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cv2.drawContours(filled, contours, -1, 1, thickness=-1)
    rounds = max(1, min(part.shape) // 12)
    core = cv2.erode(filled, np.ones((3, 3), np.uint8), iterations=rounds).astype(bool)
    own = core & part.astype(bool)
    if own.sum() < 16:
        return None
    colour = float(np.median(patch[own]))
    mark = ((np.abs(patch.astype(np.float32) - colour) > INSIDE) | ~part.astype(bool)) & core
    if mark.sum() < 12:
        return None
    rows = np.flatnonzero(mark.any(axis=1))
    cols = np.flatnonzero(mark.any(axis=0))
    if rows[-1] - rows[0] > 0.8 * part.shape[0] or cols[-1] - cols[0] > 0.8 * part.shape[1]:
        return None  # the "mark" spans the button: a texture or a picture, not an icon
    return mark[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1].astype(np.uint8)


def _pause_partner(i: int, stats: Any, sized: list[int], used: set[int]) -> int | None:
    """The other bar of a pause sign whose one bar is part ``i``, if any."""
    x, y, bw, bh, area = (int(v) for v in stats[i])
    if bh < BAR * bw or area < 0.8 * bw * bh:
        return None
    for j in sized:
        if j == i or j in used:
            continue
        jx, jy, jw, jh, jarea = (int(v) for v in stats[j])
        if jx <= x or jh < BAR * jw or jarea < 0.8 * jw * jh:
            continue
        if abs(jh - bh) > 0.15 * bh or abs(jy - y) > 0.15 * bh or abs(jw - bw) > 0.5 * bw:
            continue
        whole = (jx + jw - x) / bh  # a pause sign is about square; chart bars are not
        if jx - (x + bw) < 2 * bw and PAUSE_SQUARE[0] <= whole <= PAUSE_SQUARE[1]:
            return j
    return None


def shape_of(mask: Any) -> str | None:
    """``play``, ``pause`` or ``close`` for a binary mark (cropped to its ink), else None."""
    import cv2
    import numpy as np

    h, w = mask.shape
    if h < 6 or w < 4:
        return None
    count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    big = [k for k in range(1, count) if stats[k][4] >= 0.05 * h * w]
    if len(big) == 2:  # two bars side by side
        a, b = sorted(big, key=lambda k: int(stats[k][0]))
        ok = all(
            stats[k][3] >= BAR * stats[k][2] and stats[k][4] >= 0.8 * stats[k][2] * stats[k][3]
            for k in (a, b)
        )
        if (
            ok
            and abs(int(stats[a][3]) - int(stats[b][3])) <= 0.15 * h
            and PAUSE_SQUARE[0] <= w / h <= PAUSE_SQUARE[1]
        ):
            return "pause"
        return None
    if len(big) != 1:
        return None
    x, y, w, h = (int(v) for v in stats[big[0]][:4])  # specks beside it left out
    part = (labels[y : y + h, x : x + w] == big[0]).astype(np.uint8)
    if h < 6 or w < 4:
        return None
    fill = float(part.mean())
    contours, _ = cv2.findContours(part, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    outline = max(contours, key=cv2.contourArea)
    corners = cv2.approxPolyDP(outline, 0.06 * cv2.arcLength(outline, True), True)[:, 0]
    if len(corners) == 3 and 0.35 <= fill <= 0.65 and 0.6 <= w / h <= 1.2:
        left = sorted(corners, key=lambda c: int(c[0]))[:2]
        apex = max(corners, key=lambda c: int(c[0]))
        ys = sorted(int(c[1]) for c in left)
        upright = abs(int(left[0][0]) - int(left[1][0])) <= 0.2 * w
        ends = ys[0] <= 0.2 * h and ys[1] >= 0.8 * h  # the left side spans the height
        drawn = float(cv2.contourArea(outline)) / max(1.0, float(cv2.contourArea(corners)))
        exact = 0.85 <= drawn <= 1.15  # the outline is its three corners' triangle
        if upright and ends and exact and abs(int(apex[1]) - h / 2) <= 0.2 * h:
            return "play"
    if 0.75 <= w / h <= 1.33 and 0.15 <= fill <= 0.55:
        s = max(1, round(0.12 * min(h, w)))

        def inked(cx: float, cy: float, s: int = s) -> bool:
            x0, y0 = int(cx * (w - 1)), int(cy * (h - 1))
            return bool(part[max(0, y0 - s) : y0 + s + 1, max(0, x0 - s) : x0 + s + 1].any())

        corners_inked = all(inked(cx, cy) for cx in (0.1, 0.9) for cy in (0.1, 0.9))
        edge = max(1, round(SIDE_WINDOW * min(h, w)))
        sides_blank = not any(
            inked(cx, cy, edge) for cx, cy in ((0.5, 0), (0.5, 1), (0, 0.5), (1, 0.5))
        )
        if inked(0.5, 0.5) and corners_inked and sides_blank and _on_diagonals(part):
            return "close"
    return None


def _on_diagonals(part: Any) -> bool:
    """Whether at least ``DIAGONAL`` of a mark's ink lies near one of its box's diagonals
    (within ``DIAGONAL_NEAR`` of its size): a cross's two strokes do; a full-screen sign's
    corner brackets or a shuffle sign's arrowheads do not."""
    import numpy as np

    h, w = part.shape
    ys, xs = np.nonzero(part)
    if not len(xs):
        return False
    u, v = xs / max(1, w - 1), ys / max(1, h - 1)
    near = np.minimum(np.abs(u - v), np.abs(u + v - 1)) <= DIAGONAL_NEAR
    return float(near.mean()) >= DIAGONAL

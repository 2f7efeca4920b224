"""Lone glyphs the text detector passes over: a digit alone in a board's cell.

A detector trained on lines of text often misses a single character standing alone (a white
``0`` on a black Light Up cell, a pale ``1`` on a Minesweeper board); ``candidates`` finds
them from the pixels instead, cheaply, so the recognizer can be asked about each one:

1. **ink**: on a grey copy at most ``WORK_SIDE`` pixels on its longer side, a pixel is ink
   when it differs by more than ``INK`` grey levels from its surroundings (a median over about
   ``SURROUND`` of the shorter side, computed on a smaller copy): the colour of a cell, a
   board or a page, whichever is under the glyph. Each of ``GROUNDS`` is such a width, and
   the steps below run once per width (a board of small pale cells between dark ones, where
   the wider median is the dark colour and a whole pale cell is ink, needs the narrower),
   a candidate of a later width kept where no earlier one holds its centre;
2. **parts**: the ink's 8-connected parts whose box is glyph-shaped: between ``MIN_HEIGHT``
   and ``MAX_HEIGHT`` (shares of the shorter side) tall, ``MIN_ASPECT``..``MAX_ASPECT`` wide
   for its height, its ink covering ``MIN_FILL``..``MAX_FILL`` of its box (a stroke, not a
   dot, disc or frame), or more when it is a narrow upright bar (``STEM``: kept apart,
   and marked when a dot stands over it, ``DOT``: an ``i``);
3. **alone**: no other glyph-sized mark (``SIBLING``) beside it (``BESIDE``: in its rows, not
   above or below it like a card's suit under its rank) within ``ALONE`` of its height (a
   glyph of a word has neighbours and the detector reads the word; a cell's frame is
   larger), on a plain ground (``PLAIN``: a cell, a board, a page; not a photo or a
   texture), and not inside a box of ``found`` (the caller passes the detected boxes that
   read as words: a box that read as nothing hides no glyph);
4. **plates**: a solid part taller than a glyph (``PLATE``, ``PLATE_FILL``: a white card on
   green, whose edges differ from the median of their surroundings and join its rank to
   it) is looked into: its pixels apart from its own median colour, its outline left out
   (``PLATE_EDGE``), go through steps 2 and 3 (a card's rank in its corner);
5. **badges**: a solid part of a glyph's size, at least ``BADGE`` of the shorter side tall
   and about as wide (``ROUND_BADGE``: a disc, a rounded square; a map's numbered marker, a
   red disc whose black digit is ink of the same part), is
   looked into the same way, but only its own pixels of another colour, ringed by its own
   (``ENCLOSED``), and centred on it (``CENTRED``), count; such a glyph takes the place of
   the badge as a candidate (``HOLDS``).

Each candidate comes back as a box grown by ``PAD`` of its height on every side (the
recognizer reads a glyph on its own background). What the recognizer makes of it is the
caller's judgement (``bridge.vision.ppocr`` keeps a digit read with high confidence, and a
letter only in a row of such glyphs).
Pure: numpy and OpenCV on pixels, no models. The grey copy and each width's ink of the last
image looked at are kept until it is gone (``_Copies``): the shapes (``bridge.vision.icons``)
look at the region the glyphs were looked for in, with the same grey copy and the first
width's ink.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from PIL import Image

from bridge.vision.boxes import Box, centre_in

WORK_SIDE = 720
INK = 40
SURROUND = 1 / 10
MIN_HEIGHT = 0.012
MAX_HEIGHT = 0.12
MIN_ASPECT = 0.1
MAX_ASPECT = 0.95
MIN_FILL = 0.12
MAX_FILL = 0.75
STEM = 0.3
"""A part at most this wide for its height and filled beyond ``MAX_FILL`` is a stem: a solid
upright bar, an ``I`` in a sans font (``candidates`` returns it apart, the caller keeps it
only among letters)."""
ALONE = 0.35
PAD = 0.3
SIBLING = 2.5
BESIDE = 0.5
"""A neighbour stands beside a glyph when their rows overlap by this share of the shorter."""
PLATE = 0.5
"""A solid part taller than a glyph and at most this share of the shorter side on either
side is a plate (a card, a tile, a key) whose own glyphs are looked for on its colour."""
PLATE_FILL = 0.6
BADGE = 0.03
"""A solid part at least this share of the shorter side tall is looked into (step 5 of the
module doc); one taller than ``MAX_HEIGHT`` is a plate (step 4)."""
ROUND_BADGE = (0.7, 1.4)
"""A badge is this wide for its height, at least and at most (a glyph's solid part is
narrower or wider: a bold ``I``, a dash); with it a screen looks into 7 parts in the median,
not 18, and reads the same."""
HOLDS = 1.3
"""A candidate at least this many times as tall as a badge's glyph whose centre it holds is
the badge itself, and gives way to the glyph."""
CENTRED = 0.15
"""A badge's glyph is centred on it: its centre within this share of the badge's width and
height of the badge's."""
ENCLOSED = 0.9
"""A badge's glyph has this share of the pixels along its edge of the badge's own part."""
DOT = 0.4
DOT_REACH = 0.5
"""A bar's dot (``_dotted``) is at most ``DOT`` of the bar's height tall and wide, and its
bottom at most ``DOT_REACH`` of that height above the bar's top."""
PLATE_EDGE = 2
"""Pixels along a plate's edge left out of its ink (its outline, its anti-aliased rim)."""
PLAIN = 16.0
"""The ground around a lone glyph (its ``ALONE`` margin, ink left out) varies by at most this
(grey levels, standard deviation): a cell or a board is plain; grass in a video is not."""
MAX_CANDIDATES = 120
"""Candidates returned at most (a screen of texture stays cheap)."""
MAX_PLATES = 200
"""Plates and badges looked into at most, per width of surroundings (steps 4 and 5; the most
on a real screen was 119, a radar's map)."""
GROUNDS = (SURROUND, 1 / 25)
"""The widths of surroundings a glyph's ink is told from (shares of the shorter side)."""


class _Copies:
    """The last image looked at, in any thread (a weak reference: it is not kept alive for
    this), its grey copy and scale, and its ink by width of surroundings: one image's copies
    for the whole process at most, let go with the image. An image is never drawn on once it
    is looked at (the hub's regions are crops of their own), so the same object has the same
    copies; another object, even with the same pixels, is looked at anew. Every field is read
    and written under ``lock`` (reentrant: the image's death may be noticed by a collection
    that runs while the lock's own thread holds it)."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.image: weakref.ref[Image.Image] | None = None
        self.grey: tuple[Any, float] | None = None
        self.ink: dict[float, Any] = {}

    def let_go(self, image: weakref.ref[Image.Image]) -> None:
        """The kept image is gone: its copies go too (unless another image's came since)."""
        with self.lock:
            if self.image is image:
                self.image, self.grey, self.ink = None, None, {}


_copies = _Copies()


def ink_of(image: Image.Image, surround: float = SURROUND) -> tuple[Any, Any, float]:
    """(grey, ink, scale): ``image`` in grey at ``scale`` (its longer side at most
    ``WORK_SIDE``), and which of those pixels are ink (1) by step 1 of the module doc, the
    surroundings ``surround`` of the shorter side wide (a mark much wider is hollowed). The
    caller must not change the arrays (they are kept for the next look at ``image``)."""
    grey, scale = grey_of(image)
    return grey, _ink_of_kept(grey, surround), scale


def prepare(image: Image.Image) -> None:
    """Make and keep what ``candidates`` (and ``bridge.vision.icons.find``) will take of
    ``image`` whatever boxes they are given: its grey copy and its ink for each of
    ``GROUNDS``. For a caller with a thread to spare while it reads ``image``'s lines (its
    answers are the ones ``candidates`` would make itself)."""
    grey, _ = grey_of(image)
    for surround in GROUNDS:
        _ink_of_kept(grey, surround)


def _ink_of_kept(grey: Any, surround: float) -> Any:
    """``ink_in(grey, surround)``, kept with ``grey`` when it is the kept image's grey copy
    (``grey_of`` just made or found it, and no other image's came since)."""
    with _copies.lock:
        kept = _copies.grey is not None and _copies.grey[0] is grey
        ink = _copies.ink.get(surround) if kept else None
    if ink is not None:
        return ink
    ink = ink_in(grey, surround)
    with _copies.lock:
        if kept and _copies.grey is not None and _copies.grey[0] is grey:
            _copies.ink[surround] = ink
    return ink


def grey_of(image: Image.Image) -> tuple[Any, float]:
    """(grey, scale): ``image`` in grey (uint8) at ``scale``, its longer side at most
    ``WORK_SIDE``; the same arrays for the same image object again (``_Copies``: the caller
    must not change them)."""
    with _copies.lock:
        if _copies.image is not None and _copies.image() is image and _copies.grey is not None:
            return _copies.grey
    found = _grey_of(image)
    with _copies.lock:
        _copies.image, _copies.grey, _copies.ink = weakref.ref(image, _copies.let_go), found, {}
    return found


def _grey_of(image: Image.Image) -> tuple[Any, float]:
    import numpy as np

    scale = min(1.0, WORK_SIDE / max(image.width, image.height))
    grey_image = image.convert("L")
    if scale < 1.0:
        grey_image = grey_image.resize(
            (max(1, round(image.width * scale)), max(1, round(image.height * scale))),
            Image.Resampling.BILINEAR,
        )
    return np.asarray(grey_image, dtype=np.uint8), scale


def ink_in(grey: Any, surround: float) -> Any:
    """Which pixels of ``grey`` are ink (1) by step 1 of the module doc, the surroundings
    ``surround`` of the shorter side wide."""
    import cv2
    import numpy as np

    h, w = grey.shape
    step = max(1, round(min(h, w) * surround / 9))
    small = cv2.resize(grey, (max(1, w // step), max(1, h // step)), interpolation=cv2.INTER_AREA)
    background = cv2.resize(cv2.medianBlur(small, 9), (w, h), interpolation=cv2.INTER_LINEAR)
    return (cv2.absdiff(grey, background) > INK).astype(np.uint8)


def candidates(
    image: Image.Image,
    found: list[Box],
    stems: list[Box] | None = None,
    dotted: list[Box] | None = None,
) -> list[Box]:
    """Boxes (``image`` pixels, grown by ``PAD``) of lone glyph-shaped marks outside every
    box of ``found``, top to bottom; the lone solid bars (``STEM``), which pass every other
    test of a glyph, are appended to ``stems`` instead when it is given (a bar is read as
    nothing or as ``1``: no recognizer tells ``I`` from ``l`` or ``|`` alone), and those of
    them with a dot above (``DOT``: an ``i``) to ``dotted`` as well."""
    grey, scale = grey_of(image)  # once: each width of surroundings reads the same copy
    out: list[Box] = []
    bars: list[Box] = []
    dots: list[Box] = []
    for surround in GROUNDS:
        for box in _candidates(image, found, grey, _ink_of_kept(grey, surround), scale, bars, dots):
            if not _centre_in(box, out):
                out.append(box)
    if stems is not None:
        for box in bars[:MAX_CANDIDATES]:
            if not _centre_in(box, stems):
                stems.append(box)
                if dotted is not None and box in dots:
                    dotted.append(box)
    out = out[:MAX_CANDIDATES]
    out.sort(key=lambda b: (b[1], b[0]))
    return out


def _candidates(
    image: Image.Image,
    found: list[Box],
    grey: Any,
    ink: Any,
    scale: float,
    stems: list[Box] | None = None,
    dotted: list[Box] | None = None,
) -> list[Box]:
    """Steps 2 to 4 of the module doc on one ink mask (``grey`` and ``ink`` at ``scale``)."""
    import cv2
    import numpy as np

    count, labels, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    side = min(ink.shape)
    out = _lone(image, found, grey, labels, stats, side, scale, (0, 0), stems, dotted)
    looked = 0
    for i in range(1, count):
        left, top, pw, ph, area = (int(v) for v in stats[i])
        if not BADGE * side <= ph <= PLATE * side or pw > PLATE * side:
            continue
        if area < PLATE_FILL * pw * ph:
            continue  # a plate is solid: a card, a tile, a key; not a frame or a drawing
        badge = ph <= MAX_HEIGHT * side
        if badge and not ROUND_BADGE[0] <= pw / ph <= ROUND_BADGE[1]:
            continue  # a badge is a disc or a rounded square; a solid glyph is narrower
        looked += 1
        if looked > MAX_PLATES:
            break  # a screen of solid blocks (a texture, a pattern) stays cheap
        patch = grey[top : top + ph, left : left + pw]
        mine = labels[top : top + ph, left : left + pw] == i
        colour = float(np.median(patch[mine]))
        inside = (np.abs(patch.astype(np.int16) - colour) > INK).astype(np.uint8)
        if badge:  # a glyph on it is ink of its own part (a letter's hole is not)
            inside = _enclosed(inside & mine.astype(np.uint8), mine)
        rim = PLATE_EDGE
        inside[:rim], inside[-rim:], inside[:, :rim], inside[:, -rim:] = 0, 0, 0, 0
        _, part_labels, part_stats, _ = cv2.connectedComponentsWithStats(inside, connectivity=8)
        on_plate = _lone(
            image, found, patch, part_labels, part_stats, side, scale, (left, top), ground=False
        )
        if badge:  # a badge: its one glyph centred on it, nothing else
            middle = (left + pw / 2) / scale, (top + ph / 2) / scale
            on_plate = [b for b in on_plate if _centred(b, middle, pw / scale, ph / scale)]
            out = [box for box in out if not _holds(box, on_plate)]
        out += [box for box in on_plate if not _centre_in(box, out)]
        if len(out) >= MAX_CANDIDATES:
            break
    out = out[:MAX_CANDIDATES]
    out.sort(key=lambda b: (b[1], b[0]))
    return out


def _lone(
    image: Image.Image,
    found: list[Box],
    grey: Any,
    labels: Any,
    stats: Any,
    side: int,
    scale: float,
    at: tuple[int, int],
    stems: list[Box] | None = None,
    dotted: list[Box] | None = None,
    ground: bool = True,
) -> list[Box]:
    """Steps 2 and 3 of the module doc on the parts ``labels`` / ``stats`` of an ink mask over
    ``grey`` (the work copy's grey, or a plate's patch of it whose top left corner is ``at``);
    ``side`` the work copy's shorter side, which the sizes are shares of; ``ground``: judge
    the ground around each part (a plate's is its own colour by construction, and its margin
    may reach past the plate's edge)."""
    import numpy as np

    h, w = labels.shape
    low, high = MIN_HEIGHT * side, MAX_HEIGHT * side
    parts: list[tuple[int, int, int, int, int, bool]] = []
    for i in range(1, len(stats)):
        left, top, pw, ph, area = (int(v) for v in stats[i])
        if not low <= ph <= high:
            continue
        if not MIN_ASPECT <= pw / ph <= MAX_ASPECT:
            continue
        stem = pw <= STEM * ph and area / (pw * ph) > MAX_FILL
        if not stem and not MIN_FILL <= area / (pw * ph) <= MAX_FILL:
            continue
        parts.append((i, left, top, pw, ph, stem))
    out: list[Box] = []
    for i, left, top, pw, ph, stem in parts:
        margin = max(2, round(ALONE * ph))
        x0, y0 = max(0, left - margin), max(0, top - margin)
        x1, y1 = min(w, left + pw + margin), min(h, top + ph + margin)
        around = labels[y0:y1, x0:x1]
        near = set(np.unique(around).tolist()) - {0, i}
        if any(_sibling(stats[j], ph) and _beside(stats[j], top, ph) for j in near):
            continue  # a glyph-sized mark beside it: part of a word, a drawing, a texture
        plain = grey[y0:y1, x0:x1][around == 0]
        if ground and plain.size and float(plain.std()) > PLAIN:
            continue  # not on a plain ground (a cell, a board, a page): a photo, a texture
        pad = PAD * ph
        left, top = left + at[0], top + at[1]
        box = (
            max(0, int((left - pad) / scale)),
            max(0, int((top - pad) / scale)),
            min(image.width, int((left + pw + pad) / scale + 0.999)),
            min(image.height, int((top + ph + pad) / scale + 0.999)),
        )
        if _centre_in(box, found):
            continue
        if stem:
            if stems is not None and len(stems) < MAX_CANDIDATES:
                stems.append(box)
                if dotted is not None and _dotted(labels, stats, i):
                    dotted.append(box)
            continue
        out.append(box)
        if len(out) >= MAX_CANDIDATES:
            break
    return out


def core(box: Box) -> Box:
    """The glyph's own box inside a candidate's (``candidates``): the candidate without the
    ``PAD`` it was grown by (a side the image's edge clipped comes back a little short).
    A lone glyph's box is its ink's, not what a line crop of it holds: a tile's frame or a
    speck of confetti in its margin would make one tile of a row taller than the others."""
    grown = PAD / (1 + 2 * PAD) * (box[3] - box[1])
    if box[2] - box[0] <= 2 * grown:
        return box
    return (
        round(box[0] + grown),
        round(box[1] + grown),
        round(box[2] - grown),
        round(box[3] - grown),
    )


def _dotted(labels: Any, stats: Any, i: int) -> bool:
    """Whether part ``i`` (a bar) has a dot above it: a mark at most ``DOT`` of its height
    tall and as wide, centred over it within its width, its bottom within ``DOT_REACH`` of
    its height (at least 2 pixels) above the bar's top: an ``i``'s dot, which the ink keeps
    apart."""
    import numpy as np

    left, top, pw, ph = (int(v) for v in stats[i][:4])
    y0 = max(0, top - max(2, round(DOT_REACH * ph)))
    x0, x1 = max(0, left - pw), min(labels.shape[1], left + 2 * pw)
    if top <= y0 or x1 <= x0:
        return False
    middle = left + pw / 2
    for j in set(np.unique(labels[y0:top, x0:x1]).tolist()) - {0, i}:
        dl, dt, dw, dh = (int(v) for v in stats[j][:4])
        if (
            dh <= DOT * ph
            and dw <= max(2 * pw, DOT * ph)
            and dt + dh <= top
            and abs(dl + dw / 2 - middle) <= pw
        ):
            return True
    return False


def _enclosed(inside: Any, mine: Any) -> Any:
    """``inside`` (a badge's marks of another colour than its own) without the marks whose
    edge is not ``ENCLOSED`` within the badge's own pixels (``mine``): a digit on a disc is
    ringed by the disc's colour; a speck of confetti across a letter's hole is not."""
    import cv2
    import numpy as np

    count, labels = cv2.connectedComponents(inside, connectivity=8)
    kernel = np.ones((3, 3), np.uint8)
    for k in range(1, count):
        mark = (labels == k).astype(np.uint8)
        edge = (cv2.dilate(mark, kernel) > 0) & (mark == 0)
        if edge.any() and float(mine[edge].mean()) < ENCLOSED:
            inside[labels == k] = 0
    return inside


def _centred(box: Box, middle: tuple[float, float], width: float, height: float) -> bool:
    """Whether ``box``'s centre lies within ``CENTRED`` of ``width`` / ``height`` of
    ``middle``."""
    return (
        abs((box[0] + box[2]) / 2 - middle[0]) <= CENTRED * width
        and abs((box[1] + box[3]) / 2 - middle[1]) <= CENTRED * height
    )


def _holds(box: Box, glyphs: list[Box]) -> bool:
    """Whether ``box`` is a badge holding one of ``glyphs``: that glyph's centre lies inside
    it and it is ``HOLDS`` times as tall or more (the badge itself, read as a candidate of
    its own, would hide the glyph on it)."""
    return any(centre_in(g, box) and box[3] - box[1] >= HOLDS * (g[3] - g[1]) for g in glyphs)


def _centre_in(box: Box, boxes: list[Box]) -> bool:
    """Whether the centre of ``box`` lies inside any of ``boxes``."""
    return any(centre_in(box, b) for b in boxes)


def _beside(stat: Any, top: int, height: int) -> bool:
    """Whether a mark (its ``connectedComponentsWithStats`` row) stands beside a glyph whose
    rows start at ``top``, ``height`` tall: their rows overlap by ``BESIDE`` of the shorter.
    A word's glyphs stand side by side; a mark above or below (a card's suit under its rank,
    a cell's other content) makes no word with it."""
    t, h = int(stat[1]), int(stat[3])
    overlap = min(t + h, top + height) - max(t, top)
    return overlap >= BESIDE * min(h, height)


def _sibling(stat: Any, height: int) -> bool:
    """Whether a mark (its ``connectedComponentsWithStats`` row) near a glyph ``height`` tall
    could be another glyph of the same word: about as tall (``SIBLING`` either way) and not a
    long line. A cell's frame or a board's edge is larger; a speck is smaller."""
    w, h = int(stat[2]), int(stat[3])
    return height / SIBLING <= h <= height * SIBLING and w <= SIBLING * height

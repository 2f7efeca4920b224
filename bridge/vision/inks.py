"""Which pixels of a line crop are its glyphs' ink, and what that ink says.

A line crop is a detected line cut from the image and scaled to ``REC_HEIGHT`` rows (the
recognizer's input, RGB floats). From its pixels come: the columns that hold no glyph
(``blank_columns``: the word gaps ``bridge.vision.ppocr`` compares, from ``glyph_ink`` or,
for a line of several colours, ``colour_ink``), the glyphs' height (``glyph_height``), a
grid's lines painted over before the crop is read (``without_grid``), a detected box that
holds two lines (``two_lines``, on the image's grey levels), a line cut by the screen's
edge (``cut_off``), marks that are no glyphs (``round_glyph``, ``solid``), each word's
box in the image (``word_box``) and the glyphs a detected box's edge cuts
(``past_cut_glyphs``), and which underscores the recognizer read are none
(``underscores``). Pure: numpy and OpenCV on pixels, no models.
"""

from __future__ import annotations

import itertools
import statistics
from typing import Any

from bridge.vision.boxes import Box

REC_HEIGHT = 48
"""A line crop's height in rows: the recognizer's input height."""
INK = 48
"""A pixel this far (grey levels) from the line's background colour is ink."""
SPLIT_ROWS = 0.05
"""A row of a detected box holding ink across less than this share of its width is blank
between two lines (an icon beside both lines inks a little of every row)."""
SPLIT_BAND = 0.15
SPLIT_GAP = 3
SPLIT_ALIKE = 0.6
SPLIT_LOOSE = (0.1, 0.3)
"""Where no row is that blank (two lines set tight, the upper one's descenders and
underscores inking the rows between them), rows inked across less than the first share are
blank, and only bands of at least the second share of the box's height count."""
SPLIT_STANDING = 0.6
"""A column at a box's end inked in one run down this share of its height or more is a mark
beside its lines, not theirs (``two_lines``)."""


def two_lines(pixels: Any, box: Box, narrow: bool = False) -> list[Box]:
    """``box`` (``pixels``: its own, RGB) as two boxes where it holds two lines
    of text one above the other: exactly two bands of inked rows, each at least
    ``SPLIT_BAND`` of its height, ``SPLIT_GAP`` blank rows (``SPLIT_ROWS``) or more apart,
    the shorter at least ``SPLIT_ALIKE`` of the taller (a title over its subtitle, which the
    detector's map joined; squeezed into one line crop, both read as junk: ``Weather
    monitor`` over ``On - 15m`` as ``Wn-ther``); failing that, the same with
    ``SPLIT_LOOSE``'s blank rows and bands (a file name over ``demod at 14.219074 MHz``).
    Ink is what differs from the box's border by more than ``INK`` (``ink_mask``); the
    columns within a box's height of either end inked in one run down ``SPLIT_STANDING`` of
    it or more are left out (an app's icon beside a title and its subtitle inks every row
    between them). Else ``[box]``. A box under 24 pixels tall, or narrower than twice its
    height unless ``narrow`` says to look (the caller weighs the two lines' reading against
    the box's whole one: ``PpOcrEngine._stacked``), is left whole."""
    import numpy as np

    left, top, right, bottom = box
    height = bottom - top
    if height < 24 or (not narrow and right - left < 2 * height):
        return [box]
    ink = ink_mask(pixels)
    inked = np.cumsum(ink, axis=0)
    run = inked - np.maximum.accumulate(np.where(ink, 0, inked), axis=0)  # down each column
    standing = run.max(axis=0) >= SPLIT_STANDING * height
    standing[height : len(standing) - height] = False  # a glyph's stem among the words
    share = ink[:, ~standing].mean(axis=1) if not standing.all() else ink.mean(axis=1)
    for blank, band in ((SPLIT_ROWS, SPLIT_BAND), SPLIT_LOOSE):
        cut = _between_bands(share > blank, band * height)
        if cut is not None:
            return [(left, top, right, top + cut), (left, top + cut, right, bottom)]
    return [box]


def _between_bands(inked: Any, least: float) -> int | None:
    """The row halfway between the two bands of ``inked`` rows at least ``least`` tall,
    when there are exactly two, ``SPLIT_GAP`` apart and alike (``two_lines``)."""
    import numpy as np

    edges = np.flatnonzero(np.diff(np.concatenate([[0], inked.astype(np.int8), [0]])))
    bands = [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True)]
    bands = [(a, b) for a, b in bands if b - a >= least]
    if len(bands) != 2:
        return None
    (a0, a1), (b0, b1) = bands
    if b0 - a1 < SPLIT_GAP or min(a1 - a0, b1 - b0) < SPLIT_ALIKE * max(a1 - a0, b1 - b0):
        return None
    return (a1 + b0) // 2


CUT = 0.08
"""Glyphs cut by the image's edge leave ink across more than this share of the rows at it."""
CUT_ROWS = 3
EXTREME = 3.0
"""The percentile of a line crop's grey levels taken as its glyphs' colour (``glyph_ink``)."""
SOLID = 0.72
ROUND = 0.9
"""A lone glyph whose ink covers more of its box than this is a shape, not a letter."""
CHAIN_PITCH = 0.55
"""A row of a line chart's markers read as rings and strokes (``marker_chain``) spans at
least this share of the line's height (``REC_HEIGHT``) for each ring: the markers stand
apart on their line (GrowTracker's chart: 0.63); the digits of numbers of three or more on
every sixth real screen stand 0.33 to 0.42 apart (the middle half; median 0.39)."""
CHAIN_RINGS = 3
CHAIN_OTHER = 0.2
CHAIN_ALTERNATE = 0.7
"""``marker_chain``: its least rings, its greatest share of other characters, and its least
share of neighbours that are a ring and a stroke."""
EDGE = 2
"""Crop pixels kept around a word's ink (its anti-aliased edge is fainter than INK)."""
RULED = 0.6
"""A row of a line crop whose longest run of ink covers this share of the crop's width ..."""
STANDING = 0.9
"""A column of a line crop inked in this share of its rows stands across it: a grid line."""
RULE_LENGTH = 1.5
"""... and this many times REC_HEIGHT (longer than a glyph's own bar) is a rule, not glyphs
(``blank_columns``)."""
MIDDLE = slice(REC_HEIGHT // 8, REC_HEIGHT - REC_HEIGHT // 8)
"""The rows of a line crop whose ink decides word gaps (the edges may hold a neighbour's)."""


def grey_levels(pixels: Any) -> Any:
    """The grey level of each pixel of ``pixels`` (rows x columns x RGB): its channels' mean.
    Three sums, not ``mean(axis=2)``: numpy's reduction over a last axis of three costs
    fifteen times more, and it ran on every line crop."""
    return (pixels[..., 0] + pixels[..., 1] + pixels[..., 2]) / 3


def median_of(values: Any) -> float:
    """``float(numpy.median(values))``, the very same value, in one partition and without
    numpy's general machinery (its checks cost more than the partition of a line's few
    thousand grey levels, and it ran on every line crop). ``values``: a float array (any
    shape); another dtype is left to numpy, whose mean of two middle integers differs."""
    import numpy as np

    flat = values.ravel()
    if flat.dtype not in (np.float32, np.float64) or flat.size == 0:
        return float(np.median(flat))
    half = flat.size // 2
    return _middle(np.partition(flat, (half - 1, half) if flat.size % 2 == 0 else half))


def _middle(part: Any) -> float:
    """The median of ``part``, a flat float array partitioned at its middle index (and the
    one before it, for an even count): numpy's mean of the two, in their dtype."""
    half = part.size // 2
    return float(part[half]) if part.size % 2 else float((part[half - 1] + part[half]) / 2)


def _level_stats(grey: Any) -> tuple[float, Any, Any]:
    """(median, ``EXTREME`` percentile, 100 - ``EXTREME`` percentile) of ``grey``'s values:
    what ``float(numpy.median(...))`` and ``numpy.percentile`` (linear) return, bit for bit,
    from one partition. The percentiles stay numpy float64 scalars, as numpy's are: a level
    made from them is compared with float32 grey levels in float64 (a Python float would
    be rounded to float32 first, and a pixel at the level would change sides). ``grey``: a
    float array; another dtype is left to numpy."""
    import numpy as np

    flat = grey.ravel()
    if flat.dtype not in (np.float32, np.float64) or flat.size == 0:
        dark, light = np.percentile(flat, (EXTREME, 100 - EXTREME))
        return float(np.median(flat)), dark, light
    n = flat.size
    half = n // 2
    at = (n - 1) * (np.array((EXTREME, 100 - EXTREME)) / 100)  # numpy's virtual indexes
    below = np.floor(at)
    share = at - below
    low = [int(k) for k in below]
    kth = {half, *low, *(min(k + 1, n - 1) for k in low)}
    if n % 2 == 0:
        kth.add(half - 1)
    part = np.partition(flat, sorted(kth))
    middle = _middle(part)
    out: list[Any] = []
    for j, k in enumerate(low):
        if at[j] >= n - 1:
            out.append(np.float64(part[n - 1]))
            continue
        a, b = part[k], part[k + 1]
        step = b - a  # in the values' dtype, then weighed in float64, as numpy's ``_lerp``
        t = share[j]
        out.append(b - step * (1 - t) if t >= 0.5 else a + step * t)
    return middle, out[0], out[1]


def ink_mask(pixels: Any) -> Any:
    """Which pixels of a line crop (REC_HEIGHT x width x RGB) are ink: they differ from the
    crop's background (its border's median grey) by more than INK."""
    import numpy as np

    grey = grey_levels(pixels)
    border = np.concatenate([grey[0], grey[-1], grey[:, 0], grey[:, -1]])
    return np.abs(grey - median_of(border)) > INK


def cut_off(pixels: Any, top: bool, bottom: bool) -> bool:
    """Whether a detected line crop (REC_HEIGHT x width x RGB) whose box meets the image's
    top or bottom edge (``top`` / ``bottom``) shows text cut across by that edge: glyph ink
    (``INK`` from the crop's median grey, its background) across more than ``CUT`` of each
    of the ``CUT_ROWS`` rows at that edge. Its lower or upper half hidden, such a line reads
    as plausible junk (``HOwW TO RL AY``); a person reads it as partly hidden."""
    import numpy as np

    if not (top or bottom):
        return False
    grey = grey_levels(pixels)
    share = (np.abs(grey - median_of(grey)) > INK).mean(axis=1)
    return bool(
        (top and float(share[:CUT_ROWS].min()) > CUT)
        or (bottom and float(share[-CUT_ROWS:].min()) > CUT)
    )


def glyph_ink(pixels: Any) -> Any:
    """Which pixels of a line crop are its glyphs' ink, for word gaps: those of the crop's
    extreme grey level farthest from its median (the darkest ``EXTREME`` share for dark
    text, the brightest for light text), beyond halfway from the median to it and at least
    ``INK`` from the median. A background of several colours (a map's fields and roads) and
    a halo around the glyphs are not ink, so the gaps between words show."""
    grey = grey_levels(pixels)
    return _beyond(grey, *_ink_level(grey))


def _ink_level(grey: Any, faint: bool = False) -> tuple[bool, float]:
    """(dark, level): whether the glyphs of ``grey`` (a line's grey levels) are darker than
    its median, and the grey level past which a pixel is their ink (``glyph_ink``). With
    ``faint``, glyphs standing ``FAINT_INK`` to ``INK`` from the background (where the
    usual level finds no ink) take the midpoint between the two instead."""
    middle, dark, light = _level_stats(grey)
    if middle - dark >= light - middle:
        if faint and FAINT_INK <= middle - dark < INK:
            return True, (middle + dark) / 2
        return True, min(middle - INK, (middle + dark) / 2)
    if faint and FAINT_INK <= light - middle < INK:
        return False, (middle + light) / 2
    return False, max(middle + INK, (middle + light) / 2)


FAINT_INK = 24
"""A line whose glyphs stand at least this far from its background, but less than ``INK``,
has them found at the midpoint by ``past_cut_glyphs`` (``_ink_level``'s ``faint``): a
toolbar's grey ``Undo`` on near black, 46 levels apart, its ``U`` cut by the detector's
box and read ``J``."""


def _beyond(grey: Any, dark: bool, level: float) -> Any:
    return grey < level if dark else grey > level


REACH = 2.0
"""A detected box grows sideways by at most this share of its height to take in a glyph its
edge cuts, or the next glyphs (``past_cut_glyphs``)."""
NEXT_GLYPH = 0.3
"""... a glyph starting this share of the box's height or less beyond its edge (or beyond
the glyph before it) being the line's next: on a tablet's screen shrunk threefold for the
detector, its boxes end a letter or two short (``Client Presentati``)."""
CUT_GLYPH = (0.3, 1.2)
"""... a glyph being a mark of the line's ink, clear of the box's top and bottom rows, at
least the first share of the box's height tall and at most the second wide (a road or a
rule along the line is wider, a dot or a dash lower)."""


def past_cut_glyphs(
    strip: Any, span: tuple[int, int], next_left: bool = False, next_right: bool = False
) -> tuple[int, int]:
    """(left, right): the pixel columns of ``strip`` (RGB or grey: a detected box's rows,
    its columns ``span`` and up to ``REACH`` of its height either side) that a line read
    between would take in whole the glyphs the box's edges cut (``CUT_GLYPH``: marks of
    the line's ink, by ``glyph_ink``'s level within ``span``, that cross an edge) and, on
    the sides ``next_left`` / ``next_right`` say, the glyphs that follow it ``NEXT_GLYPH``
    apart or closer, one after another: ``span`` itself where there are none. A line with
    no ink by that level is faint: its cut glyphs are found at its faint level, and no
    next glyph is looked for (a faint line's level finds a neighbour's marks). Where a
    detector's box ends inside a map label's last letter (``Castl``, ``Smit``) or before
    it, the recognizer reads the word without it; the caller reads the grown box again and
    keeps that reading only where it completes the first
    (``bridge.vision.words.completes``)."""
    import cv2
    import numpy as np

    first, last = span
    height = strip.shape[0]
    grey = grey_levels(strip) if strip.ndim == 3 else strip
    ink = _beyond(grey, *_ink_level(grey[:, first:last]))
    if not ink[:, first:last].any():  # a faint line: its cut glyphs only, none after them
        ink = _beyond(grey, *_ink_level(grey[:, first:last], faint=True))
        next_left = next_right = False
    gap = NEXT_GLYPH * height
    reach_right = int(last + (gap if next_right else 0)) + 2
    reach_left = max(0, int(first - (gap if next_left else 0)) - 1)
    if (
        not ink[:, max(0, last - 1) : reach_right].any()
        and not ink[:, reach_left : first + 1].any()
    ):
        return span  # no ink at either edge, nor where a next glyph would start: most lines
    count, _, marks, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8), connectivity=8)
    left, right = first, last
    tall, wide = CUT_GLYPH
    found = [
        (int(x), int(x + w))
        for x, y, w, h, _ in marks[1:count]
        if 0 < y and y + h < height and tall * height <= h and w <= wide * height
    ]
    for start, end in found:
        if start < last < end:
            right = max(right, end + 1)
        if start < first < end:
            left = min(left, start - 1)
    if next_right:  # left to right, each glyph within ``gap`` of the one before it
        for start, end in sorted(found):
            if start > right + gap:
                break
            if start >= right:
                right = max(right, end + 1)
    if next_left:  # right to left, the same
        for start, end in sorted(found, key=lambda g: -g[1]):
            if end < left - gap:
                break
            if end <= left:
                left = min(left, start - 1)
    return max(0, left), min(strip.shape[1], right)


OFF_INK = 1 / 3
"""A line whose characters lie on blank columns this often or more has glyphs its
``glyph_ink`` missed ..."""
OFF_RUN = 3
"""... and so has one with this many characters in a row on blank columns: a word of
another colour among many of the farthest one (a weather app's green ``58°F`` and blue
``48°F`` before a white ``Moderate Intensity``: 8 of 31 characters, read ``5 8 F``)."""


def off_ink(chars: list[tuple[int, str, float]], blank: Any, columns: float) -> bool:
    """Whether at least ``OFF_INK`` of a line's characters, or ``OFF_RUN`` in a row
    (``PpOcrEngine._chars``: output column first; spaces left out; two at least) were read
    where ``blank`` (the crop's blank columns, ``columns`` output columns wide) holds no
    ink within a column of them: a line of several colours (a green ``-40dBm``, a grey
    ``CH``, a cyan ``11``), of which ``glyph_ink`` keeps the one farthest from the
    background, and the others' gaps run together."""
    placed = [c[0] for c in chars if c[1] != " "]
    if len(placed) < 2:
        return False
    per_column = len(blank) / columns
    last = len(blank)
    off = [
        bool(
            blank[
                max(0, int(col * per_column) - 1) : min(last, int((col + 1) * per_column) + 2)
            ].all()
        )
        for col in placed
    ]
    if sum(off) >= OFF_INK * len(placed):
        return True
    run = 0
    for missed in off:
        run = run + 1 if missed else 0
        if run >= OFF_RUN:
            return True
    return False


def colour_ink(pixels: Any) -> Any:
    """Which pixels of a line crop differ from its median colour by more than ``INK`` in some
    channel: the ink of glyphs of every colour, a green one on a grey of its own lightness
    too (``glyph_ink`` judges grey levels, and keeps one extreme)."""
    import numpy as np

    ground = np.median(pixels.reshape(-1, pixels.shape[2]), axis=0)
    return np.abs(pixels - ground).max(axis=2) > INK


def blank_columns(whole: Any) -> Any:
    """Which pixel columns of a line crop (``whole``: its ``glyph_ink``) hold no glyph ink
    in its ``MIDDLE`` rows, rows that
    are one run of ink across ``RULED`` of the width (and ``RULE_LENGTH``) left out: a rule,
    a scale bar or a table's border crossing the crop is no glyph, and would leave no gap
    between words (a map's ``20 m`` above its scale bar read as ``20m``). A column inked in
    ``STANDING`` of all the crop's rows is blank too: a board's grid line or a black cell
    between two letters, which no glyph does (the crop has the detector's margin above and
    below its glyphs)."""
    import numpy as np

    standing = whole.mean(axis=0) >= STANDING
    ink = whole[MIDDLE]
    reach = max(RULED * ink.shape[1], RULE_LENGTH * REC_HEIGHT)
    ruled = np.zeros(len(ink), dtype=bool)
    for row in np.flatnonzero(ink.sum(axis=1) >= reach):  # only rows with that much ink
        ruled[row] = _longest_true(ink[row]) >= reach
    if ruled.any() and not ruled.all():
        ink = ink[~ruled]
    return ~ink.any(axis=0) | standing


GRID_LINE = 3
"""A grid line is at most this many columns wide in a line crop (a glyph's stem is wider,
and never spans ``STANDING`` of the crop's rows)."""
GRID_LINES = 2


def grid_lines(pixels: Any, ink: Any = None) -> list[tuple[int, int]]:
    """The lines of a grid crossing a line crop (REC_HEIGHT x width x RGB), as (first, end)
    column runs: at least ``GRID_LINES`` runs of columns, each at most ``GRID_LINE`` wide,
    inked (``ink``: the crop's ``glyph_ink``, computed when not given) in ``STANDING`` of the
    rows; [] otherwise (one upright line alone, a table's edge or a cursor, may be a glyph
    the crop cuts)."""
    import numpy as np

    standing = (glyph_ink(pixels) if ink is None else ink).mean(axis=0) >= STANDING
    if not standing.any():
        return []
    edges = np.flatnonzero(np.diff(np.concatenate([[0], standing.astype(np.int8), [0]])))
    lines = [(int(a), int(b)) for a, b in zip(edges[::2], edges[1::2], strict=True)]
    lines = [(a, b) for a, b in lines if b - a <= GRID_LINE]
    return lines if len(lines) >= GRID_LINES else []


def without_grid(pixels: Any, lines: list[tuple[int, int]] | None = None) -> Any:
    """A line crop with the lines of a grid (``lines``, or ``grid_lines`` of it) painted
    over in its median colour: a crossword's or a sudoku's row crossed by its cells'
    borders read as junk or as nothing (``U S E R F E E`` as ``'U``); without them, as its
    letters. Returns ``pixels`` itself when nothing is painted."""
    import numpy as np

    if lines is None:
        lines = grid_lines(pixels)
    if not lines:
        return pixels
    out = pixels.copy()
    fill = np.median(pixels.reshape(-1, pixels.shape[2]), axis=0)
    for a, b in lines:
        out[:, max(0, a - 1) : b + 1] = fill  # and the anti-aliased column beside it
    return out


def glyph_height(ink: Any) -> int:
    """How many rows of a line crop its glyphs' ink (``ink``: its ``glyph_ink``) spans, top
    of the highest to bottom of the lowest; rows with a single pixel of ink (a speck, a
    neighbour's edge) are left out; REC_HEIGHT when no row holds more."""
    import numpy as np

    rows = np.flatnonzero(ink.sum(axis=1) >= 2)
    return int(rows[-1] - rows[0] + 1) if len(rows) else REC_HEIGHT


def _longest_true(row: Any) -> int:
    """The longest run of True in a boolean row."""
    import numpy as np

    edges = np.flatnonzero(np.diff(np.concatenate(([0], row.view(np.int8), [0]))))
    return int((edges[1::2] - edges[::2]).max()) if len(edges) else 0


def round_glyph(text: str, ink: Any, span: tuple[int, int]) -> bool:
    """Whether ``0`` / ``o`` / ``O``, alone or repeated, take ``ROUND`` of their height in
    width each or more: a ring, a node of a graph, or a row of a line chart's markers joined
    by its line (``000000000``); a digit or letter O is narrower than its height, each of
    a number's zeros too. A row of rings read with a stroke between each two
    (``0101010``, ``o1o1o1oa``: ``marker_chain``) takes ``CHAIN_PITCH`` of the line's
    height each: a binary number's digits stand closer."""
    rings = sum(c in "0oO" for c in text)
    if not text or (rings < len(text) and not marker_chain(text)):
        return False
    extent = _ink_extent(ink, span)
    if extent is None:
        return False
    width, height = extent
    if rings < len(text):  # a chain: its line's slopes fill the crop's rows
        return width >= CHAIN_PITCH * rings * REC_HEIGHT
    return width >= ROUND * len(text) * height


def marker_chain(text: str) -> bool:
    """Whether ``text`` reads as rings with strokes between them: at least ``CHAIN_RINGS``
    of ``0`` / ``o`` / ``O``, at least ``CHAIN_ALTERNATE`` of its neighbouring pairs a ring
    and a stroke (``1``, ``l``, ``i``...), and at most ``CHAIN_OTHER`` of its characters
    neither."""
    kinds = ["0" if c in "0oO" else "1" if c in "1lIij|!" else "x" for c in text]
    if kinds.count("0") < CHAIN_RINGS or kinds.count("x") > len(text) * CHAIN_OTHER:
        return False
    alternate = sum(1 for a, b in itertools.pairwise(kinds) if {a, b} == {"0", "1"})
    return alternate >= CHAIN_ALTERNATE * (len(text) - 1)


def _ink_extent(ink: Any, span: tuple[int, int]) -> tuple[int, int] | None:
    """(width, height) of the ink in columns ``span`` (``whole_span``), or None where they
    hold none."""
    first, last = whole_span(ink, span)
    part = ink[:, first:last]
    rows = part.any(axis=1).nonzero()[0]
    cols = part.any(axis=0).nonzero()[0]
    if not len(rows) or not len(cols):
        return None
    return int(cols[-1] - cols[0] + 1), int(rows[-1] - rows[0] + 1)


def _glyph_blob(ink: Any, span: tuple[int, int]) -> Any:
    """The ink in columns ``span`` cut to its own box, or None where they hold no ink."""
    part = ink[:, span[0] : span[1]]
    rows = part.any(axis=1).nonzero()[0]
    cols = part.any(axis=0).nonzero()[0]
    if not len(rows) or not len(cols):
        return None
    return part[rows[0] : rows[-1] + 1, cols[0] : cols[-1] + 1]


def solid(ink: Any, span: tuple[int, int]) -> bool:
    """Whether the ink of a lone glyph fills its own box like a dot, a disc or a square does
    (more than ``SOLID``): a graph's node read as ``o`` is not text. Digits are never judged
    by this (a bold digit on a board is a word)."""
    blob = _glyph_blob(ink, span)
    if blob is None:
        return False
    if blob.shape[1] < 0.5 * blob.shape[0]:
        return False  # a stem (``1``, ``l``, ``I``) fills its narrow box and is a glyph
    return float(blob.mean()) > SOLID


BAR_FILL = 0.8
"""A glyph read as ``1`` whose ink fills this share of its own box or more, the box at most
``BAR_WIDTH`` of its height wide, is a bare bar (``bare_bar``)."""
BAR_WIDTH = 0.35


def bare_bar(ink: Any, span: tuple[int, int]) -> bool:
    """Whether the ink of a one-character word in columns ``span`` is a bare upright bar: a
    ``1`` has a flag or a foot that leaves its box partly blank; a bar filling its box is a
    wall of a terminal's map, a divider or a tick, and on a keyboard an ``l`` or an ``I``
    (``words.stems_in_rows`` names it in a row of letters). On the 538 screens of both
    sets this dropped 19 bars read ``1`` (11 the walls of a terminal's dungeon map) and no
    ``1`` a person reads; at 0.7, one more bar and one ``1`` of a keyboard's."""
    blob = _glyph_blob(ink, span)
    if blob is None:
        return False
    return blob.shape[1] <= BAR_WIDTH * blob.shape[0] and float(blob.mean()) >= BAR_FILL


def word_box(ink: Any, span: tuple[int, int], box: Box, pad: int) -> Box:
    """The image box of a word: the ink inside its crop columns ``span`` (crop pixels,
    ``pad`` columns of padding on the left), mapped back into ``box`` (the detected line);
    the span itself where it holds no ink."""
    import numpy as np

    first, last = whole_span(ink, span)
    part = ink[:, first:last]
    rows = np.flatnonzero(part.any(axis=1))
    cols = np.flatnonzero(part.any(axis=0))
    top, bottom = (int(rows[0]), int(rows[-1]) + 1) if len(rows) else (0, REC_HEIGHT)
    top, bottom = max(0, top - EDGE), min(REC_HEIGHT, bottom + EDGE)  # anti-aliased edges
    if len(cols):
        first, last = first + int(cols[0]) - EDGE, first + int(cols[-1]) + 1 + EDGE
    scaled = max(1, ink.shape[1] - 2 * pad)  # the crop's own width before padding
    sx = (box[2] - box[0]) / scaled
    sy = (box[3] - box[1]) / REC_HEIGHT
    left = box[0] + int(max(0, first - pad) * sx)
    right = box[0] + int(min(scaled, last - pad) * sx + 0.999)
    return (
        max(box[0], left),
        box[1] + int(top * sy),
        min(box[2], max(left + 1, right)),
        box[1] + int(bottom * sy + 0.999),
    )


def whole_span(ink: Any, span: tuple[int, int]) -> tuple[int, int]:
    """``span`` (crop columns) widened to the whole of any glyph it cuts."""
    first, last = span
    inked = ink[MIDDLE].any(axis=0)
    while first > 0 and inked[first - 1]:
        first -= 1
    while last < len(inked) and inked[last]:
        last += 1
    return first, last


SPACED_RUN = 0.3
"""A line's runs between characters fall in two kinds, letters' and words' (``letter_run``),
where the wider kind is at least this share of the glyphs' height ..."""
SPACED_RATIO = 2.5
"""... this many times the narrower kind's widest, and ``SPACED_RUN`` / 2 of the height wider."""


def letter_run(runs: list[int], height: int, typical: float) -> float:
    """The usual run between two letters of a word: ``typical`` (the line's median run
    between characters, ``runs``), unless the runs fall in two kinds (four or more runs, two
    or more of the narrower; the wider ``SPACED_RUN``, ``SPACED_RATIO``) and ``typical`` is
    of the wider kind: then the narrower kind's median. A cube's scramble of one- and
    two-letter moves (``L' B' F D' U F2``, read with no space) has as many spaces as gaps
    between letters, and its median run was a space wide: the line read ``LB'FD'UF2``."""
    if len(runs) < 4:
        return typical
    ordered = sorted(runs)
    for k in range(2, len(ordered)):
        narrow, wide = ordered[k - 1], ordered[k]
        if (
            wide >= SPACED_RUN * height
            and wide >= SPACED_RATIO * max(narrow, 1)
            and wide - narrow >= SPACED_RUN / 2 * height
        ):
            return float(statistics.median(ordered[:k])) if typical >= wide else typical
    return typical


def longest_run(blank: Any, first: int, second: int, per_column: float) -> int:
    """The longest run of blank pixel columns between output columns ``first`` and
    ``second`` (exclusive of the characters' own centres)."""
    start = int((first + 0.5) * per_column)
    end = min(len(blank), int((second + 0.5) * per_column))
    best = run = 0
    for value in blank[start:end]:
        run = run + 1 if value else 0
        best = max(best, run)
    return best


GHOST_ROWS = 0.75
"""An underscore inked only from this share of a line crop's height down to its last row is
the top of what lies below the line, not an underscore (``underscores``)."""


def underscores(
    chars: list[tuple[int, str, float]], ink: Any, per_column: float
) -> list[tuple[int, str, float]]:
    """``chars`` (a line's, read with underscores) with the underscores that are none made
    spaces, and the spaces that are underscores made so, judged on the line crop's ink
    (``ink``: its ``glyph_ink``; ``per_column`` its pixel columns per recognizer column)
    under each: an underscore whose ink reaches the crop's last row and starts no higher
    than ``GHOST_ROWS`` of its height is the top of a glyph or a mark below the
    line (a terminal's next line, a legend's swatch: ``2021_November``); a space over ink in
    the rows of the line's own underscores is one more of them, which the recognizer took
    for a gap (``big_buck bunny``)."""
    import numpy as np

    def rows(col: int) -> Any:
        first = int(col * per_column)
        last = max(first + 1, int((col + 1) * per_column) + 1)
        return np.flatnonzero(ink[:, first:last].any(axis=1))

    height = ink.shape[0]
    out = list(chars)
    under: set[int] = set()
    for k, (col, char, p) in enumerate(chars):
        if char != "_":
            continue
        inked = rows(col)
        if len(inked) and inked[-1] == height - 1 and inked[0] >= GHOST_ROWS * height:
            out[k] = (col, " ", p)
        else:
            under.update(int(r) for r in inked)
    if under:
        for k, (col, char, p) in enumerate(chars):
            inked = rows(col) if char == " " else ()
            if len(inked) and set(int(r) for r in inked) <= under:
                out[k] = (col, "_", p)
    return out


def inked_spaces(
    chars: list[tuple[int, str, float]], blank: Any, columns: float
) -> list[tuple[int, str, float]]:
    """The spaces of ``chars`` (a line's, as read: (output column, character, probability))
    that lie over ink: some pixel column under one is not ``blank`` (``blank_columns``),
    the crop ``columns`` recognizer columns wide. A space between words lies on blank
    columns; one over ink is a glyph the recognizer could not name (``Sky Map``'s ``y``)."""
    per_column = len(blank) / columns
    return [
        c
        for c in chars
        if c[1] == " "
        and not blank[int(c[0] * per_column) : int((c[0] + 1) * per_column) + 1].all()
    ]

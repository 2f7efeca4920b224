"""Which words of a read line are kept, and which lines are no text.

The rules the reader applies to what the recognizer read, by the words' text, confidence
and boxes: a lone glyph kept as a digit, or as a letter in a row of such glyphs
(``lone_digit``, ``in_rows``, ``letters_in_rows``); a word's shape as text's
(``plausible``, ``lying_stroke``, ``letters_not_digits``); icons read as glyphs dropped
(``among_marks``: a toolbar's marks; ``beside_clock``: a status bar's); a line read again
with its box grown kept where it completes the first reading (``completes``), and one read
again turned half a turn kept where it is text set upside down (``upside_down``). Pure: no pixels,
no models (``bridge.vision.inks`` has the rules on pixels).
"""

from __future__ import annotations

import bisect
import itertools
import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass

from bridge.vision.boxes import Box, area, centre_in, meets, same_row, union

MIN_CONFIDENCE = 0.6
"""A word is kept when its characters' mean probability is at least this (``plausible``)."""
LONE_CONFIDENCE = 0.8
"""... and a word of one character when it is at least this."""
UPRIGHT = frozenset("1lI|")
"""Lone characters that are one upright stroke (``lying_stroke``)."""


@dataclass(frozen=True, slots=True)
class Word:
    """One word read: its text, its box in the image's pixels (tight on its ink) and the
    mean probability of its characters."""

    text: str
    box: Box
    confidence: float


GLYPH_CONFIDENCE = 0.9
"""A lone mark the detector passed over is a digit when read as one with this confidence."""
ROW = 3
"""One-character words in a row, the glyph itself counted, that make a lone letter among
them a word (``in_rows``, ``letters_in_rows``)."""


def lone_digit(text: str, confidence: float) -> bool:
    """Whether what the recognizer read on a lone mark (``bridge.vision.glyphs``) is kept:
    one or two digits read with ``GLYPH_CONFIDENCE``, or one letter (kept only in a row of
    lone glyphs, ``in_rows``); anything else a mark can look like (a sign) is far more
    often a texture or an icon there."""
    if confidence < GLYPH_CONFIDENCE:
        return False
    return (text.isdigit() and len(text) <= 2) or (
        len(text) == 1 and text.isascii() and text.isalpha()
    )


def in_rows(
    lines: list[list[Word]], others: list[Word] | None = None, sure: Collection[int] = ()
) -> list[list[Word]]:
    """The lone glyphs' words (one per candidate at most) with a letter kept only where at
    least ``ROW`` one-character words stand in a row with it (about as tall, their middles
    within half a height): lone glyphs, or ``others`` (the detected lines' one-character
    words: a word game's tile the detector did find). A word game's tiles or a keyboard's
    keys; a letter alone beside nothing is an icon's stroke read as one, unless its index
    is in ``sure`` (two recognizers read it surely: ``ppocr.SURE_LETTER``)."""
    glyphs = [(k, line[0]) for k, line in enumerate(lines) if line]
    rows = _Rows([w for _, w in glyphs] + [w for w in others or [] if len(w.text) == 1])
    out: list[list[Word]] = [[] for _ in lines]
    for k, word in glyphs:
        if word.text.isdigit() or k in sure or len(rows.of(word)) + 1 >= ROW:
            out[k] = [word]
    return out


STEM_HEIGHT = 0.2
"""A bar is an ``I`` of a row when the row's letters are this close to its height (a share of
it): a word game's tiles or a keyboard's keys are set in one size; a divider is taller."""
DOTTED_HEIGHT = 1.35
"""A bar with a dot above it (an ``i``) is compared with its row's letters at its own height and
at this many times it: the dot stands apart from the bar, so the bar alone may be shorter
than the letter a person sees (on the 580 screens, 1.25 reads the same; 1.0 loses four keyboards'
``i``)."""


def stems_in_rows(
    stems: list[Box], singles: list[Word], dotted: Collection[Box] = ()
) -> list[list[Word]]:
    """Words ``I`` for the solid upright bars of ``stems`` (their glyphs' own boxes) that
    stand in a row (``in_row``) with at least ``ROW`` - 1 one-letter words of ``singles``
    within ``STEM_HEIGHT`` of their height (a dotted bar's, or ``DOTTED_HEIGHT`` times it),
    the row's one-character words mostly letters: a word game's or a keyboard's
    ``I``, which the recognizer reads as nothing alone (a bar is ``I``, ``l``, ``1`` or
    ``|`` alike) and the glyph search kept out as too solid. The other bars of its row count
    toward ``ROW`` where at least one letter stands in it (a letter grid's row ``g i l``).
    A bar among digits, or alone, stays no word. Its confidence is the least of its row's
    letters'; a bar meeting one already taken (found at both widths of ground) is dropped."""
    out: list[list[Word]] = []
    taken: list[Box] = []
    for box in stems:
        if any(meets(box, t) for t in taken):
            continue
        h = box[3] - box[1]
        seen = [box]  # the bar, and a dotted bar with its dot: as tall as the letter is
        if box in dotted:
            seen.append((box[0], box[3] - round(h * DOTTED_HEIGHT), box[2], box[3]))
        mates = [
            w
            for w in singles
            if any(
                in_row(b, w.box)
                and abs((w.box[3] - w.box[1]) - (b[3] - b[1])) <= STEM_HEIGHT * (b[3] - b[1])
                for b in seen
            )
        ]
        letters = [w for w in mates if w.text.isalpha()]
        bars = sum(1 for other in stems if other != box and in_row(box, other))
        if letters and len(letters) + bars + 1 >= ROW and 2 * len(letters) > len(mates):
            small = 2 * sum(1 for w in letters if w.text.islower()) > len(letters)
            letter = "i" if box in dotted else "l" if small else "I"
            out.append([Word(letter, box, min(w.confidence for w in letters))])
            taken.append(box)
    return out


def letters_in_rows(lines: list[list[Word]]) -> list[list[Word]]:
    """``lines`` with a one-character ``0`` read as the letter ``O`` where it stands in a row
    of at least ``ROW`` one-character words (``in_row``), most of the others letters: a word
    game's tiles or a keyboard's keys, where the recognizer took a round ``O`` for a zero."""
    if not any(len(line) == 1 and line[0].text == "0" for line in lines):
        return lines
    rows = _Rows([w for line in lines for w in line if len(w.text) == 1])
    out: list[list[Word]] = []
    for line in lines:
        if len(line) == 1 and line[0].text == "0":
            w = line[0]
            row = rows.of(w)
            if len(row) + 1 >= ROW and 2 * sum(1 for o in row if o.text.isalpha()) > len(row):
                line = [Word("O", w.box, w.confidence)]
        out.append(line)
    return out


ALONE_CONFIDENCE = 0.92
"""A line of one character with no row of one-character words beside it is kept from this
confidence (``sure_when_alone``) ... (0.9 at first; between 0.90 and 0.92 the 263 screens of
both sets held 9 such readings, all junk: a glowing pipe's ``7``, a compass's tick ``1``, a
radar's ``V``)."""
PAIR_CONFIDENCE = 0.85
"""... and a line of one word of two characters from this."""


def sure_when_alone(lines: list[list[Word]], lone: range) -> list[list[Word]]:
    """``lines`` without the lines of one short word read with doubt: one character read
    with less than ``ALONE_CONFIDENCE`` that stands in no row of ``ROW`` one-character words
    (``in_row``), or two read with less than ``PAIR_CONFIDENCE``. An icon, a marker, a
    card's suit or a road's bend the detector took for a glyph or two (a note read as
    ``P``, an arrow as ``V``, ``6♥`` as ``6V``, a timer's icon as ``CO``), which the
    recognizer reads with doubt; a word game's tiles, a board's digits or a keyboard's keys
    stand in rows and keep ``LONE_CONFIDENCE``. The lines of ``lone`` (glyphs found apart
    from the detector) keep their own rules."""
    short = [w for line in lines if len(line) == 1 for w in line if len(w.text) <= 2]
    if not any(w.confidence < ALONE_CONFIDENCE for w in short):
        return lines
    rows = _Rows([w for line in lines for w in line if len(w.text) == 1])

    def doubtful(word: Word) -> bool:
        if len(word.text) == 2:
            return word.confidence < PAIR_CONFIDENCE
        return (
            len(word.text) == 1
            and word.confidence < ALONE_CONFIDENCE
            and len(rows.of(word)) + 1 < ROW
        )

    return [
        [] if k not in lone and len(line) == 1 and doubtful(line[0]) else line
        for k, line in enumerate(lines)
    ]


class _Rows:
    """Words by their boxes' vertical middles, for the others in a word's row (``in_row``)
    without comparing every pair: a row's middles lie within 0.75 of the word's height."""

    def __init__(self, words: list[Word]) -> None:
        self._words = sorted(words, key=lambda w: w.box[1] + w.box[3])
        self._keys = [w.box[1] + w.box[3] for w in self._words]

    def of(self, word: Word) -> list[Word]:
        """The other words in ``word``'s row."""
        twice = word.box[1] + word.box[3]
        reach = 1.5 * (word.box[3] - word.box[1])  # twice 0.75 of its height
        first = bisect.bisect_left(self._keys, twice - reach)
        last = bisect.bisect_right(self._keys, twice + reach)
        return [o for o in self._words[first:last] if o is not word and in_row(word.box, o.box)]


def in_row(a: Box, b: Box) -> bool:
    """Whether two glyph boxes stand in one row: about as tall (1.5x either way), the middle
    of one within the other's rows (``same_row``, either way round)."""
    ha, hb = a[3] - a[1], b[3] - b[1]
    if not (ha <= 1.5 * hb and hb <= 1.5 * ha):
        return False
    return same_row(a, b) or same_row(b, a)


MARK_ALIGN = 0.15
"""Marks of one toolbar are centred on one line: their vertical middles differ by at most
this share of the reading's height (numbers beside a chart's markers sit above or below
them)."""
MARK_HEIGHT = (0.7, 2.0)
"""A mark's detected box is this many times the reading's ink height (a detected box is
grown around its ink, a reading's box is tight on it)."""
MARK_GAP = 3.0
"""A lone neighbour mark counts when it is at most this many reading heights away."""
MARK_SHORT = 2
MARK_SURE = 0.999
"""A reading this sure is a glyph among the marks, not one of them: of the readings of
at least 0.97 ``among_marks`` dropped on the 679 screens, 14 were a key's, a cell's, a
stepper's or an axis's own text and 6 a toolbar's icon; from this confidence, 10 and 2."""
MARK_TWIN = 1.18
"""A mark whose detected box is the reading's own detected box in size (width and height
within this factor either way) is its twin at any distance (a player's skip-back and
skip-forward buttons at both ends of a row)."""


def among_marks(
    lines: list[list[Word]], silent: list[Box], detected: list[Box | None] | None = None
) -> list[list[Word]]:
    """``lines`` without the short readings that are one mark of a toolbar: a line of one
    word of at most ``MARK_SHORT`` characters, with no other line read in its row, centred
    on one line (``MARK_ALIGN``) with detected boxes that read as nothing (``silent``) of
    about its size (``MARK_HEIGHT``), at least two of them, or one within ``MARK_GAP``
    heights, or one the twin of the box the line was detected in (``detected``, one per
    line, None for a line found otherwise; ``MARK_TWIN``). A toolbar's arrows and a
    player's buttons are drawn alike and read as nothing, but one of them reads as a glyph
    (an undo arrow as ``5``, a diagonal arrow as ``7``, a repeat sign as ``22``, a skip-back
    button as ``K``); on a board, digits beside unread marks have other readings in their
    row."""
    boxes = [union([w.box for w in line]) if line else None for line in lines]
    out: list[list[Word]] = []
    for k, line in enumerate(lines):
        box = boxes[k]
        if (
            box is None
            or len(line) != 1
            or len(line[0].text) > MARK_SHORT
            or line[0].confidence >= MARK_SURE
        ):
            out.append(line)
            continue
        height = max(1, box[3] - box[1])
        middle = box[1] + box[3]
        marks = [
            b
            for b in silent
            if not meets(b, box)
            and abs(b[1] + b[3] - middle) <= 2 * MARK_ALIGN * height
            and MARK_HEIGHT[0] <= (b[3] - b[1]) / height <= MARK_HEIGHT[1]
        ]
        near = min((max(b[0] - box[2], box[0] - b[2]) for b in marks), default=None)
        own = detected[k] if detected is not None and k < len(detected) else None
        toolbar = (
            len(marks) >= 2
            or (near is not None and near <= MARK_GAP * height)
            or (own is not None and any(_twin(own, b) for b in silent if b != own))
        )
        alone = toolbar and not any(
            other is not None and j != k and (same_row(other, box) or same_row(box, other))
            for j, other in enumerate(boxes)
        )
        out.append([] if alone else line)
    return out


ICON_GAP = 0.45
"""A line's first word that is one letter, set at least this share of the line's height
before a word of letters, is an icon read as a letter (``icon_first``)."""


def icon_first(line: list[Word]) -> list[Word]:
    """``line`` without its first word where that is one ASCII letter standing at least
    ``ICON_GAP`` of the line's height before a next word of two characters or more that
    starts with a letter: an icon set a little apart before its caption (a search bar's
    magnifier read as ``Q``, a refresh arrow as ``C``, a logo as ``G``). On the 547 real
    screens a letter that is a word stands closer before a word (a map's ``S Main St.``,
    0.28 of the height; a game's ``S Slalom``, 0.43); farther apart, it stands before a
    number (a calculator's ``X 0.24``, a clock's ``R 17:36``) or another letter (a
    keyboard's row), and stays. Not an ``O``: it is as likely a ``0`` (``0 items``)."""
    if len(line) < 2:
        return line
    first, after = line[0], line[1]
    if not (len(first.text) == 1 and first.text.isascii() and first.text.isalpha()):
        return line
    if first.text in "Oo":
        return line  # a count's ``0`` read as a letter (a file browser's ``0 items``)
    if len(after.text) < 2 or not after.text[0].isalpha():
        return line
    height = max(first.box[3] - first.box[1], after.box[3] - after.box[1], 1)
    return line[1:] if after.box[0] - first.box[2] >= ICON_GAP * height else line


def read_twice(lines: list[list[Word]]) -> list[list[Word]]:
    """``lines`` without a one-character line whose box's centre lies inside the larger box
    of another one-character line of the same character: one glyph read twice, once from a
    part of it and once whole (a minesweeper's serif ``1`` found as a lone glyph by its top
    and read again in its detected box). The larger reading is kept; lines of longer words,
    and two glyphs side by side, are left as they are."""
    ones = [
        (k, line[0]) for k, line in enumerate(lines) if len(line) == 1 and len(line[0].text) == 1
    ]
    twice = {
        k
        for k, small in ones
        if any(
            j != k
            and large.text == small.text
            and area(small.box) < area(large.box)
            and centre_in(small.box, large.box)
            for j, large in ones
        )
    }
    return [[] if k in twice else line for k, line in enumerate(lines)]


AXIS_TIMES = 2
"""A line that is one number with a time's lost colon is a time where at least this many
lines of one time each (``AXIS_TIME``, as long as it would be) stand in its row
(``times_in_rows``)."""
AXIS_TIME = re.compile(r"\d{1,2}:[0-5]\d")
LOST_COLON = re.compile(r"(\d{1,2})1?([0-5]\d)")
"""A time whose colon the recognizer left out (``1345``) or read as a ``1`` (``12115``)."""


def times_in_rows(lines: list[list[Word]]) -> list[list[Word]]:
    """``lines`` with a line that is one number of four or five digits read as the time it
    would be with its colon back (``LOST_COLON``: ``1345`` is ``13:45``, ``12115`` is
    ``12:15``) where at least ``AXIS_TIMES`` lines of one time each, as long as that time,
    stand in its row (``in_row``): a chart's time axis, whose ticks share one format, and
    whose small colon a halo or a grid line hides. A number among other words (``13:30 Sat
    12 Oct 2024``) or beside no times stays as read."""
    times = [line[0] for line in lines if len(line) == 1 and AXIS_TIME.fullmatch(line[0].text)]
    if len(times) < AXIS_TIMES:
        return lines
    rows = _Rows(times)
    out: list[list[Word]] = []
    for line in lines:
        lost = LOST_COLON.fullmatch(line[0].text) if len(line) == 1 else None
        if lost is not None and 4 <= len(line[0].text) <= 5 and int(lost.group(1)) < 24:
            word = line[0]
            time = f"{lost.group(1)}:{lost.group(2)}"
            mates = [m for m in rows.of(word) if len(m.text) == len(time)]
            if len(mates) >= AXIS_TIMES:
                line = [Word(time, word.box, word.confidence)]
        out.append(line)
    return out


ZERO_UNIT = re.compile(r"O([a-z])")
"""A zero and its unit read with the zero as a capital ``O`` (``Oh``, ``Ok``, ``Ov``):
``zeros_before_units``."""
COUNT_UNIT = re.compile(r"[-+\u2212]?\d+(?:[.,]\d+)?([a-z])")


def zeros_before_units(lines: list[list[Word]]) -> list[list[Word]]:
    """``lines`` with a word of a capital ``O`` and one small letter read as a zero and that
    unit (``Oh`` is ``0h``) where another word of the screen is a number with the same unit
    (``3h``, ``1k``, ``-24s``, ``14v``): a chart's ``0h`` beside its ``3h`` and ``6h``, a
    spectrum's ``0k`` beside its ``1k``, a time axis's ``0s`` after its ``-24s``. The
    recognizer reads a zero before a letter as an ``O``; a screen that shows no number with
    that unit keeps its ``Oh`` and ``Ok``, and a small ``o`` (``of``, ``on``) is a word."""
    units = {
        m.group(1)
        for line in lines
        for w in line
        if (m := COUNT_UNIT.fullmatch(w.text)) is not None
    }
    if not units:
        return lines
    out: list[list[Word]] = []
    for line in lines:
        fixed = []
        for w in line:
            m = ZERO_UNIT.fullmatch(w.text)
            if m is not None and m.group(1) in units:
                w = Word("0" + m.group(1), w.box, w.confidence)
            fixed.append(w)
        out.append(fixed)
    return out


CLOCK = re.compile(r"\d{1,2}:\d{2}")
CLOCK_ICON = 0.95
"""A one-digit word read with less confidence than this beside a clock is a status icon."""
PERCENT = re.compile(r"(\d+)%")


def battery_levels(lines: list[list[Word]]) -> list[list[Word]]:
    """``lines`` with a status bar's battery level read with its icons: a percentage over
    100 in the row of a clock (``CLOCK``) is the longest run of its last digits that makes
    100 or less (``1100%`` is ``100%``, its battery's outline read as a ``1``; ``464163%``
    is ``63%``), and a one-digit word read with less than ``CLOCK_ICON`` in its line is a
    signal icon (``4``), dropped. A percentage over 100 anywhere else (a chart's ``150%``)
    stays. In the status bar's row (a clock's row with no word above it) such a digit is
    an icon in every line, not only in the clock's or the level's (the icons are often a
    line of their own: ``LTE 0 100%``); ``beside_clock`` does the same inside any line that
    holds a clock, before the lines are whole."""
    clocks = [w.box for line in lines for w in line if CLOCK.fullmatch(w.text)]
    if not clocks:
        return lines
    # the status bar: a clock's row with no word above it (a game's timer lower down is not)
    bars = [c for c in clocks if not any(w.box[3] <= c[1] for line in lines for w in line)]
    out: list[list[Word]] = []
    for line in lines:
        if any(same_row(w.box, c) for w in line for c in bars):
            line = [w for w in line if not status_icon(w.text, w.confidence)]
        level = next(
            (
                k
                for k, w in enumerate(line)
                if (m := PERCENT.fullmatch(w.text)) is not None
                and int(m.group(1)) > 100
                and any(same_row(w.box, c) for c in clocks)
            ),
            None,
        )
        if level is not None:
            word = line[level]
            digits = word.text[:-1]
            keep = next(digits[k:] for k in range(len(digits)) if int(digits[k:]) <= 100)
            line = [
                Word(keep + "%", word.box, word.confidence) if k == level else w
                for k, w in enumerate(line)
                if k == level or not status_icon(w.text, w.confidence)
            ]
        out.append(line)
    return out


def beside_clock(
    words: list[tuple[str, tuple[int, int], float]],
) -> list[tuple[str, tuple[int, int], float]]:
    """One line's words without the status icons read as digits: where the line holds a
    clock (``CLOCK``, ``9:55``), a word of one digit read with less than ``CLOCK_ICON`` is
    the battery, an alarm or a signal icon beside it (``3 9:55``, ``4:42 0``); a status bar
    shows no digit alone."""
    if not any(CLOCK.fullmatch(w[0]) for w in words):
        return words
    return [w for w in words if not status_icon(w[0], w[2])]


def status_icon(text: str, confidence: float) -> bool:
    """Whether a word in a status bar's row (``text`` read with ``confidence``) is an icon
    read as a digit: one digit, read with less than ``CLOCK_ICON``."""
    return len(text) == 1 and text.isdigit() and confidence < CLOCK_ICON


def _twin(a: Box, b: Box) -> bool:
    """Whether detected boxes ``a`` and ``b`` are alike in size (``MARK_TWIN``) and centred
    on one line (``MARK_ALIGN`` of ``a``'s height)."""
    wa, ha, wb, hb = a[2] - a[0], a[3] - a[1], b[2] - b[0], b[3] - b[1]
    alike = all(1 / MARK_TWIN <= y / x <= MARK_TWIN for x, y in ((wa, wb), (ha, hb)) if x > 0)
    return alike and abs(a[1] + a[3] - b[1] - b[3]) <= 2 * MARK_ALIGN * ha


def lying_stroke(word: Word) -> bool:
    """Whether a lone upright stroke (``1``, ``l``, ``I``, ``|``) was read from ink wider
    than it is tall: a minus sign, a dash or a bar, never the glyph, which stands upright in
    every font."""
    left, top, right, bottom = word.box
    return word.text in UPRIGHT and right - left > bottom - top


DEGREE_READ = re.compile(r"(?<=\d)['\u2019\u00b4`](?=[CF](?![A-Za-z]))")
"""A degree sign read as an apostrophe between a number and its scale (``6'C``)."""


def degrees(word: str) -> str:
    """``word`` with a degree sign read as an apostrophe restored (``6'C`` is ``6°C``): a
    small ring at the top of the line is an apostrophe's size; no number is followed by an
    apostrophe and then a lone ``C`` or ``F`` (feet and inches are ``5'10"``)."""
    return DEGREE_READ.sub("°", word)


def letters_not_digits(word: str) -> str:
    """``word`` with a zero read among capital letters as the letter O (``ED0`` is ``EDO``):
    the recognizer confuses the two glyphs; a word of capitals is not a number."""
    if "0" not in word:
        return word
    rest = word.replace("0", "")
    if len(rest) >= 2 and rest.isalpha() and rest.isupper():
        return word.replace("0", "O")
    return word


KEY_CONFIDENCE = 0.6
"""A digit among one-character words only (two or more: a keypad's keys or a board's cells
the detector took as one line) is kept from this confidence, not ``LONE_CONFIDENCE``: N
Calculator's ``6`` read at 0.72 between its ``5`` and a minus key (``plausible``)."""


PAGE_DOTS = re.compile(r"(?=.*[●•])[●•○◦0oO]{3,}")
"""A word of filled and hollow dots only (``●000``): a pager's or a carousel's dots, one
filled for the page shown, the hollow ones read as zeros; not text."""


def plausible(text: str, confidence: float, among_keys: bool = False) -> bool:
    """Whether a word read with ``confidence`` is text rather than a texture or an icon;
    ``among_keys``: its line holds one-character words only, two or more."""
    if confidence < MIN_CONFIDENCE or not any(c.isalnum() for c in text):
        return False
    if PAGE_DOTS.fullmatch(text):
        return False
    if len(text) == 1:  # a lone glyph: a plain letter or digit (an accent alone is a speck)
        if among_keys and text.isdigit():
            return text.isascii() and confidence >= KEY_CONFIDENCE
        return text.isascii() and confidence >= LONE_CONFIDENCE
    return True


UNITS = frozenset(
    "ft m km mi nm yd in cm mm mph kph km/h kmh kn kt Hz kHz MHz GHz dB dBm % °"
    " °C °F K s ms min h kg g lb oz W kW kWh V mV A mA mAh bpm rpm hPa mbar bar psi".split()
)
"""Units a measure's number is set before, apart (``0 mph``, ``0 ft↑``): on a gauge or a
dashboard a lone ``0`` before one is its reading."""


def count_before_unit(text: str, following: str, confidence: float) -> bool:
    """Whether ``text``, one character read with ``confidence``, is a digit set before a
    unit (``following``, the next word of its line, its trailing signs left out: ``ft↑`` is
    ``ft``): kept from ``MIN_CONFIDENCE``, not ``LONE_CONFIDENCE``, and an ``O`` there is a
    ``0`` (the recognizer reads a lone round ``0`` as the letter as often as the digit; a
    letter alone before a unit is no word). The caller writes ``0`` for an ``O``."""
    unit = following.rstrip("\u2191\u2193\u2190\u2192")
    return (
        len(text) == 1
        and (text.isdigit() or text in "Oo")
        and confidence >= MIN_CONFIDENCE
        and unit in UNITS
    )


TIMES = frozenset("xX\u00d7")
"""Signs a size's numbers are set either side of, apart (``12 x 40 mm``): ``times_sign``."""
SIZE_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


def times_sign(text: str, before: str, after: str, confidence: float) -> bool:
    """Whether ``text``, one character read with ``confidence``, is a times sign between two
    numbers (``before`` and ``after``, the words either side of it in its line): a label's
    ``12 x 40 mm``, a screen's ``1920 x 1080``. Kept from ``MIN_CONFIDENCE``, not
    ``LONE_CONFIDENCE``: the recognizer reads a small ``x`` alone at 0.68 to 0.88, and a
    letter alone between two numbers is no word."""
    return (
        text in TIMES
        and confidence >= MIN_CONFIDENCE
        and SIZE_NUMBER.fullmatch(before) is not None
        and SIZE_NUMBER.fullmatch(after) is not None
    )


AXIS_TERMS = 3
"""Numbers of a line at one step apart, at least this many, make it an axis (``axis_parts``)."""
AXIS_RUN = 24
"""A word of at most this many digits may be an axis's numbers set tight (``15161718``)."""


def axis_parts(texts: list[str]) -> list[list[str]]:
    """Each of a line's words (``texts``), split where it is the axis's next numbers set
    tight: on a line whose whole numbers step by one amount at least ``AXIS_TERMS`` - 1
    times (a chart's ticks, ``1 2 3 … 9``), a number right after them that is the next two or
    more of the run written together (``1011`` after ``9``: ``10`` and ``11``, two labels too
    close for the gap between them to show) is those numbers, and so is the next such word
    after it (``1213`` after ``1011``, ``15161718`` after ``14``). Any other word is itself."""
    numbers = [
        (k, int(t)) for k, t in enumerate(texts) if t.isascii() and t.isdigit() and len(t) <= 6
    ]
    steps = Counter(b - a for (_, a), (_, b) in itertools.pairwise(numbers) if b != a)
    parts = [[t] for t in texts]
    if not steps:
        return parts
    step, count = steps.most_common(1)[0]
    if count < AXIS_TERMS - 1:
        return parts
    before: int | None = None  # the axis's last number: a split word's last piece
    for k, text in enumerate(texts):
        if not (text.isascii() and text.isdigit() and len(text) <= AXIS_RUN):
            continue
        value = int(text) if len(text) <= 6 else None
        if before is None or value == before + step or len(text) < 2:
            before = value
            continue
        pieces, rest, term = [], text, before + step
        while rest and term >= 0 and rest.startswith(str(term)):
            pieces.append(str(term))
            rest = rest[len(str(term)) :]
            term += step
        if not rest and len(pieces) >= 2:
            parts[k] = pieces
            before = int(pieces[-1])
        else:
            before = value
    return parts


def completes(first: list[Word], again: list[Word], left: bool, right: bool) -> bool:
    """Whether ``again`` (a line read again with its box grown sideways, to the ``left``
    and or the ``right``: ``bridge.vision.inks.past_cut_glyphs``) completes ``first`` (its
    first reading): the same words but for the first word grown at its start (``left``)
    and or the last at its end (``right``), by letters after a letter or digits after a
    digit (``Castl`` -> ``Castle``; a road's stroke read as ``1`` after ``Major`` is no part
    of it), or a one-word line with its cut edge letter read again (``_edge_mended``).
    Anything else, the first reading stands: a grown box reads the line's other words no
    better."""
    if len(first) != len(again) or not first:
        return False
    old = [w.text for w in first]
    new = [w.text for w in again]
    if len(old) == 1 and len(old[0]) >= EDGE_MENDED and old[0] not in new[0]:
        return _edge_mended(old[0], new[0], left, right)
    if len(old) == 1:
        at = new[0].find(old[0])
        if new[0] == old[0] or at < 0:
            return False
        head, tail = new[0][:at], new[0][at + len(old[0]) :]
        return (
            (left or not head)
            and (right or not tail)
            and _same_kind(head, old[0][0])
            and _same_kind(tail, old[0][-1])
        )
    if old[1:-1] != new[1:-1] or (old[0] == new[0] and old[-1] == new[-1]):
        return False
    head = new[0][: len(new[0]) - len(old[0])]
    tail = new[-1][len(old[-1]) :]
    return (
        old[0] == new[0] or (left and new[0].endswith(old[0]) and _same_kind(head, old[0][0]))
    ) and (
        old[-1] == new[-1]
        or (right and new[-1].startswith(old[-1]) and _same_kind(tail, old[-1][-1]))
    )


CAPITAL_REACH = 0.9
"""A line whose first word may have lost its capital (``capital_lost``) is read again with
its box grown this share of its height to the left: about one capital's width."""
CAPITAL_CONFIDENCE = 0.9


def capital_lost(text: str) -> bool:
    """Whether ``text`` (a line's first word) may be a word whose capital the detector's box
    left out: three letters or more, the first small. A map's labels and a chart's names
    start with a capital; where the box holds the word whole, the reading again adds none."""
    return len(text) >= 3 and text.isalpha() and text[0].islower()


def one_capital(first: list[Word], again: list[Word]) -> bool:
    """Whether ``again`` (a line read again with its box grown to the left, which
    ``completes`` ``first``) adds exactly one capital before the first word, the word read
    with ``CAPITAL_CONFIDENCE``: a road's edge or an icon before a label reads as no letter,
    or as a doubtful one."""
    added = again[0].text[: len(again[0].text) - len(first[0].text)]
    return len(added) == 1 and added.isupper() and again[0].confidence >= CAPITAL_CONFIDENCE


EDGE_MENDED = 3
"""A one-word line's first reading of at least this many characters may have its cut edge
letter read again (``_edge_mended``)."""


def _edge_mended(old: str, new: str, left: bool, right: bool) -> bool:
    """Whether ``new`` (a one-word line read again with its box grown on one side, ``left``
    or ``right``) is ``old`` with the letter at that edge read again, other letters and
    perhaps more before or after it: the edge cut that letter, so the first reading named
    a part of it (``Jndo`` -> ``Undo``, ``lars`` -> ``Mars``, ``Vasserburg`` ->
    ``Wasserburg``). Letters only, beside a letter: a digit cut at a number's edge is no
    letter's part (a chart's ``746`` grown to ``2946``)."""
    if left == right or len(new) < len(old):
        return False
    if left and new.endswith(old[1:]):
        head = new[: len(new) - len(old) + 1]
        return head.isalpha() and old[:2].isalpha() and head.casefold() != old[0].casefold()
    if right and new.startswith(old[:-1]):
        tail = new[len(old) - 1 :]
        return tail.isalpha() and old[-2:].isalpha() and tail.casefold() != old[-1].casefold()
    return False


def _same_kind(more: str, beside: str) -> bool:
    """Whether ``more`` (characters a grown box added) are of ``beside``'s kind: letters
    beside a letter, digits beside a digit (nothing added is of every kind)."""
    if not more:
        return True
    if beside.isalpha():
        return more.isalpha()
    return beside.isdigit() and more.isdigit()


TURN_BELOW = 0.9
"""A detected line whose words' mean probability is under this is read again turned half a
turn (``upside_down``)..."""
TURN_SURE = 0.95
TURN_GAIN = 0.1
TURN_CHARS = 4


def upside_down(first: list[Word], turned: list[Word]) -> bool:
    """Whether a line is text set upside down (a chess clock's far player's half, a table
    game's other side): read turned half a turn (``turned``), its characters' mean
    probability is at least ``TURN_SURE`` and ``TURN_GAIN`` above the upright reading's
    (``first``, under ``TURN_BELOW``), with at least ``TURN_CHARS`` characters and as many
    as upright (``9s:0`` is ``0:56``). A glyph or two read either way is as likely a
    ``q`` as a ``b``: a short reading never turns."""
    chars = sum(len(w.text) for w in turned)
    if chars < TURN_CHARS or chars < sum(len(w.text) for w in first):
        return False
    return confidence_of(turned) >= max(TURN_SURE, confidence_of(first) + TURN_GAIN)


def confidence_of(words: list[Word]) -> float:
    """The mean probability of the characters of ``words`` (each word's, by length)."""
    total = sum(len(w.text) for w in words)
    return sum(w.confidence * len(w.text) for w in words) / total if total else 0.0

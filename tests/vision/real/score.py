"""Word recall and precision of a reader on the real screenshots of this folder.

Each screenshot's words are labelled by hand in ``labels.yaml``: ``words`` must be read,
``optional`` (rotated, partly hidden, tiny or dimmed words) may be read without counting as a
miss or as junk. A word is compared after ``normal``: Unicode NFKC (a superscript ``²`` is
``2``), the sharp sign as ``#``, a flat sign after a note's letter as ``b`` (``D♭`` is
``Db``, as musicians type it; ``FLAT``), the multiplication sign as ``x``, every dash as ``-``
(``DASHES``), every apostrophe as ``'`` (``APOSTROPHES``), lower case, characters that are
neither letters nor digits stripped from both ends (``196°`` is ``196``, ``Active:`` is
``active``; inner ones stay: ``6:20.246``, ``1/3``); a token with no letter or digit is not
a word. Words are matched as multisets per screenshot. Recall: expected words read /
expected words. Precision: words read that were expected / words read that were not
optional.

``.venv/bin/python -m tests.vision.real.score`` prints the table for the hub's reader
(``... score heldout``: for the held-out screens of tests/vision/heldout).
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import yaml
from PIL import Image

HERE = Path(__file__).resolve().parent
HELDOUT = HERE.parent / "heldout"
"""Screens measured once as they came, never used to tune the pipeline (its README.md)."""

Reader = Callable[[Image.Image], Iterable[str]]
"""An RGB image in, the lines of text read from it out."""


DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2212", "-"))
"""Hyphens, en and em dashes and the minus sign are one dash: which of them a line holds
(``08:00\u201312:00``, ``\u22125``) is the font's typography, not another word."""


APOSTROPHES = str.maketrans(dict.fromkeys("\u2019\u2018\u00b4\u0060\u02bc", "'"))
"""Typographic apostrophes, and the acute and grave accents an app sets as one (a board
game's ``It\u00b4s``), are the apostrophe: a person reads ``It's`` either way."""


FLAT = re.compile("(?<=[A-Ga-g])\u266d")
"""A flat sign after a note's letter: ``D\u266d`` and ``Db`` are one note's name in two
spellings, as ``C\u266f`` and ``C#`` are (a lone sign stays a sign, no word)."""


def normal(token: str) -> str:
    word = (
        unicodedata.normalize("NFKC", FLAT.sub("b", token.translate(APOSTROPHES)))
        .replace("\u266f", "#")
        .replace("\u00d7", "x")
        .translate(DASHES)
        .lower()
    )
    start, end = 0, len(word)
    while start < end and not word[start].isalnum():
        start += 1
    while end > start and not word[end - 1].isalnum():
        end -= 1
    return word[start:end]


def words(text: str) -> list[str]:
    return [w for w in (normal(t) for t in text.split()) if w]


@cache
def labels(where: Path = HERE) -> dict[str, dict[str, str]]:
    loaded = yaml.safe_load((where / "labels.yaml").read_text())
    assert isinstance(loaded, dict)
    return loaded


def screens(where: Path = HERE) -> list[str]:
    return sorted(labels(where))


def image_path(screen: str, where: Path = HERE) -> Path:
    found = sorted(p for p in where.glob(f"{screen}.*") if p.suffix in {".png", ".jpeg", ".jpg"})
    assert found, screen
    return found[0]


def load(screen: str, where: Path = HERE) -> Image.Image:
    with Image.open(image_path(screen, where)) as image:
        return image.convert("RGB")


@dataclass(frozen=True)
class Score:
    screen: str
    expected: int
    read: int
    correct: int
    missed: tuple[str, ...]
    extra: tuple[str, ...]

    @property
    def recall(self) -> float:
        return self.correct / self.expected if self.expected else 1.0

    @property
    def precision(self) -> float:
        return self.correct / self.read if self.read else 1.0


def score_lines(screen: str, lines: Iterable[str], where: Path = HERE) -> Score:
    label = labels(where)[screen]
    want = Counter(words(label.get("words", "")))
    optional = Counter(words(label.get("optional", "")))
    got = Counter(w for line in lines for w in words(line))
    hit = got & want
    spare = (got - hit) & optional  # optional words read: neither credit nor junk
    extra = got - hit - spare
    return Score(
        screen,
        sum(want.values()),
        sum(hit.values()) + sum(extra.values()),
        sum(hit.values()),
        tuple(sorted((want - got).elements())),
        tuple(sorted(extra.elements())),
    )


def total(scores: Iterable[Score]) -> tuple[float, float]:
    listed = list(scores)
    expected = sum(s.expected for s in listed)
    read = sum(s.read for s in listed)
    correct = sum(s.correct for s in listed)
    return correct / expected if expected else 1.0, correct / read if read else 1.0


def hub_reader() -> Reader:
    """The hub's own path: the engine ``serve --vision`` loads, then shapes."""
    from bridge.vision.engine import load_engine
    from bridge.vision.reader import read_region

    engine = load_engine()
    assert not isinstance(engine, str), engine
    return lambda image: [line.text for line, _ in read_region(engine, image)[0]]


if __name__ == "__main__":
    import sys

    where = HELDOUT if sys.argv[1:] == ["heldout"] else HERE
    reader = hub_reader()
    scores = [score_lines(name, reader(load(name, where)), where) for name in screens(where)]
    for s in scores:
        print(f"{s.screen:26} recall {s.recall:.2f} precision {s.precision:.2f} "
              f"missed {list(s.missed)[:12]} extra {list(s.extra)[:12]}")  # fmt: skip
    recall, precision = total(scores)
    print(f"total: recall {recall:.3f} precision {precision:.3f}")

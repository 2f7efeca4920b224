"""Word-level recall and precision of the vision reader on the PNGs of this folder.

A word is compared case-insensitively with its surrounding punctuation stripped (``10:48``
and ``80%`` keep their inner characters); words are matched as multisets per screen. Recall:
expected words read / expected words. Precision: words read that were expected / words read.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from bridge.vision.engine import OcrEngine
from bridge.vision.reader import read_lines
from tests.vision.screens.pages import EXPECTED

HERE = Path(__file__).resolve().parent


def words(text: str) -> list[str]:
    out = []
    for raw in text.split():
        word = raw.strip(".,;:!?()[]{}\"'").lower()
        if word and word != "/":
            out.append(word)
    return out


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


def score(engine: OcrEngine, screen: str) -> Score:
    image = Image.open(HERE / f"{screen}.png").convert("RGB")
    got = Counter(w for line, _ in read_lines(engine, image) for w in words(line.text))
    want = Counter(w for phrase in EXPECTED[screen] for w in words(phrase))
    hit = got & want
    return Score(
        screen,
        sum(want.values()),
        sum(got.values()),
        sum(hit.values()),
        tuple(sorted((want - got).elements())),
        tuple(sorted((got - want).elements())),
    )


def total(scores: list[Score]) -> tuple[float, float]:
    expected = sum(s.expected for s in scores)
    read = sum(s.read for s in scores)
    correct = sum(s.correct for s in scores)
    return correct / expected, correct / read if read else 1.0


if __name__ == "__main__":
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert not isinstance(engine, str), engine
    scores = [score(engine, name) for name in EXPECTED]
    for s in scores:
        print(f"{s.screen:14} recall {s.recall:.2f} precision {s.precision:.2f} "
              f"missed {list(s.missed)} extra {list(s.extra)}")  # fmt: skip
    r, p = total(scores)
    print(f"all            recall {r:.3f} precision {p:.3f}")

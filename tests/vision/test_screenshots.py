"""Recall and precision of the reader on five real canvas-drawn screens (Chromium renders of
HTML canvas pages: tests/vision/screens/README.md). Measured when written: recall 0.957,
precision 1.000 (67 of 70 expected words read, nothing else read); the floors leave room for a
different Tesseract build, not for a regression."""

from __future__ import annotations

import pytest

from bridge.vision.engine import load_engine
from tests.skips import need_vision
from tests.vision.screens.pages import EXPECTED
from tests.vision.screens.score import score, total

RECALL_FLOOR = 0.90
PRECISION_FLOOR = 0.90
SCREEN_FLOOR = 0.75
"""No single screen may fall below this recall."""


@need_vision
def test_recall_and_precision_stay_above_their_floors() -> None:
    engine = load_engine()
    assert not isinstance(engine, str), engine
    scores = [score(engine, name) for name in EXPECTED]
    assert len(scores) >= 5
    recall, precision = total(scores)
    report = "; ".join(
        f"{s.screen} {s.recall:.2f}/{s.precision:.2f} missed {s.missed}" for s in scores
    )
    assert recall >= RECALL_FLOOR, report
    assert precision >= PRECISION_FLOOR, report
    assert all(s.recall >= SCREEN_FLOOR for s in scores), report


@need_vision
@pytest.mark.parametrize("screen", ["game-menu", "video-player"])
def test_words_on_filled_buttons_are_buttons(screen: str) -> None:
    from PIL import Image

    from bridge.vision.reader import read_lines
    from bridge.wire.enums import Role
    from tests.vision.screens.score import HERE

    engine = load_engine()
    assert not isinstance(engine, str)
    lines = read_lines(engine, Image.open(HERE / f"{screen}.png").convert("RGB"))
    roles = {line.text: role for line, role in lines}
    button = {"game-menu": "SETTINGS", "video-player": "Skip Intro"}[screen]
    assert roles.get(button) is Role.BUTTON, roles

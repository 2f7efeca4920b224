"""The retry windows of a screen are read side by side (``bridge.vision.ppocr.PpOcrEngine.
_look_again``): each window reads what it reads alone, in the windows' order, on the calling
thread and the engine's window threads at once; an error of one window is raised only once
every window's reading has ended; the lines seen before stay one bounded table."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from PIL import Image, ImageDraw

from bridge.vision.ppocr import RETRY_WINDOWS, SEEN_LINES, PpOcrEngine
from tests.skips import need_vision

pytestmark = need_vision


def _engine() -> PpOcrEngine:
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert isinstance(engine, PpOcrEngine), engine
    return engine


def _board() -> tuple[Image.Image, list[tuple[int, int, int, int]]]:
    """Three labelled tiles on a textured ground, and a window around each."""
    image = Image.new("RGB", (900, 600), (40, 90, 60))
    draw = ImageDraw.Draw(image)
    for x in range(0, 900, 7):
        draw.line((x, 0, x + 40, 600), fill=(55, 110, 75))
    windows = []
    for k, word in enumerate(("LEVEL 12", "SCORE 4031", "TIME 0:47")):
        left, top = 60 + 280 * k, 120 + 150 * k
        draw.text((left, top), word, fill=(250, 250, 250), font_size=40)
        windows.append((left - 30, top - 30, left + 260, top + 80))
    return image, windows


def test_each_window_reads_as_it_reads_alone_in_order_on_several_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine = _engine()
    image, windows = _board()
    alone = []
    for window in windows:
        engine.forget_lines()
        grey = image.crop(window).convert("L").convert("RGB")
        alone.append(engine._read(grey, lone=False)[1])
    assert any(line for lines in alone for line in lines), "the windows read something"
    threads: set[str] = set()
    read = engine._read
    together = threading.Barrier(len(windows), timeout=60)  # broken unless all three meet

    def noted(grey: Image.Image, lone: bool = True) -> Any:
        threads.add(threading.current_thread().name)
        together.wait()  # every window under way at once, each on its own thread
        return read(grey, lone)

    monkeypatch.setattr(engine, "_read", noted)  # the engine is the process's: put back after
    engine.forget_lines()
    assert engine._look_again(image, windows) == alone
    assert len(threads) == len(windows) == RETRY_WINDOWS
    assert threading.current_thread().name in threads
    assert sum(name.startswith("ocr-window") for name in threads) == RETRY_WINDOWS - 1


def test_a_windows_error_is_raised_after_every_window_has_ended(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    engine = _engine()
    image, windows = _board()
    ended: list[bytes] = []
    read = engine._read
    second = image.crop(windows[1]).convert("L").convert("RGB").tobytes()
    together = threading.Barrier(len(windows), timeout=60)

    def failing(grey: Image.Image, lone: bool = True) -> Any:
        together.wait()  # the others are reading when the error comes
        if grey.tobytes() == second:
            raise RuntimeError("the model failed")
        out = read(grey, lone)
        ended.append(grey.tobytes())
        return out

    monkeypatch.setattr(engine, "_read", failing)
    with pytest.raises(RuntimeError, match="the model failed"):
        engine._look_again(image, windows)
    assert len(ended) == 2, "the other two windows finished before the error came out"


def test_the_seen_lines_stay_one_bounded_table_across_threads() -> None:
    engine = _engine()
    image, windows = _board()
    engine.forget_lines()
    for _ in range(3):
        engine._look_again(image, windows)
    assert 0 < len(engine._seen) <= SEEN_LINES
    assert engine._sure <= set(engine._seen)
    again = engine._look_again(image, windows)  # every line now known: no model run
    assert again == engine._look_again(image, windows)

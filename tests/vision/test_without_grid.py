"""A grid's lines painted over before a line is read (``bridge.vision.inks.without_grid``):
a crossword's row crossed by its cells' borders is read as its letters."""

from __future__ import annotations

from typing import Any

from bridge.vision.inks import REC_HEIGHT, grid_lines, without_grid
from tests.skips import need_vision
from tests.vision.real import score

pytestmark = need_vision  # numpy comes with the vision extra


def _crop(lines: list[int], width: int = 2) -> Any:
    import numpy as np

    pixels = np.full((REC_HEIGHT, 200, 3), 240.0, dtype=np.float32)
    pixels[14:34, 20:30] = 10.0  # a glyph's ink: under STANDING of the rows
    for x in lines:
        pixels[:, x : x + width] = 10.0
    return pixels


def test_two_upright_lines_or_more_are_painted_in_the_background() -> None:
    out = without_grid(_crop([60, 120, 180]))
    for x in (60, 120, 180):
        assert float(out[:, x - 1 : x + 3].min()) == 240.0, x
    assert float(out[14:34, 20:30].max()) == 10.0, "the glyph stays"


def test_one_line_wide_bars_and_no_lines_are_left() -> None:
    for pixels in (_crop([60]), _crop([60, 120], width=8), _crop([])):
        assert without_grid(pixels) is pixels
        assert grid_lines(pixels) == []
    assert grid_lines(_crop([60, 120, 180])) == [(60, 62), (120, 122), (180, 182)]


def test_a_crosswords_rows_are_read_as_their_letters() -> None:
    """Forkyz (tests/vision/real): the row `U S E R F E E` read as `'U` before."""
    from bridge.vision.engine import load_engine

    engine = load_engine()
    assert not isinstance(engine, str), engine
    lines = [line.text for line in engine.read(score.load("forkyz-crossword"))]
    assert "U S E R F E E" in lines and "M R S L A T E" in lines, lines
    # a clue number in a cell's corner narrowed the gap there: the grid's lines part the
    # cells whatever the gap (were `E B RO W T WE E Z E R S` and `C A V A T I O N S ITES`)
    assert "E B R O W T W E E Z E R S" in lines and "C A V A T I O N S I T E S" in lines

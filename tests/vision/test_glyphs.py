"""Lone glyphs from the pixels (``bridge.vision.glyphs``): a digit alone in a pale cell among
dark ones is found, whichever colour its surroundings mostly are."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw, ImageFont

from tests.skips import need_vision


def _board() -> tuple[Image.Image, int]:
    """A Minesweeper-like board of small dark cells, one in five pale with a dark ``1``."""
    image = Image.new("RGB", (375, 616), (250, 250, 250))
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=12)
    shown = 0
    for r in range(14):
        for c in range(13):
            x, y = 12 + c * 22, 80 + r * 22
            pale = (r * 5 + c * 3) % 5 == 0
            draw.rectangle((x, y, x + 20, y + 20), fill=(140, 165, 205) if pale else (20, 110, 180))
            if pale:
                draw.text((x + 10, y + 10), "1", fill=(40, 60, 90), font=font, anchor="mm")
                shown += 1
    return image, shown


@need_vision  # numpy and OpenCV come with the vision extra
def test_every_digit_of_a_board_of_pale_cells_among_dark_ones_is_a_candidate(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from bridge.vision import glyphs

    image, shown = _board()
    assert len(glyphs.candidates(image, [])) == shown
    monkeypatch.setattr(glyphs, "GROUNDS", (glyphs.SURROUND,))
    # the wider surroundings alone: where dark cells are most of them, a pale cell is ink
    # itself and its digit a hole in it
    assert len(glyphs.candidates(image, [])) < shown


@need_vision
def test_a_candidate_found_at_both_widths_comes_back_once() -> None:
    from bridge.vision import glyphs

    image, shown = _board()
    boxes = glyphs.candidates(image, [])
    centres = {((b[0] + b[2]) // 2 // 4, (b[1] + b[3]) // 2 // 4) for b in boxes}
    assert len(centres) == len(boxes) == shown
    assert boxes == sorted(boxes, key=lambda b: (b[1], b[0]))

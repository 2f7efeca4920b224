"""How boxes stand to each other (``bridge.vision.boxes``). Pure."""

from __future__ import annotations

from bridge.vision.boxes import grown


def test_a_box_grows_on_every_side_within_its_image() -> None:
    assert grown((10, 20, 30, 40), 5, (100, 100)) == (5, 15, 35, 45)
    assert grown((2, 3, 98, 99), 5, (100, 100)) == (0, 0, 100, 100)  # clipped at the edges
    assert grown((10, 20, 30, 40), 2.7, (100, 100)) == (7, 17, 32, 42)  # whole pixels

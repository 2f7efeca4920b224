"""``bridge.core.pixel_mask``: which nodes hold a secret, and black rectangles scaled from the
tree's units to the picture's pixels; nothing to mask returns the very same bytes."""

from __future__ import annotations

import io

from PIL import Image, ImageStat

from bridge.core.pixel_mask import black_out, holds_a_value, secret_regions
from bridge.core.secret_mask import MASK
from bridge.wire.enums import Role
from bridge.wire.node import NodeState, SemanticNode


def white_png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), (255, 255, 255)).save(out, format="PNG")
    return out.getvalue()


def mean(png: bytes, box: tuple[int, int, int, int]) -> float:
    with Image.open(io.BytesIO(png)) as image:
        return float(ImageStat.Stat(image.convert("L").crop(box)).mean[0])


def test_password_and_masked_fields_are_secret_regions() -> None:
    nodes = [
        SemanticNode(node_id="n0", role=Role.UNKNOWN, bounds=(0, 0, 100, 200)),
        SemanticNode(node_id="n1", role=Role.INPUT, text=MASK, bounds=(10, 10, 90, 30)),
        SemanticNode(
            node_id="n2",
            role=Role.INPUT,
            bounds=(10, 40, 90, 60),
            state=NodeState(password=True),
        ),
        SemanticNode(node_id="n3", role=Role.TEXT, text="Hello", bounds=(10, 70, 90, 90)),
        SemanticNode(node_id="n4", role=Role.INPUT, value=MASK),  # no bounds: nothing to paint
    ]
    assert secret_regions(nodes) == ((10, 10, 90, 30), (10, 40, 90, 60))


def test_regions_are_scaled_to_the_picture_and_nothing_else_changes() -> None:
    png = white_png(200, 400)  # a 2x picture of a 100 x 200 screen
    out = black_out(png, [(10, 10, 90, 30)], (0, 0, 100, 200))
    assert mean(out, (24, 24, 176, 56)) == 0  # the field, in picture pixels
    assert mean(out, (0, 100, 200, 400)) == 255  # the rest untouched
    assert black_out(png, [], (0, 0, 100, 200)) is png


def test_only_a_secret_field_with_something_in_it_holds_a_value() -> None:
    box = (0, 0, 100, 40)
    empty = SemanticNode(node_id="p", role=Role.INPUT, bounds=box, hint="Password",
                         state=NodeState(password=True))  # fmt: skip
    dots = SemanticNode(node_id="q", role=Role.INPUT, bounds=box, text="••••",
                        state=NodeState(password=True))  # fmt: skip
    typed = SemanticNode(node_id="u", role=Role.INPUT, bounds=box, text=MASK)
    plain = SemanticNode(node_id="t", role=Role.INPUT, bounds=box, text="hello")
    offscreen = SemanticNode(node_id="o", role=Role.INPUT, text=MASK)
    assert not holds_a_value([empty, plain, offscreen])
    assert secret_regions([empty]) == (box,), "an empty password field is still masked"
    assert holds_a_value([empty, dots])
    assert holds_a_value([plain, typed])

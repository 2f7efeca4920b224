"""Masking follows secrets into pixels: black out the fields that hold a secret in a picture of
the screen (pure: a snapshot's nodes and PNG bytes in, PNG bytes out; no clock, no I/O).

A field holds a secret when its node is a password field, or when the tree's secret mask
(``bridge.core.secret_mask``) replaced one of its texts by ``MASK`` (a secret the hub typed
into an ordinary field, any role). ``secret_regions`` lists their bounds; ``black_out`` paints
those rectangles black in the PNG, scaled from the snapshot's screen (``screen``: the root's
rectangle, in the tree's units, points on iOS) to the picture's pixels, each grown by
``MARGIN`` pixels so anti-aliased glyph edges go too. A picture with no region is returned
unchanged (same bytes, no decoding). Decoding and encoding cost CPU: callers on an event loop
run ``black_out`` in a worker thread, and must have checked the PNG's size first
(``png_check``).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence

from bridge.core.secret_mask import MASK
from bridge.wire.base import Bounds
from bridge.wire.node import SemanticNode

MARGIN = 2


def holds_secret(node: SemanticNode) -> bool:
    if node.state is not None and node.state.password:
        return True
    return MASK in (node.text, node.value, node.label, node.hint)


def secret_regions(nodes: Iterable[SemanticNode]) -> tuple[Bounds, ...]:
    """The bounds of every node that holds a secret (see the module docstring)."""
    return tuple(
        node.bounds
        for node in nodes
        if node.bounds is not None
        and node.bounds[2] > node.bounds[0]
        and node.bounds[3] > node.bounds[1]
        and holds_secret(node)
    )


def black_out(png: bytes, regions: Sequence[Bounds], screen: Bounds | None) -> bytes:
    """``png`` with ``regions`` (in the units of ``screen``) painted black. No region: the
    very same bytes. ``screen`` None: the regions are taken as the picture's own pixels."""
    if not regions:
        return png
    from PIL import Image, ImageDraw

    with Image.open(io.BytesIO(png)) as opened:
        image = opened.convert("RGBA") if opened.mode not in ("RGB", "RGBA", "L") else opened
        image.load()
        sx = sy = 1.0
        ox = oy = 0
        if screen is not None and screen[2] > screen[0] and screen[3] > screen[1]:
            sx = image.width / (screen[2] - screen[0])
            sy = image.height / (screen[3] - screen[1])
            ox, oy = screen[0], screen[1]
        draw = ImageDraw.Draw(image)
        black = 0 if image.mode == "L" else (0, 0, 0, 255) if image.mode == "RGBA" else (0, 0, 0)
        for left, top, right, bottom in regions:
            box = (
                max(0, int((left - ox) * sx) - MARGIN),
                max(0, int((top - oy) * sy) - MARGIN),
                min(image.width - 1, int((right - ox) * sx + 0.999) + MARGIN),
                min(image.height - 1, int((bottom - oy) * sy + 0.999) + MARGIN),
            )
            if box[2] > box[0] and box[3] > box[1]:
                draw.rectangle(box, fill=black)
        out = io.BytesIO()
        image.save(out, format="PNG", compress_level=1)
        return out.getvalue()

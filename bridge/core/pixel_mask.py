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
from dataclasses import dataclass
from itertools import compress
from operator import is_not
from typing import Any, Final

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
    return scan_secrets(tuple(nodes)).regions


@dataclass(frozen=True, slots=True)
class SecretScan:
    """Which nodes of one snapshot's node list hold a secret (``scan_secrets``): ``nodes``
    the list scanned, ``held`` the indexes, ascending, of those that hold a secret and have
    bounds. Keep it to scan the next snapshot of the same screen against it."""

    nodes: tuple[SemanticNode, ...]
    held: tuple[int, ...]

    @property
    def regions(self) -> tuple[Bounds, ...]:
        """``secret_regions`` of ``nodes``: the held nodes' bounds that enclose an area."""
        out: list[Bounds] = []
        for i in self.held:
            bounds = self.nodes[i].bounds
            if bounds is not None and bounds[2] > bounds[0] and bounds[3] > bounds[1]:
                out.append(bounds)
        return tuple(out)

    @property
    def filled(self) -> bool:
        """``holds_a_value`` of ``nodes``."""
        return holds_a_value(self.nodes[i] for i in self.held)


def scan_secrets(nodes: Sequence[SemanticNode], previous: SecretScan | None = None) -> SecretScan:
    """The nodes of ``nodes`` that hold a secret. With ``previous`` (the scan of the last
    snapshot of the same device), only the nodes that are not the very object at the same
    place of ``previous.nodes`` are looked at: a node is immutable, so one reused by the
    normalizer holds what it held (a one-field change of a 1,000-node screen looks at one
    node instead of 1,000). Lists of another length are scanned whole."""
    current = tuple(nodes)
    if previous is not None and len(previous.nodes) == len(current):
        held = set(previous.held)
        for i in compress(range(len(current)), map(is_not, current, previous.nodes)):
            node = current[i]
            if node.bounds is not None and holds_secret(node):
                held.add(i)
            else:
                held.discard(i)
        return SecretScan(current, tuple(sorted(held)))
    return SecretScan(
        current,
        tuple(i for i, n in enumerate(current) if n.bounds is not None and holds_secret(n)),
    )


def holds_a_value(nodes: Iterable[SemanticNode]) -> bool:
    """True when a secret-holding field on screen is not empty (a password field with dots in
    it, a field whose secret the hub typed): what a motion hold protects (``secret_hold``)."""
    return any(
        node.bounds is not None
        and holds_secret(node)
        and (MASK in (node.text, node.value) or bool(node.text) or bool(node.value))
        for node in nodes
    )


@dataclass(frozen=True)
class MaskPlan:
    """What a picture of the screen needs before it leaves the hub: ``hold`` (a secret is
    being typed and no capture shows where it went yet: send no picture at all), else the
    ``regions`` to paint black (in the units of ``screen``; none: send it as it is)."""

    hold: bool = False
    regions: tuple[Bounds, ...] = ()
    screen: Bounds | None = None

    @property
    def clear(self) -> bool:
        return not self.hold and not self.regions

    def union(self, other: MaskPlan) -> MaskPlan:
        """Both plans' needs (a picture taken between two plans gets both)."""
        if self.hold or other.hold:
            return HOLD
        if not other.regions:
            return self
        if not self.regions:
            return other
        regions = self.regions + tuple(r for r in other.regions if r not in self.regions)
        return MaskPlan(False, regions, self.screen or other.screen)


CLEAR: Final = MaskPlan()
HOLD: Final = MaskPlan(hold=True)


def pixel_boxes(
    width: int, height: int, regions: Sequence[Bounds], screen: Bounds | None
) -> list[tuple[int, int, int, int]]:
    """``regions`` (in the units of ``screen``) as inclusive pixel boxes of a ``width`` x
    ``height`` picture, each grown by ``MARGIN``; empty boxes left out."""
    sx = sy = 1.0
    ox = oy = 0
    if screen is not None and screen[2] > screen[0] and screen[3] > screen[1]:
        sx = width / (screen[2] - screen[0])
        sy = height / (screen[3] - screen[1])
        ox, oy = screen[0], screen[1]
    boxes = []
    for left, top, right, bottom in regions:
        box = (
            max(0, int((left - ox) * sx) - MARGIN),
            max(0, int((top - oy) * sy) - MARGIN),
            min(width - 1, int((right - ox) * sx + 0.999) + MARGIN),
            min(height - 1, int((bottom - oy) * sy + 0.999) + MARGIN),
        )
        if box[2] > box[0] and box[3] > box[1]:
            boxes.append(box)
    return boxes


def paint_black(image: Any, regions: Sequence[Bounds], screen: Bounds | None) -> None:
    """Paint ``regions`` black on the Pillow ``image`` in place (RGB, RGBA or L)."""
    from PIL import ImageDraw

    draw = ImageDraw.Draw(image)
    black = 0 if image.mode == "L" else (0, 0, 0, 255) if image.mode == "RGBA" else (0, 0, 0)
    for box in pixel_boxes(image.width, image.height, regions, screen):
        draw.rectangle(box, fill=black)


def black_out_rgb(
    width: int, height: int, rgb: bytes, regions: Sequence[Bounds], screen: Bounds | None
) -> bytes:
    """Packed RGB24 pixels with ``regions`` painted black (no region: the same bytes)."""
    if not regions:
        return rgb
    from PIL import Image

    image = Image.frombytes("RGB", (width, height), bytes(rgb))
    paint_black(image, regions, screen)
    return image.tobytes()


def black_out(png: bytes, regions: Sequence[Bounds], screen: Bounds | None) -> bytes:
    """``png`` with ``regions`` (in the units of ``screen``) painted black. No region: the
    very same bytes. ``screen`` None: the regions are taken as the picture's own pixels."""
    if not regions:
        return png
    from PIL import Image

    with Image.open(io.BytesIO(png)) as opened:
        image = opened.convert("RGBA") if opened.mode not in ("RGB", "RGBA", "L") else opened
        image.load()
        paint_black(image, regions, screen)
        out = io.BytesIO()
        image.save(out, format="PNG", compress_level=1)
        return out.getvalue()

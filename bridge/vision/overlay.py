"""What vision read, as raw nodes under the node of the region they were read from.

``Overlay.apply`` inserts, right after each anchor's subtree in the pre-order raw tree, one raw
node per line read (``source`` VISION, its confidence, its bounds in device pixels,
``clickable`` when it looks like a button, a class name ``mobridge.vision.Text`` or
``mobridge.vision.Button``; a shape without words, ``bridge.vision.icons``, is a clickable
``mobridge.vision.IconButton`` with no text and the shape's name as its label), and shifts the
parent indexes of the nodes after it. An anchor is found by its bounds (equal), so an overlay
read for one screen lands on a later capture only where the same blind node still is (the
deepest node with those bounds: a canvas is a leaf inside containers that may share its
bounds); the caller drops the overlay when the regions change.
Handles of vision nodes are negative (``-1 - i``): no agent knows them, so an action on one is
a coordinate tap (see ``bridge.hub.vision``).
"""

from __future__ import annotations

from dataclasses import dataclass

import msgspec

from bridge.wire.base import Bounds
from bridge.wire.enums import Role, Source
from bridge.wire.raw import RawNode, RawTree

TEXT_CLASS = "mobridge.vision.Text"
BUTTON_CLASS = "mobridge.vision.Button"
SHAPE_CLASS = "mobridge.vision.IconButton"
"""A target without words (``bridge.vision.icons``): a BUTTON whose label names its shape."""
MAX_ITEMS = 64
"""Lines kept per region at most (the most confident)."""


@dataclass(frozen=True, slots=True)
class VisionItem:
    text: str
    bounds: Bounds
    role: Role
    """TEXT or BUTTON."""
    confidence: float
    shape: str | None = None
    """A target without words: the shape's name (``play``, ``pause``, ``close``), given as
    the node's label; ``text`` is then empty."""


@dataclass(frozen=True, slots=True)
class Overlay:
    regions: tuple[tuple[Bounds, tuple[VisionItem, ...]], ...]
    """(anchor bounds, lines read in it), in the order the regions were chosen."""

    @property
    def count(self) -> int:
        return sum(len(items) for _, items in self.regions)

    def apply(self, raw: RawTree) -> RawTree:
        """``raw`` with the overlay's nodes inserted under their anchors (``raw`` itself when
        no anchor is found or there is nothing to add)."""
        wanted = {b: items for b, items in self.regions if items}
        if not wanted:
            return raw
        nodes = list(raw.nodes)
        found: dict[Bounds, int] = {}  # the deepest node with the bounds (a canvas is a leaf)
        for i, node in enumerate(nodes):
            if node.bounds in wanted and node.source is not Source.VISION:
                found[node.bounds] = i
        inserts: list[tuple[int, int, tuple[VisionItem, ...]]] = []  # (at, anchor, items)
        for bounds, i in found.items():
            items = wanted[bounds]
            end = i + 1
            while end < len(nodes) and _descends(nodes, end, i):
                end += 1
            inserts.append((end, i, items))
        if not inserts:
            return raw
        out: list[RawNode] = []
        shift = [0] * (len(nodes) + 1)
        added = 0
        at: dict[int, list[tuple[int, tuple[VisionItem, ...]]]] = {}
        for pos, anchor, items in inserts:
            at.setdefault(pos, []).append((anchor, items))
        handle = -1
        for i in range(len(nodes) + 1):
            for anchor, items in at.get(i, ()):
                for item in items:
                    out.append(_node(item, handle, anchor + shift[anchor], nodes[anchor].window))
                    handle -= 1
                    added += 1
            shift[i] = added
            if i < len(nodes):
                node = nodes[i]
                parent = node.parent + shift[node.parent] if node.parent >= 0 else -1
                out.append(
                    node if parent == node.parent else msgspec.structs.replace(node, parent=parent)
                )
        return msgspec.structs.replace(raw, nodes=tuple(out))


def _descends(nodes: list[RawNode], i: int, ancestor: int) -> bool:
    p = nodes[i].parent
    while p >= 0:
        if p == ancestor:
            return True
        p = nodes[p].parent
    return False


def _node(item: VisionItem, handle: int, parent: int, window: int) -> RawNode:
    button = item.role is Role.BUTTON
    if item.shape is not None:
        name = SHAPE_CLASS
    else:
        name = BUTTON_CLASS if button else TEXT_CLASS
    return RawNode(
        handle=handle,
        parent=parent,
        window=window,
        class_name=name,
        text=item.text or None,
        label=item.shape,
        bounds=item.bounds,
        clickable=button,
        source=Source.VISION,
        confidence=round(item.confidence, 3),
    )

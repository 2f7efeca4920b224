"""Which parts of a snapshot the accessibility tree is blind to (pure).

A region is a ``CANVAS`` node's bounds, or, on a sparse screen (no canvas, at most
``SPARSE_NAMED`` nodes with words and at most ``SPARSE_NODES`` nodes in all), the largest
wordless leaf covering at least ``SPARSE_SHARE`` of the screen. Vision nodes already in the
snapshot are ignored, so reading a region never changes whether it is blind. At most
``MAX_REGIONS`` regions, largest first; regions smaller than ``MIN_SIDE`` on a side are not
worth reading.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bridge.wire.base import Bounds
from bridge.wire.enums import Role, Source
from bridge.wire.node import SemanticNode

MAX_REGIONS = 4
MIN_SIDE = 48
SPARSE_NAMED = 2
SPARSE_NODES = 8
SPARSE_SHARE = 0.5


@dataclass(frozen=True, slots=True)
class Region:
    """A blind region: the node the words will hang under, and its bounds (device pixels)."""

    anchor: str
    bounds: Bounds


def _area(b: Bounds) -> int:
    return max(0, b[2] - b[0]) * max(0, b[3] - b[1])


def _big_enough(b: Bounds) -> bool:
    return b[2] - b[0] >= MIN_SIDE and b[3] - b[1] >= MIN_SIDE


def blind_regions(nodes: Sequence[SemanticNode]) -> tuple[Region, ...]:
    """The blind regions of a snapshot's nodes (empty: the tree sees everything)."""
    own = [n for n in nodes if n.source is not Source.VISION]
    canvases = [
        Region(n.node_id, n.bounds)
        for n in own
        if n.role is Role.CANVAS and n.bounds is not None and _big_enough(n.bounds)
    ]
    if canvases:
        canvases.sort(key=lambda r: -_area(r.bounds))
        return tuple(canvases[:MAX_REGIONS])
    return _sparse(own)


def _sparse(nodes: Sequence[SemanticNode]) -> tuple[Region, ...]:
    if not nodes or len(nodes) > SPARSE_NODES:
        return ()
    if sum(1 for n in nodes if n.text or n.label or n.value) > SPARSE_NAMED:
        return ()
    screen = max((_area(n.bounds) for n in nodes if n.bounds is not None), default=0)
    parents = {n.parent_id for n in nodes}
    leaves = [
        n
        for n in nodes
        if n.node_id not in parents
        and n.bounds is not None
        and not (n.text or n.label)
        and _big_enough(n.bounds)
        and _area(n.bounds) >= SPARSE_SHARE * screen
    ]
    if not leaves:
        return ()
    best = max(leaves, key=lambda n: _area(n.bounds) if n.bounds else 0)
    assert best.bounds is not None
    return (Region(best.node_id, best.bounds),)

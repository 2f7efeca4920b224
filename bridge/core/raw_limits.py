"""Bounds on one agent capture, applied by the hub before normalization.

An agent may send up to ``bridge.wire.raw.MAX_RAW_NODES`` nodes (the decoder's cap); the hub
keeps at most ``MAX_CAPTURE_NODES`` of them and no node deeper than ``MAX_CAPTURE_DEPTH``
levels, so one agent pushing huge trees costs bounded memory and CPU per capture.

``cap_raw_tree`` keeps nodes in their (pre-order) list order whose parent was kept, until the
node budget is spent; parents are re-indexed and the focus handle dropped when it was cut.
The caller marks the snapshot ``truncated`` and reports the device as degraded when
``Capped.dropped`` is non-zero.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import msgspec

from bridge.wire.raw import RawNode, RawTree

MAX_CAPTURE_NODES: Final = 5_000
MAX_CAPTURE_DEPTH: Final = 256


@dataclass(frozen=True, slots=True)
class Capped:
    tree: RawTree
    dropped: int
    """Nodes left out (0: the tree is unchanged and ``tree`` is the input)."""
    reason: str | None = None


def cap_raw_tree(
    tree: RawTree,
    *,
    max_nodes: int = MAX_CAPTURE_NODES,
    max_depth: int = MAX_CAPTURE_DEPTH,
) -> Capped:
    """The tree within the node and depth caps (see the module docstring)."""
    nodes = tree.nodes
    depth: list[int] = []
    fits = len(nodes) <= max_nodes
    if fits:
        for i, node in enumerate(nodes):
            parent = node.parent
            d = depth[parent] + 1 if 0 <= parent < i else 0
            depth.append(d)
            if d > max_depth:
                fits = False
                break
        if fits:
            return Capped(tree, 0)
    new_index: dict[int, int] = {}
    parent_depth: list[int] = []
    kept: list[RawNode] = []
    for i, node in enumerate(nodes):
        if len(kept) >= max_nodes:
            break
        parent = node.parent
        if parent == -1:
            d = 0
            mapped = -1
        else:
            if parent not in new_index:
                continue  # the parent was cut: so is the subtree
            mapped = new_index[parent]
            d = parent_depth[mapped] + 1
        if d > max_depth:
            continue
        new_index[i] = len(kept)
        parent_depth.append(d)
        kept.append(node if node.parent == mapped else msgspec.structs.replace(node, parent=mapped))
    focus = tree.focus
    if focus is not None:
        # ``focus`` is a handle; keep it only if that node survived.
        kept_handles = {n.handle for n in kept}
        if focus not in kept_handles:
            focus = None
    dropped = len(nodes) - len(kept)
    reason = (
        f"the agent sent {len(nodes)} nodes; kept {len(kept)} "
        f"(caps: {max_nodes} nodes, {max_depth} levels)"
    )
    return Capped(msgspec.structs.replace(tree, nodes=tuple(kept), focus=focus), dropped, reason)

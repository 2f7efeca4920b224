"""Bounds on one agent capture, applied by the hub before normalization.

An agent may send up to ``bridge.wire.raw.MAX_RAW_NODES`` nodes (the decoder's cap); the hub
keeps at most ``MAX_CAPTURE_NODES`` of them, no node deeper than ``MAX_CAPTURE_DEPTH`` levels
and at most ``MAX_CAPTURE_BYTES`` bytes of text and attributes in all (``node_bytes``: every
string a node carries, UTF-8), so one agent pushing huge trees — many nodes, or few valid but
heavy ones — costs bounded memory and CPU per capture.

``cap_raw_tree`` keeps nodes in their (pre-order) list order whose parent was kept, until the
node or byte budget is spent; parents are re-indexed and the focus handle dropped when it was
cut. The caller marks the snapshot ``truncated`` and reports the device as degraded (with
``Capped.reason``) when ``Capped.dropped`` is non-zero. ``Capped.bytes`` is what the kept
nodes carry: the caller may use it to account for the capture's memory.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import msgspec

from bridge.wire.raw import RawNode, RawTree

MAX_CAPTURE_NODES: Final = 5_000
MAX_CAPTURE_DEPTH: Final = 256
MAX_CAPTURE_BYTES: Final = 4 << 20
"""Text and attribute bytes one capture may carry (4 MiB): past it nodes are cut."""


def _text_bytes(s: str | None) -> int:
    if s is None:
        return 0
    return len(s) if s.isascii() else len(s.encode("utf-8", "surrogatepass"))


def node_bytes(node: RawNode) -> int:
    """The bytes of text and attributes ``node`` carries (every string field, UTF-8)."""
    total = (
        _text_bytes(node.class_name)
        + _text_bytes(node.text)
        + _text_bytes(node.label)
        + _text_bytes(node.value)
        + _text_bytes(node.hint)
        + _text_bytes(node.automation_id)
        + _text_bytes(node.package)
    )
    for name in node.actions:
        total += _text_bytes(name)
    for name in node.traits:
        total += _text_bytes(name)
    return total


@dataclass(frozen=True, slots=True)
class Capped:
    tree: RawTree
    dropped: int
    """Nodes left out (0: the tree is unchanged and ``tree`` is the input)."""
    reason: str | None = None
    bytes: int = 0
    """Text and attribute bytes of the kept nodes (``node_bytes``)."""


def cap_raw_tree(
    tree: RawTree,
    *,
    max_nodes: int = MAX_CAPTURE_NODES,
    max_depth: int = MAX_CAPTURE_DEPTH,
    max_bytes: int = MAX_CAPTURE_BYTES,
) -> Capped:
    """The tree within the node, depth and byte caps (see the module docstring)."""
    nodes = tree.nodes
    depth: list[int] = []
    fits = len(nodes) <= max_nodes
    total = 0
    if fits:
        for i, node in enumerate(nodes):
            parent = node.parent
            d = depth[parent] + 1 if 0 <= parent < i else 0
            depth.append(d)
            total += node_bytes(node)
            if d > max_depth or total > max_bytes:
                fits = False
                break
        if fits:
            return Capped(tree, 0, bytes=total)
    new_index: dict[int, int] = {}
    parent_depth: list[int] = []
    kept: list[RawNode] = []
    sent_bytes = 0
    kept_bytes = 0
    over_bytes = False
    for i, node in enumerate(nodes):
        size = node_bytes(node)
        sent_bytes += size
        if len(kept) >= max_nodes or over_bytes:
            continue  # keep counting what was sent, for the reason
        if kept_bytes + size > max_bytes:
            over_bytes = True
            continue
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
        kept_bytes += size
        kept.append(node if node.parent == mapped else msgspec.structs.replace(node, parent=mapped))
    focus = tree.focus
    if focus is not None:
        # ``focus`` is a handle; keep it only if that node survived.
        kept_handles = {n.handle for n in kept}
        if focus not in kept_handles:
            focus = None
    dropped = len(nodes) - len(kept)
    reason = (
        f"the agent sent {len(nodes)} nodes ({sent_bytes} bytes of text and attributes); "
        f"kept {len(kept)} ({kept_bytes} bytes)"
        f"{'; the byte budget was spent' if over_bytes else ''} "
        f"(caps: {max_nodes} nodes, {max_depth} levels, {max_bytes} bytes)"
    )
    capped = msgspec.structs.replace(tree, nodes=tuple(kept), focus=focus)
    return Capped(capped, dropped, reason, kept_bytes)


def structure_problem(tree: RawTree, where: str = "tree") -> str | None:
    """What is wrong with the tree's structure, naming the field, or None. Every node's
    ``parent`` must be -1 (a root) or the index of a node of the list; the decoder checked
    the types, this checks what the types cannot say. The caller refuses the tree as
    MALFORMED with this text."""
    count = len(tree.nodes)
    for i, node in enumerate(tree.nodes):
        parent = node.parent
        if parent != -1 and not 0 <= parent < count:
            return (
                f"{where}.nodes[{i}].parent: {parent} is neither -1 nor the index of a node "
                f"(0..{count - 1})"
            )
    return None

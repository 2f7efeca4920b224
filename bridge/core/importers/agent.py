"""Our own agent JSON: a ``RawTree`` object, or an agent-link ``tree`` push
(``{"type": "tree", "reason", "stable", "tree": {...}}``) whose ``tree`` is taken.

Invariants: decoding is msgspec's strict typed decode into the wire types (unknown fields,
wrong types and over-long strings are errors); the decoded tree is then checked for what
decoding cannot see — ``check_raw_tree`` — and returned unchanged (handles, capture number and
windows exactly as the agent sent them).
"""

from __future__ import annotations

import msgspec

from bridge.core.importers.failure import DumpError
from bridge.core.importers.limits import MAX_TREE_DEPTH
from bridge.core.importers.safe_json import where
from bridge.wire.agent_link import TreePush
from bridge.wire.raw import RawTree

AGENT_TREE = "agent-raw-tree"
AGENT_PUSH = "agent-tree-push"

_tree_decoder = msgspec.json.Decoder(RawTree)
_push_decoder = msgspec.json.Decoder(TreePush)
_ROTATIONS = frozenset({0, 90, 180, 270})


def looks_like_push(doc: object) -> bool:
    return isinstance(doc, dict) and doc.get("type") == "tree" and isinstance(doc.get("tree"), dict)


def looks_like_tree(doc: object) -> bool:
    return isinstance(doc, dict) and {"capture", "platform", "nodes"} <= set(doc)


def check_raw_tree(tree: RawTree) -> None:
    """Raise ``DumpError`` unless: parents point at earlier nodes or are -1 (pre-order),
    handles are unique, depth is within ``MAX_TREE_DEPTH``, ``focus`` names a node, window
    ids are unique and (when windows are listed) every node's window is one of them, and
    ``rotation`` is 0/90/180/270."""
    handles: set[int] = set()
    depth: list[int] = []
    for i, node in enumerate(tree.nodes):
        if not -1 <= node.parent < i:
            raise DumpError(
                f"node {i} has parent {node.parent}; expected -1 or an earlier node (pre-order)"
            )
        if node.handle in handles:
            raise DumpError(f"node {i} repeats handle {node.handle}")
        handles.add(node.handle)
        depth.append(0 if node.parent < 0 else depth[node.parent] + 1)
        if depth[i] > MAX_TREE_DEPTH:
            raise DumpError(f"node {i} is nested deeper than {MAX_TREE_DEPTH} levels")
    if tree.focus is not None and tree.focus not in handles:
        raise DumpError(f"focus {tree.focus} is not the handle of any node")
    window_ids = [w.id for w in tree.windows]
    if len(set(window_ids)) != len(window_ids):
        raise DumpError("window ids repeat")
    if window_ids:
        known = set(window_ids)
        for i, node in enumerate(tree.nodes):
            if node.window not in known:
                raise DumpError(f"node {i} is in window {node.window}, which is not listed")
    if tree.rotation not in _ROTATIONS:
        raise DumpError(f"rotation {tree.rotation} is not 0, 90, 180 or 270")


def import_agent(data: bytes, fmt: str) -> RawTree:
    try:
        if fmt == AGENT_PUSH:
            tree = _push_decoder.decode(data).tree
        else:
            tree = _tree_decoder.decode(data)
    except msgspec.ValidationError as error:
        raise DumpError(where(data, f"not a valid {fmt}: {error}")) from None
    except msgspec.DecodeError as error:
        message = str(error).removeprefix("JSON is malformed: ")
        raise DumpError(where(data, f"JSON not well-formed: {message}")) from None
    check_raw_tree(tree)
    return tree

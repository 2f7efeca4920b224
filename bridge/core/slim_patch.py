"""The slim (``patch`` event) body of a delta: field-level edits instead of whole nodes.

``slim(old, a, body)`` turns a ``Patch`` from ``a`` (whose nodes ``old`` maps by id) into a
``Slim``: the meta fields that changed, the same ``remove`` and ``order``, whole nodes in
``upsert`` only for nodes ``a`` did not have (or whose edit would carry as many fields as the
node has), and a ``NodeEdit`` with only the changed fields for every other node of ``upsert``.

Law (tested with hypothesis): applying ``slim(...)`` to ``a`` gives exactly what applying
``body`` gives — ``b``. The per-field values are the new node's own values, so a field the
secret masker rewrote stays rewritten: a slim body never holds anything ``b`` does not.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import msgspec

from bridge.core.patch import Patch
from bridge.wire.node import SemanticNode
from bridge.wire.node_edit import META_EDIT_FIELDS, NODE_EDIT_FIELDS, MetaEdit, NodeEdit
from bridge.wire.snapshot import ScreenSnapshot

_DEFAULTS: dict[str, Any] = {f.name: f.default for f in msgspec.structs.fields(SemanticNode)}
"""Each node field's default (``msgspec.NODEFAULT`` for the required ``role``)."""


@dataclass(frozen=True, slots=True)
class Slim:
    meta: MetaEdit | None
    remove: tuple[str, ...]
    upsert: tuple[SemanticNode, ...]
    edit: tuple[NodeEdit, ...]
    order: dict[str, tuple[str, ...]]


def meta_edit(a: ScreenSnapshot, b: ScreenSnapshot) -> MetaEdit | None:
    """The meta fields of ``b`` that differ from ``a``'s (None: none)."""
    changed = {
        name: getattr(b, name) for name in META_EDIT_FIELDS if getattr(a, name) != getattr(b, name)
    }
    return MetaEdit(**changed) if changed else None


def _present(node: SemanticNode) -> int:
    """How many editable fields ``node`` has away from their defaults (its wire size, roughly)."""
    count = 0
    for name in NODE_EDIT_FIELDS:
        if getattr(node, name) != _DEFAULTS[name]:
            count += 1
    return count


def node_edit(old: SemanticNode, new: SemanticNode) -> NodeEdit | None:
    """The edit from ``old`` to ``new`` (same id), or None when it would be as big as ``new``
    itself (then ``new`` goes whole in ``upsert``)."""
    changed = {
        name: getattr(new, name)
        for name in NODE_EDIT_FIELDS
        if getattr(old, name) != getattr(new, name)
    }
    if len(changed) >= _present(new):
        return None
    return NodeEdit(node_id=new.node_id, **changed)


def slim(old: Mapping[str, SemanticNode], a: ScreenSnapshot, body: Patch) -> Slim:
    """The slim form of ``body`` (a patch from ``a``, whose nodes ``old`` maps by id)."""
    upsert: list[SemanticNode] = []
    edits: list[NodeEdit] = []
    for node in body.upsert:
        before = old.get(node.node_id)
        edit = node_edit(before, node) if before is not None else None
        if edit is None:
            upsert.append(node)
        else:
            edits.append(edit)
    return Slim(meta_edit(a, body.meta), body.remove, tuple(upsert), tuple(edits), body.order)

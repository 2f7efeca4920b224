"""A reference diff for client tests: the ``delta`` event that turns snapshot ``a`` into ``b``.

Written from the ``DeltaEvent`` contract alone (not from the hub's code): ``remove`` lists
every id of ``a`` absent from ``b``; ``upsert`` every node of ``b`` that is new or differs;
``order`` the complete child list of every surviving or new parent whose list differs (and
``""`` for the root list when it differs).
"""

from __future__ import annotations

import msgspec

from bridge.wire.client_protocol import DeltaEvent
from bridge.wire.snapshot import ScreenSnapshot


def child_lists(snapshot: ScreenSnapshot) -> dict[str, tuple[str, ...]]:
    lists: dict[str, list[str]] = {"": []}
    for node in snapshot.nodes:
        lists.setdefault(node.parent_id or "", []).append(node.node_id)
    return {parent: tuple(kids) for parent, kids in lists.items()}


def reference_delta(
    a: ScreenSnapshot,
    b: ScreenSnapshot,
    *,
    seq: int,
    subscription: str = "sub-1",
    generation: int = 0,
) -> DeltaEvent:
    a_nodes = {n.node_id: n for n in a.nodes}
    b_ids = {n.node_id for n in b.nodes}
    remove = tuple(nid for nid in a_nodes if nid not in b_ids)
    upsert = tuple(n for n in b.nodes if a_nodes.get(n.node_id) != n)
    before, after = child_lists(a), child_lists(b)
    order: dict[str, tuple[str, ...]] = {}
    for parent in set(before) | set(after):
        if parent and parent not in b_ids:
            continue  # a removed parent: its subtree is gone
        if before.get(parent, ()) != after.get(parent, ()):
            order[parent] = after.get(parent, ())
    return DeltaEvent(
        subscription=subscription,
        device=b.device_id,
        seq=seq,
        generation=generation,
        base=a.snapshot_id,
        snapshot_id=b.snapshot_id,
        meta=msgspec.structs.replace(b, nodes=()),
        remove=remove,
        upsert=upsert,
        order=order,
    )

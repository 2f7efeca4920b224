"""Short per-session handles (``e1``, ``e2``, ...) for the nodes an agent has been shown.

Rules:

- a handle names one node of one device: ``(device, node id)``. Node ids are stable for the
  same element and never reused for another one within a hub run (docs/design.md), so a
  handle keeps naming the same element across outlines and is never re-pointed at a
  look-alike;
- the table holds the newest NodeRef the hub gave for that node (from ``find``) and the
  generation the agent saw it at; acting by handle sends that ref with that generation, so a
  screen that moved on is refused STALE_NODE_REF by the hub instead of guessed at;
- the table is bounded (``MAX_HANDLES``, least recently used evicted first); a handle that was
  evicted or never issued is unknown, and the caller must say so (never guess).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from bridge.wire.enums import Role
from bridge.wire.noderef import NodeRef

MAX_HANDLES = 4096


@dataclass(frozen=True, slots=True)
class HandleEntry:
    handle: str
    device: str
    node_id: str
    ref: NodeRef | None
    generation: int | None
    role: Role | None = None


class HandleTable:
    """Handles of one MCP session (see the module rules)."""

    def __init__(self, capacity: int = MAX_HANDLES) -> None:
        self.capacity = capacity
        self._by_node: OrderedDict[tuple[str, str], HandleEntry] = OrderedDict()
        self._by_handle: dict[str, tuple[str, str]] = {}
        self._next = 1
        self.evicted = 0

    def __len__(self) -> int:
        return len(self._by_node)

    def handle_for(
        self,
        device: str,
        node_id: str,
        ref: NodeRef | None = None,
        generation: int | None = None,
        role: Role | None = None,
    ) -> str:
        """The node's handle (issued on first sight); ``ref``, ``generation`` (the one the
        agent saw it at) and ``role`` refresh it when given."""
        key = (device, node_id)
        entry = self._by_node.get(key)
        if entry is None:
            handle = f"e{self._next}"
            self._next += 1
            entry = HandleEntry(handle, device, node_id, ref, generation, role)
            self._by_handle[handle] = key
            self._evict()
        elif ref is not None or generation is not None or role is not None:
            entry = HandleEntry(
                entry.handle,
                device,
                node_id,
                ref if ref is not None else entry.ref,
                generation if generation is not None else entry.generation,
                role if role is not None else entry.role,
            )
        self._by_node[key] = entry
        self._by_node.move_to_end(key)
        return entry.handle

    def known(self, device: str, node_id: str) -> str | None:
        entry = self._by_node.get((device, node_id))
        return entry.handle if entry is not None else None

    def lookup(self, handle: str) -> HandleEntry | None:
        key = self._by_handle.get(handle)
        if key is None:
            return None
        entry = self._by_node[key]
        self._by_node.move_to_end(key)
        return entry

    def _evict(self) -> None:
        while len(self._by_node) >= self.capacity:
            (_, old) = self._by_node.popitem(last=False)
            self._by_handle.pop(old.handle, None)
            self.evicted += 1

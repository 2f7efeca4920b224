"""Agent frames decoded without building the nodes a whole tree did not change.

An agent without tree deltas (agentless Android, an older agent) sends every capture whole:
a 1,000-node screen is ~220 KB of JSON in which one text changed. ``TreeFrameDecoder``
decodes a ``tree`` frame with its nodes left as ``msgspec.Raw`` (byte slices of the frame, no
objects), compares each node's bytes with the same index of the last tree frame it decoded,
and decodes only the nodes whose bytes differ; every other node is the last frame's
``RawNode`` object itself. The hub's same-shape check (``DeviceRuntime.changed_since_last``)
then finds the unchanged nodes by identity.

Invariants (what makes the result the one ``AGENT_TO_HUB`` gives):
- a node's decoding depends on its bytes alone, so equal bytes decode to an equal node;
- a frame that fails anywhere (the frame, or one of its changed nodes) is decoded again by
  ``AGENT_TO_HUB``, whose ``DecodeFailure`` is returned: the failure names the field exactly
  as before, and nothing of that frame is remembered;
- every other message type decodes as ``AGENT_TO_HUB`` decodes it (the same union members).

What the caller must do: one decoder per agent link (it remembers that link's last tree
frame: at most one frame's bytes, ``MAX_AGENT_FRAME``), and read ``kept_shape`` before using
the previous tree's structure checks for the new one.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

from bridge.wire.agent_link import AgentHello, AgentStatus, AgentToHub, Reply, TreeDelta, TreePush
from bridge.wire.base import NonNegInt, WireStruct
from bridge.wire.codec import AGENT_TO_HUB, MAX_AGENT_FRAME, Codec, DecodeFailure
from bridge.wire.enums import Platform
from bridge.wire.raw import (
    MAX_RAW_NODES,
    CaptureWarnings,
    RawNode,
    RawTree,
    RawWindow,
    ScreenSize,
    WarningText,
)


class RawTreeFrame(WireStruct, frozen=True):
    """``RawTree`` with its nodes undecoded (the same fields, names and bounds; a test keeps
    the two in step)."""

    capture: int
    platform: Platform
    nodes: Annotated[tuple[msgspec.Raw, ...], msgspec.Meta(max_length=MAX_RAW_NODES)]
    windows: tuple[RawWindow, ...] = ()
    package: str | None = None
    focus: int | None = None
    rotation: int = 0
    screen: ScreenSize | None = None
    secure: bool = False
    truncated: WarningText | None = None
    warnings: CaptureWarnings = ()


class TreePushFrame(WireStruct, tag_field="type", tag="tree", frozen=True):
    """``TreePush`` with a ``RawTreeFrame``."""

    reason: str
    stable: bool
    tree: RawTreeFrame
    quiet_ms: NonNegInt = 0


AgentFrame = AgentHello | TreePushFrame | TreeDelta | Reply | AgentStatus
AGENT_FRAMES: Codec[AgentFrame] = Codec(AgentFrame, MAX_AGENT_FRAME)
_node = msgspec.json.Decoder(RawNode)


class TreeFrameDecoder:
    """``AGENT_TO_HUB.decode`` for one agent link, reusing the unchanged nodes of its last
    whole tree (module docstring)."""

    __slots__ = ("_before", "_changed", "_nodes", "_raws", "_tree")

    def __init__(self) -> None:
        self._raws: tuple[msgspec.Raw, ...] = ()
        self._nodes: tuple[RawNode, ...] = ()
        self._tree: RawTree | None = None
        self._before: RawTree | None = None
        """The tree decoded before ``_tree`` (what ``_changed`` is relative to)."""
        self._changed: tuple[int, ...] | None = None
        """Indexes that differ from the tree before, when both have as many nodes."""

    def decode(self, data: bytes) -> AgentToHub | DecodeFailure:
        frame = AGENT_FRAMES.decode(data)
        if isinstance(frame, DecodeFailure):
            self.forget()
            return AGENT_TO_HUB.decode(data)  # the failure as the whole decoder names it
        if not isinstance(frame, TreePushFrame):
            return frame
        raw = frame.tree
        try:
            nodes = self._nodes_of(raw.nodes)
        except (msgspec.DecodeError, ValueError, TypeError, RecursionError, MemoryError):
            self.forget()
            return AGENT_TO_HUB.decode(data)
        tree = RawTree(
            capture=raw.capture,
            platform=raw.platform,
            nodes=nodes,
            windows=raw.windows,
            package=raw.package,
            focus=raw.focus,
            rotation=raw.rotation,
            screen=raw.screen,
            secure=raw.secure,
            truncated=raw.truncated,
            warnings=raw.warnings,
        )
        self._before, self._tree = self._tree, tree
        return TreePush(
            reason=frame.reason, stable=frame.stable, tree=tree, quiet_ms=frame.quiet_ms
        )

    def _nodes_of(self, raws: tuple[msgspec.Raw, ...]) -> tuple[RawNode, ...]:
        last_raws, last_nodes = self._raws, self._nodes
        decode = _node.decode
        if len(raws) == len(last_raws):
            pairs = enumerate(zip(raws, last_raws, strict=True))
            changed = tuple([i for i, (a, b) in pairs if a != b])
            out = list(last_nodes)
            for i in changed:
                out[i] = decode(raws[i])
            nodes = tuple(out)
            self._changed = changed
        else:
            nodes = tuple([decode(r) for r in raws])
            self._changed = None
        self._raws, self._nodes = raws, nodes
        return nodes

    def forget(self) -> None:
        """Remember no tree (the next tree frame decodes every node)."""
        self._raws, self._nodes, self._changed = (), (), None
        self._tree = self._before = None

    def kept_shape(self, before: RawTree, tree: RawTree) -> bool:
        """True when ``tree`` is the last tree decoded, ``before`` the one decoded just before
        it, and every node that differs kept its handle and parent: the structure checks and
        handle index of ``before`` hold for ``tree`` as they are."""
        changed = self._changed
        if changed is None or tree is not self._tree or before is not self._before:
            return False
        old, new = before.nodes, tree.nodes
        for i in changed:
            if old[i].handle != new[i].handle or old[i].parent != new[i].parent:
                return False
        return True

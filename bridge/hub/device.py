"""DeviceRuntime: one device's live state in the hub.

Invariants:
- ``generation`` increases by one per semantically new capture (treeHash or layout changed)
  and starts at the hub run's epoch (``generation_base``, microseconds of wall time at start),
  so a generation issued before a restart is never mistaken for one of this run; snapshot ids
  are ``s_<run><generation>`` and unique for the hub's run;
- a capture is capped (``cap_raw_tree``) and typed secrets masked (``SecretMasker``) before it
  is normalized, so neither a huge tree nor a secret's plaintext enters the snapshot model;
- health is ``online`` / ``degraded`` (online, with faults named by cause) / ``offline``; every
  change is broadcast as a ``device`` event with its reason;
- node ids come from one ``IdAllocator`` per device, so they are stable across captures and
  never given to another element;
- each stream (``<device>:compact`` / ``<device>:full``) has one ``seq`` counter; a change is
  sent as a ``delta`` event to classic members and as a ``patch`` event to members that opted
  in (``Stream.patchers``), each form encoded once per (stream, format) and the same bytes go
  to every member of that form;
- ``history`` keeps the last ``HISTORY`` generations for generation checks and resyncs, and
  at most ``HISTORY_NODES`` nodes and ``history_bytes_limit`` estimated bytes in all (never
  fewer than 2 generations): a device showing 5,000-node screens keeps 8 generations, not 64,
  so memory per device stays bounded; the hub lowers ``history_bytes_limit`` so that all its
  devices together stay under ``HUB_HISTORY_BYTES`` (``Capture.bytes`` is the estimate:
  text and attribute bytes plus ``NODE_COST`` per node); evictions are counted in ``stats``;
- the settled streams (``<device>:compact:settled`` / ``<device>:full:settled``) get no delta
  from ``ingest``: ``bridge.hub.settled.SettledFeed`` sends theirs, from each stream's
  ``base`` (the snapshot every member holds) once the screen settles.
"""

from __future__ import annotations

import dataclasses
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import msgspec

from bridge.core.identity import IdAllocator
from bridge.core.leases import LeaseBook
from bridge.core.normalize import Normalized, NormalizeEngine, NormalizeFailure, SnapshotContext
from bridge.core.patch import patch, unseen_changes
from bridge.core.pixel_mask import MaskPlan, SecretScan
from bridge.core.raw_limits import (
    MAX_CAPTURE_BYTES,
    MAX_CAPTURE_NODES,
    Capped,
    cap_raw_tree,
    node_bytes,
)
from bridge.core.secret_hold import MotionHold, SecretHold
from bridge.core.secret_mask import SecretMasker
from bridge.core.settle import PushCadence, quiet_since
from bridge.core.slim_patch import slim
from bridge.core.tree import NodeTree
from bridge.core.web_tree import WebOverlay, WebOverlays, same_shape_changes
from bridge.hub.action_queue import DispatchLog
from bridge.hub.device_layer import DeviceLayer
from bridge.journal.records import Recorder
from bridge.net.agent_link import AgentLink
from bridge.net.client_server import Session
from bridge.net.frames import Outgoing
from bridge.vision.overlay import Overlay
from bridge.wire.agent_link import TreePush
from bridge.wire.client_protocol import (
    MAX_HISTORY,
    MAX_UNSEEN,
    DeltaEvent,
    DeviceEvent,
    DeviceHealth,
    PatchEvent,
    SnapshotEvent,
    Unseen,
)
from bridge.wire.codec import encode
from bridge.wire.enums import Platform
from bridge.wire.node import SemanticNode
from bridge.wire.raw import RawTree
from bridge.wire.snapshot import ScreenSnapshot

HISTORY = 64
HISTORY_NODES = 40_000
HISTORY_BYTES = 24 << 20
"""Estimated bytes of one device's history (``Capture.bytes``), at most."""
HUB_HISTORY_BYTES = 256 << 20
"""Estimated bytes of all devices' histories together (the service shares it out)."""
NODE_COST = 600
"""Estimated bytes a normalized node costs beyond its text (objects, ids, bounds, index)."""


MAX_DERIVED_CHANGES = 64
"""A whole tree differing from the last in more nodes than this is normalized whole."""


@dataclass
class Capture:
    """One generation. ``capture_no`` is the agent's capture number that ``normalized.handles``
    belong to; both are refreshed together when the agent re-sends the same screen."""

    generation: int
    normalized: Normalized
    tree: NodeTree
    received_ms: int
    capture_no: int
    bytes: int = 0
    """Estimated memory: the capture's text and attribute bytes plus ``NODE_COST`` a node."""

    def snapshot(self, compact: bool) -> ScreenSnapshot:
        return self.normalized.compact if compact else self.normalized.full


@dataclass(frozen=True)
class Prepared:
    """A normalized capture waiting to be committed."""

    normalized: Normalized
    tree: NodeTree
    now_ms: int
    truncation: str | None
    """Why nodes were left out (None: the capture is complete)."""
    raw_bytes: int = 0
    """Text and attribute bytes of the (capped) raw tree."""


@dataclass
class Stream:
    id: str
    compact: bool
    seq: int = 0
    members: set[Session] = field(default_factory=set)
    settled: bool = False
    base: Capture | None = None
    """Settled streams only: the capture every member's state equals."""
    patchers: set[Session] = field(default_factory=set)
    """The members that asked for ``patch`` events (a subset of ``members``: sessions that
    left are pruned at the next change, so a forgotten discard cannot leak an event)."""

    def join(self, session: Session, patches: bool) -> None:
        """Add ``session`` as a member getting ``patch`` (else ``delta``) events."""
        self.members.add(session)
        session.streams.add(self.id)
        if patches:
            self.patchers.add(session)
        else:
            self.patchers.discard(session)

    def leave(self, session: Any) -> None:
        """Remove ``session`` (a member or not) from the stream."""
        self.members.discard(session)
        self.patchers.discard(session)


@dataclass
class DeviceStats:
    captures: int = 0
    generations: int = 0
    deltas: int = 0
    normalize_failures: int = 0
    truncated_captures: int = 0
    reconnects: int = 0
    history_evicted: int = 0
    """Generations dropped from the history by its node or byte bound."""
    action_ms: list[float] = field(default_factory=list)


class DeviceRuntime:
    def __init__(
        self,
        device_id: str,
        platform: Platform,
        *,
        run_prefix: str,
        clock_ms: Callable[[], int],
        takeover_after_ms: int,
        generation_base: int = 0,
        masker: SecretMasker | None = None,
    ) -> None:
        self.id = device_id
        self.platform = platform
        self.run_prefix = run_prefix
        self.clock_ms = clock_ms
        self.link: AgentLink | None = None
        self.layer: DeviceLayer | None = None
        """Commands the hub's driver answers beside the agent (``bridge.hub.device_layer``)."""
        self.online = False
        self.offline_reason: str | None = "connecting"
        self.model: str | None = None
        self.agent_name: str | None = None
        self.agent_version: str | None = None
        self.os_version: str | None = None
        self.capabilities: tuple[str, ...] = ()
        self.allocator = IdAllocator()
        self.engine = NormalizeEngine(self.allocator)
        """Normalizes this device's captures in order, reusing what did not change."""
        self._whole = False
        """The last capture prepared was normalized whole (not cut by the caps)."""
        self._mask_memo: tuple[int, RawTree] | None = None
        """(masker version, masked tree) of the last capture prepared, while secrets exist."""
        self.generation = generation_base
        self.masker = masker if masker is not None else SecretMasker()
        self.secret_hold = SecretHold()
        """No picture of the screen leaves while a secret is being typed (``pixel_secrets``)."""
        self.motion_hold = MotionHold()
        """...nor while an action moves a screen that showed a secret lately."""
        self.secret_seen_ms: int | None = None
        """When a capture last showed a secret-holding field that is not empty (device
        clock; ``mask_plan``)."""
        self.secret_filled = False
        """The newest capture's ``mask_memo`` has such a field."""
        self.received_capture = 0
        """The agent's number of the newest tree received on the current link (not yet
        necessarily ingested)."""
        self.mask_memo: tuple[Capture, MaskPlan] | None = None
        """The newest capture's ``MaskPlan`` (``pixel_secrets.mask_plan``)."""
        self.secret_scan: SecretScan | None = None
        """The secret-holding nodes of the capture ``mask_memo`` was made for; the next
        capture's scan looks again only at the nodes that are not the same objects."""
        self.faults: dict[str, str] = {}
        self.capture_warnings: tuple[str, ...] = ()
        """The agent's capture health from its latest tree (``RawTree.warnings``)."""
        """Cause -> reason of what currently degrades the device (empty: healthy)."""
        self.current: Capture | None = None
        self.agent_stable = True
        self.last_change_ms = 0
        self.quiet_since_ms = 0
        """When the screen last changed, counting the agent's own quiet (``core.settle``)."""
        self.cadence = PushCadence()
        """The agent's quiet period, learned from its stable pushes (``core.settle``)."""
        self.history: OrderedDict[int, Capture] = OrderedDict()
        self.history_nodes = 0
        self.history_bytes = 0
        self.history_bytes_limit = HISTORY_BYTES
        """The service lowers it to share ``HUB_HISTORY_BYTES`` among its devices."""
        self._raw_last: RawTree | None = None
        """The last raw tree prepared whole, and its bytes: a same-shape capture's bytes are
        counted from the nodes that changed."""
        self._raw_bytes = 0
        self.by_snapshot: dict[str, int] = {}
        self.streams = {
            True: Stream(f"{device_id}:compact", True),
            False: Stream(f"{device_id}:full", False),
        }
        self.settled_streams = {
            True: Stream(f"{device_id}:compact:settled", True, settled=True),
            False: Stream(f"{device_id}:full:settled", False, settled=True),
        }
        self.action_lock = anyio.Lock()
        self.dispatch_log = DispatchLog()
        """Dispatches in order: an action observing without the lock reports the others."""
        self.actions: dict[int, tuple[str, Any]] = {}
        """Actions queued or running on this device: id -> (session id, ``Progress``)."""
        self.leases = LeaseBook(takeover_after_ms=takeover_after_ms)
        self.changed = anyio.Event()
        self.stats = DeviceStats()
        self.recent: deque[tuple[int, Any]] = deque(maxlen=MAX_HISTORY)
        """``(sent at, event)`` of the last device, lease and action events (``history``)."""
        self.on_event: Callable[[DeviceRuntime, Any], None] | None = None
        """Also told every device, lease and action event (a farm relays them)."""
        self.journal: Recorder | None = None
        """Records every new generation and every device, lease and action event."""
        self.last_push: TreePush | None = None
        """The last push prepared (vision hands it back to ingest with a new overlay)."""
        self.vision_overlay: Overlay | None = None
        """What vision read in the blind regions (``bridge.hub.vision``); None: nothing."""
        self._overlaid = False
        """The last capture prepared carried vision or web nodes (its shape is not the
        agent's)."""
        self.web_overlay: WebOverlay | WebOverlays | None = None
        """The pages the WebViews show, as raw nodes under each (``bridge.hub.web``)."""
        self._seen_last: RawTree | None = None
        """The last overlaid tree prepared (a same-shape overlaid tree is diffed with it)."""

    # ---- captures ---------------------------------------------------------------------------

    def ingest(self, push: TreePush) -> Capture | None:
        """Normalize a pushed tree; returns the new capture when it is a new generation."""
        return self.commit(push, self.prepare(push))

    def prepare(
        self, push: TreePush, changed: tuple[int, ...] | None = None
    ) -> Prepared | NormalizeFailure:
        """The CPU half of ingest (cap, mask, normalize, index). It touches only this device's
        normalization engine (and its id allocator) and masking state, so the caller may run
        it in a worker thread, one at a time per device, and must then ``commit`` the result
        on the event loop before preparing the next. ``changed``: the indexes that differ from
        the previous capture prepared, when the shape did not change (an agent's tree delta
        says), so nothing else is looked at again."""
        now = self.clock_ms()
        tentative = f"s_{self.run_prefix}{self.generation + 1}"
        if changed is None:
            changed = self.changed_since_last(push.tree)
        same_shape = changed is not None and self._whole
        fast = None
        if same_shape and changed is not None and len(push.tree.nodes) <= MAX_CAPTURE_NODES:
            fast = self._bytes_after(push.tree, changed)
        if fast is not None and fast <= MAX_CAPTURE_BYTES:
            capped = Capped(push.tree, 0, bytes=fast)  # the shape passed the caps last time
        else:
            capped = cap_raw_tree(push.tree)
            changed = None if capped.dropped else changed
        self._raw_last = None if capped.dropped else push.tree
        self._raw_bytes = capped.bytes
        raw = capped.tree
        self.last_push = push
        overlay, web = self.vision_overlay, self.web_overlay
        if overlay is not None or web is not None or self._overlaid:
            # Vision and web nodes change the tree's shape: the agent's changed indexes do
            # not apply; what differs from the last overlaid tree does, when it is the same
            # shape (a page's one-field change stays a small incremental pass).
            seen = web.apply(raw) if web is not None else raw
            seen = overlay.apply(seen) if overlay is not None else seen
            last, self._seen_last = self._seen_last, seen
            whole = self._whole and not capped.dropped
            changed = same_shape_changes(last, seen) if whole else None
            raw, self._overlaid = seen, seen is not raw
        else:
            self._seen_last = None
        # Masked after the overlay: words vision read off the picture are masked as well.
        raw = self._masked(raw, changed)
        self._whole = False
        result = self.engine.run(raw, SnapshotContext(self.id, tentative, now), changed)
        if isinstance(result, NormalizeFailure):
            return result
        self._whole = not capped.dropped
        tree = result.tree if result.tree is not None else NodeTree(result.full.nodes)
        # The agent's own limits (applied while it walked) count as the hub's caps do.
        reasons = [r for r in (push.tree.truncated, capped.reason if capped.dropped else None) if r]
        if reasons:
            full = msgspec.structs.replace(result.full, truncated=True)
            compact = msgspec.structs.replace(result.compact, truncated=True)
            result = dataclasses.replace(result, full=full, compact=compact)
        return Prepared(result, tree, now, "; ".join(reasons) or None, capped.bytes)

    def changed_since_last(self, raw: RawTree) -> tuple[int, ...] | None:
        """For a whole tree (no delta said what changed): the indexes of the nodes that differ
        from the last whole tree prepared, when it has as many nodes and every differing node
        kept its handle and parent (the same shape); None otherwise, or when more than
        ``MAX_DERIVED_CHANGES`` differ (then the full pass is as cheap)."""
        last = self._raw_last
        if not self._whole or last is None or len(last.nodes) != len(raw.nodes):
            return None
        pairs = enumerate(zip(last.nodes, raw.nodes, strict=True))
        out = [i for i, (a, b) in pairs if a is not b and a != b]
        if len(out) > MAX_DERIVED_CHANGES:
            return None
        for i in out:
            a, b = last.nodes[i], raw.nodes[i]
            if a.handle != b.handle or a.parent != b.parent:
                return None
        return tuple(out)

    def _bytes_after(self, raw: RawTree, changed: tuple[int, ...]) -> int | None:
        """The bytes of ``raw`` from the last whole tree's and the ``changed`` nodes' (None
        when there is no such tree to count from)."""
        last = self._raw_last
        if last is None or len(last.nodes) != len(raw.nodes):
            return None
        total = self._raw_bytes
        for i in changed:
            total += node_bytes(raw.nodes[i]) - node_bytes(last.nodes[i])
        return total

    def _masked(self, raw: RawTree, changed: tuple[int, ...] | None) -> RawTree:
        """``raw`` with typed secrets masked: only the ``changed`` nodes are looked at when the
        previous capture was masked with the same secrets."""
        masker = self.masker
        if not len(masker):
            self._mask_memo = None
            return raw
        memo = self._mask_memo
        if (
            changed is not None
            and memo is not None
            and memo[0] == masker.version
            and len(memo[1].nodes) == len(raw.nodes)
        ):
            nodes = list(memo[1].nodes)
            for i in changed:
                nodes[i] = masker.mask_node(raw.nodes[i])
            masked = msgspec.structs.replace(raw, nodes=tuple(nodes))
        else:
            masked = masker.mask(raw)
        self._mask_memo = (masker.version, masked)
        return masked

    def commit(self, push: TreePush, prepared: Prepared | NormalizeFailure) -> Capture | None:
        """Apply a prepared capture (on the event loop): generations, history, fan-out."""
        self.stats.captures += 1
        self.agent_stable = push.stable
        self.cadence.observe(push.stable, push.quiet_ms)
        if isinstance(prepared, NormalizeFailure):
            self.stats.normalize_failures += 1
            self.set_fault("tree", f"the agent sent a tree the hub cannot use: {prepared.reason}")
            return None
        result, now = prepared.normalized, prepared.now_ms
        if prepared.truncation is not None:
            self.stats.truncated_captures += 1
            self.set_fault("tree", f"tree truncated: {prepared.truncation}")
        else:
            self.set_fault("tree", None)
        self.capture_warnings = push.tree.warnings
        self.set_fault("capture", "; ".join(push.tree.warnings) or None)
        cur = self.current
        if (
            cur is not None
            and cur.normalized.full.tree_hash == result.full.tree_hash
            and cur.normalized.layout_hash == result.layout_hash
            and cur.normalized.full.nodes == result.full.nodes
        ):
            # Same screen: keep the generation, refresh handles for the new capture.
            cur.normalized = dataclasses.replace(cur.normalized, handles=result.handles)
            cur.capture_no = push.tree.capture
            self._notify()
            return None
        self.generation += 1
        self.stats.generations += 1
        size = prepared.raw_bytes + NODE_COST * len(result.full.nodes)
        capture = Capture(self.generation, result, prepared.tree, now, push.tree.capture, size)
        self.last_change_ms = now
        reported_quiet = push.quiet_ms if push.stable else 0
        self.quiet_since_ms = quiet_since(now, reported_quiet, self.quiet_since_ms)
        previous = self.current
        self.current = capture
        self.history[self.generation] = capture
        self.history_nodes += len(result.full.nodes)
        self.history_bytes += size
        self.by_snapshot[result.full.snapshot_id] = self.generation
        while len(self.history) > HISTORY or (
            len(self.history) > 2
            and (
                self.history_nodes > HISTORY_NODES or self.history_bytes > self.history_bytes_limit
            )
        ):
            _, old = self.history.popitem(last=False)
            self.stats.history_evicted += 1
            self.history_nodes -= len(old.normalized.full.nodes)
            self.history_bytes -= old.bytes
            self.by_snapshot.pop(old.normalized.full.snapshot_id, None)
        if previous is not None:
            self._fan_out(previous, capture)
        else:
            self._resync_all()
        if self.journal is not None:
            base = previous.normalized.full.snapshot_id if previous is not None else None
            known = _known_changes(previous, capture) if previous is not None else None
            self.journal.frame(self.id, self.generation, result.full, base, known)
        self._notify()
        return capture

    def _notify(self) -> None:
        self.changed.set()
        self.changed = anyio.Event()

    def capture_at(self, generation: int) -> Capture | None:
        return self.history.get(generation)

    def snapshot_at(self, generation: int) -> ScreenSnapshot | None:
        """The full snapshot of ``generation`` while it is still in the history."""
        cap = self.history.get(generation)
        return cap.normalized.full if cap is not None else None

    def owns_snapshot(self, snapshot_id: str) -> bool:
        """True when ``snapshot_id`` was issued by this hub run, so its node ids come from this
        device's allocator (the precondition for trusting a ref's node id)."""
        return snapshot_id.startswith(f"s_{self.run_prefix}")

    def capture_of(self, snapshot_id: str) -> Capture | None:
        gen = self.by_snapshot.get(snapshot_id)
        return self.history.get(gen) if gen is not None else None

    # ---- streams ----------------------------------------------------------------------------

    def _fan_out(self, previous: Capture, capture: Capture) -> None:
        known: tuple[str, ...] | None = None
        known_done = False
        for compact, stream in self.streams.items():
            if not stream.members:
                continue
            if not known_done:
                known, known_done = _known_changes(previous, capture), True
            self.stats.deltas += 1
            self.send_change(stream, previous, capture, None if compact else known, known)

    def send_change(
        self,
        stream: Stream,
        previous: Capture,
        capture: Capture,
        changed: tuple[str, ...] | None,
        known: tuple[str, ...] | None,
    ) -> None:
        """Send every member of ``stream`` (whose state is ``previous``) the change to
        ``capture`` under the stream's next ``seq``: ``patch`` events to its patchers and
        ``delta`` events to the others, each form built, encoded and framed once at most
        (``changed``: see ``patch``; ``known``: see ``unseen_of``)."""
        compact = stream.compact
        before, after = previous.snapshot(compact), capture.snapshot(compact)
        by_id = capture.tree.by_id if changed is not None and not compact else None
        body = patch(before, after, changed, by_id)
        stream.seq += 1
        unseen = unseen_of(previous, capture, known) if compact else None
        patchers = stream.patchers
        if patchers:
            patchers &= stream.members
        classic: Outgoing | None = None
        slim_form: Outgoing | None = None
        for session in list(stream.members):
            if session in patchers:
                if slim_form is None:
                    old = previous.tree.by_id if not compact else _by_id(before)
                    part = slim(old, before, body)
                    event: Any = PatchEvent(
                        subscription=stream.id,
                        seq=stream.seq,
                        generation=capture.generation,
                        base=body.base,
                        snapshot_id=after.snapshot_id,
                        meta=part.meta,
                        remove=part.remove,
                        upsert=part.upsert,
                        edit=part.edit,
                        order=part.order,
                        unseen=unseen,
                    )
                    slim_form = Outgoing(event, encode)
                session.push_event(stream.id, slim_form)
            else:
                if classic is None:
                    event = DeltaEvent(
                        subscription=stream.id,
                        device=self.id,
                        seq=stream.seq,
                        generation=capture.generation,
                        base=body.base,
                        snapshot_id=after.snapshot_id,
                        meta=body.meta,
                        remove=body.remove,
                        upsert=body.upsert,
                        order=body.order,
                        unseen=unseen,
                    )
                    classic = Outgoing(event, encode)
                session.push_event(stream.id, classic)

    def _broadcast(self, members: set[Session], stream: str | None, event: Any) -> None:
        """Encode once per format and frame once per (format, compression); the same bytes
        go to every member."""
        outgoing = Outgoing(event, encode)
        for session in list(members):
            session.push_event(stream, outgoing)

    def _resync_all(self) -> None:
        """After a (re)connection: every member gets the stream's snapshot, encoded once."""
        for stream in self.streams.values():
            ev = self.resync_event(stream)
            if ev is not None and stream.members:
                self._broadcast(stream.members, stream.id, ev)

    def resync_event(self, stream: Stream) -> SnapshotEvent | None:
        capture = stream.base if stream.settled else self.current
        if capture is None:
            return None
        return SnapshotEvent(
            subscription=stream.id,
            seq=stream.seq,
            generation=capture.generation,
            snapshot=capture.snapshot(stream.compact),
        )

    def all_streams(self) -> tuple[Stream, ...]:
        return (*self.streams.values(), *self.settled_streams.values())

    def stream_by_id(self, stream_id: str) -> Stream | None:
        for stream in self.all_streams():
            if stream.id == stream_id:
                return stream
        return None

    def watchers(self) -> set[Session]:
        out: set[Session] = set()
        for stream in self.all_streams():
            out |= stream.members
        return out

    def broadcast_event(self, event: Any) -> None:
        """Device, lease and action events to every session watching this device; the last
        ``MAX_HISTORY`` are kept for ``history``."""
        self.recent.append((self.clock_ms(), event))
        self._broadcast(self.watchers(), None, event)
        if self.journal is not None:
            self.journal.event(self.id, event)
        if self.on_event is not None:
            self.on_event(self, event)

    # ---- health -----------------------------------------------------------------------------

    @property
    def health(self) -> DeviceHealth:
        if not self.online:
            return "offline"
        return "degraded" if self.faults else "online"

    @property
    def health_reason(self) -> str | None:
        if not self.online:
            return self.offline_reason or "offline (no reason reported)"
        return "; ".join(self.faults.values()) if self.faults else None

    def _health_event(self) -> None:
        self.broadcast_event(
            DeviceEvent(
                device=self.id, online=self.online, reason=self.health_reason, health=self.health
            )
        )

    def set_fault(self, cause: str, reason: str | None) -> None:
        """Record (``reason``) or clear (None) one cause of degradation; broadcasts a device
        event when the device's health or reason changed."""
        before = (self.health, self.health_reason)
        if reason is None:
            self.faults.pop(cause, None)
        else:
            self.faults[cause] = reason
        if (self.health, self.health_reason) != before:
            self._health_event()

    def cancel_actions_not_of(self, holders: set[str], why: str) -> int:
        """Cancel queued and running actions of sessions outside ``holders`` (a lease changed
        hands); returns how many were cancelled."""
        count = 0
        for session_id, progress in list(self.actions.values()):
            if session_id not in holders:
                progress.cancel_reason = why
                progress.scope.cancel()
                count += 1
        return count

    def set_online(self, online: bool, reason: str | None) -> None:
        if not online and not reason:
            reason = "offline (no reason reported)"
        if online == self.online and reason == self.offline_reason:
            return
        self.online = online
        self.offline_reason = None if online else reason
        if not online:
            self.faults.clear()
        self._health_event()
        self._notify()


def unseen_of(
    previous: Capture, capture: Capture, known: tuple[str, ...] | None = None
) -> Unseen | None:
    """What changed from ``previous`` to ``capture`` where the compact views, cut at their
    budget, do not reach (None: nothing, or the views were whole)."""
    before, after = previous.normalized, capture.normalized
    ids = unseen_changes(before.full, after.full, before.cut, after.cut, known)
    if not ids:
        return None
    return Unseen(count=len(ids), nodes=tuple(ids[:MAX_UNSEEN]))


def _by_id(snapshot: ScreenSnapshot) -> dict[str, SemanticNode]:
    return {node.node_id: node for node in snapshot.nodes}


def _known_changes(previous: Capture, capture: Capture) -> tuple[str, ...] | None:
    """The full nodes that changed from ``previous`` to ``capture`` when the normalization
    engine knows them relative to exactly ``previous``'s nodes (else None: compare)."""
    norm = capture.normalized
    base = norm.changed_from
    if norm.changed is None or base is None:
        return None
    before = previous.normalized.full.nodes
    return norm.changed if base is before or base == before else None

"""Wire benchmark: encode and decode a realistic 1,000-node ScreenSnapshot in JSON and
MessagePack through the project's codecs (``bridge.wire.codec``).

The snapshot is pseudo-random but deterministic (a seeded ``random.Random``): nested lists of
items with texts, buttons, images and inputs, resource ids, bounds, states, actions and
collection info — the mix a compact snapshot of a busy screen carries. Each figure is the median
of ``runs`` timed repetitions after a warm-up, timed with ``time.perf_counter_ns``.
"""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import msgspec

from bridge.wire.codec import WireFormat, encode
from bridge.wire.enums import ActionVerb, Orientation, Role
from bridge.wire.node import CollectionInfo, NodeState, SemanticNode
from bridge.wire.snapshot import ScreenSnapshot

NODES = 1_000
CLICKABLE = NodeState(clickable=True)
SCROLLS = (ActionVerb.SCROLL_FORWARD,)
WORDS = (
    "Order Delivered Preparing Cancelled Settings Profile Search Cart Checkout Pay Home "
    "Favourites Notifications Account Privacy Help Sign in out Continue Back Next Done "
    "Add remove item price total shipping address card Ada Lovelace Grace Hopper"
).split()


def _words(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def build_snapshot(nodes: int = NODES, seed: int = 1832) -> ScreenSnapshot:
    """A deterministic snapshot of ``nodes`` nodes in pre-order (root first)."""
    rng = random.Random(seed)
    out: list[SemanticNode] = []

    def add(role: Role, parent: str | None, **fields: Any) -> str:
        node_id = f"n{len(out) + 1}"
        top = 63 + (len(out) * 37) % 2200
        bounds = (rng.randrange(0, 96), top, rng.randrange(600, 1080), top + rng.randrange(40, 220))
        out.append(
            SemanticNode(node_id=node_id, parent_id=parent, role=role, bounds=bounds, **fields)
        )
        return node_id

    root = add(Role.SCREEN, None, automation_id="__screen_orders", resource_id="__screen_orders")
    list_id = add(Role.LIST, root, resource_id="com.example.shop:id/orders", actions=SCROLLS)
    index = 0
    while len(out) < nodes:
        row = add(
            Role.LIST_ITEM,
            list_id,
            text=_words(rng, 2, 5),
            state=CLICKABLE,
            actions=(ActionVerb.CLICK,),
            collection=CollectionInfo(index=index, item_key=f"order-{index}", row_count=500),
        )
        index += 1
        for _ in range(rng.randint(1, 4)):
            if len(out) >= nodes:
                break
            kind = rng.random()
            if kind < 0.45:
                add(Role.TEXT, row, text=_words(rng, 1, 8))
            elif kind < 0.7:
                add(
                    Role.BUTTON,
                    row,
                    text=_words(rng, 1, 2),
                    resource_id=f"com.example.shop:id/action_{rng.randrange(40)}",
                    state=CLICKABLE,
                    actions=(ActionVerb.CLICK, ActionVerb.LONG_CLICK),
                )
            elif kind < 0.9:
                add(Role.IMAGE, row, label=_words(rng, 1, 3))
            else:
                add(
                    Role.INPUT,
                    row,
                    hint=_words(rng, 1, 2),
                    value=_words(rng, 1, 3),
                    state=NodeState(clickable=True, focused=rng.random() < 0.01),
                    actions=(ActionVerb.CLICK, ActionVerb.SET_TEXT, ActionVerb.PASTE),
                )
    return ScreenSnapshot(
        schema_version=1,
        device_id="emulator-5554",
        snapshot_id="s_1832",
        timestamp=1_717_000_000_000,
        package_name="com.example.shop",
        app_id="com.example.shop",
        window_id=41,
        orientation=Orientation.PORTRAIT,
        screen_state_id="orders:5c20",
        compact=True,
        nodes=tuple(out),
        tree_hash="9c1e4f0a7b3d2e58",
    )


def median_us(fn: Callable[[], object], runs: int, warmup: int) -> float:
    """Median wall time of ``fn`` in microseconds over ``runs`` timed calls."""
    for _ in range(warmup):
        fn()
    samples: list[int] = []
    for _ in range(runs):
        started = time.perf_counter_ns()
        fn()
        samples.append(time.perf_counter_ns() - started)
    return statistics.median(samples) / 1000


@dataclass(frozen=True)
class Figure:
    fmt: WireFormat
    op: str
    median_us: float
    size: int

    @property
    def mb_per_s(self) -> float:
        return self.size / (self.median_us / 1e6) / 1e6


def _timings(
    fmt: WireFormat, snapshot: ScreenSnapshot, runs: int, warmup: int
) -> tuple[Figure, Figure]:
    data = encode(snapshot, fmt)
    decoder: msgspec.json.Decoder[ScreenSnapshot] | msgspec.msgpack.Decoder[ScreenSnapshot] = (
        msgspec.json.Decoder(ScreenSnapshot)
        if fmt is WireFormat.JSON
        else msgspec.msgpack.Decoder(ScreenSnapshot)
    )
    if decoder.decode(data) != snapshot:
        raise AssertionError(f"{fmt.value} round trip changed the snapshot")
    encode_us = median_us(lambda: encode(snapshot, fmt), runs, warmup)
    decode_us = median_us(lambda: decoder.decode(data), runs, warmup)
    return Figure(fmt, "encode", encode_us, len(data)), Figure(fmt, "decode", decode_us, len(data))


def measure(snapshot: ScreenSnapshot, runs: int, warmup: int) -> list[Figure]:
    return [f for fmt in WireFormat for f in _timings(fmt, snapshot, runs, warmup)]


def run(quick: bool) -> list[str]:
    runs, warmup = (30, 5) if quick else (300, 30)
    snapshot = build_snapshot()
    figures = measure(snapshot, runs, warmup)
    by = {(f.fmt, f.op): f for f in figures}
    lines = [
        f"wire: ScreenSnapshot of {len(snapshot.nodes):,} nodes, median of {runs} runs "
        f"after {warmup} warm-up",
        f"  {'format':<8} {'op':<7} {'median µs':>10} {'bytes':>10} {'MB/s':>9}",
    ]
    lines += [
        f"  {f.fmt.value:<8} {f.op:<7} {f.median_us:>10.1f} {f.size:>10,} {f.mb_per_s:>9.1f}"
        for f in figures
    ]
    json_, pack = WireFormat.JSON, WireFormat.MSGPACK
    lines.append(
        "  msgpack/json: size {:.2f}, encode time {:.2f}, decode time {:.2f}".format(
            by[pack, "encode"].size / by[json_, "encode"].size,
            by[pack, "encode"].median_us / by[json_, "encode"].median_us,
            by[pack, "decode"].median_us / by[json_, "decode"].median_us,
        )
    )
    return lines

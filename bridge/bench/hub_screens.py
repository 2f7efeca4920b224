"""Raw screens of the hub benchmark: an Android app screen of a chosen size.

``screen(nodes, count, capture)`` builds a ``RawTree`` of exactly ``nodes`` nodes (at least
``MIN_NODES``): a window root, a screen marker, a toolbar (title and two icon buttons), the
``Count N`` status text (``COUNT_ID``, the field every change rewrites), the Increment button
(``INCREMENT_ID``, what the action series clicks), and an order list whose rows are a clickable
row with a title, a detail text and an Open button each; a few footer texts fill up to the exact
size. Handles are the node's index + 1 and stay the same for the same node across captures, as
an agent that sends tree deltas keeps them. The count sits near the top, so it is inside the
compact view even when the compact view is cut.
"""

from __future__ import annotations

import msgspec

from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree, RawWindow, ScreenSize

PACKAGE = "dev.mobridge.bench"
COUNT_ID = f"{PACKAGE}:id/count"
INCREMENT_ID = f"{PACKAGE}:id/increment"
OPEN_ID = f"{PACKAGE}:id/open_"
"""Prefix of each row's Open button id (``open_<row>``)."""
WIDTH, HEIGHT = 1080, 2400
MIN_NODES = 12
_HEADER = 9
_ROW = 4


def count_text(count: int) -> str:
    return f"Count {count}"


def screen_nodes(nodes: int, count: int = 0) -> tuple[RawNode, ...]:
    """The ``nodes``-node screen showing ``Count <count>`` (see the module docstring)."""
    if nodes < MIN_NODES:
        raise ValueError(f"a bench screen has at least {MIN_NODES} nodes")
    rows = (nodes - _HEADER) // _ROW
    out: list[RawNode] = []

    def add(parent: int, **fields: object) -> int:
        index = len(out)
        out.append(
            RawNode(handle=index + 1, parent=parent, window=1, package=PACKAGE, **fields)  # type: ignore[arg-type]
        )
        return index

    root = add(-1, class_name="android.widget.FrameLayout", bounds=(0, 0, WIDTH, HEIGHT))
    add(root, class_name="android.view.View", automation_id="__screen_bench",
        bounds=(0, 0, WIDTH, HEIGHT))  # fmt: skip
    bar = add(root, class_name="android.widget.LinearLayout", automation_id=f"{PACKAGE}:id/bar",
              bounds=(0, 0, WIDTH, 160))  # fmt: skip
    add(bar, class_name="android.widget.TextView", text="Bench orders", heading=True,
        bounds=(40, 40, 700, 120))  # fmt: skip
    add(bar, class_name="android.widget.ImageButton", label="Search", clickable=True,
        focusable=True, actions=("click",), bounds=(800, 40, 920, 120))  # fmt: skip
    add(bar, class_name="android.widget.ImageButton", label="More options", clickable=True,
        focusable=True, actions=("click",), bounds=(940, 40, 1060, 120))  # fmt: skip
    add(root, class_name="android.widget.TextView", text=count_text(count),
        automation_id=COUNT_ID, bounds=(40, 180, 700, 260))  # fmt: skip
    add(root, class_name="android.widget.Button", text="Increment",
        automation_id=INCREMENT_ID, clickable=True, focusable=True, actions=("click",),
        bounds=(760, 170, 1040, 270))  # fmt: skip
    listing = add(root, class_name="androidx.recyclerview.widget.RecyclerView",
                  automation_id=f"{PACKAGE}:id/orders", scrollable=True, collection_rows=rows,
                  actions=("scrollForward",), bounds=(0, 300, WIDTH, HEIGHT))  # fmt: skip
    for r in range(rows):
        y = 300 + r * 140
        row = add(listing, class_name="android.widget.LinearLayout",
                  automation_id=f"{PACKAGE}:id/row", clickable=True, actions=("click",),
                  item_row=r, bounds=(0, y, WIDTH, y + 130))  # fmt: skip
        add(row, class_name="android.widget.TextView", text=f"Order {1000 + r}",
            automation_id=f"{PACKAGE}:id/title", bounds=(40, y + 10, 700, y + 60))  # fmt: skip
        add(row, class_name="android.widget.TextView", text=f"{r % 9 + 1} items, delivered",
            automation_id=f"{PACKAGE}:id/detail", bounds=(40, y + 70, 700, y + 120))  # fmt: skip
        add(row, class_name="android.widget.Button", text="Open", automation_id=f"{OPEN_ID}{r}",
            clickable=True, focusable=True, actions=("click",),
            bounds=(800, y + 20, 1040, y + 110))  # fmt: skip
    footer = 0
    while len(out) < nodes:
        add(root, class_name="android.widget.TextView", text=f"Footnote {footer}",
            bounds=(40, HEIGHT - 60, 1040, HEIGHT - 10))  # fmt: skip
        footer += 1
    return tuple(out)


COUNT_INDEX = 6
"""Index (and handle - 1) of the ``Count N`` text in every bench screen."""


def with_count(nodes: tuple[RawNode, ...], count: int) -> tuple[RawNode, ...]:
    """The same screen showing ``Count <count>`` (one field of one node differs)."""
    out = list(nodes)
    out[COUNT_INDEX] = msgspec.structs.replace(nodes[COUNT_INDEX], text=count_text(count))
    return tuple(out)


def raw_tree(nodes: tuple[RawNode, ...], capture: int) -> RawTree:
    return RawTree(
        capture=capture,
        platform=Platform.ANDROID,
        nodes=nodes,
        windows=(RawWindow(id=1, package=PACKAGE, active=True, focused=True),),
        package=PACKAGE,
        screen=ScreenSize(width=WIDTH, height=HEIGHT),
    )

"""Hand-built CDP answers for the pure web-tree tests (``bridge.core.web_tree``): accessibility
nodes and DOM snapshots in the shapes Chromium sends (see tests/fixtures/web/*.json and
``bridge.devices.web.page``), small enough to state every expected item."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import msgspec

from bridge.core.web_tree import WebItem
from bridge.wire.cdp import (
    AXNode,
    AXProperty,
    AXValue,
    DomSnapshot,
    RareInteger,
    SnapshotDocument,
    SnapshotLayout,
    SnapshotNodes,
)

Rect = tuple[float, float, float, float]


def val(x: object, kind: str = "string") -> AXValue:
    """An AX value holding ``x`` as CDP sends it (JSON)."""
    return AXValue(type=kind, value=msgspec.Raw(json.dumps(x).encode()))


def node(
    node_id: str,
    role: str | None,
    *,
    name: str | None = None,
    value: str | None = None,
    parent: str | None = None,
    children: tuple[str, ...] = (),
    bid: int | None = None,
    ignored: bool = False,
    props: dict[str, object] | None = None,
) -> AXNode:
    return AXNode(
        nodeId=node_id,
        ignored=ignored,
        role=val(role, "role") if role is not None else None,
        name=val(name) if name is not None else None,
        value=val(value) if value is not None else None,
        properties=tuple(
            AXProperty(name=k, value=val(v, "booleanOrUndefined")) for k, v in (props or {}).items()
        ),
        parentId=parent,
        childIds=children,
        backendDOMNodeId=bid,
    )


@dataclass
class El:
    """One DOM node of a snapshot document: its backend id, tag, attributes and layout."""

    bid: int
    tag: str = "DIV"
    attrs: tuple[tuple[str, ...], ...] = ()
    box: tuple[float, ...] | None = None
    overflow: str | None = None
    scroll: tuple[float, ...] = ()
    client: tuple[float, ...] = ()
    content_doc: int | None = None
    """The index of the document this frame owner shows."""


@dataclass
class Strings:
    table: list[str] = field(default_factory=list)

    def __call__(self, text: str) -> int:
        if text not in self.table:
            self.table.append(text)
        return self.table.index(text)


def document(
    strings: Strings,
    elements: list[El],
    *,
    frame: str = "",
    scroll_x: float = 0.0,
    scroll_y: float = 0.0,
    content_height: float = 0.0,
) -> SnapshotDocument:
    index: list[int] = []
    bounds: list[tuple[float, ...]] = []
    styles: list[tuple[int, ...]] = []
    scrolls: list[tuple[float, ...]] = []
    clients: list[tuple[float, ...]] = []
    for i, el in enumerate(elements):
        if el.box is None:
            continue
        index.append(i)
        bounds.append(el.box)
        styles.append((strings(el.overflow),) if el.overflow else ())
        scrolls.append(el.scroll)
        clients.append(el.client)
    owners = [(i, el.content_doc) for i, el in enumerate(elements) if el.content_doc is not None]
    return SnapshotDocument(
        frameId=strings(frame) if frame else -1,
        nodes=SnapshotNodes(
            backendNodeId=tuple(el.bid for el in elements),
            attributes=tuple(
                tuple(strings(t) for pair in el.attrs for t in pair) for el in elements
            ),
            nodeName=tuple(strings(el.tag) for el in elements),
            contentDocumentIndex=RareInteger(
                index=tuple(i for i, _ in owners), value=tuple(d for _, d in owners)
            ),
        ),
        layout=SnapshotLayout(
            nodeIndex=tuple(index),
            bounds=tuple(bounds),
            styles=tuple(styles),
            scrollRects=tuple(scrolls),
            clientRects=tuple(clients),
        ),
        scrollOffsetX=scroll_x,
        scrollOffsetY=scroll_y,
        contentHeight=content_height,
    )


def snapshot(strings: Strings, *docs: SnapshotDocument) -> DomSnapshot:
    return DomSnapshot(documents=docs, strings=tuple(strings.table))


def item(parent: int, role: str, bid: int | None, **kw: object) -> WebItem:
    """A ``WebItem`` with every optional field empty unless given (visible by default)."""
    fields: dict[str, object] = {
        "html_id": None, "name": None, "value": None, "hint": None, "bounds": None,
        "visible": True,
    }  # fmt: skip
    fields.update(kw)
    return WebItem(parent, role, bid, **fields)  # type: ignore[arg-type]

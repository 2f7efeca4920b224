"""Chrome DevTools Protocol messages the hub reads from a web page (data only).

Only the fields mobridge uses are declared; CDP's other fields are ignored (CDP grows, a
newer browser must not break decoding). Names are CDP's own (camelCase). Every list is
capped (``MAX_*``) and values that CDP types as "any" (``AXValue.value``) stay ``Raw`` until
a reader takes the scalar it wants, so a hostile page cannot nest a decoder deep.

Sources: the protocol's published definitions (domains Accessibility, DOMSnapshot, Page,
Runtime, Input, DOM; tip-of-tree as of Chromium 131-143) and messages recorded from Debian's
``chromium`` on this machine (tests/fixtures/web/).
"""

from __future__ import annotations

from typing import Annotated

import msgspec

MAX_AX_NODES = 50_000
MAX_DOM_NODES = 200_000
MAX_PROPERTIES = 64
MAX_STRINGS = 400_000

_Props = Annotated[tuple["AXProperty", ...], msgspec.Meta(max_length=MAX_PROPERTIES)]


class CdpStruct(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """Base of CDP messages: unknown fields ignored, nothing renamed."""


class AXValue(CdpStruct, frozen=True):
    type: str = ""
    value: msgspec.Raw = msgspec.Raw()

    def text(self) -> str | None:
        """The value as text when it is a string or a number (None otherwise)."""
        if not self.value:
            return None
        try:
            v = msgspec.json.decode(self.value, type=str | int | float | bool | None)
        except msgspec.DecodeError:
            return None
        if isinstance(v, bool) or v is None:
            return None
        return str(v)

    def flag(self) -> bool | None:
        """The value as a boolean (``"true"``/``"false"`` strings count), else None."""
        if not self.value:
            return None
        try:
            v = msgspec.json.decode(self.value, type=str | int | float | bool | None)
        except msgspec.DecodeError:
            return None
        if isinstance(v, bool):
            return v
        if v in ("true", "false"):
            return v == "true"
        return None


class AXProperty(CdpStruct, frozen=True):
    name: str
    value: AXValue


class AXNode(CdpStruct, frozen=True):
    nodeId: str
    ignored: bool = False
    role: AXValue | None = None
    name: AXValue | None = None
    description: AXValue | None = None
    value: AXValue | None = None
    properties: _Props = ()
    parentId: str | None = None
    childIds: tuple[str, ...] = ()
    backendDOMNodeId: int | None = None
    frameId: str | None = None


class FullAXTree(CdpStruct, frozen=True):
    nodes: Annotated[tuple[AXNode, ...], msgspec.Meta(max_length=MAX_AX_NODES)]


class RareBoolean(CdpStruct, frozen=True):
    index: tuple[int, ...] = ()


class RareInteger(CdpStruct, frozen=True):
    index: tuple[int, ...] = ()
    value: tuple[int, ...] = ()


class SnapshotNodes(CdpStruct, frozen=True):
    backendNodeId: Annotated[tuple[int, ...], msgspec.Meta(max_length=MAX_DOM_NODES)] = ()
    attributes: tuple[tuple[int, ...], ...] = ()
    """Per node: string indexes name, value, name, value ..."""
    nodeName: tuple[int, ...] = ()
    contentDocumentIndex: RareInteger = RareInteger()
    """A frame owner's node index -> the index of its document in ``documents``."""


class SnapshotLayout(CdpStruct, frozen=True):
    nodeIndex: Annotated[tuple[int, ...], msgspec.Meta(max_length=MAX_DOM_NODES)] = ()
    bounds: tuple[tuple[float, ...], ...] = ()
    """Per layout object: x, y, width, height in CSS pixels of the document."""
    styles: tuple[tuple[int, ...], ...] = ()
    """Per layout object: string indexes of the computed styles asked for (``overflow-y``)."""
    scrollRects: tuple[tuple[float, ...], ...] = ()
    """Per layout object (``includeDOMRects``): its scroll area (x, y, scroll width, height)."""
    clientRects: tuple[tuple[float, ...], ...] = ()
    """Per layout object (``includeDOMRects``): its client area (x, y, width, height)."""


class SnapshotDocument(CdpStruct, frozen=True):
    frameId: int = -1
    """An index into ``strings``."""
    nodes: SnapshotNodes = SnapshotNodes()
    layout: SnapshotLayout = SnapshotLayout()
    scrollOffsetX: float = 0.0
    scrollOffsetY: float = 0.0
    contentWidth: float = 0.0
    contentHeight: float = 0.0


class DomSnapshot(CdpStruct, frozen=True):
    documents: Annotated[tuple[SnapshotDocument, ...], msgspec.Meta(max_length=64)]
    strings: Annotated[tuple[str, ...], msgspec.Meta(max_length=MAX_STRINGS)]


class VisualViewport(CdpStruct, frozen=True):
    pageX: float = 0.0
    pageY: float = 0.0
    clientWidth: float = 0.0
    clientHeight: float = 0.0
    scale: float = 1.0
    zoom: float = 1.0


class LayoutMetrics(CdpStruct, frozen=True):
    cssVisualViewport: VisualViewport = VisualViewport()


class TargetInfo(CdpStruct, frozen=True):
    """One entry of ``GET /json/list`` (the DevTools HTTP endpoint)."""

    id: str
    type: str = ""
    title: str = ""
    url: str = ""
    webSocketDebuggerUrl: str = ""
    description: str = ""
    """Android WebViews describe the page as JSON: attached, visible, screenX/Y, width, height."""


class EvaluateResult(CdpStruct, frozen=True):
    result: msgspec.Raw = msgspec.Raw()
    exceptionDetails: msgspec.Raw = msgspec.Raw()


class RemoteObjectValue(CdpStruct, frozen=True):
    type: str = ""
    value: msgspec.Raw = msgspec.Raw()
    objectId: str | None = None


class ResolvedNode(CdpStruct, frozen=True):
    object: RemoteObjectValue


class CallResult(CdpStruct, frozen=True):
    result: RemoteObjectValue = RemoteObjectValue()
    exceptionDetails: msgspec.Raw = msgspec.Raw()


class BoxModel(CdpStruct, frozen=True):
    content: tuple[float, ...] = ()
    width: float = 0.0
    height: float = 0.0


class BoxModelResult(CdpStruct, frozen=True):
    model: BoxModel


class ScreenshotResult(CdpStruct, frozen=True):
    data: str


class BindingCalled(CdpStruct, frozen=True):
    name: str
    payload: str = ""


class AttachedTargetInfo(CdpStruct, frozen=True):
    targetId: str = ""
    type: str = ""


class AttachedToTarget(CdpStruct, frozen=True):
    """``Target.attachedToTarget`` (auto-attach with ``flatten``): a frame another process
    renders, reached with ``sessionId`` on the same connection."""

    sessionId: str
    targetInfo: AttachedTargetInfo = AttachedTargetInfo()


class DetachedFromTarget(CdpStruct, frozen=True):
    sessionId: str = ""


class FrameOwner(CdpStruct, frozen=True):
    """``DOM.getFrameOwner``: the frame's owner element (``iframe``) in its parent."""

    backendNodeId: int

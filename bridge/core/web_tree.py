"""A web page's accessibility tree -> raw nodes under the WebView that shows it (sans-I/O).

Input, per page: Chromium's ``Accessibility.getFullAXTree`` (roles, names, values, states,
the DOM node behind each), ``DOMSnapshot.captureSnapshot`` (layout boxes and attributes per
DOM node, CSS pixels of the document) and ``Page.getLayoutMetrics`` (the visual viewport:
scroll, zoom), plus the WebView's bounds in device pixels. ``web_items`` turns them into
``WebItem``s in pre-order; ``WebOverlay.apply`` inserts them as raw nodes right after the
WebView's own subtree, so normalization, ids, hashes, refs and deltas treat them like native
nodes.

Rules (docs/webviews.md):
- mapping: ``device = webview.left + (css - viewport.pageX) * webview.width /
  viewport.clientWidth`` (and the same for y): the visual viewport fills the WebView, so
  the device pixel ratio, page zoom and pinch scale are all in that one factor;
- visible part and a margin: an element is kept when its box meets the WebView's box grown
  by ``margin`` (half the WebView's height by default) above and below; outside the
  WebView's box it is ``visible=False``. Elements without a layout box keep their place only
  as parents of kept elements;
- budget: at most ``max_nodes`` items and ``max_bytes`` of text, in document order; the rest
  is left out and ``truncated`` says so;
- marking: every web node's ``automation_id`` starts with ``web:`` — ``web:#<html id>`` when
  the element has an id attribute, else ``web:<backend DOM node id>`` — and its class is
  ``web:<AX role>``. The reference schemas are closed (no ``source: web``), so the prefix is
  the mark; ``source`` stays ACCESSIBILITY (it is the page's accessibility tree);
- wrappers (generic, none, presentation, LabelText, paragraph without a name) are folded
  into their parent; inline text boxes and line breaks are dropped; a control's own text
  children (a button's label) are dropped; a text field's inner editor is dropped;
- passwords: an ``input type=password`` is ``password=True`` and carries no value.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import msgspec

from bridge.wire.base import Bounds
from bridge.wire.cdp import AXNode, DomSnapshot, FullAXTree, LayoutMetrics, SnapshotDocument
from bridge.wire.raw import RawNode, RawTree
from bridge.wire.web_walk import PageWalk

WEB_PREFIX = "web:"
"""What every web node's automation id and class start with (the mark)."""
WEB_HANDLE_BASE = -1_000_000_000
"""Web nodes' raw handles are ``WEB_HANDLE_BASE - i`` (no agent knows them; vision's are
-1 - i)."""
MAX_NODES = 1500
MAX_BYTES = 512 * 1024
MAX_DEPTH = 64
MAX_TEXT = 1000

FOLDED = frozenset(
    {"generic", "none", "presentation", "LabelText", "group", "Section", "div", "span",
     "main", "form", "region", "article", "banner", "contentinfo", "navigation", "complementary"}
)  # fmt: skip
"""Roles that only group: their children take their place (unless they have a name)."""
DROPPED = frozenset({"InlineTextBox", "LineBreak", "ListMarker"})
LEAF_CONTROLS = frozenset(
    {"button", "link", "textbox", "searchbox", "checkbox", "radio", "switch", "slider",
     "combobox", "menuitem", "menuitemcheckbox", "menuitemradio", "tab", "option",
     "heading", "img", "image", "spinbutton", "StaticText", "progressbar", "meter"}
)  # fmt: skip
"""Controls whose descendants are only their own text (dropped)."""
CLICKABLE = frozenset(
    {"button", "link", "checkbox", "radio", "switch", "menuitem", "menuitemcheckbox",
     "menuitemradio", "tab", "option", "combobox", "textbox", "searchbox", "listitem"}
)  # fmt: skip
EDITABLE = frozenset({"textbox", "searchbox", "combobox", "spinbutton"})
CHECKABLE = frozenset({"checkbox", "radio", "switch", "menuitemcheckbox", "menuitemradio"})


@dataclass(frozen=True, slots=True)
class WebItem:
    """One element of the page as the hub shows it."""

    parent: int
    """Index of the parent item, or -1 (directly under the WebView)."""
    role: str
    backend_id: int | None
    html_id: str | None
    name: str | None
    value: str | None
    hint: str | None
    bounds: Bounds | None
    visible: bool
    focusable: bool = False
    focused: bool = False
    disabled: bool = False
    checked: bool | None = None
    selected: bool = False
    password: bool = False
    heading: bool = False
    scrollable: bool = False
    """Its content scrolls (the page itself, or a box with ``overflow-y`` auto/scroll whose
    content is taller): it takes SCROLL_FORWARD / SCROLL_BACKWARD."""

    @property
    def automation_id(self) -> str:
        if self.html_id:
            return f"{WEB_PREFIX}#{self.html_id}"
        return f"{WEB_PREFIX}{self.backend_id if self.backend_id is not None else 'x'}"


@dataclass(frozen=True, slots=True)
class WebContent:
    """What one page shows inside one WebView."""

    items: tuple[WebItem, ...]
    truncated: str | None = None
    url: str | None = None


@dataclass(frozen=True, slots=True)
class Viewport:
    """The page's visual viewport (CSS px) and the WebView's box (device px)."""

    box: Bounds
    page_x: float
    page_y: float
    css_width: float
    css_height: float

    @property
    def scale(self) -> float:
        width = self.box[2] - self.box[0]
        return width / self.css_width if self.css_width > 0 else 1.0

    def to_device(self, x: float, y: float, w: float, h: float) -> Bounds:
        s = self.scale
        left = self.box[0] + (x - self.page_x) * s
        top = self.box[1] + (y - self.page_y) * s
        return (round(left), round(top), round(left + w * s), round(top + h * s))

    def to_css(self, x: int, y: int) -> tuple[float, float]:
        """A device point inside the WebView -> the page's CSS point (viewport-relative)."""
        s = self.scale
        return ((x - self.box[0]) / s, (y - self.box[1]) / s)


def viewport_of(metrics: LayoutMetrics, box: Bounds) -> Viewport:
    vv = metrics.cssVisualViewport
    return Viewport(box, vv.pageX, vv.pageY, vv.clientWidth, vv.clientHeight)


@dataclass(frozen=True, slots=True)
class _Dom:
    boxes: dict[int, tuple[float, float, float, float]]
    """Backend node id -> its box in CSS pixels of the top document (frames' boxes moved by
    their frame's place)."""
    ids: dict[int, str]
    passwords: frozenset[int]
    placeholders: dict[int, str]
    scrollers: frozenset[int] = frozenset()
    frames: dict[int, str] = field(default_factory=dict)
    """A frame owner's (``iframe``) backend node id -> its document's frame id."""
    clips: dict[int, tuple[float, float, float, float]] = field(default_factory=dict)
    """Nodes of frames' documents -> their frame's visible box (top document CSS px)."""
    frame_scrolls: frozenset[int] = frozenset()
    """Frame owners whose document is taller than the frame (the frame scrolls)."""


SCROLLING = frozenset({"auto", "scroll"})
MAX_FRAMES = 8
"""Frames' documents read per page (each kind: same-process and cross-process frames)."""
REMOTE = "remote:"
"""The frame key of a cross-process frame's tree (``web_items``' ``remote``)."""
REMOTE_SHIFT = 10**10
"""A cross-process frame's DOM node ids are its own: the ``k``-th such frame's are moved to
``k * REMOTE_SHIFT + id`` so ids stay unique in the page (``shifted`` does it; the page
session routes them back)."""

Rect = tuple[float, float, float, float]


def _clip(a: Rect | None, b: Rect) -> Rect:
    if a is None:
        return b
    left, top = max(a[0], b[0]), max(a[1], b[1])
    right, bottom = min(a[0] + a[2], b[0] + b[2]), min(a[1] + a[3], b[1] + b[3])
    return (left, top, max(0.0, right - left), max(0.0, bottom - top))


def _dom_facts(snapshot: DomSnapshot, remote: Mapping[int, DomSnapshot] | None = None) -> _Dom:
    """Layout boxes, id attributes, password inputs, placeholders and scrolling boxes by
    backend node id, over the top document and its frames' documents (each frame's boxes
    moved by where its frame is, less the frame's own scroll)."""
    boxes: dict[int, Rect] = {}
    ids: dict[int, str] = {}
    passwords: set[int] = set()
    placeholders: dict[int, str] = {}
    scrollers: set[int] = set()
    frames: dict[int, str] = {}
    clips: dict[int, Rect] = {}
    frame_scrolls: set[int] = set()
    docs = snapshot.documents[: MAX_FRAMES + 1]
    strings = snapshot.strings

    def s(i: int) -> str:
        return strings[i] if 0 <= i < len(strings) else ""

    # where each document is: (dx, dy) from its CSS px to the top document's, and its clip
    place: dict[int, tuple[float, float, Rect | None]] = {0: (0.0, 0.0, None)}
    for _ in range(2):  # frames are listed after their parents; twice covers the rest
        for d, doc in enumerate(docs):
            if d not in place:
                continue
            dx, dy, clip = place[d]
            nodes = doc.nodes
            rare = nodes.contentDocumentIndex
            if not rare.index:
                continue
            owner_box: dict[int, tuple[Rect, Rect]] = {}
            layout = doc.layout
            wanted = set(rare.index)
            for k, index in enumerate(layout.nodeIndex):
                if index in wanted and k < len(layout.bounds):
                    client = layout.clientRects[k] if k < len(layout.clientRects) else ()
                    rect = layout.bounds[k]
                    if len(rect) == 4:
                        inner = tuple(client) if len(client) == 4 else (0.0, 0.0, rect[2], rect[3])
                        owner_box[index] = ((rect[0], rect[1], rect[2], rect[3]), inner)  # type: ignore[assignment]
            for index, child in zip(rare.index, rare.value, strict=False):
                if child in place or not 0 < child < len(docs) or index not in owner_box:
                    continue
                (x, y, _, _), (cx, cy, cw, ch) = owner_box[index]
                left, top = dx + x + cx, dy + y + cy
                sub = docs[child]
                place[child] = (
                    left - sub.scrollOffsetX,
                    top - sub.scrollOffsetY,
                    _clip(clip, (left, top, cw, ch)),
                )
                if 0 <= index < len(nodes.backendNodeId):
                    owner = nodes.backendNodeId[index]
                    frames[owner] = s(sub.frameId)
                    if sub.contentHeight > ch + 1:
                        frame_scrolls.add(owner)
    owners: dict[int, Rect] = {}
    """Frame owners' (``iframe``) client boxes in top-document CSS px (for remote frames)."""

    def absorb(doc: SnapshotDocument, s: Callable[[int], str], dx: float, dy: float,
               clip: Rect | None) -> None:  # fmt: skip
        backend = doc.nodes.backendNodeId
        names = doc.nodes.nodeName
        n = len(backend)
        layout = doc.layout
        for k, (index, rect) in enumerate(zip(layout.nodeIndex, layout.bounds, strict=False)):
            if 0 <= index < n and len(rect) == 4 and backend[index] not in boxes:
                boxes[backend[index]] = (rect[0] + dx, rect[1] + dy, rect[2], rect[3])
                if clip is not None:
                    clips[backend[index]] = clip
                if index < len(names) and s(names[index]) in ("IFRAME", "FRAME"):
                    c = layout.clientRects[k] if k < len(layout.clientRects) else ()
                    c4: Rect = (c[0], c[1], c[2], c[3]) if len(c) == 4 else (0, 0, rect[2], rect[3])
                    owners[backend[index]] = (rect[0] + dx + c4[0], rect[1] + dy + c4[1],
                                              c4[2], c4[3])  # fmt: skip
        # a box scrolls when its overflow-y lets it and its scroll area is taller than its
        # client area (the document's own scroller is the page: ``page_scrolls``)
        for k, (index, style) in enumerate(zip(layout.nodeIndex, layout.styles, strict=False)):
            if not style or s(style[0]) not in SCROLLING or not 0 <= index < n:
                continue
            scroll: tuple[float, ...] = layout.scrollRects[k] if k < len(layout.scrollRects) else ()
            client: tuple[float, ...] = layout.clientRects[k] if k < len(layout.clientRects) else ()
            if len(scroll) == 4 and len(client) == 4 and scroll[3] > client[3] + 1:
                scrollers.add(backend[index])
        for index, attrs in enumerate(doc.nodes.attributes[:n]):
            if not attrs:
                continue
            bid = backend[index]
            for k in range(0, len(attrs) - 1, 2):
                name, value = s(attrs[k]), s(attrs[k + 1])
                if name == "id" and value:
                    ids[bid] = value[:200]
                elif name == "type" and value.lower() == "password":
                    passwords.add(bid)
                elif name == "placeholder" and value:
                    placeholders[bid] = value[:MAX_TEXT]

    for d, doc in enumerate(docs):
        if d in place:
            absorb(doc, s, *place[d])
    # frames another process renders: their own snapshot, placed in their owner's box
    for owner, other in list((remote or {}).items())[:MAX_FRAMES]:
        box = owners.get(owner)
        if box is None or not other.documents:
            continue
        top_doc = other.documents[0]
        table = other.strings

        def rs(i: int, table: tuple[str, ...] = table) -> str:
            return table[i] if 0 <= i < len(table) else ""

        frames[owner] = f"{REMOTE}{owner}"
        if top_doc.contentHeight > box[3] + 1:
            frame_scrolls.add(owner)
        left, top = box[0], box[1]
        absorb(
            top_doc,
            rs,
            left - top_doc.scrollOffsetX,
            top - top_doc.scrollOffsetY,
            _clip(clips.get(owner), box),
        )
    return _Dom(
        boxes,
        ids,
        frozenset(passwords),
        placeholders,
        frozenset(scrollers),
        frames,
        clips,
        frozenset(frame_scrolls),
    )


def _text(value: str | None) -> str | None:
    if value is None:
        return None
    value = " ".join(value.split())
    return value[:MAX_TEXT] or None


def _props(node: AXNode) -> dict[str, bool | str | None]:
    out: dict[str, bool | str | None] = {}
    for prop in node.properties:
        flag = prop.value.flag()
        out[prop.name] = flag if flag is not None else prop.value.text()
    return out


def web_items(
    ax: FullAXTree,
    snapshot: DomSnapshot,
    viewport: Viewport,
    *,
    margin: int | None = None,
    max_nodes: int = MAX_NODES,
    max_bytes: int = MAX_BYTES,
    url: str | None = None,
    frames: Mapping[str, FullAXTree] | None = None,
    remote: Mapping[int, tuple[FullAXTree, DomSnapshot]] | None = None,
) -> WebContent:
    """The page's elements under the WebView (see the module docstring). ``frames``: the
    accessibility trees of frames' documents by frame id (``getFullAXTree`` with
    ``frameId``); each is merged under its ``Iframe`` node, its boxes where the frame is and
    its elements visible only inside the frame's box. ``remote``: frames another process
    renders, by their owner's DOM node id: their tree and snapshot, ids already ``shifted``."""
    dom = _dom_facts(snapshot, {owner: snap for owner, (_, snap) in (remote or {}).items()})
    trees = dict(list((frames or {}).items())[:MAX_FRAMES])
    remote_trees = list((remote or {}).items())[:MAX_FRAMES]
    trees.update({f"{REMOTE}{owner}": tree for owner, (tree, _) in remote_trees})
    frame_trees = {
        fid: ({n.nodeId: n for n in tree.nodes},
              next((n for n in tree.nodes if n.parentId is None), None))
        for fid, tree in trees.items()
    }  # fmt: skip
    page_scrolls = bool(snapshot.documents) and (
        snapshot.documents[0].contentHeight > viewport.css_height + 1
    )
    by_id = {n.nodeId: n for n in ax.nodes}
    root = next((n for n in ax.nodes if n.parentId is None), None)
    if root is None:
        return WebContent((), None, url)
    box = viewport.box
    grow = margin if margin is not None else (box[3] - box[1]) // 2
    reach = (box[0], box[1] - grow, box[2], box[3] + grow)
    items: list[WebItem] = []
    spent = 0
    cut: str | None = None

    def bounds_of(node: AXNode) -> Bounds | None:
        if node.backendDOMNodeId is None:
            return None
        rect = dom.boxes.get(node.backendDOMNodeId)
        if rect is None or rect[2] <= 0 or rect[3] <= 0:
            return None
        return viewport.to_device(*rect)

    def visible(bounds: Bounds | None, bid: int | None) -> bool:
        if bounds is None:
            return True
        clip = dom.clips.get(bid) if bid is not None else None
        if clip is not None and not _meets(bounds, viewport.to_device(*clip)):
            return False
        return _meets(bounds, box)

    def visit(
        node: AXNode,
        parent: int,
        parent_name: str | None,
        depth: int,
        by_id: dict[str, AXNode] = by_id,
    ) -> None:
        nonlocal spent, cut
        if cut is not None or depth > MAX_DEPTH:
            return
        role = (node.role.text() if node.role else None) or "none"
        if role in DROPPED:
            return
        name = _text(node.name.text()) if node.name else None
        children = [by_id[c] for c in node.childIds if c in by_id]
        scroller = node.backendDOMNodeId in dom.scrollers
        folded = node.ignored or (role in FOLDED and not name) or (role == "paragraph" and not name)
        if folded and not scroller:
            for child in children:
                visit(child, parent, parent_name, depth + 1, by_id)
            return
        if role == "StaticText" and (name is None or name == parent_name):
            return
        bounds = box if role == "RootWebArea" else bounds_of(node)  # the page fills the WebView
        if bounds is not None and not _meets(bounds, reach) and role != "RootWebArea":
            return  # outside the visible part and its margin (its subtree too)
        props = _props(node)
        bid = node.backendDOMNodeId
        password = bid is not None and bid in dom.passwords
        value = None if password else _text(node.value.text() if node.value else None)
        hint = dom.placeholders.get(bid) if bid is not None else None
        checked_prop = props.get("checked")
        item = WebItem(
            parent=parent,
            role=role,
            backend_id=bid,
            html_id=dom.ids.get(bid) if bid is not None else None,
            name=name,
            value=value,
            hint=_text(hint) if hint and hint != name else None,
            bounds=bounds,
            visible=visible(bounds, bid),
            focusable=props.get("focusable") is True,
            focused=props.get("focused") is True,
            disabled=props.get("disabled") is True,
            checked=(checked_prop in (True, "true", "mixed")) if role in CHECKABLE else None,
            selected=props.get("selected") is True,
            password=password,
            heading=role == "heading",
            scrollable=scroller
            or (role == "RootWebArea" and page_scrolls)
            or (bid is not None and bid in dom.frame_scrolls),
        )
        size = 48 + sum(len(t) for t in (name, value, item.hint, item.html_id) if t)
        if len(items) >= max_nodes or spent + size > max_bytes:
            cut = (
                f"web content cut at {len(items)} nodes / {spent} bytes "
                f"(caps: {max_nodes} nodes, {max_bytes} bytes)"
            )
            return
        spent += size
        here = len(items)
        items.append(item)
        if role in EDITABLE:
            return  # the field's inner editor
        for child in children:
            if role in LEAF_CONTROLS and _only_text(child, by_id):
                continue
            visit(child, here, name, depth + 1, by_id)
        frame = dom.frames.get(bid) if bid is not None else None
        inner = frame_trees.get(frame) if frame is not None else None
        inner_by_id, inner_root = inner if inner is not None else ({}, None)
        if inner_root is not None:  # the frame's document, under its frame
            for child in (inner_by_id[c] for c in inner_root.childIds if c in inner_by_id):
                visit(child, here, name, depth + 1, inner_by_id)

    visit(root, -1, None, 0)
    return WebContent(_prune(items), cut, url)


def walk_items(
    walk: PageWalk,
    box: Bounds,
    *,
    margin: int | None = None,
    max_nodes: int = MAX_NODES,
    max_bytes: int = MAX_BYTES,
) -> WebContent:
    """A page walked from inside (``bridge.devices.web.walker``: iOS's Web Inspector has no
    accessibility-tree command) as web items, with the same mapping, culling, budget and
    marks as ``web_items``; the walker's element ids stand for DOM node ids."""
    viewport = Viewport(box, walk.sx, walk.sy, walk.vw, walk.vh)
    grow = margin if margin is not None else (box[3] - box[1]) // 2
    reach = (box[0], box[1] - grow, box[2], box[3] + grow)
    items: list[WebItem] = [
        WebItem(parent=-1, role="RootWebArea", backend_id=0, html_id=None,
                name=_text(walk.title), value=None, hint=None, bounds=box, visible=True,
                scrollable=walk.sh > walk.vh + 1)
    ]  # fmt: skip
    index: dict[int, int] = {-1: 0}
    spent = 0
    cut: str | None = None
    names: dict[int, str | None] = {0: items[0].name}
    for k, node in enumerate(walk.nodes):
        parent = index.get(node.p)
        if parent is None:
            continue  # its parent was left out: so is it
        name = _text(node.n)
        if node.r == "StaticText" and (name is None or name == names.get(parent)):
            continue
        bounds = None
        if node.w > 0 and node.ht > 0:
            bounds = viewport.to_device(node.x, node.y, node.w, node.ht)
            if not _meets(bounds, reach):
                continue
        flags = node.f
        password = "P" in flags
        item = WebItem(
            parent=parent,
            role=node.r[:64],
            backend_id=node.k,
            html_id=node.i,
            name=name,
            value=None if password else _text(node.v),
            hint=_text(node.h),
            bounds=bounds,
            visible=bounds is None or _meets(bounds, box),
            focusable="F" in flags,
            focused="S" in flags,
            disabled="D" in flags,
            checked=True if "C" in flags else (False if "U" in flags else None),
            selected="E" in flags,
            password=password,
            heading=node.r == "heading",
            scrollable="L" in flags,
        )
        size = 48 + sum(len(t) for t in (name, item.value, item.hint, item.html_id) if t)
        if len(items) >= max_nodes or spent + size > max_bytes:
            cut = (
                f"web content cut at {len(items)} nodes / {spent} bytes "
                f"(caps: {max_nodes} nodes, {max_bytes} bytes)"
            )
            break
        spent += size
        index[k] = len(items)
        names[len(items)] = name
        items.append(item)
    return WebContent(_prune(items), cut, walk.url[:2048] or None)


def shifted(ax: FullAXTree, snapshot: DomSnapshot, shift: int) -> tuple[FullAXTree, DomSnapshot]:
    """A cross-process frame's tree and snapshot with every DOM node id moved by ``shift``
    (``REMOTE_SHIFT`` times the frame's number)."""
    nodes = tuple(
        n
        if n.backendDOMNodeId is None
        else msgspec.structs.replace(n, backendDOMNodeId=n.backendDOMNodeId + shift)
        for n in ax.nodes
    )
    docs = tuple(
        msgspec.structs.replace(
            d,
            nodes=msgspec.structs.replace(
                d.nodes, backendNodeId=tuple(b + shift for b in d.nodes.backendNodeId)
            ),
        )
        for d in snapshot.documents
    )
    return FullAXTree(nodes=nodes), msgspec.structs.replace(snapshot, documents=docs)


def _only_text(node: AXNode, by_id: dict[str, AXNode]) -> bool:
    role = node.role.text() if node.role else None
    if role in ("StaticText", "InlineTextBox", "LineBreak"):
        return True
    if role in FOLDED or node.ignored:
        return all(_only_text(by_id[c], by_id) for c in node.childIds if c in by_id)
    return False


def _prune(items: list[WebItem]) -> tuple[WebItem, ...]:
    """Drop unnamed, boxless leaves (nothing to read, nowhere to tap); parents re-pointed."""
    has_child = {it.parent for it in items}
    keep = [
        i == 0 or i in has_child or it.bounds is not None or it.name is not None
        for i, it in enumerate(items)
    ]
    if all(keep):
        return tuple(items)
    new_index: dict[int, int] = {}
    out: list[WebItem] = []
    for i, it in enumerate(items):
        if not keep[i]:
            continue
        parent = it.parent
        while parent >= 0 and not keep[parent]:
            parent = items[parent].parent
        new_index[i] = len(out)
        mapped = new_index.get(parent, -1) if parent >= 0 else -1
        out.append(it if mapped == it.parent else _replace(it, parent=mapped))
    return tuple(out)


def _replace(item: WebItem, **changes: object) -> WebItem:
    import dataclasses

    return dataclasses.replace(item, **changes)  # type: ignore[arg-type]


def _meets(a: Bounds, b: Bounds) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@dataclass(frozen=True, slots=True)
class WebOverlay:
    """Web content to insert under the WebView whose bounds are ``anchor``."""

    anchor: Bounds
    content: WebContent
    handle_base: int = WEB_HANDLE_BASE
    """Its nodes' raw handles are ``handle_base - i`` (``WebOverlays`` gives each page its
    own range)."""

    def apply(self, raw: RawTree) -> RawTree:
        """``raw`` with the web nodes inserted right after the anchor's subtree. The anchor is
        the WebView with those bounds. Else, when exactly one WebView only moved or only
        changed size since the page was read (the page not read at the new place yet), that
        one: moved (same size), the page's nodes move with it; resized with its top-left
        corner in place (a keyboard shrinking it), they stay where they are. Else none
        (``raw`` itself)."""
        items = self.content.items
        if not items:
            return raw
        nodes = raw.nodes
        anchor = -1
        near: list[tuple[int, tuple[int, int]]] = []
        for i, node in enumerate(nodes):
            if not _is_webview(node.class_name) or node.bounds is None:
                continue
            b = node.bounds
            if b == self.anchor:
                anchor = i
            elif _size(b) == _size(self.anchor) or b[:2] == self.anchor[:2]:
                near.append((i, (b[0] - self.anchor[0], b[1] - self.anchor[1])))
        shift = (0, 0)
        if anchor < 0:
            if len(near) != 1:
                return raw
            anchor, shift = near[0]
        end = anchor + 1
        while end < len(nodes) and _descends(nodes, end, anchor):
            end += 1
        base = nodes[anchor]
        added = tuple(
            _raw(
                it,
                self.handle_base - k,
                end + it.parent if it.parent >= 0 else anchor,
                base,
                shift,
            )
            for k, it in enumerate(items)
        )
        n = len(added)
        tail = tuple(
            node if node.parent < end else msgspec.structs.replace(node, parent=node.parent + n)
            for node in nodes[end:]
        )
        return msgspec.structs.replace(raw, nodes=(*nodes[:end], *added, *tail))


HANDLE_RANGE = 10_000_000
"""Raw handles each page of ``WebOverlays`` may use (far more than ``MAX_NODES``)."""


@dataclass(frozen=True, slots=True)
class WebOverlays:
    """Several WebViews' pages on one screen: each overlay under its own WebView (by its
    bounds), each with its own handle range (``of`` builds them so)."""

    overlays: tuple[WebOverlay, ...]

    @staticmethod
    def of(pages: list[tuple[Bounds, WebContent]]) -> WebOverlays:
        return WebOverlays(
            tuple(
                WebOverlay(anchor, content, WEB_HANDLE_BASE - i * HANDLE_RANGE)
                for i, (anchor, content) in enumerate(pages)
            )
        )

    def apply(self, raw: RawTree) -> RawTree:
        for overlay in self.overlays:
            raw = overlay.apply(raw)
        return raw


def _is_webview(class_name: str | None) -> bool:
    return bool(class_name) and class_name.endswith("WebView")  # type: ignore[union-attr]


def _descends(nodes: tuple[RawNode, ...], i: int, ancestor: int) -> bool:
    p = nodes[i].parent
    while p >= 0:
        if p == ancestor:
            return True
        if p < ancestor:
            return False
        p = nodes[p].parent
    return False


def _size(bounds: Bounds) -> tuple[int, int]:
    return bounds[2] - bounds[0], bounds[3] - bounds[1]


def _raw(
    item: WebItem, handle: int, parent: int, anchor: RawNode, shift: tuple[int, int] = (0, 0)
) -> RawNode:
    """``item`` as a raw node under the WebView ``anchor``, moved by ``shift``."""
    bounds = item.bounds
    if bounds is not None and shift != (0, 0):
        dx, dy = shift
        bounds = (bounds[0] + dx, bounds[1] + dy, bounds[2] + dx, bounds[3] + dy)
    editable = item.role in EDITABLE and not item.disabled
    clickable = (
        not item.disabled
        and (item.role in CLICKABLE or item.role == "RootWebArea")
        and (item.role != "RootWebArea")
    )
    text = None if item.role in EDITABLE else item.name
    return RawNode(
        handle=handle,
        parent=parent,
        window=anchor.window,
        class_name=f"{WEB_PREFIX}{item.role}",
        text=text,
        label=item.name if item.role in EDITABLE or item.role == "RootWebArea" else None,
        value=item.value if item.role in EDITABLE else None,
        hint=item.hint,
        automation_id=item.automation_id,
        package=anchor.package,
        bounds=bounds,
        clickable=clickable,
        checkable=item.checked is not None,
        checked=bool(item.checked),
        enabled=not item.disabled,
        focusable=item.focusable,
        focused=item.focused,
        selected=item.selected,
        editable=editable,
        password=item.password,
        visible=item.visible,
        heading=item.heading,
        scrollable=item.scrollable,
    )


MAX_SAME_SHAPE_CHANGES = 64


def same_shape_changes(last: RawTree | None, now: RawTree) -> tuple[int, ...] | None:
    """The indexes of ``now``'s nodes that differ from ``last``'s, when both have the same
    shape (as many nodes, each differing node with the same handle and parent) and at most
    ``MAX_SAME_SHAPE_CHANGES`` differ; None otherwise (the caller runs the full pass)."""
    if last is None or len(last.nodes) != len(now.nodes):
        return None
    out: list[int] = []
    for i, (a, b) in enumerate(zip(last.nodes, now.nodes, strict=True)):
        if a is b or a == b:
            continue
        if a.handle != b.handle or a.parent != b.parent:
            return None
        out.append(i)
        if len(out) > MAX_SAME_SHAPE_CHANGES:
            return None
    return tuple(out)


def is_web_node(automation_id: str | None) -> bool:
    """Whether a node (by its automation id) came from a web page."""
    return automation_id is not None and automation_id.startswith(WEB_PREFIX)


def web_roles_snapshot(ax: bytes, snapshot: bytes) -> tuple[FullAXTree, DomSnapshot]:
    """Decode recorded ``getFullAXTree`` and ``captureSnapshot`` results (tests, bench)."""
    return (
        msgspec.json.decode(ax, type=FullAXTree),
        msgspec.json.decode(snapshot, type=DomSnapshot),
    )

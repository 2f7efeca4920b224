"""What the page walker (``bridge.devices.web.walker``) returns from inside a page that has no
accessibility-tree command (WebKit's Web Inspector): data only.

Every list is capped; a walk over the caps is refused by decoding, never trusted.
"""

from __future__ import annotations

from typing import Annotated

import msgspec

MAX_WALK_NODES = 5000
Short = Annotated[str, msgspec.Meta(max_length=1000)]


class WalkNode(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """One element. ``p``: index of the parent in the walk (-1: the document); ``k``: the
    walker's id for the element (kept for the page's life); ``r``: its ARIA/AX role;
    ``n``/``v``/``h``: name, value, hint; ``i``: HTML id; ``x``, ``y``, ``w``, ``ht``: its
    box in CSS pixels of the document; ``f``: flags (``F``ocusable, focu``S``ed,
    ``D``isabled, ``C``hecked, ``U``nchecked, s``E``lected, ``P``assword, scro``L``lable: its
    content overflows a box that scrolls)."""

    p: int
    k: int
    r: Short
    n: Short | None = None
    v: Short | None = None
    h: Short | None = None
    i: Short | None = None
    x: float = 0.0
    y: float = 0.0
    w: float = 0.0
    ht: float = 0.0
    f: Annotated[str, msgspec.Meta(max_length=16)] = ""


class PageWalk(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    title: Short = ""
    url: Annotated[str, msgspec.Meta(max_length=4096)] = ""
    sx: float = 0.0
    """Scroll offset (CSS px)."""
    sy: float = 0.0
    vw: float = 0.0
    """The visual viewport's size (CSS px)."""
    vh: float = 0.0
    sh: float = 0.0
    """The document's scroll height (CSS px): the page scrolls when it exceeds ``vh``."""
    nodes: Annotated[tuple[WalkNode, ...], msgspec.Meta(max_length=MAX_WALK_NODES)] = ()

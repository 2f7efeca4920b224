"""PictureViews: viewer-sized images of captures (WebP or JPEG at a width), derived once.

Rules:
- a view is named by (capture id, width, format); the width asked for is clamped to
  ``MIN_WIDTH``..``MAX_WIDTH`` and rounded up to a multiple of ``WIDTH_STEP`` (so pages of
  slightly different widths share one view), and never past the capture's own width;
- each view is derived once, in a worker thread, with Pillow (imported there, on first use):
  concurrent requests for one view wait for the one derivation (single-flight); at most
  ``MAX_DERIVING`` derivations run at once for the whole hub;
- views are kept in an LRU bounded in bytes (``max_bytes``); evictions are counted; a view
  larger than the bound is served but not kept;
- the source is what the hub serves as the capture's PNG (the caller's ``source``), so
  whatever the hub does to pictures that leave it applies to views too.
"""

from __future__ import annotations

import io
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Final, Literal

import anyio
import anyio.to_thread

MIN_WIDTH: Final = 64
MAX_WIDTH: Final = 2048
WIDTH_STEP: Final = 32
MAX_BYTES: Final = 32 << 20
MAX_DERIVING: Final = 2
QUALITY: Final = 78
ViewFormat = Literal["webp", "jpeg"]
CONTENT_TYPES: Final[dict[str, str]] = {"webp": "image/webp", "jpeg": "image/jpeg"}


def view_width(asked: int) -> int:
    """The width a request for ``asked`` pixels is served at (before the capture's own)."""
    clamped = min(MAX_WIDTH, max(MIN_WIDTH, asked))
    return -(-clamped // WIDTH_STEP) * WIDTH_STEP


def derive(png: bytes, width: int, fmt: ViewFormat) -> bytes:
    """``png`` scaled to ``width`` (never up), encoded as ``fmt``. Runs in a worker thread."""
    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        image.load()
        picture = image.convert("RGB")
    if picture.width > width:
        height = max(1, round(picture.height * width / picture.width))
        picture = picture.resize((width, height), Image.Resampling.BILINEAR, reducing_gap=2.0)
    out = io.BytesIO()
    if fmt == "webp":
        picture.save(out, "WEBP", quality=QUALITY, method=0)
    else:
        picture.save(out, "JPEG", quality=QUALITY, optimize=False)
    return out.getvalue()


@dataclass(eq=False)
class _Deriving:
    done: anyio.Event = field(default_factory=anyio.Event)
    data: bytes | None = None


@dataclass
class ViewCounts:
    served: int = 0
    derived: int = 0
    shared: int = 0
    evicted: int = 0
    evicted_bytes: int = 0
    failed: int = 0


class PictureViews:
    def __init__(self, max_bytes: int = MAX_BYTES) -> None:
        self.max_bytes = max_bytes
        self._views: OrderedDict[tuple[str, int, str], bytes] = OrderedDict()
        self._bytes = 0
        self._deriving: dict[tuple[str, int, str], _Deriving] = {}
        self._limit = anyio.Semaphore(MAX_DERIVING)
        self.counts = ViewCounts()

    async def view(
        self,
        capture: str,
        width: int,
        fmt: ViewFormat,
        source: Callable[[str], Awaitable[bytes | None]],
    ) -> bytes | None:
        """The view of ``capture`` (None: no such capture, or it is not an image Pillow
        reads)."""
        key = (capture, view_width(width), fmt)
        found = self._views.get(key)
        if found is not None:
            self._views.move_to_end(key)
            self.counts.served += 1
            self.counts.shared += 1
            return found
        pending = self._deriving.get(key)
        if pending is not None:
            await pending.done.wait()
            if pending.data is not None:
                self.counts.served += 1
                self.counts.shared += 1
            return pending.data
        pending = self._deriving[key] = _Deriving()
        try:
            png = await source(capture)
            if png is not None:
                async with self._limit:
                    try:
                        pending.data = await anyio.to_thread.run_sync(derive, png, key[1], fmt)
                    except Exception:  # not an image Pillow reads: answer "no such view"
                        self.counts.failed += 1
                del png
        finally:
            del self._deriving[key]
            pending.done.set()
        if pending.data is not None:
            self.counts.derived += 1
            self.counts.served += 1
            self._keep(key, pending.data)
        return pending.data

    def _keep(self, key: tuple[str, int, str], data: bytes) -> None:
        if len(data) > self.max_bytes:
            return
        self._views[key] = data
        self._bytes += len(data)
        while self._bytes > self.max_bytes:
            _, old = self._views.popitem(last=False)
            self._bytes -= len(old)
            self.counts.evicted += 1
            self.counts.evicted_bytes += len(old)

    def statistics(self) -> dict[str, Any]:
        return {
            **vars(self.counts),
            "kept": len(self._views),
            "bytes": self._bytes,
            "max_bytes": self.max_bytes,
        }

"""``mobridge find SCREENSHOT.png``: what vision reads on a screenshot file, offline.

The file (PNG or JPEG, told by its first bytes) is read with the same path the hub uses for a
blind region (``bridge.vision.reader.RegionReader`` over the whole image: the engine, word
boundaries, junk dropped, TEXT or BUTTON from the shape around the words), so a user can check
a screen before a run and anyone can measure the engine on their own screenshots.

Output: one line per vision node (role, text, confidence, bounds in the image's pixels); with
``--json`` (or piped) one object: ``file``, ``engine``, ``width``, ``height``, ``count`` and
``nodes`` (``text``, ``role``, ``bounds`` as [left, top, right, bottom], ``confidence``; a
target without words, ``bridge.vision.icons``, has empty text and its ``shape``: ``play``,
``pause``, ``close``). ``--text WORDS`` keeps the nodes whose text (or shape) contains WORDS
(case-insensitively). The same file
gives the same output. Exit 2 with one line when vision is not installed or the file is not
an image it can read.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import msgspec

MAX_BYTES = 32 << 20
MAX_SIDE = 16384
"""Images larger than this on a side are refused (a phone screen is at most ~3200)."""
SIGNATURES = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")


class ScreenshotError(Exception):
    """A screenshot that cannot be read: exit 2 with this one line."""


class VisionNodeOut(msgspec.Struct, frozen=True, omit_defaults=True):
    text: str
    role: str
    bounds: tuple[int, int, int, int]
    confidence: float
    shape: str | None = None
    """A target without words: its shape (``play``, ``pause``, ``close``); text is empty."""


class ScreenshotFind(msgspec.Struct, frozen=True):
    file: str
    engine: str
    width: int
    height: int
    count: int
    nodes: tuple[VisionNodeOut, ...]


def is_image(path: Path) -> bool:
    """Whether ``path`` starts like a PNG or a JPEG."""
    try:
        with path.open("rb") as f:
            head = f.read(8)
    except OSError:
        return False
    return any(head.startswith(sig) for sig in SIGNATURES)


def read_screenshot(path: Path) -> ScreenshotFind:
    """The vision nodes of one screenshot file (raises ``ScreenshotError``)."""
    from PIL import Image

    from bridge.vision.cache import ResultCache
    from bridge.vision.engine import load_engine
    from bridge.vision.reader import RegionReader
    from bridge.vision.regions import Region

    engine = load_engine()
    if isinstance(engine, str):
        raise ScreenshotError(engine)
    try:
        if path.stat().st_size > MAX_BYTES:
            raise ScreenshotError(f"{path}: larger than {MAX_BYTES} bytes")
        data = path.read_bytes()
        with Image.open(io.BytesIO(data)) as opened:
            if max(opened.size) > MAX_SIDE:
                raise ScreenshotError(f"{path}: {opened.width}x{opened.height} is too large")
            image = opened.convert("RGB")
    except (OSError, ValueError, Image.DecompressionBombError) as exc:
        raise ScreenshotError(f"{path}: not a readable PNG or JPEG ({exc})") from exc
    reader = RegionReader(engine, ResultCache(capacity=1))
    whole = Region("screenshot", (0, 0, image.width, image.height))
    overlay = reader.read_regions(image, (whole,), 1.0)
    if reader.stats.failures:
        raise ScreenshotError(f"{path}: the OCR engine failed ({reader.stats.last_failure})")
    nodes = tuple(
        VisionNodeOut(
            item.text, item.role.value, item.bounds, round(item.confidence, 3), item.shape
        )
        for _, items in overlay.regions
        for item in items
    )
    return ScreenshotFind(path.name, engine.name, image.width, image.height, len(nodes), nodes)


def cmd_find_screenshot(args: argparse.Namespace) -> int:
    path = Path(args.file)
    unsupported = [
        flag
        for flag, value in (
            ("--query", args.query),
            ("--label", args.label),
            ("--id", args.resource_id),
            ("--role", args.role),
            ("--within", args.within),
            ("--nth", args.nth),
        )
        if value is not None
    ]
    if unsupported:
        print(
            f"mobridge find: {path.name} is a screenshot: only --text filters what vision "
            f"reads on it (not {', '.join(unsupported)})",
            file=sys.stderr,
        )
        return 2
    try:
        found = read_screenshot(path)
    except ScreenshotError as exc:
        print(f"mobridge find: {exc}", file=sys.stderr)
        return 2
    if args.text:
        wanted = args.text.casefold()
        kept = tuple(n for n in found.nodes if wanted in (n.text or n.shape or "").casefold())
        found = msgspec.structs.replace(found, nodes=kept, count=len(kept))
    if sys.stdout.isatty() and not getattr(args, "json", False):
        count = found.count
        print(f"{count} vision node{'s' if count != 1 else ''} in {found.file} ({found.engine})")
        for node in found.nodes:
            left, top, right, bottom = node.bounds
            print(
                f"{node.role:6} {node.text or f'<{node.shape}>'!r} "
                f"[vision {node.confidence:.2f}] "
                f"({left},{top})-({right},{bottom})"
            )
        return 0
    sys.stdout.write(msgspec.json.encode(found).decode() + "\n")
    return 0

"""What a screen recorder made (shared by the hub and the device layers that record)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Recording:
    """The MP4's bytes and what it shows. ``truncated``: it stopped at (or passed) the size
    cap; ``reason``: why it ended early, in words."""

    data: bytes
    frames: int
    width: int
    height: int
    duration_ms: int
    truncated: bool = False
    reason: str | None = None

"""Large transient buffers go back to the system at once (glibc only; elsewhere a no-op).

A screenshot reaches the hub as one agent frame of up to 32 MiB: the frame, its base64 text
and the decoded PNG are freed a moment later. glibc serves allocations above its *mmap
threshold* with their own mappings (returned to the system on free), but it raises that
threshold to the size of each such block freed (up to 32 MiB on 64-bit): after the first
screenshot every later one comes from the heap, whose freed pages stay in the process. A
rogue agent sending 40 screenshots of 15 MiB then left the hub 150 MB larger even though it
kept only two. ``return_large_buffers`` fixes the threshold (1 MiB), which also stops the
dynamic adjustment; small objects are unaffected.

The composition root calls it once when a hub starts; it is idempotent.
"""

from __future__ import annotations

import ctypes
import sys

M_MMAP_THRESHOLD = -3
"""``mallopt`` parameter number in glibc's malloc.h."""
THRESHOLD = 1 << 20


def return_large_buffers(threshold: int = THRESHOLD) -> bool:
    """Set glibc's mmap threshold to ``threshold``; True when it was set."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):  # not glibc (musl has no mallopt)
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, threshold))

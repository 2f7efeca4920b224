"""Rate limits for log records the hub cannot stop at their source.

When the process runs out of file descriptors, asyncio's accept loop reports every failed
``accept()`` (with a traceback), and websockets reports every failed handshake; under a
connection flood that writes hundreds of megabytes of log. ``install_log_limits`` adds a
filter to those loggers that lets one record per (logger, message) through per
``INTERVAL_S`` and folds the rest into a count reported with the next one let through.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Final

INTERVAL_S: Final = 10.0
LIMITED_LOGGERS: Final = ("asyncio", "websockets", "websockets.server")
MAX_KEYS: Final = 256


class RepeatFilter(logging.Filter):
    """Pass the first record of a kind per interval; count the others.

    ``clock`` returns seconds (monotonic); tests pass their own so that the interval does not
    depend on how fast the machine logs.
    """

    def __init__(
        self, interval_s: float = INTERVAL_S, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.interval_s = interval_s
        self._clock = clock
        self._last: dict[tuple[str, str], tuple[float, int]] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        key = (record.name, str(record.msg)[:200])
        now = self._clock()
        seen = self._last.get(key)
        if seen is not None and now - seen[0] < self.interval_s:
            self._last[key] = (seen[0], seen[1] + 1)
            return False
        suppressed = seen[1] if seen is not None else 0
        if len(self._last) >= MAX_KEYS and key not in self._last:
            self._last.clear()
        self._last[key] = (now, 0)
        if suppressed:
            record.msg = f"{record.msg} (and {suppressed} more like it in the last interval)"
            if record.exc_info is not None:
                record.exc_info = None  # one traceback per interval is plenty
        return True


_installed: RepeatFilter | None = None


def install_log_limits() -> RepeatFilter:
    """Attach the shared filter to the noisy loggers (idempotent)."""
    global _installed
    if _installed is None:
        _installed = RepeatFilter()
        for name in LIMITED_LOGGERS:
            logging.getLogger(name).addFilter(_installed)
    return _installed

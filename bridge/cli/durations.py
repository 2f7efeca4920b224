"""LAYER 4 — durations on the command line: ``10s``, ``500ms``, ``2m``, ``1.5s``, ``1h``.

Every option that takes a duration parses it here. A bare number keeps the unit the option
always had (its name says it: ``--timeout-ms`` counts milliseconds, ``--hold SECONDS``
seconds), so old command lines mean what they meant; a number with a unit means exactly that.
Results are whole milliseconds; the caller checks its own bounds (``ms_option`` does it for
argparse, with the bound in the message).
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable

_DURATION = re.compile(r"^\s*(?P<n>\d+(?:\.\d*)?|\.\d+)\s*(?P<unit>ms|s|m|h)?\s*$", re.I)
_UNIT_MS = {"ms": 1.0, "s": 1000.0, "m": 60_000.0, "h": 3_600_000.0}
MAX_DURATION_MS = 7 * 24 * 3_600_000
"""Nothing the CLI waits for is longer than a week; anything above is a typo."""


class DurationError(ValueError):
    """Not a duration: the message says what is expected."""


def parse_ms(text: str, bare_unit: str = "s") -> int:
    """``text`` in whole milliseconds (rounded up, so ``0.5ms`` is not 0); a bare number is
    in ``bare_unit`` (``ms``, ``s``, ``m`` or ``h``). Raises ``DurationError``."""
    found = _DURATION.match(text)
    if found is None:
        raise DurationError(f"{text!r} is not a duration; write it like 10s, 500ms or 2m")
    unit = (found.group("unit") or bare_unit).lower()
    ms = float(found.group("n")) * _UNIT_MS[unit]
    if not math.isfinite(ms) or ms > MAX_DURATION_MS:
        raise DurationError(f"{text!r} is longer than a week")
    return math.ceil(ms)


def ms_option(
    bare_unit: str = "s", *, low_ms: int = 0, high_ms: int = MAX_DURATION_MS
) -> Callable[[str], int]:
    """An argparse ``type``: the duration in milliseconds, within ``low_ms..high_ms``."""

    def parse(text: str) -> int:
        try:
            ms = parse_ms(text, bare_unit)
        except DurationError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
        if not low_ms <= ms <= high_ms:
            raise argparse.ArgumentTypeError(
                f"{text!r} is out of range: {show_ms(low_ms)} to {show_ms(high_ms)}"
            )
        return ms

    parse.__name__ = "duration"  # argparse names the type in its messages
    return parse


def seconds_option(
    bare_unit: str = "s", *, low_ms: int = 0, high_ms: int = MAX_DURATION_MS
) -> Callable[[str], float]:
    """An argparse ``type``: the duration in seconds (a float), ``low_ms`` to ``high_ms``."""
    as_ms = ms_option(bare_unit, low_ms=low_ms, high_ms=high_ms)

    def parse(text: str) -> float:
        return as_ms(text) / 1000.0

    parse.__name__ = "duration"
    return parse


def show_ms(ms: int | float) -> str:
    """A duration as people write it: ``850ms``, ``10s``, ``1.5s``, ``2m``, ``2m30s``."""
    if ms < 1000:
        return f"{ms:g}ms"
    if ms < 60_000:
        return f"{ms / 1000:.3g}s"
    minutes, rest = divmod(round(ms / 1000), 60)
    return f"{minutes}m{rest}s" if rest else f"{minutes}m"

"""Helpers shared by the text-matching and regex-safety tests."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager

from bridge.core.safe_regex import RegexRejected
from bridge.core.textmatch import TextMatched, match_text
from bridge.wire.enums import MatchMode
from bridge.wire.query import TextMatch

EXACT, NORM, CONTAINS, REGEX, SYN = (
    MatchMode.EXACT,
    MatchMode.NORMALIZED_EXACT,
    MatchMode.CONTAINS,
    MatchMode.REGEX,
    MatchMode.SEMANTIC_SYNONYM,
)


def tm(value: str, mode: MatchMode = NORM) -> TextMatch:
    return TextMatch(value=value, match=mode)


def matched(value: str, mode: MatchMode, candidate: str | None) -> TextMatched | None:
    out = match_text(tm(value, mode), candidate)
    assert not isinstance(out, RegexRejected), out
    return out


class _Timeout(Exception):
    pass


@contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Fail instead of hanging: ``re`` checks for signals while it backtracks."""

    def fire(signum: int, frame: object) -> None:
        raise _Timeout(f"took longer than {seconds}s")

    old = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)

"""Device log lines for subscribers: filtering, secret masking and a bounded backlog.

Pure (no clock, no I/O). A subscription's ``LogFilter`` keeps a line when every filter given
matches: ``app`` (the line's app equals it), ``level`` (the line's level is that or more
severe) and ``grep`` (an RE2 pattern found in the tag or the text; compiled by
``bridge.core.safe_regex`` like every caller-supplied pattern). ``LogBacklog`` holds the lines
a subscriber has not been sent yet, at most ``max_lines`` and ``max_bytes`` (text bytes): a
new line that would pass either bound pushes the oldest out and counts it in ``gap``, so a
slow reader costs the hub a fixed amount of memory and learns how many lines it lost.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from bridge.core.safe_regex import RegexRejected, UserRegex, compile_regex
from bridge.core.secret_mask import SecretMasker
from bridge.wire.device_media import LOG_LEVELS, LogLevel, LogLine

LEVEL_RANK: dict[str, int] = {name: rank for rank, name in enumerate(LOG_LEVELS)}
LINE_OVERHEAD = 64
"""Bytes counted per line besides its text (its other fields)."""


@dataclass(frozen=True)
class LogFilter:
    app: str | None = None
    level: LogLevel | None = None
    grep: UserRegex | None = None

    def keeps(self, line: LogLine) -> bool:
        if self.app is not None and line.app != self.app:
            return False
        if self.level is not None and LEVEL_RANK[line.level] < LEVEL_RANK[self.level]:
            return False
        if self.grep is not None:
            return self.grep.search(line.text) or (
                line.tag is not None and self.grep.search(line.tag)
            )
        return True


def make_filter(app: str | None, level: LogLevel | None, grep: str | None) -> LogFilter | str:
    """The filter, or why ``grep`` is refused (one line naming the RE2 rule it broke)."""
    compiled = None
    if grep is not None:
        got = compile_regex(grep)
        if isinstance(got, RegexRejected):
            return f"--grep {grep!r}: {got.reason}"
        compiled = got
    return LogFilter(app, level, compiled)


def mask_line(line: LogLine, masker: SecretMasker, previous: str = "") -> LogLine:
    """``line`` with every secret the hub typed replaced in its text, in every form a reader
    could decode (``SecretMasker.mask_text``); ``previous`` is the unmasked text of the line
    before it in the same stream, so a secret cut between the two is masked in both."""
    text = masker.mask_text_after(previous, line.text)
    if text is line.text:
        return line
    return LogLine(
        seq=line.seq,
        level=line.level,
        text=text,
        tag=line.tag,
        app=line.app,
        pid=line.pid,
        at_ms=line.at_ms,
    )


def line_bytes(line: LogLine) -> int:
    return len(line.text) + LINE_OVERHEAD


@dataclass
class LogBacklog:
    """Lines waiting for one subscriber (module docstring)."""

    max_lines: int
    max_bytes: int
    lines: deque[LogLine] = field(default_factory=deque)
    bytes: int = 0
    gap: int = 0
    """Lines dropped since the last ``take``."""
    dropped_total: int = 0

    def add(self, line: LogLine) -> None:
        size = line_bytes(line)
        self.lines.append(line)
        self.bytes += size
        while self.lines and (len(self.lines) > self.max_lines or self.bytes > self.max_bytes):
            old = self.lines.popleft()
            self.bytes -= line_bytes(old)
            self.gap += 1
            self.dropped_total += 1

    def take(self, budget_bytes: int, max_lines: int) -> tuple[list[LogLine], int]:
        """The oldest lines within ``budget_bytes`` (at least one when any is held) and the
        gap before them; the gap is reset."""
        out: list[LogLine] = []
        spent = 0
        while self.lines and len(out) < max_lines:
            size = line_bytes(self.lines[0])
            if out and spent + size > budget_bytes:
                break
            out.append(self.lines.popleft())
            self.bytes -= size
            spent += size
        gap, self.gap = self.gap, 0
        return out, gap

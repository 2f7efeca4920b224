"""What goes wrong with flow files, always with a place: ``file:line:column: message``.

::

    FlowError            one mistake in one file, at one line (``.file``, ``.line``, ``.column``)
    FlowErrors           every mistake found while loading a suite (``.errors``), raised once

Loading never stops at the first bad step of a file when it can go on: it collects every
``FlowError`` and raises ``FlowErrors``, so a person fixes a file in one pass. Nothing runs
while a suite has any error (``mobridge test`` exits 2).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Place:
    """A position in a flow file (1-based line and column, as editors count)."""

    file: str
    line: int
    column: int = 1

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


class FlowError(Exception):
    """One mistake in a flow file, at a place."""

    def __init__(self, place: Place, message: str) -> None:
        super().__init__(f"{place}: {message}")
        self.place = place
        self.message = message

    @property
    def file(self) -> str:
        return self.place.file

    @property
    def line(self) -> int:
        return self.place.line


class FlowErrors(Exception):
    """Every mistake found while loading; ``str()`` is one line per mistake."""

    def __init__(self, errors: Sequence[FlowError]) -> None:
        self.errors = tuple(errors)
        super().__init__("\n".join(str(e) for e in self.errors))

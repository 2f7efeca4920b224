"""Who holds which client-started resources, bounded per session and per hub (sans-I/O).

A resource is anything a client's request starts that outlives a quick answer and costs the
hub memory, threads or CPU: a screen recording, a log stream, an upload, a history query, a
vision read, a subscription. Each kind has a ``Bound``: at most ``per_session`` held by one
session and ``per_hub`` by all sessions together. The hub calls ``take`` before it starts one
(``None``: granted, else the refusal's reason, and the refusal is counted) and ``give`` when
it ends; ``drop_session`` forgets everything a session held when it closes, however it closes
(the owners of the resources release them; the ledger only counts).

Invariants: a count never goes below zero; ``give`` of something not held is a no-op;
``statistics`` is what ``/v1/stats`` shows under ``resources``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Bound:
    per_session: int
    per_hub: int


class ResourceLedger:
    def __init__(self, bounds: Mapping[str, Bound]) -> None:
        self.bounds = dict(bounds)
        self._held: dict[str, dict[str, int]] = {kind: {} for kind in self.bounds}
        self._refused: dict[str, int] = dict.fromkeys(self.bounds, 0)
        self._peak: dict[str, int] = dict.fromkeys(self.bounds, 0)

    def held(self, kind: str, session: str | None = None) -> int:
        table = self._held[kind]
        return table.get(session, 0) if session is not None else sum(table.values())

    def take(self, kind: str, session: str) -> str | None:
        """Count one more ``kind`` for ``session``: None when granted, else why not."""
        bound = self.bounds[kind]
        mine = self.held(kind, session)
        total = self.held(kind)
        reason = None
        if mine >= bound.per_session:
            reason = (
                f"this session holds {mine} {kind} (at most {bound.per_session} a session); "
                "end one first"
            )
        elif total >= bound.per_hub:
            reason = (
                f"the hub holds {total} {kind} (at most {bound.per_hub} for all sessions); "
                "retry when one ends"
            )
        if reason is not None:
            self._refused[kind] += 1
            return reason
        self._held[kind][session] = mine + 1
        self._peak[kind] = max(self._peak[kind], total + 1)
        return None

    def give(self, kind: str, session: str) -> None:
        table = self._held[kind]
        mine = table.get(session, 0)
        if mine <= 1:
            table.pop(session, None)
        else:
            table[session] = mine - 1

    def drop_session(self, session: str) -> None:
        for table in self._held.values():
            table.pop(session, None)

    def of_session(self, session: str) -> dict[str, int]:
        return {kind: t[session] for kind, t in self._held.items() if session in t}

    def statistics(self) -> dict[str, dict[str, int]]:
        return {
            kind: {
                "held": self.held(kind),
                "sessions": len(self._held[kind]),
                "peak": self._peak[kind],
                "refused": self._refused[kind],
                "per_session": bound.per_session,
                "per_hub": bound.per_hub,
            }
            for kind, bound in self.bounds.items()
        }

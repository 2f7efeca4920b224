"""Stable node ids across one device's captures: ``IdAllocator``.

Rules (``allocate_protos``), in document order:

1. **Same identity.** A node keeps the id of its identity key (automation id, role, ancestor
   chain, item key, and the name when there is no automation id) when that key was present
   last time with the same multiplicity (the k-th node of the key takes the key's k-th id).
2. **Same place.** On a screen that is mostly the same (rule 1 matched at least half of its
   nodes), a node left without an id takes the id of the previous capture's node at its spot
   — same parent (by id) and the same position among its siblings — when that node's id went
   unclaimed by rule 1, it was of the same kind (window, role, raw class, automation id, raw
   row index), and its identity key differs from the node's (its text or its subtree's texts
   changed: an edit in place, not one of several look-alikes). A list row takes it only while
   at least half of its list's rows kept their place by rule 1: when every row changes at once
   the list scrolled or was refilled, and a recycled row showing another item must not keep
   the old item's id. Another screen that happens to have a text at the same spot is not the
   same element: rule 2 does not apply there.
3. Otherwise a fresh id from a counter that only grows.

So an element that stays in place while its text changes keeps its id (a one-field delta),
and an id is never given to another element: any doubt mints a fresh one. The refs' STALE
check, not the id, is what protects an action from a changed element.

``reallocate`` applies the same rules to the nodes whose key changed since the previous
capture of the same shape and to every node sharing a key with them; every other node keeps
its id, exactly as the full pass would decide.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from bridge.wire.enums import Role

if TYPE_CHECKING:
    from bridge.core.node_rules import Proto

Key = tuple[object, ...]
Spot = tuple[str | None, int]
"""(parent id or None for a root, position among siblings)."""


class Occupant(NamedTuple):
    """The previous capture's node at a spot (immutable; a named tuple: one is made per
    node of every full pass, and a frozen dataclass's ``__init__`` costs more)."""

    node_id: str
    key: Key
    kind: tuple[object, ...]


def kind_of(p: Proto) -> tuple[object, ...]:
    raw = p.raw
    return (raw.window, p.final_role, raw.class_name, raw.automation_id, raw.item_row)


def spot_of(p: Proto, protos: Sequence[Proto]) -> Spot:
    return (protos[p.parent].nid if p.parent >= 0 else None, p.position)


@dataclass
class IdAllocator:
    """Stable node ids for one device's sequence of captures (see the module docstring).
    Not thread-safe; one per device."""

    next_id: int = 1
    previous: dict[Key, list[str]] = field(default_factory=dict)
    spots: dict[Spot, Occupant] = field(default_factory=dict)

    def _fresh(self) -> str:
        nid = f"n{self.next_id}"
        self.next_id += 1
        return nid

    def allocate_protos(
        self,
        protos: Sequence[Proto],
        members: dict[Key, list[int]] | None = None,
        *,
        remember: bool = True,
    ) -> None:
        """Set ``nid`` of every proto (keys filled in) and remember this capture.
        ``members``: each key's nodes in document order, keys in order of first appearance
        (the caller's grouping, when it has one; else built here). ``remember=False`` skips
        remembering (``previous`` and ``spots`` stay as they were): only for an allocator
        no capture will ever be allocated with again (a one-shot normalization's).

        Keys are ancestor chains, so hashing one is the cost: each node's key is hashed
        once to group it and each distinct key once to look it up and once to remember it
        (issue 41's profile)."""
        if members is None:
            members = {}
            for p in protos:
                members.setdefault(p.key, []).append(p.index)
        claimed: set[str] = set()
        strong: set[int] = set()
        previous = self.previous
        for key, group in members.items():
            old = previous.get(key)
            if old is not None and len(old) == len(group):
                for i, nid in zip(group, old, strict=True):
                    protos[i].nid = nid
                    strong.add(i)
                claimed.update(old)
            else:
                for i in group:
                    protos[i].nid = ""
        stable: dict[int, bool] = {}
        pool = _Claimed(claimed)
        same_screen = 2 * len(strong) >= len(protos)
        for p in protos:
            if not p.nid:
                p.nid = self._place(p, protos, pool, strong, stable, same_screen)
        if not remember:
            return
        self.previous = {key: [protos[i].nid for i in group] for key, group in members.items()}
        self.spots = {spot_of(p, protos): Occupant(p.nid, p.key, kind_of(p)) for p in protos}

    def _place(
        self,
        p: Proto,
        protos: Sequence[Proto],
        pool: _Pool,
        strong: Container[int],
        stable: dict[int, bool],
        same_screen: bool,
    ) -> str:
        """Rule 2, else rule 3, for a node rule 1 left without an id."""
        if not same_screen:
            return self._fresh()
        there = self.spots.get(spot_of(p, protos))
        if (
            there is not None
            and there.key != p.key
            and there.kind == kind_of(p)
            and pool.free(there.node_id)
            and (
                p.final_role is not Role.LIST_ITEM
                or p.parent < 0
                or self._rows_in_place(protos[p.parent], protos, strong, stable)
            )
        ):
            pool.take(there.node_id)
            return there.node_id
        return self._fresh()

    def _rows_in_place(
        self,
        listing: Proto,
        protos: Sequence[Proto],
        strong: Container[int],
        stable: dict[int, bool],
    ) -> bool:
        """At least half of ``listing``'s rows kept their id and their place by rule 1."""
        found = stable.get(listing.index)
        if found is None:
            rows = [protos[c] for c in listing.children if protos[c].final_role is Role.LIST_ITEM]
            in_place = 0
            for row in rows:
                if row.index not in strong:
                    continue
                there = self.spots.get((listing.nid, row.position))
                if there is not None and there.node_id == row.nid:
                    in_place += 1
            found = stable[listing.index] = 2 * in_place >= len(rows)
        return found

    def reallocate(
        self,
        protos: Sequence[Proto],
        members: dict[Key, list[int]],
        touched: set[Key],
        kinds: Iterable[int],
    ) -> set[int]:
        """The rules for every node of a ``touched`` key (a key some node left or took since
        the previous capture of the same shape); ``members`` maps each key to its nodes in
        document order, ``kinds`` the nodes whose kind may have changed. Returns the indexes
        whose id changed; remembers this capture."""
        before: dict[int, str] = {}
        released: set[str] = set()
        for key in touched:
            released.update(self.previous.get(key, ()))
            for i in members.get(key, ()):
                before[i] = protos[i].nid
        strong: set[int] = set()
        unmatched: list[int] = []
        claimed: set[str] = set()
        for key in touched:
            idx = members.get(key, [])
            old = self.previous.get(key)
            if old is not None and len(old) == len(idx):
                for i, nid in zip(idx, old, strict=True):
                    protos[i].nid = nid
                    claimed.add(nid)
                    strong.add(i)
            else:
                unmatched.extend(idx)
        pool = _Released(released - claimed)
        stable: dict[int, bool] = {}
        kept = _Kept(strong, before)
        same_screen = 2 * (len(protos) - len(before) + len(strong)) >= len(protos)
        for i in sorted(unmatched):
            protos[i].nid = self._place(protos[i], protos, pool, kept, stable, same_screen)
        for key in touched:
            group = members.get(key)
            if group:
                self.previous[key] = [protos[i].nid for i in group]
            else:
                self.previous.pop(key, None)
        changed = {i for i, nid in before.items() if protos[i].nid != nid}
        self._respot(protos, changed, before, set(kinds) | set(before))
        return changed

    def _respot(
        self,
        protos: Sequence[Proto],
        changed: set[int],
        before: dict[int, str],
        touched: set[int],
    ) -> None:
        """Keep ``spots`` equal to what the full pass records for this capture."""
        moved: set[int] = set()
        for i in changed:
            for c in protos[i].children:
                self.spots.pop((before[i], protos[c].position), None)
                moved.add(c)
        for i in touched | changed | moved:
            p = protos[i]
            self.spots[spot_of(p, protos)] = Occupant(p.nid, p.key, kind_of(p))


class _Pool:
    """Ids rule 2 may give: ``free`` asks, ``take`` gives one."""

    def free(self, node_id: str) -> bool:
        raise NotImplementedError

    def take(self, node_id: str) -> None:
        raise NotImplementedError


class _Claimed(_Pool):
    """Full pass: every previous id not claimed yet."""

    def __init__(self, claimed: set[str]) -> None:
        self.claimed = claimed

    def free(self, node_id: str) -> bool:
        return node_id not in self.claimed

    def take(self, node_id: str) -> None:
        self.claimed.add(node_id)


class _Released(_Pool):
    """Incremental pass: the ids of the re-decided keys that no node took by rule 1 (every
    other previous id is still held by its node)."""

    def __init__(self, released: set[str]) -> None:
        self.released = released

    def free(self, node_id: str) -> bool:
        return node_id in self.released

    def take(self, node_id: str) -> None:
        self.released.discard(node_id)


class _Kept(Container[int]):
    """Rule 1's matches in an incremental pass: the re-decided nodes rule 1 matched, and every
    node that was not re-decided (it kept its key, its multiplicity and so its id)."""

    def __init__(self, strong: set[int], redecided: dict[int, str]) -> None:
        self.strong = strong
        self.redecided = redecided

    def __contains__(self, index: object) -> bool:
        return index in self.strong or index not in self.redecided

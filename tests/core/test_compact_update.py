"""``CompactView.update`` on a truncated view (issue 41): growth that still fits keeps every
decision without a rebuild, and gives exactly what ``build_compact`` gives; a shrink, or
growth past the budget, builds again — and gives the same too."""

from __future__ import annotations

import msgspec
import pytest

from bridge.bench.core import generated_xml
from bridge.core.compact import COMPACT_BUDGET_BYTES, CompactView, build_compact
from bridge.core.importers import ImportFailure, import_dump
from bridge.core.normalize import Normalized, SnapshotContext, normalize
from bridge.wire.node import SemanticNode


def _nodes(n: int) -> list[SemanticNode]:
    raw = import_dump(generated_xml(n), "t")
    assert not isinstance(raw, ImportFailure)
    out = normalize(raw, SnapshotContext("t", "s_1", 0))
    assert isinstance(out, Normalized)
    return list(out.full.nodes)


def _same(a: CompactView, b: CompactView) -> None:
    assert a.nodes == b.nodes
    assert (a.truncated, a.cut, a.size) == (b.truncated, b.cut, b.size)


def _edit(nodes: list[SemanticNode], i: int, text: str) -> list[SemanticNode]:
    out = list(nodes)
    out[i] = msgspec.structs.replace(nodes[i], text=text)
    return out


@pytest.fixture(scope="module")
def big() -> list[SemanticNode]:
    return _nodes(2000)


def test_growth_of_a_kept_node_that_still_fits_is_patched_in_place(big: list[SemanticNode]) -> None:
    view = build_compact(big)
    assert view.truncated and view.size <= COMPACT_BUDGET_BYTES
    i = next(j for j, n in enumerate(big) if n.text and view.position[j] >= 0)
    slack = COMPACT_BUDGET_BYTES - view.size
    grown = _edit(big, i, big[i].text + "!" * min(slack, 3))  # type: ignore[operator]
    expected = build_compact(grown)
    got = view.update(grown, [i], (), ())
    if slack > 0:
        assert got is view  # no rebuild
    _same(got, expected)


def test_growth_of_a_cut_node_keeps_it_cut(big: list[SemanticNode]) -> None:
    view = build_compact(big)
    i = next(j for j, n in enumerate(big) if n.text and view.candidate[j] and view.position[j] < 0)
    grown = _edit(big, i, big[i].text + " and more")  # type: ignore[operator]
    got = view.update(grown, [i], (), ())
    assert got is view
    _same(got, build_compact(grown))


def test_a_shrink_or_growth_past_the_budget_builds_again_and_agrees(
    big: list[SemanticNode],
) -> None:
    view = build_compact(big)
    i = next(j for j, n in enumerate(big) if n.text and view.position[j] >= 0)
    shrunk = _edit(big, i, "x")
    got = build_compact(big).update(shrunk, [i], (), ())
    _same(got, build_compact(shrunk))
    huge = _edit(big, i, "y" * (COMPACT_BUDGET_BYTES // 2))
    got = build_compact(big).update(huge, [i], (), ())
    _same(got, build_compact(huge))

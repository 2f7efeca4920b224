"""Tree and layout hashes: the definitions in ``bridge.core.identity`` and the rows that
normalization caches per node must give the same digests.

``tree_hash(nodes)`` and ``layout_hash(nodes)`` are the reference definitions; the
normalizer computes the same digests from per-node rows (``tree_row``, ``layout_row``) so
that an incremental pass rehashes only what changed, and ``tree_row`` writes the semantic
row field by field (``_row_text``) instead of building the tuple ``_semantic_row``. These
tests hold the fast paths to the definitions, and the definitions to what they promise:
every semantic field counts, bounds and node ids do not.
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.core import identity
from bridge.core.importers import import_dump
from bridge.core.normalize import Normalized, SnapshotContext, normalize
from bridge.wire.enums import ActionVerb, Role, Source
from bridge.wire.node import CollectionInfo, NodeState, SemanticNode
from bridge.wire.raw import RawTree

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "semantics"


def _normalized(path: Path) -> Normalized:
    raw = import_dump(path.read_bytes(), "fixture")
    assert isinstance(raw, RawTree), raw
    out = normalize(raw, SnapshotContext("dev", "s_1", 0))
    assert isinstance(out, Normalized), out
    return out


SCREENS = sorted(FIXTURES.glob("*.xml"))


def test_there_are_screens_to_hash() -> None:
    assert len(SCREENS) >= 5


@pytest.mark.parametrize("path", SCREENS, ids=lambda p: p.name)
def test_normalize_hashes_as_the_definitions_do(path: Path) -> None:
    out = _normalized(path)
    nodes = out.full.nodes
    assert out.full.tree_hash == identity.tree_hash(nodes)
    assert out.layout_hash == identity.layout_hash(nodes)
    # 12 and 8 bytes, hex
    assert len(out.full.tree_hash) == 24 and int(out.full.tree_hash, 16) >= 0
    assert len(out.layout_hash) == 16 and int(out.layout_hash, 16) >= 0


def _node(**fields: object) -> SemanticNode:
    base: dict[str, object] = {
        "node_id": "n1",
        "role": Role.BUTTON,
        "label": "Save",
        "bounds": (0, 0, 100, 50),
        "state": NodeState(enabled=True, clickable=True),
        "actions": (ActionVerb.CLICK,),
    }
    base.update(fields)
    return SemanticNode(**base)  # type: ignore[arg-type]


def _tree(*nodes: SemanticNode) -> tuple[SemanticNode, ...]:
    root = SemanticNode(node_id="root", role=Role.SCREEN, bounds=(0, 0, 1080, 2400))
    return (root, *(msgspec.structs.replace(n, parent_id="root") for n in nodes))


# each semantic field, changed from _node()'s value
SEMANTIC_CHANGES: dict[str, object] = {
    "role": Role.LINK,
    "label": "Save all",
    "text": "Save",
    "value": "1",
    "hint": "Saves",
    "resource_id": "app:id/save",
    "automation_id": "save",
    "class_name": "android.widget.Button",
    "state": NodeState(enabled=False, clickable=True),
    "actions": (ActionVerb.CLICK, ActionVerb.LONG_CLICK),
    "collection": CollectionInfo(index=0),
    "source": Source.VISION,
}


@pytest.mark.parametrize("field", sorted(SEMANTIC_CHANGES))
def test_every_semantic_field_changes_the_tree_hash_and_not_the_layout(field: str) -> None:
    before = _tree(_node())
    after = _tree(_node(**{field: SEMANTIC_CHANGES[field]}))
    assert identity.tree_hash(before) != identity.tree_hash(after)
    assert identity.layout_hash(before) == identity.layout_hash(after)


@pytest.mark.parametrize(
    "state",
    [
        NodeState(enabled=True, clickable=True, focused=True),
        NodeState(enabled=True, clickable=True, selected=True),
        NodeState(enabled=True, clickable=True, checked=True),
        NodeState(enabled=True, clickable=True, password=True),
        NodeState(enabled=True, clickable=False),
    ],
)
def test_every_state_flag_changes_the_tree_hash(state: NodeState) -> None:
    assert identity.tree_hash(_tree(_node())) != identity.tree_hash(_tree(_node(state=state)))


def test_collection_fields_each_change_the_tree_hash() -> None:
    hashes = {
        identity.tree_hash(_tree(_node(collection=c)))
        for c in (
            CollectionInfo(index=0),
            CollectionInfo(index=1),
            CollectionInfo(index=0, item_key="a"),
            CollectionInfo(index=0, row_count=5),
        )
    }
    assert len(hashes) == 4


def test_bounds_and_ids_change_only_the_layout() -> None:
    before = _tree(_node())
    moved = _tree(_node(bounds=(0, 10, 100, 60)))
    renamed = _tree(_node(node_id="n77"))
    assert identity.tree_hash(before) == identity.tree_hash(moved) == identity.tree_hash(renamed)
    assert identity.layout_hash(before) != identity.layout_hash(moved)
    assert identity.layout_hash(before) == identity.layout_hash(renamed)


def test_the_shape_counts_and_the_order_counts() -> None:
    a, b = _node(node_id="a", label="A"), _node(node_id="b", label="B")
    siblings = _tree(a, b)
    nested = (*_tree(a), msgspec.structs.replace(b, parent_id="a"))
    swapped = _tree(b, a)
    assert len({identity.tree_hash(t) for t in (siblings, nested, swapped)}) == 3
    # layout: bounds in document order
    c = _node(node_id="c", bounds=(0, 60, 100, 110))
    assert identity.layout_hash(_tree(a, c)) != identity.layout_hash(_tree(c, a))


def test_a_node_whose_parent_is_unknown_hashes_as_a_root() -> None:
    orphan = _node(parent_id="gone")
    root = _node()
    assert identity.tree_hash((orphan,)) == identity.tree_hash((root,))


_texts = st.one_of(st.none(), st.text(max_size=6))


@given(
    depth=st.integers(0, 40),
    role=st.sampled_from(list(Role)),
    label=_texts,
    text=_texts,
    value=_texts,
    hint=_texts,
    resource_id=_texts,
    automation_id=_texts,
    class_name=_texts,
    flags=st.tuples(*[st.booleans()] * 6),
    actions=st.lists(st.sampled_from(list(ActionVerb)), max_size=3, unique=True),
    collection=st.one_of(
        st.none(),
        st.builds(
            CollectionInfo,
            index=st.integers(0, 9),
            item_key=st.one_of(st.none(), st.text(max_size=4)),
            row_count=st.one_of(st.none(), st.integers(0, 99)),
        ),
    ),
    source=st.sampled_from(list(Source)),
)
def test_the_row_written_field_by_field_is_the_rows_repr(
    depth: int,
    role: Role,
    label: str | None,
    text: str | None,
    value: str | None,
    hint: str | None,
    resource_id: str | None,
    automation_id: str | None,
    class_name: str | None,
    flags: tuple[bool, bool, bool, bool, bool, bool],
    actions: list[ActionVerb],
    collection: CollectionInfo | None,
    source: Source,
) -> None:
    enabled, clickable, focused, selected, checked, password = flags
    node = SemanticNode(
        node_id="n1",
        role=role,
        label=label,
        text=text,
        value=value,
        hint=hint,
        resource_id=resource_id,
        automation_id=automation_id,
        class_name=class_name,
        state=NodeState(
            enabled=enabled,
            clickable=clickable,
            focused=focused,
            selected=selected,
            checked=checked,
            password=password,
        ),
        actions=tuple(actions),
        collection=collection,
        source=source,
    )
    # twice: the second comes from the state-and-actions memo
    for _ in range(2):
        assert identity._row_text(node, depth) == repr(identity._semantic_row(node, depth))


@given(st.one_of(st.none(), st.tuples(*[st.integers(-(2**31), 2**31 - 1)] * 4)))
def test_a_layout_row_is_the_repr_of_its_bounds(bounds: tuple[int, int, int, int] | None) -> None:
    """``layout_row`` formats four integers straight to bytes: the text ``repr`` gives."""
    node = SemanticNode(node_id="n1", role=Role.TEXT, bounds=bounds)
    assert identity.layout_row(node) == f"{bounds!r}\x1f".encode()


def test_a_row_text_is_the_repr_of_its_semantic_row() -> None:
    """``_row_text`` writes the row field by field: the text ``repr`` of the row gives."""
    nodes = [
        SemanticNode(node_id="n1", role=Role.TEXT),
        SemanticNode(
            node_id="n2",
            role=Role.LIST_ITEM,
            parent_id="n1",
            label='it\'s "quoted"',
            text="\u00e9\n",
            value="3",
            hint="h",
            resource_id="a:id/b",
            automation_id="a:id/b",
            class_name="android.widget.Button",
            state=NodeState(enabled=False, checked=True),
            actions=(ActionVerb.CLICK, ActionVerb.LONG_CLICK),
            collection=CollectionInfo(index=2, item_key="k", row_count=9),
            source=Source.VISION,
        ),
    ]
    for depth, node in enumerate(nodes):
        assert identity._row_text(node, depth) == repr(identity._semantic_row(node, depth))

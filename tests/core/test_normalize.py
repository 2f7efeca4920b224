"""Normalization on every real dump: valid reference snapshots, no class-name roles, compact
under 30 KB and a subset of full with the same ids, deterministic bytes, no password values."""

from __future__ import annotations

import json
from pathlib import Path

import msgspec
import pytest

from bridge.core.identity import IdAllocator
from bridge.core.normalize import Normalized, SnapshotContext, normalize
from bridge.wire.enums import Role
from bridge.wire.raw import RawNode, RawTree
from tests.conftest import SHARED_DIR
from tests.core.realdumps import dump_params, raw_of

COMPACT_LIMIT = 30_000


def _norm(raw: RawTree) -> Normalized:
    out = normalize(raw, SnapshotContext("dev", "s_1", 0), IdAllocator())
    assert isinstance(out, Normalized), out
    return out


@pytest.mark.parametrize("path", dump_params())
def test_real_dump_normalizes_to_valid_deterministic_snapshots(path: Path) -> None:
    raw = raw_of(path)
    one, two = _norm(raw), _norm(raw)
    full_bytes = msgspec.json.encode(one.full)
    compact_bytes = msgspec.json.encode(one.compact)
    assert full_bytes == msgspec.json.encode(two.full)
    assert compact_bytes == msgspec.json.encode(two.compact)
    assert len(compact_bytes) < COMPACT_LIMIT, len(compact_bytes)
    classes = {n.class_name for n in raw.nodes if n.class_name} | {
        (n.class_name or "").rsplit(".", 1)[-1] for n in raw.nodes
    }
    assert not {n.role.value for n in one.full.nodes} & classes
    full_ids = {n.node_id: n for n in one.full.nodes}
    for node in one.compact.nodes:
        assert node.node_id in full_ids
        assert node.role is full_ids[node.node_id].role
        assert node.parent_id is None or node.parent_id in full_ids
    for node in one.full.nodes:
        if node.effective_state.password:
            assert node.value is None and node.text is None
    if SHARED_DIR.is_dir():
        from tests.wire.schemas import reference_validator

        for doc in (json.loads(full_bytes), json.loads(compact_bytes)):
            errors = list(reference_validator("snapshot").iter_errors(doc))
            assert not errors, [e.message[:200] for e in errors[:3]]


def _tree(*nodes: RawNode) -> RawTree:
    return RawTree(capture=1, platform="ANDROID", nodes=nodes)  # type: ignore[arg-type]


def test_roles_labels_values_and_password_redaction() -> None:
    out = _norm(
        _tree(
            RawNode(
                handle=0,
                parent=-1,
                class_name="android.widget.FrameLayout",
                package="com.example.app",
                bounds=(0, 0, 100, 200),
            ),
            RawNode(handle=1, parent=0, class_name="android.widget.FrameLayout", clickable=True),
            RawNode(handle=2, parent=1, class_name="android.widget.TextView", text="Continue"),
            RawNode(
                handle=3,
                parent=0,
                class_name="android.widget.EditText",
                text="Email",
                hint="Email",
                editable=True,
            ),
            RawNode(
                handle=4,
                parent=0,
                class_name="android.widget.EditText",
                text="hunter2",
                password=True,
                editable=True,
            ),
            RawNode(
                handle=5,
                parent=0,
                class_name="android.view.View",
                checkable=True,
                checked=True,
                clickable=True,
                text="Wi-Fi",
            ),
            RawNode(
                handle=6, parent=0, class_name="android.view.SurfaceView", bounds=(0, 0, 1000, 1000)
            ),
        )
    )
    nodes = out.full.nodes
    assert [n.role for n in nodes] == [
        Role.SCREEN,
        Role.BUTTON,
        Role.TEXT,
        Role.INPUT,
        Role.INPUT,
        Role.CHECKBOX,
        Role.CANVAS,
    ]
    assert nodes[1].label == "Continue"  # a clickable wrapper takes its sole text's name
    assert nodes[3].value is None and nodes[3].hint == "Email"  # a field showing its hint
    assert nodes[4].effective_state.password and nodes[4].value is None
    assert "hunter2" not in msgspec.json.encode(out.full).decode()
    assert nodes[5].effective_state.checked is True
    assert out.full.package_name == "com.example.app"


def test_ios_bundle_ids_that_break_the_package_pattern_are_sanitized_and_kept_in_app_id() -> None:
    raw = RawTree(
        capture=1,
        platform="IOS",  # type: ignore[arg-type]
        package="com.my-company.9app",
        nodes=(RawNode(handle=0, parent=-1, class_name="XCUIElementTypeApplication", label="A"),),
    )
    snap = _norm(raw).full
    assert snap.app_id == "com.my-company.9app"
    assert snap.package_name == "com.my_company.x9app"

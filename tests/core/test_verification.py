from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
import pytest

from bridge.core.conditions import MET, NOT_MET, UNKNOWN
from bridge.core.verification import (
    Observed,
    PolicyRejected,
    check_policy,
    check_verify_request,
    verify,
    verify_request,
)
from bridge.wire.action import Verification, Verify
from bridge.wire.base import Bounds
from bridge.wire.conditions import (
    Absent,
    AllOf,
    AppForeground,
    ClipboardEquals,
    Condition,
    Not,
    Present,
    ScreenShown,
    Stable,
    ValueEquals,
)
from bridge.wire.enums import (
    MatchMode,
    Orientation,
    PredicateSource,
    Role,
    VerificationPolicy,
    VerificationResult,
)
from bridge.wire.node import CollectionInfo, NodeState, SemanticNode
from bridge.wire.query import SemanticQuery, TextMatch
from bridge.wire.snapshot import ScreenSnapshot

P = VerificationPolicy


def node(
    nid: str,
    parent: str | None = None,
    *,
    role: Role = Role.TEXT,
    bounds: Bounds | None = (0, 0, 100, 50),
    **fields: Any,
) -> SemanticNode:
    return SemanticNode(node_id=nid, parent_id=parent, role=role, bounds=bounds, **fields)


def snap(
    nodes: Sequence[SemanticNode],
    sid: str = "s_1",
    *,
    package: str = "com.example.app",
    window_id: int = 1,
    app_id: str | None = None,
) -> ScreenSnapshot:
    return ScreenSnapshot(
        schema_version=1,
        device_id="dev",
        snapshot_id=sid,
        timestamp=0,
        package_name=package,
        window_id=window_id,
        orientation=Orientation.PORTRAIT,
        screen_state_id="x:0",
        compact=False,
        nodes=tuple(nodes),
        tree_hash="ab",
        app_id=app_id,
    )


def obs(
    nodes: Sequence[SemanticNode], sid: str = "s_1", *, clipboard: str | None = None, **kw: Any
) -> Observed:
    return Observed.of(snap(nodes, sid, **kw), at_ms=1000, clipboard=clipboard)


def label(text: str) -> SemanticQuery:
    return SemanticQuery(label=TextMatch(value=text))


def change(nodes: Sequence[SemanticNode], nid: str, **fields: Any) -> tuple[SemanticNode, ...]:
    return tuple(msgspec.structs.replace(n, **fields) if n.node_id == nid else n for n in nodes)


def drop(nodes: Sequence[SemanticNode], *ids: str) -> tuple[SemanticNode, ...]:
    return tuple(n for n in nodes if n.node_id not in ids)


SCREEN = (
    node("n1", role=Role.SCREEN, bounds=(0, 0, 1080, 1920)),
    node("n2", "n1", role=Role.SWITCH, label="Wi-Fi", state=NodeState(checked=False)),
    node("n3", "n1", role=Role.INPUT, label="Name", value="Ann"),
    node("n4", "n1", role=Role.BUTTON, label="Delete"),
    node("n5", "n1", text="12:00"),
)


def run(
    policy: VerificationPolicy,
    before: Sequence[SemanticNode] | Observed,
    after: Sequence[SemanticNode] | Observed,
    target: str | None,
    expected: Condition | None = None,
) -> Verification:
    b = before if isinstance(before, Observed) else obs(before, "s_1")
    a = after if isinstance(after, Observed) else obs(after, "s_2")
    out = verify(policy, expected, before=b, after=a, target_id=target)
    assert isinstance(out, Verification), out
    assert out.predicate.policy is policy
    assert out.predicate.condition == expected
    return out


def res(*args: Any, **kwargs: Any) -> VerificationResult:
    return run(*args, **kwargs).result


# ---- NODE_STATE_CHANGED ---------------------------------------------------------------------


def test_state_changed() -> None:
    toggled = change(SCREEN, "n2", state=NodeState(checked=True))
    out = run(P.NODE_STATE_CHANGED, SCREEN, toggled, "n2")
    assert out.result is MET
    assert out.predicate.source is PredicateSource.CALLER
    assert [e.snapshot_id for e in out.evidence] == ["s_1", "s_2"]
    assert "checked=false" in str(out.evidence[0].observed)
    assert "checked=true" in str(out.evidence[1].observed)
    assert res(P.NODE_STATE_CHANGED, SCREEN, SCREEN, "n2") is NOT_MET
    assert res(P.NODE_STATE_CHANGED, SCREEN, drop(SCREEN, "n2"), "n2") is UNKNOWN
    assert res(P.NODE_STATE_CHANGED, drop(SCREEN, "n2"), SCREEN, "n2") is UNKNOWN


def test_focus_alone_is_not_a_state_change() -> None:
    focused = change(SCREEN, "n2", state=NodeState(checked=False, focused=True))
    assert res(P.NODE_STATE_CHANGED, SCREEN, focused, "n2") is NOT_MET


def test_clock_tick_elsewhere_does_not_change_the_targets_verification() -> None:
    ticked = change(SCREEN, "n5", text="12:01")
    toggled_and_ticked = change(ticked, "n2", state=NodeState(checked=True))
    for policy, after, expected in [
        (P.NODE_STATE_CHANGED, ticked, NOT_MET),
        (P.NODE_STATE_CHANGED, toggled_and_ticked, MET),
        (P.NODE_DISAPPEARED, ticked, NOT_MET),
        (P.NODE_APPEARED, ticked, NOT_MET),
        (P.WINDOW_CHANGED, ticked, NOT_MET),
        (P.PACKAGE_CHANGED, ticked, NOT_MET),
    ]:
        calm = run(policy, SCREEN, change(after, "n5", text="12:00"), "n2")
        busy = run(policy, SCREEN, after, "n2")
        assert busy.result is expected, policy
        assert busy.result is calm.result
    value = ValueEquals(equals="Ann")
    assert res(P.NODE_VALUE_EQUALS, SCREEN, ticked, "n3", value) is MET


# ---- NODE_VALUE_EQUALS ------------------------------------------------------------------------


def test_value_equals() -> None:
    typed = change(SCREEN, "n3", value="Bob")
    out = run(P.NODE_VALUE_EQUALS, SCREEN, typed, "n3", ValueEquals(equals="Bob"))
    assert out.result is MET
    assert out.evidence[0].observed == "Bob"
    out = run(P.NODE_VALUE_EQUALS, SCREEN, typed, "n3", ValueEquals(equals="Bo"))
    assert out.result is NOT_MET
    assert out.evidence[0].observed == "Bob"  # the last value seen
    gone = drop(SCREEN, "n3")
    assert res(P.NODE_VALUE_EQUALS, SCREEN, gone, "n3", ValueEquals(equals="Bob")) is UNKNOWN
    by_query = ValueEquals(query=label("Name"), equals="Bob")
    assert res(P.NODE_VALUE_EQUALS, SCREEN, typed, None, by_query) is MET


# ---- NODE_DISAPPEARED / NODE_APPEARED ---------------------------------------------------------


def test_disappeared() -> None:
    assert res(P.NODE_DISAPPEARED, SCREEN, drop(SCREEN, "n4"), "n4") is MET
    assert res(P.NODE_DISAPPEARED, SCREEN, SCREEN, "n4") is NOT_MET
    zero = change(SCREEN, "n4", bounds=(10, 10, 10, 10))
    assert res(P.NODE_DISAPPEARED, SCREEN, zero, "n4") is MET
    off = change(SCREEN, "n4", bounds=(0, 2000, 100, 2050))
    assert res(P.NODE_DISAPPEARED, SCREEN, off, "n4") is MET
    assert res(P.NODE_DISAPPEARED, drop(SCREEN, "n4"), SCREEN, "n4") is UNKNOWN
    gone = Absent(query=label("Delete"))
    assert res(P.NODE_DISAPPEARED, SCREEN, drop(SCREEN, "n4"), None, gone) is MET
    assert res(P.NODE_DISAPPEARED, SCREEN, SCREEN, None, gone) is NOT_MET


def test_disappeared_uses_the_given_viewport() -> None:
    moved = change(SCREEN, "n4", bounds=(0, 1000, 100, 1050))
    small = Observed.of(snap(moved, "s_2"), at_ms=0, viewport=(0, 0, 1080, 900))
    assert res(P.NODE_DISAPPEARED, SCREEN, small, "n4") is MET


def test_appeared() -> None:
    hidden = change(SCREEN, "n4", bounds=(0, 0, 0, 0))
    out = run(P.NODE_APPEARED, hidden, SCREEN, "n4")
    assert out.result is MET
    assert [e.observed for e in out.evidence] == [False, True]
    assert res(P.NODE_APPEARED, SCREEN, SCREEN, "n4") is NOT_MET  # it was already there
    assert res(P.NODE_APPEARED, SCREEN, hidden, "n4") is NOT_MET
    dialog = (*SCREEN, node("n9", "n1", role=Role.DIALOG, label="Done"))
    present = Present(query=label("Done"))
    out = run(P.NODE_APPEARED, SCREEN, dialog, "n4", present)
    assert out.result is MET
    assert out.evidence[-1].snapshot_id == "s_1"
    assert out.evidence[-1].observed == 0  # count before
    assert res(P.NODE_APPEARED, SCREEN, SCREEN, None, present) is NOT_MET
    unknown = AllOf(conditions=(present, ClipboardEquals(equals="x")))
    assert res(P.EXPLICIT_CONDITION, SCREEN, dialog, None, unknown) is UNKNOWN


# ---- PACKAGE_CHANGED / WINDOW_CHANGED --------------------------------------------------------


def test_package_changed() -> None:
    other = obs(SCREEN, "s_2", package="com.other.app")
    assert res(P.PACKAGE_CHANGED, SCREEN, other, None) is MET
    assert res(P.PACKAGE_CHANGED, SCREEN, SCREEN, None) is NOT_MET
    # appId is the identity when present (an iOS bundle id the package pattern could not hold)
    ios_a = obs(SCREEN, "s_1", package="app.x", app_id="x-1")
    ios_b = obs(SCREEN, "s_2", package="app.x", app_id="x-2")
    assert res(P.PACKAGE_CHANGED, ios_a, ios_b, None) is MET
    wanted = AppForeground(app_id="com.other.app")
    assert res(P.PACKAGE_CHANGED, SCREEN, other, None, wanted) is MET
    elsewhere = obs(SCREEN, "s_2", package="com.third.app")
    assert res(P.PACKAGE_CHANGED, SCREEN, elsewhere, None, wanted) is NOT_MET
    assert res(
        P.PACKAGE_CHANGED, SCREEN, SCREEN, None, AppForeground(app_id="com.example.app")
    ) is (NOT_MET)


def test_window_changed_never_from_tree_hash() -> None:
    assert res(P.WINDOW_CHANGED, SCREEN, obs(SCREEN, "s_2", window_id=7), None) is MET
    assert res(P.WINDOW_CHANGED, SCREEN, obs(SCREEN, "s_2", package="com.b.c"), None) is MET
    different_content = (node("n1", role=Role.SCREEN, bounds=(0, 0, 1080, 1920)),)
    assert res(P.WINDOW_CHANGED, SCREEN, different_content, None) is NOT_MET


# ---- COLLECTION_POSITION_CHANGED ------------------------------------------------------------


def _list(first: int, *, keys: bool = True, count: int = 4) -> tuple[SemanticNode, ...]:
    rows = [
        node(
            f"n{100 + i}",
            "n2",
            role=Role.LIST_ITEM,
            label=f"Item {i}",
            bounds=(0, 200 * (i - first), 1080, 200 * (i - first + 1)),
            collection=CollectionInfo(
                index=i, item_key=f"item-{i}" if keys else None, scroll_container_id="n2"
            ),
        )
        for i in range(first, first + count)
    ]
    rows.append(node("n99", "n100" if first == 0 else rows[0].node_id, text="inner"))
    return (
        node("n1", role=Role.SCREEN, bounds=(0, 0, 1080, 1920)),
        node("n2", "n1", role=Role.LIST, bounds=(0, 0, 1080, 700)),
        *rows,
    )


def test_collection_position_changed() -> None:
    out = run(P.COLLECTION_POSITION_CHANGED, _list(0), _list(2), "n2")
    assert out.result is MET
    firsts = [e.observed for e in out.evidence if e.what.startswith("first visible")]
    assert firsts == ["item-0", "item-2"]
    assert res(P.COLLECTION_POSITION_CHANGED, _list(0), _list(0), "n2") is NOT_MET
    assert res(P.COLLECTION_POSITION_CHANGED, _list(0, keys=False), _list(1, keys=False), "n2") is (
        MET
    )


def test_collection_found_from_an_item_or_a_descendant() -> None:
    assert res(P.COLLECTION_POSITION_CHANGED, _list(0), _list(2), "n100") is MET
    assert res(P.COLLECTION_POSITION_CHANGED, _list(0), _list(2), "n99") is MET


def test_collection_without_scroll_container_ids() -> None:
    def bare(nodes: Sequence[SemanticNode]) -> tuple[SemanticNode, ...]:
        return tuple(
            msgspec.structs.replace(
                n, collection=msgspec.structs.replace(n.collection, scroll_container_id=None)
            )
            if n.collection is not None
            else n
            for n in nodes
        )

    assert res(P.COLLECTION_POSITION_CHANGED, bare(_list(0)), bare(_list(2)), "n2") is MET


def test_collection_unknowns() -> None:
    assert res(P.COLLECTION_POSITION_CHANGED, SCREEN, SCREEN, "n4") is UNKNOWN  # no items
    container_gone = drop(_list(2), "n2")
    assert res(P.COLLECTION_POSITION_CHANGED, _list(0), container_gone, "n2") is UNKNOWN
    assert res(P.COLLECTION_POSITION_CHANGED, SCREEN, _list(0), "n2") is UNKNOWN


# ---- CLIPBOARD_EQUALS / EXPLICIT_CONDITION / DISPATCH_ONLY ------------------------------------


def test_clipboard_equals() -> None:
    want = ClipboardEquals(equals="copied")
    assert res(P.CLIPBOARD_EQUALS, SCREEN, obs(SCREEN, clipboard="copied"), None, want) is MET
    assert res(P.CLIPBOARD_EQUALS, SCREEN, obs(SCREEN, clipboard="other"), None, want) is NOT_MET
    assert res(P.CLIPBOARD_EQUALS, SCREEN, obs(SCREEN, clipboard=None), None, want) is UNKNOWN


def test_explicit_condition() -> None:
    cond = AllOf(conditions=(Absent(query=label("Delete")), Not(condition=ScreenShown(name="x"))))
    assert res(P.EXPLICIT_CONDITION, SCREEN, drop(SCREEN, "n4"), None, cond) is MET
    assert res(P.EXPLICIT_CONDITION, SCREEN, SCREEN, None, cond) is NOT_MET
    stable = Stable(for_ms=400)
    assert res(P.EXPLICIT_CONDITION, SCREEN, SCREEN, None, stable) is UNKNOWN
    settled = Observed.of(snap(SCREEN, "s_2"), at_ms=2000, stable_since_ms=1000)
    assert res(P.EXPLICIT_CONDITION, SCREEN, settled, None, stable) is MET


def test_dispatch_only_has_no_verification() -> None:
    before, after = obs(SCREEN), obs(SCREEN, "s_2")
    assert verify(P.DISPATCH_ONLY, None, before=before, after=after, target_id="n4") is None


def test_intrinsic_source() -> None:
    out = verify(
        P.PACKAGE_CHANGED,
        None,
        before=obs(SCREEN),
        after=obs(SCREEN, "s_2", package="com.b.c"),
        target_id=None,
        source=PredicateSource.INTRINSIC,
    )
    assert isinstance(out, Verification)
    assert out.predicate.source is PredicateSource.INTRINSIC


def test_verification_encodes_for_the_wire() -> None:
    out = run(P.NODE_VALUE_EQUALS, SCREEN, SCREEN, "n3", ValueEquals(equals="Ann"))
    doc = msgspec.json.decode(msgspec.json.encode(out))
    assert doc["predicate"] == {
        "policy": "NODE_VALUE_EQUALS",
        "source": "CALLER",
        "condition": {"kind": "value", "equals": "Ann"},
    }
    assert doc["result"] == "CONDITION_MET"
    assert doc["evidence"][0]["nodeId"] == "n3"


# ---- up-front refusals -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("policy", "expected", "has_target", "fragment"),
    [
        (P.NODE_VALUE_EQUALS, None, True, "needs an expected value"),
        (P.NODE_VALUE_EQUALS, Present(query=label("a")), True, "got 'present'"),
        (P.NODE_VALUE_EQUALS, ValueEquals(equals="a"), False, "acted target"),
        (P.CLIPBOARD_EQUALS, None, True, "needs an expected clipboard"),
        (P.CLIPBOARD_EQUALS, ValueEquals(equals="a"), True, "got 'value'"),
        (P.EXPLICIT_CONDITION, None, True, "needs an expected condition"),
        (P.NODE_STATE_CHANGED, None, False, "needs a target"),
        (P.NODE_STATE_CHANGED, Present(query=label("a")), True, "no expected condition"),
        (P.NODE_DISAPPEARED, None, False, "needs a target"),
        (P.NODE_DISAPPEARED, Present(query=label("a")), True, "absent"),
        (P.NODE_APPEARED, None, False, "needs a target"),
        (P.NODE_APPEARED, Absent(query=label("a")), True, "present"),
        (P.COLLECTION_POSITION_CHANGED, None, False, "needs a target"),
        (P.WINDOW_CHANGED, Present(query=label("a")), True, "no expected condition"),
        (P.PACKAGE_CHANGED, ScreenShown(name="a"), True, "app"),
        (P.DISPATCH_ONLY, Present(query=label("a")), True, "no expected condition"),
        (
            P.EXPLICIT_CONDITION,
            Present(query=SemanticQuery(label=TextMatch(value="(?!a)b", match=MatchMode.REGEX))),
            True,
            "regex",
        ),
    ],
)
def test_policy_refusals(
    policy: VerificationPolicy, expected: Condition | None, has_target: bool, fragment: str
) -> None:
    reason = check_verify_request(Verify(policy=policy, expected=expected), has_target=has_target)
    assert reason is not None and fragment in reason
    out = verify_request(
        Verify(policy=policy, expected=expected),
        before=obs(SCREEN),
        after=obs(SCREEN, "s_2"),
        target_id="n4" if has_target else None,
    )
    assert isinstance(out, PolicyRejected)
    assert out.reason == reason


@pytest.mark.parametrize(
    ("policy", "expected", "has_target"),
    [
        (P.NODE_STATE_CHANGED, None, True),
        (P.NODE_VALUE_EQUALS, ValueEquals(equals="a"), True),
        (P.NODE_VALUE_EQUALS, ValueEquals(equals="a", query=label("a")), False),
        (P.NODE_DISAPPEARED, Absent(query=label("a")), False),
        (P.NODE_APPEARED, Present(query=label("a")), False),
        (P.PACKAGE_CHANGED, None, False),
        (P.PACKAGE_CHANGED, AppForeground(app_id="a.b"), False),
        (P.WINDOW_CHANGED, None, False),
        (P.CLIPBOARD_EQUALS, ClipboardEquals(equals="a"), False),
        (P.EXPLICIT_CONDITION, Stable(for_ms=1), False),
        (P.DISPATCH_ONLY, None, False),
    ],
)
def test_policy_accepted(
    policy: VerificationPolicy, expected: Condition | None, has_target: bool
) -> None:
    assert check_policy(policy, expected, has_target=has_target) is None


def test_every_policy_is_covered_by_the_checks() -> None:
    """Every policy has an entry in the checks (no KeyError), and without an expected
    condition exactly the policies that require one are refused, each naming itself."""
    refused = set()
    for policy in VerificationPolicy:
        reason = check_policy(policy, None, has_target=True)
        if reason is not None:
            assert policy.value in reason and "needs an expected" in reason, reason
            refused.add(policy)
    assert refused, "some policy needs an expected condition"
    assert refused < set(VerificationPolicy)
    assert P.EXPLICIT_CONDITION in refused and P.DISPATCH_ONLY not in refused

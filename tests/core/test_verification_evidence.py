"""What a verification shows the caller: every policy's evidence, field by field.

An action result carries its verification's evidence to the client (the CLI prints it, an
agent reads it to decide what to do next), so each entry is asserted whole: what was looked
at, in which snapshot, on which node, the value seen and the value wanted. Results at the
edges (bounds touching the screen's edge, empty bounds, a container that scrolled out of
sight) are pinned here too.
"""

from __future__ import annotations

from bridge.core.conditions import MET, NOT_MET, UNKNOWN
from bridge.core.verification import Observed, PolicyRejected, check_policy, verify
from bridge.wire.action import Evidence
from bridge.wire.conditions import AppForeground, Present, ValueEquals
from bridge.wire.enums import Role, VerificationPolicy
from bridge.wire.node import CollectionInfo, NodeState
from tests.core.test_verification import SCREEN, _list, change, drop, label, node, obs, run, snap

P = VerificationPolicy


def ev(
    what: str,
    sid: str,
    node_id: str | None = None,
    observed: str | int | float | bool | None = None,
    expected: str | int | float | bool | None = None,
) -> Evidence:
    return Evidence(
        what=what, snapshot_id=sid, node_id=node_id, observed=observed, expected=expected
    )


# ---- NODE_STATE_CHANGED ---------------------------------------------------------------------


def test_state_change_evidence_lists_every_compared_field_on_both_sides() -> None:
    toggled = change(SCREEN, "n2", state=NodeState(checked=True))
    out = run(P.NODE_STATE_CHANGED, SCREEN, toggled, "n2")
    assert out.result is MET
    assert out.evidence == (
        ev(
            "state before", "s_1", "n2",
            "enabled=true clickable=false selected=false checked=false password=false",
        ),
        ev(
            "state after", "s_2", "n2",
            "enabled=true clickable=false selected=false checked=true password=false",
        ),
    )  # fmt: skip


def test_each_compared_state_field_alone_is_a_change() -> None:
    for field in ("enabled", "clickable", "selected", "checked", "password"):
        base = NodeState(**{field: False})  # type: ignore[arg-type]
        flipped = NodeState(**{field: True})  # type: ignore[arg-type]
        before = change(SCREEN, "n2", state=base)
        after = change(SCREEN, "n2", state=flipped)
        assert run(P.NODE_STATE_CHANGED, before, after, "n2").result is MET, field


def test_a_state_change_with_the_target_missing_says_which_side_lacked_it() -> None:
    gone_after = run(P.NODE_STATE_CHANGED, SCREEN, drop(SCREEN, "n2"), "n2")
    assert gone_after.result is UNKNOWN
    assert gone_after.evidence == (ev("target present", "s_2", "n2", False, True),)
    gone_before = run(P.NODE_STATE_CHANGED, drop(SCREEN, "n2"), SCREEN, "n2")
    assert gone_before.evidence == (ev("target present", "s_1", "n2", False, True),)


# ---- NODE_DISAPPEARED -----------------------------------------------------------------------


def test_disappearance_evidence() -> None:
    gone = run(P.NODE_DISAPPEARED, SCREEN, drop(SCREEN, "n4"), "n4")
    assert gone.result is MET
    assert gone.evidence == (ev("target present", "s_2", "n4", False, False),)
    still = run(P.NODE_DISAPPEARED, SCREEN, SCREEN, "n4")
    assert still.result is NOT_MET
    assert still.evidence == (
        ev("target present", "s_2", "n4", True, False),
        ev("target visible (bounds)", "s_2", "n4", "0,0,100,50"),
    )
    unbounded = run(P.NODE_DISAPPEARED, SCREEN, change(SCREEN, "n4", bounds=None), "n4")
    assert unbounded.result is NOT_MET  # no bounds: nothing says it went
    assert unbounded.evidence[1] == ev("target visible (bounds)", "s_2", "n4", None)
    never = run(P.NODE_DISAPPEARED, drop(SCREEN, "n4"), SCREEN, "n4")
    assert never.result is UNKNOWN
    assert never.evidence == (ev("target present before", "s_1", "n4", False, True),)


def test_visibility_at_the_screen_edges() -> None:
    # the screen is (0, 0, 1080, 1920): bounds touching an edge from outside are off screen,
    # bounds overlapping it by one pixel are on it; empty bounds in either axis are invisible
    cases = {
        (0, 1920, 100, 1950): MET,
        (0, 1919, 100, 1950): NOT_MET,
        (1080, 0, 1100, 50): MET,
        (1079, 0, 1100, 50): NOT_MET,
        (-50, 0, 0, 50): MET,
        (-50, 0, 1, 50): NOT_MET,
        (0, -50, 100, 0): MET,
        (0, -50, 100, 1): NOT_MET,
        (10, 10, 9, 50): MET,
        (10, 10, 50, 9): MET,
        (10, 10, 10, 50): MET,
        (10, 10, 50, 10): MET,
        (10, 10, 11, 11): NOT_MET,
    }
    for bounds, result in cases.items():
        after = change(SCREEN, "n4", bounds=bounds)
        assert run(P.NODE_DISAPPEARED, SCREEN, after, "n4").result is result, bounds


def test_without_any_screen_bounds_only_empty_bounds_count_as_gone() -> None:
    bare = tuple(
        node(n.node_id, n.parent_id, role=n.role, bounds=None, label=n.label) for n in SCREEN
    )
    far = change(bare, "n4", bounds=(5000, 5000, 5100, 5100))
    assert run(P.NODE_DISAPPEARED, bare, far, "n4").result is NOT_MET
    empty = change(bare, "n4", bounds=(5, 5, 5, 9))
    assert run(P.NODE_DISAPPEARED, bare, empty, "n4").result is MET


# ---- NODE_APPEARED --------------------------------------------------------------------------


def test_appearance_evidence() -> None:
    hidden = change(SCREEN, "n4", bounds=(0, 0, 0, 0))
    out = run(P.NODE_APPEARED, hidden, SCREEN, "n4")
    assert out.evidence == (
        ev("target visible before", "s_1", "n4", False, False),
        ev("target visible", "s_2", "n4", True, True),
    )
    absent_before = run(P.NODE_APPEARED, drop(SCREEN, "n4"), SCREEN, "n4")
    assert absent_before.result is MET
    assert absent_before.evidence[0] == ev("target visible before", "s_1", "n4", False, False)
    absent_after = run(P.NODE_APPEARED, hidden, drop(SCREEN, "n4"), "n4")
    assert absent_after.result is NOT_MET
    assert absent_after.evidence[1] == ev("target visible", "s_2", "n4", False, True)
    # visibility before is judged on the before screen, after on the after screen
    low = change(SCREEN, "n4", bounds=(0, 60, 100, 90))
    small_before = Observed.of(snap(low, "s_1"), at_ms=0, viewport=(0, 0, 1080, 40))
    assert run(P.NODE_APPEARED, small_before, low, "n4").result is MET
    small_after = Observed.of(snap(low, "s_2"), at_ms=0, viewport=(0, 0, 1080, 40))
    assert run(P.NODE_APPEARED, hidden, small_after, "n4").result is NOT_MET


def test_appearance_by_condition_adds_the_count_before() -> None:
    dialog = (*SCREEN, node("n9", "n1", role=Role.DIALOG, label="Done"))
    out = run(P.NODE_APPEARED, SCREEN, dialog, "n4", Present(query=label("Done")))
    assert out.result is MET
    assert out.evidence[-1].what.startswith("before: ")
    assert out.evidence[-1].snapshot_id == "s_1" and out.evidence[-1].observed == 0
    assert out.evidence[-1].node_id is None and out.evidence[-1].expected is None


# ---- PACKAGE_CHANGED / WINDOW_CHANGED ---------------------------------------------------------


def test_package_change_evidence_names_both_apps() -> None:
    out = run(P.PACKAGE_CHANGED, SCREEN, obs(SCREEN, "s_2", package="com.other.app"), None)
    assert out.evidence == (
        ev("app before", "s_1", None, "com.example.app"),
        ev("app after", "s_2", None, "com.other.app"),
    )
    ios = obs(SCREEN, "s_2", package="com.example.app", app_id="com.example.ios")
    assert run(P.PACKAGE_CHANGED, SCREEN, ios, None).evidence[1] == ev(
        "app after", "s_2", None, "com.example.ios"
    )


def test_package_change_with_an_app_condition_needs_both() -> None:
    wanted = AppForeground(app_id="com.other.app")
    out = run(P.PACKAGE_CHANGED, SCREEN, obs(SCREEN, "s_2", package="com.other.app"), None, wanted)
    assert out.result is MET
    assert out.evidence[:2] == (
        ev("app before", "s_1", None, "com.example.app"),
        ev("app after", "s_2", None, "com.other.app"),
    )
    assert len(out.evidence) > 2  # the condition's own evidence follows


def test_window_change_evidence_and_each_cause_alone() -> None:
    moved = obs(SCREEN, "s_2", window_id=7)
    out = run(P.WINDOW_CHANGED, SCREEN, moved, None)
    assert out.result is MET
    assert out.evidence == (
        ev("windowId before", "s_1", None, 1),
        ev("windowId after", "s_2", None, 7),
        ev("app before", "s_1", None, "com.example.app"),
        ev("app after", "s_2", None, "com.example.app"),
    )
    other_app = obs(SCREEN, "s_2", app_id="com.example.other")
    assert run(P.WINDOW_CHANGED, SCREEN, other_app, None).result is MET
    assert run(P.WINDOW_CHANGED, SCREEN, obs(SCREEN, "s_2"), None).result is NOT_MET


# ---- COLLECTION_POSITION_CHANGED ------------------------------------------------------------


def test_collection_evidence_names_the_container_and_the_visible_items() -> None:
    out = run(P.COLLECTION_POSITION_CHANGED, _list(0), _list(2), "n101")
    assert out.result is MET
    # the list shows 700 px of 200 px rows: four rows overlap it
    assert out.evidence == (
        ev("first visible item before", "s_1", "n2", "item-0"),
        ev("first visible item after", "s_2", "n2", "item-2"),
        ev("visible items before", "s_1", "n2", 4),
        ev("visible items after", "s_2", "n2", 4),
    )


def test_items_outside_the_containers_frame_do_not_count() -> None:
    # six rows, the list frame shows rows 0..3 (700 px): a scroll that only changes rows
    # below the frame is no position change
    before = _list(0, count=6)
    after = tuple(
        n.__class__(**{**{f: getattr(n, f) for f in n.__struct_fields__}, "label": "changed"})
        if n.node_id == "n105"
        else n
        for n in before
    )
    out = run(P.COLLECTION_POSITION_CHANGED, before, after, "n2")
    assert out.result is NOT_MET
    assert out.evidence[2] == ev("visible items before", "s_1", "n2", 4)


def test_collection_keys_fall_back_to_the_index() -> None:
    out = run(P.COLLECTION_POSITION_CHANGED, _list(0, keys=False), _list(1, keys=False), "n2")
    assert out.evidence[:2] == (
        ev("first visible item before", "s_1", "n2", "#0"),
        ev("first visible item after", "s_2", "n2", "#1"),
    )


def test_collection_keys_fall_back_to_the_node_id_without_key_or_index() -> None:
    def rows(ids: list[str]) -> tuple:  # type: ignore[type-arg]
        return (
            node("n1", role=Role.SCREEN, bounds=(0, 0, 1080, 1920)),
            node("n2", "n1", role=Role.LIST, bounds=(0, 0, 1080, 700)),
            *(
                node(
                    nid,
                    "n2",
                    role=Role.LIST_ITEM,
                    bounds=(0, 100 * k, 1080, 100 * k + 90),
                    collection=CollectionInfo(scroll_container_id="n2"),
                )
                for k, nid in enumerate(ids)
            ),
        )

    out = run(P.COLLECTION_POSITION_CHANGED, rows(["n10", "n11"]), rows(["n11", "n12"]), "n2")
    assert out.result is MET
    assert out.evidence[:2] == (
        ev("first visible item before", "s_1", "n2", "n10"),
        ev("first visible item after", "s_2", "n2", "n11"),
    )


def test_collection_unknowns_say_what_was_missing() -> None:
    no_items = run(P.COLLECTION_POSITION_CHANGED, SCREEN, SCREEN, "n4")
    assert no_items.evidence == (ev("collection items around the target", "s_1", "n4", 0),)
    container_gone = run(P.COLLECTION_POSITION_CHANGED, _list(0), drop(_list(2), "n2"), "n2")
    assert container_gone.evidence == (ev("scroll container present", "s_2", "n2", False, True),)
    target_gone = run(P.COLLECTION_POSITION_CHANGED, SCREEN, _list(0), "n101")
    assert target_gone.evidence == (ev("target present before", "s_1", "n101", False, True),)


def test_a_container_with_nothing_visible_on_either_side_is_unknown() -> None:
    hidden = tuple(
        n if n.collection is None else change((n,), n.node_id, bounds=(0, 5000, 10, 5010))[0]
        for n in _list(0)
    )
    out = run(P.COLLECTION_POSITION_CHANGED, hidden, hidden, "n2")
    assert out.result is UNKNOWN
    assert out.evidence[:2] == (
        ev("first visible item before", "s_1", "n2", None),
        ev("first visible item after", "s_2", "n2", None),
    )


def test_nested_collections_count_only_the_top_level_rows() -> None:
    # rows without scroll container ids: a row's inner list items are not the list's rows
    def screen(first: str) -> tuple:  # type: ignore[type-arg]
        return (
            node("n1", role=Role.SCREEN, bounds=(0, 0, 1080, 1920)),
            node("n2", "n1", role=Role.LIST, bounds=(0, 0, 1080, 700)),
            node("n3", "n2", role=Role.LIST_ITEM, bounds=(0, 0, 1080, 300),
                 collection=CollectionInfo(item_key=first)),
            node("n4", "n3", role=Role.LIST_ITEM, bounds=(0, 0, 500, 100),
                 collection=CollectionInfo(item_key="inner")),
        )  # fmt: skip

    out = run(P.COLLECTION_POSITION_CHANGED, screen("a"), screen("b"), "n2")
    assert out.result is MET
    assert out.evidence[2:] == (
        ev("visible items before", "s_1", "n2", 1),
        ev("visible items after", "s_2", "n2", 1),
    )


# ---- refusals -------------------------------------------------------------------------------


def test_refusal_reasons_name_the_policy_and_the_condition() -> None:
    assert check_policy(P.NODE_VALUE_EQUALS, None, has_target=True) == (
        "NODE_VALUE_EQUALS needs an expected value condition"
    )
    assert check_policy(P.EXPLICIT_CONDITION, None, has_target=True) == (
        "EXPLICIT_CONDITION needs an expected condition"
    )
    assert check_policy(P.NODE_DISAPPEARED, None, has_target=False) == (
        "NODE_DISAPPEARED without an expected condition needs a target node"
    )
    assert check_policy(P.NODE_STATE_CHANGED, ValueEquals(equals="x"), has_target=True) == (
        "NODE_STATE_CHANGED takes no expected condition, got 'value'"
    )
    out = verify(
        P.NODE_DISAPPEARED,
        None,
        before=obs(SCREEN),
        after=obs(SCREEN, "s_2"),
        target_id=None,
    )
    assert out == PolicyRejected(
        "NODE_DISAPPEARED without an expected condition needs a target node"
    )


def test_visibility_compares_each_edge_with_the_matching_viewport_edge() -> None:
    # a viewport whose left (100) differs from its top (0): a node left of it is off screen
    viewport = (100, 0, 500, 800)
    left_of = change(SCREEN, "n4", bounds=(50, 10, 90, 20))
    after = Observed.of(snap(left_of, "s_2"), at_ms=0, viewport=viewport)
    assert run(P.NODE_DISAPPEARED, SCREEN, after, "n4").result is MET


def test_a_list_scrolled_to_nothing_visible_has_moved() -> None:
    gone = tuple(
        n if n.collection is None else change((n,), n.node_id, bounds=(0, 5000, 10, 5010))[0]
        for n in _list(0)
    )
    out = run(P.COLLECTION_POSITION_CHANGED, _list(0), gone, "n2")
    assert out.result is MET
    assert out.evidence[1] == ev("first visible item after", "s_2", "n2", None)


def test_a_container_without_bounds_is_framed_by_the_screen() -> None:
    def unframed(first: int) -> tuple:  # type: ignore[type-arg]
        return tuple(
            change((n,), "n2", bounds=None)[0] if n.node_id == "n2" else n
            for n in _list(first, count=12)
        )

    # rows of 200 px on a 1920 px screen: ten are visible (0..9 overlap it), not twelve
    out = run(P.COLLECTION_POSITION_CHANGED, unframed(0), unframed(0), "n2")
    assert out.evidence[2] == ev("visible items before", "s_1", "n2", 10)


def test_an_explicit_present_condition_adds_no_count_before() -> None:
    dialog = (*SCREEN, node("n9", "n1", role=Role.DIALOG, label="Done"))
    out = run(P.EXPLICIT_CONDITION, SCREEN, dialog, None, Present(query=label("Done")))
    assert out.result is MET
    assert not any(e.what.startswith("before: ") for e in out.evidence)

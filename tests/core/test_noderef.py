"""Resolution safety on every real dump: never a wrong target.

For each node that has a strong locator unique on its own dump (sampled, up to 12 a dump):
same dump -> resolved to it; bounds shifted + unrelated text edited -> still it; subtree
duplicated -> AMBIGUOUS_MATCH; removed -> refused; its own label replaced -> STALE_NODE_REF.
its visible text alone replaced -> STALE_NODE_REF; only its numbers changed -> still it (or a
refusal, never another element). Identity across copies is the raw node's handle (what the
agent would act on).
"""

from __future__ import annotations

from pathlib import Path

import msgspec
import pytest

from bridge.core.identity import IdAllocator
from bridge.core.noderef import (
    Ambiguous,
    GenerationCheck,
    NotFound,
    Resolved,
    Stale,
    WeakUnresolvable,
    build_ref,
    resolution_error,
    resolve_ref,
)
from bridge.core.normalize import Normalized, SnapshotContext, normalize
from bridge.core.shown_text import visible_text
from bridge.core.tree import NodeTree
from bridge.wire.enums import ErrorCode
from bridge.wire.noderef import STRONG_LOCATORS, NodeRef, RoleLabelAncestorLocator
from bridge.wire.raw import RawNode, RawTree
from tests.core.realdumps import dump_params, raw_of

PER_DUMP = 12


def norm(raw: RawTree, sid: str = "s_1", ids: IdAllocator | None = None) -> Normalized:
    out = normalize(raw, SnapshotContext("d", sid, 0), ids)
    assert isinstance(out, Normalized)
    return out


def subtree_end(nodes: tuple[RawNode, ...], i: int) -> int:
    """Index one past the last descendant of node i (pre-order)."""
    j = i + 1
    inside = {i}
    while j < len(nodes) and nodes[j].parent in inside:
        inside.add(j)
        j += 1
    return j


def reindex(nodes: list[RawNode]) -> tuple[RawNode, ...]:
    return tuple(msgspec.structs.replace(n, handle=k) for k, n in enumerate(nodes))


def duplicated(raw: RawTree, i: int) -> RawTree:
    nodes = list(raw.nodes)
    end = subtree_end(raw.nodes, i)
    width = end - i
    copy = [
        msgspec.structs.replace(n, parent=n.parent if k == i else n.parent + width)
        for k, n in zip(range(i, end), nodes[i:end], strict=True)
    ]
    after = [
        msgspec.structs.replace(n, parent=n.parent + width if n.parent >= end else n.parent)
        for n in nodes[end:]
    ]
    return msgspec.structs.replace(raw, nodes=reindex(nodes[:end] + copy + after))


def removed(raw: RawTree, i: int) -> RawTree:
    nodes = list(raw.nodes)
    end = subtree_end(raw.nodes, i)
    width = end - i
    rest = nodes[:i] + [
        msgspec.structs.replace(n, parent=n.parent - width if n.parent >= end else n.parent)
        for n in nodes[end:]
    ]
    return msgspec.structs.replace(raw, nodes=reindex(rest))


def relabelled(raw: RawTree, i: int) -> RawTree:
    nodes = list(raw.nodes)
    node = nodes[i]
    nodes[i] = msgspec.structs.replace(
        node,
        text="Delete account forever" if node.text else None,
        label="Delete account forever" if node.label or not node.text else node.label,
    )
    return msgspec.structs.replace(raw, nodes=tuple(nodes))


def retexted(raw: RawTree, i: int, text: str) -> RawTree:
    """Only the node's visible text replaced; its content description (label) kept."""
    nodes = list(raw.nodes)
    nodes[i] = msgspec.structs.replace(nodes[i], text=text)
    return msgspec.structs.replace(raw, nodes=tuple(nodes))


def renumbered(text: str) -> str:
    return "".join(str((int(c) + 1) % 10) if c.isascii() and c.isdigit() else c for c in text)


def shifted_and_edited(raw: RawTree, i: int, name: str | None = None) -> RawTree:
    """Every bound shifted; two unrelated texts edited — not the target's, not its ancestors',
    and not a look-alike's (a text equal to the target's own, the only thing that tells two
    identical elements apart)."""
    end = subtree_end(raw.nodes, i)
    own = {raw.nodes[i].text, raw.nodes[i].label, name} - {None}
    ancestors = set()
    p = raw.nodes[i].parent
    while p >= 0:
        ancestors.add(p)
        p = raw.nodes[p].parent
    nodes = []
    edited = 0
    for k, n in enumerate(raw.nodes):
        b = n.bounds
        if b is not None:
            n = msgspec.structs.replace(n, bounds=(b[0] + 3, b[1] + 40, b[2] + 3, b[3] + 40))
        unrelated = not (i <= k < end) and k not in ancestors and n.text not in own
        if unrelated and n.text and edited < 2:
            n = msgspec.structs.replace(n, text=n.text + " (2)")
            edited += 1
        nodes.append(n)
    return msgspec.structs.replace(raw, nodes=tuple(nodes))


def strong_unique(ref: NodeRef, norm_: Normalized) -> bool:
    from bridge.core.noderef import _candidates

    tree = NodeTree(norm_.full.nodes)
    strong = [loc for loc in ref.locators if isinstance(loc, STRONG_LOCATORS)]
    return bool(strong) and len(_candidates(tree, strong[0])) == 1


def own_name(raw_node: RawNode, name: str | None) -> bool:
    return name is not None and name in (raw_node.text, raw_node.label)


@pytest.mark.parametrize("path", dump_params())
def test_resolution_never_lands_on_a_wrong_target(path: Path) -> None:
    raw = raw_of(path)
    base = norm(raw)
    tree = NodeTree(base.full.nodes)
    checked = 0
    for node in base.full.nodes:
        if checked >= PER_DUMP:
            break
        if node.parent_id is None:
            continue  # removing or duplicating a root is not a screen any more
        ref = build_ref(base.full, tree, node.node_id)
        assert ref is not None
        if not strong_unique(ref, base):
            continue
        checked += 1
        handle = base.handles[node.node_id]
        # same dump
        got = resolve_ref(ref, base.full, tree)
        assert isinstance(got, Resolved) and got.node.node_id == node.node_id, got
        # bounds shifted, unrelated texts edited
        from bridge.core.identity import node_name as name_of

        moved = norm(shifted_and_edited(raw, handle, name_of(node)), "s_2")
        got = resolve_ref(ref, moved.full)
        assert isinstance(got, Resolved), (node, got)
        assert moved.handles[got.node.node_id] == handle
        # subtree duplicated
        dup = norm(duplicated(raw, handle), "s_3")
        got = resolve_ref(ref, dup.full)
        assert isinstance(got, Ambiguous), (node, got)
        assert len(got.candidates) >= 2
        # removed
        gone = norm(removed(raw, handle), "s_4")
        got = resolve_ref(ref, gone.full)
        assert isinstance(got, NotFound | Stale | WeakUnresolvable), (node, got)
        # its own label replaced
        from bridge.core.identity import node_name

        if own_name(raw.nodes[handle], node_name(node)):
            swapped = norm(relabelled(raw, handle), "s_5")
            got = resolve_ref(ref, swapped.full)
            assert isinstance(got, Stale), (node, got)
        # its visible text alone replaced (content description kept)
        shown = visible_text(node)
        if shown is not None and raw.nodes[handle].text:
            other = norm(retexted(raw, handle, "Delete account forever"), "s_6")
            got = resolve_ref(ref, other.full)
            assert isinstance(got, Stale), (node, got)
            if renumbered(shown) != shown:
                counted = norm(retexted(raw, handle, renumbered(raw.nodes[handle].text or "")))
                got = resolve_ref(ref, counted.full)
                if isinstance(got, Resolved):
                    assert counted.handles[got.node.node_id] == handle, (node, got)
    if len(base.full.nodes) > 5:
        assert checked > 0 or all(
            not (n.automation_id or n.label or n.text) for n in base.full.nodes
        )


def test_generation_check_ignores_unrelated_changes_but_not_the_target() -> None:
    def screen(clock: str, label: str) -> RawTree:
        return RawTree(
            capture=1,
            platform="ANDROID",  # type: ignore[arg-type]
            nodes=(
                RawNode(handle=0, parent=-1, class_name="android.widget.FrameLayout"),
                RawNode(
                    handle=1,
                    parent=0,
                    class_name="android.widget.TextView",
                    text=clock,
                    automation_id="app:id/clock",
                ),
                RawNode(
                    handle=2,
                    parent=0,
                    class_name="android.widget.Button",
                    text=label,
                    automation_id="app:id/go",
                    clickable=True,
                ),
            ),
        )

    ids = IdAllocator()
    a = norm(screen("10:00:00", "Sign in"), "s_1", ids)
    b = norm(screen("10:00:01", "Sign in"), "s_2", ids)
    c = norm(screen("10:00:02", "Delete account"), "s_3", ids)
    tree_a = NodeTree(a.full.nodes)
    target = next(n for n in a.full.nodes if n.automation_id == "app:id/go")
    ref = build_ref(a.full, tree_a, target.node_id)
    assert ref is not None
    ok = resolve_ref(ref, b.full, same_id_space=True, generation=GenerationCheck(1, 2, a.full))
    assert isinstance(ok, Resolved) and ok.node.node_id == target.node_id
    stale = resolve_ref(ref, c.full, same_id_space=True, generation=GenerationCheck(1, 3, a.full))
    assert isinstance(stale, Stale)
    unknown = resolve_ref(ref, b.full, generation=GenerationCheck(1, 2, None))
    assert isinstance(unknown, Stale)
    env = resolution_error(stale, c.full, NodeTree(c.full.nodes))
    assert env.error is ErrorCode.STALE_NODE_REF and env.recovery


def test_duplicate_buttons_without_ids_resolve_by_position_only_when_unique() -> None:
    def screen(n: int) -> RawTree:
        nodes = [RawNode(handle=0, parent=-1, class_name="android.widget.FrameLayout")]
        for k in range(n):
            nodes.append(
                RawNode(handle=len(nodes), parent=0, class_name="android.widget.LinearLayout")
            )
            nodes.append(
                RawNode(
                    handle=len(nodes),
                    parent=len(nodes) - 1,
                    class_name="android.widget.Button",
                    text="Continue",
                    clickable=True,
                    bounds=(0, 100 * k, 100, 100 * k + 80),
                )
            )
        return RawTree(capture=1, platform="ANDROID", nodes=tuple(nodes))  # type: ignore[arg-type]

    two = norm(screen(2))
    tree = NodeTree(two.full.nodes)
    buttons = [n for n in two.full.nodes if n.text == "Continue"]
    refs = [build_ref(two.full, tree, b.node_id) for b in buttons]
    for ref, button in zip(refs, buttons, strict=True):
        assert ref is not None
        got = resolve_ref(ref, two.full, tree)
        assert isinstance(got, Resolved) and got.node.node_id == button.node_id
    three = norm(screen(3), "s_2")
    got = resolve_ref(refs[1], three.full)  # type: ignore[arg-type]
    assert isinstance(got, Resolved | Ambiguous)
    if isinstance(got, Resolved):
        assert three.handles[got.node.node_id] == two.handles[buttons[1].node_id]
    env = resolution_error(Ambiguous(tuple(buttons), "ROLE_LABEL_ANCESTOR"), two.full, tree)
    assert env.error is ErrorCode.AMBIGUOUS_MATCH and len(env.candidates) == 2


def test_look_alikes_are_told_apart_by_nearby_text_or_exact_count_never_position_alone() -> None:
    def cards(titles: list[str], with_titles: bool = True) -> RawTree:
        nodes = [RawNode(handle=0, parent=-1, class_name="android.widget.FrameLayout")]
        for k, title in enumerate(titles):
            card = len(nodes)
            nodes.append(RawNode(handle=card, parent=0, class_name="android.widget.LinearLayout"))
            if with_titles:
                nodes.append(
                    RawNode(
                        handle=len(nodes),
                        parent=card,
                        class_name="android.widget.TextView",
                        text=title,
                    )
                )
            nodes.append(
                RawNode(
                    handle=len(nodes),
                    parent=card,
                    class_name="android.widget.Button",
                    text="Continue",
                    clickable=True,
                    bounds=(0, 100 * k, 100, 100 * k + 80),
                )
            )
        return RawTree(capture=1, platform="ANDROID", nodes=tuple(nodes))  # type: ignore[arg-type]

    def continue_of(n: Normalized, k: int) -> str:
        return [x for x in n.full.nodes if x.text == "Continue"][k].node_id

    # titled cards: a third card inserted above is told apart by the title
    two = norm(cards(["Basic", "Pro"]))
    ref = build_ref(two.full, NodeTree(two.full.nodes), continue_of(two, 0))
    assert ref is not None
    three = norm(cards(["Team", "Basic", "Pro"]), "s_2")
    got = resolve_ref(ref, three.full)
    assert isinstance(got, Resolved) and got.node.node_id == continue_of(three, 1)
    # untitled look-alikes: the 2nd of 2 ...
    plain = norm(cards(["a", "b"], with_titles=False))
    second = build_ref(plain.full, NodeTree(plain.full.nodes), continue_of(plain, 1))
    assert second is not None
    assert isinstance(resolve_ref(second, plain.full), Resolved)
    # ... is never taken for the survivor when one goes, nor guessed among three
    one = norm(cards(["a"], with_titles=False), "s_3")
    assert isinstance(resolve_ref(second, one.full), Stale)
    more = norm(cards(["a", "b", "c"], with_titles=False), "s_4")
    assert isinstance(resolve_ref(second, more.full), Ambiguous)


# ---- iOS: an element whose name is its label has no automation id -------------------------


def _ios_screen(*sections: tuple[str, list[tuple[str, str, str]]]) -> RawTree:
    """WDA page source: one Other per section (its name an identifier), holding elements given
    as (type, name, label). WDA writes the label as the name when no identifier is set."""
    parts = []
    y = 100
    for section, items in sections:
        inner = []
        for kind, name, label in items:
            inner.append(
                f'<XCUIElementType{kind} type="XCUIElementType{kind}" name="{name}" '
                f'label="{label}" enabled="true" visible="true" x="16" y="{y}" width="358" '
                f'height="44"/>'
            )
            y += 50
        inner_xml = "".join(inner)
        parts.append(
            f'<XCUIElementTypeOther type="XCUIElementTypeOther" name="{section}" '
            f'enabled="true" visible="true" x="0" y="80" width="390" height="700">'
            f"{inner_xml}</XCUIElementTypeOther>"
        )
    body = "".join(parts)
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?><AppiumAUT>'
        '<XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Prefs" '
        'label="Prefs" enabled="true" visible="true" x="0" y="0" width="390" height="844">'
        '<XCUIElementTypeWindow type="XCUIElementTypeWindow" enabled="true" visible="true" '
        f'x="0" y="0" width="390" height="844">{body}</XCUIElementTypeWindow>'
        "</XCUIElementTypeApplication></AppiumAUT>"
    )
    from bridge.core.importers import import_dump

    raw = import_dump(xml.encode(), "prefs.xml")
    assert isinstance(raw, RawTree), raw
    return raw


SIGN_OUT = ("Button", "Sign out", "Sign out")
ACCOUNT = "account-section"
DANGER = "danger-zone"


def _sign_out_ref() -> NodeRef:
    base = norm(_ios_screen((ACCOUNT, [SIGN_OUT]), (DANGER, [("Button", "Erase", "Erase")])))
    tree = NodeTree(base.full.nodes)
    target = next(n for n in base.full.nodes if n.label == "Sign out")
    assert target.automation_id is None and target.resource_id is None  # name == label
    ref = build_ref(base.full, tree, target.node_id)
    assert ref is not None
    kinds = [type(loc).__name__ for loc in ref.locators]
    assert kinds == ["RoleLabelAncestorLocator", "StructuralPathLocator", "BoundsNearestLocator"]
    label = ref.locators[0]
    assert isinstance(label, RoleLabelAncestorLocator) and label.ancestor == f"id:{ACCOUNT}"
    return ref


def _landed_on(got: object, raw: RawTree) -> str | None:
    assert isinstance(got, Resolved), got
    section = raw.nodes[raw.nodes[norm(raw).handles[got.node.node_id]].parent]
    return section.automation_id


def test_ios_label_only_ref_resolves_to_its_element_when_a_look_alike_appears_elsewhere() -> None:
    ref = _sign_out_ref()
    raw = _ios_screen((ACCOUNT, [SIGN_OUT]), (DANGER, [SIGN_OUT, ("Button", "Erase", "Erase")]))
    got = resolve_ref(ref, norm(raw, "s_2").full)
    assert _landed_on(got, raw) == ACCOUNT  # the scope tells them apart: its own element


def test_ios_label_only_ref_refuses_when_only_a_look_alike_elsewhere_is_left() -> None:
    ref = _sign_out_ref()
    raw = _ios_screen((ACCOUNT, []), (DANGER, [SIGN_OUT, ("Button", "Erase", "Erase")]))
    got = resolve_ref(ref, norm(raw, "s_2").full)
    assert isinstance(got, NotFound | Stale), got


def test_ios_label_only_ref_is_ambiguous_when_the_label_is_reused_beside_it() -> None:
    ref = _sign_out_ref()
    raw = _ios_screen((ACCOUNT, [SIGN_OUT, SIGN_OUT]), (DANGER, []))
    got = resolve_ref(ref, norm(raw, "s_2").full)
    assert isinstance(got, Ambiguous) and len(got.candidates) == 2


def test_ios_label_only_ref_refuses_a_look_alike_that_has_an_identifier() -> None:
    ref = _sign_out_ref()
    alike = ("Button", "signOutEverywhere", "Sign out")  # a real identifier, the same label
    alone = norm(_ios_screen((ACCOUNT, [alike]), (DANGER, [])), "s_2")
    got = resolve_ref(ref, alone.full)
    assert isinstance(got, Stale) and "automation" in got.reason, got
    both = norm(_ios_screen((ACCOUNT, [SIGN_OUT, alike]), (DANGER, [])), "s_3")
    assert isinstance(resolve_ref(ref, both.full), Ambiguous)


def test_ios_label_only_ref_refuses_a_text_that_reuses_the_label() -> None:
    ref = _sign_out_ref()
    raw = _ios_screen((ACCOUNT, [("StaticText", "Sign out", "Sign out")]), (DANGER, []))
    got = resolve_ref(ref, norm(raw, "s_2").full)
    assert isinstance(got, NotFound | Stale), got

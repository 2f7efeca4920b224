"""Web content -> raw nodes under the WebView (``bridge.core.web_tree``), on CDP answers
recorded from Debian's real Chromium (tests/fixtures/web/record.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import msgspec
import pytest

from bridge.core.normalize import SnapshotContext, normalize
from bridge.core.web_tree import (
    WEB_HANDLE_BASE,
    Viewport,
    WebOverlay,
    is_web_node,
    same_shape_changes,
    viewport_of,
    web_items,
)
from bridge.wire.cdp import DomSnapshot, FullAXTree, LayoutMetrics
from bridge.wire.enums import Platform, Role
from bridge.wire.raw import RawNode, RawTree, ScreenSize
from tests.conftest import requires_shared

FIXTURES = Path(__file__).parents[1] / "fixtures" / "web"
BOX = (0, 283, 1080, 2337)  # the simulated web screen's WebView (device px)


def page(name: str) -> tuple[FullAXTree, DomSnapshot, LayoutMetrics]:
    data = json.loads((FIXTURES / f"{name}.json").read_text())

    def decode(key: str, kind: type) -> object:
        return msgspec.json.decode(json.dumps(data[key]), type=kind)

    return (
        decode("ax", FullAXTree),  # type: ignore[return-value]
        decode("snapshot", DomSnapshot),
        decode("metrics", LayoutMetrics),
    )


def native(platform: Platform = Platform.ANDROID) -> RawTree:
    ios = platform is Platform.IOS
    return RawTree(
        capture=1,
        platform=platform,
        screen=ScreenSize(width=1080, height=2400),
        nodes=(
            RawNode(handle=1, parent=-1, class_name="XCUIElementTypeApplication" if ios
                    else "android.widget.FrameLayout", bounds=(0, 0, 1080, 2400)),
            RawNode(handle=2, parent=0, class_name="XCUIElementTypeButton" if ios
                    else "android.widget.Button", text="Continue", clickable=True,
                    bounds=(64, 100, 1016, 220)),
            RawNode(handle=3, parent=0, class_name="XCUIElementTypeWebView" if ios
                    else "android.webkit.WebView", bounds=BOX),
            RawNode(handle=4, parent=0, class_name="XCUIElementTypeStaticText" if ios
                    else "android.widget.TextView", text="Footer", bounds=(0, 2337, 1080, 2400)),
        ),
    )  # fmt: skip


def content(name: str = "shop-login", **kw: object):  # type: ignore[no-untyped-def]
    ax, snap, metrics = page(name)
    return web_items(ax, snap, viewport_of(metrics, BOX), **kw)  # type: ignore[arg-type]


def test_the_login_form_is_read_with_roles_names_and_marks() -> None:
    items = content().items
    by_id = {it.automation_id: it for it in items}
    email = by_id["web:#email"]
    assert (email.role, email.name, email.hint) == ("textbox", "Email", "you@example.com")
    assert by_id["web:#password"].password and by_id["web:#password"].value is None
    assert by_id["web:#signin"].role == "button" and by_id["web:#signin"].name == "Sign in"
    assert all(it.automation_id.startswith("web:") for it in items)
    # a button's own text is not a second node; inline text boxes never appear
    names = [it.name for it in items]
    assert names.count("Sign in") == 1 and all(it.role != "InlineTextBox" for it in items)


def test_css_pixels_map_to_device_pixels_through_the_viewport() -> None:
    _, _, metrics = page("shop-login")
    vp = viewport_of(metrics, BOX)
    assert vp.scale == pytest.approx(1080 / 432)
    email = next(it for it in content().items if it.html_id == "email")
    assert email.bounds is not None
    left, top, right, _ = email.bounds
    # the field spans the page's width less 16 CSS px of body padding each side
    assert left == round(16 * 2.5) and right == round((432 - 16) * 2.5)
    assert BOX[1] < top < BOX[3]
    assert vp.to_css(left, top) == pytest.approx((16, (top - BOX[1]) / 2.5))


def test_a_scrolled_page_moves_its_nodes_and_keeps_only_the_visible_part_and_margin() -> None:
    items = content("shop-scrolled").items
    _, _, metrics = page("shop-scrolled")
    assert metrics.cssVisualViewport.pageY == 300
    rows = [it for it in items if it.role == "listitem"]
    assert rows and all(it.bounds is not None for it in rows)
    # the first rows sit above the WebView now: still there (margin), but not visible
    assert not rows[0].visible and any(it.visible for it in rows)
    assert rows[0].bounds is not None and rows[0].bounds[1] < BOX[1]
    # no margin: what is wholly above the WebView goes
    tight = content("shop-scrolled", margin=0).items
    assert len([it for it in tight if it.role == "listitem"]) < len(rows)
    assert all(it.visible for it in tight if it.bounds is not None)


def test_the_budget_cuts_in_document_order_and_says_so() -> None:
    cut = content("shop-scrolled", max_nodes=5)
    assert len(cut.items) <= 5 and cut.truncated and "5 nodes" in cut.truncated
    assert content("shop-scrolled").truncated is None


def test_the_overlay_goes_under_the_webview_and_normalizes_like_native_nodes() -> None:
    raw = native()
    overlay = WebOverlay(BOX, content())
    seen = overlay.apply(raw)
    n = len(content().items)
    assert len(seen.nodes) == len(raw.nodes) + n
    assert seen.nodes[3].handle == WEB_HANDLE_BASE and seen.nodes[3].parent == 2
    assert seen.nodes[-1].text == "Footer" and seen.nodes[-1].parent == 0
    snap = normalize(seen, SnapshotContext("d", "s_1", 0))
    assert not hasattr(snap, "reason")
    nodes = snap.full.nodes  # type: ignore[union-attr]
    web = [nd for nd in nodes if is_web_node(nd.automation_id)]
    roles = {nd.automation_id: nd.role for nd in web}
    assert roles["web:#email"] is Role.INPUT and roles["web:#signin"] is Role.BUTTON
    webview = next(nd for nd in nodes if nd.role is Role.WEB_VIEW)
    assert all(nd.node_id != webview.node_id for nd in web)
    password = next(nd for nd in web if nd.automation_id == "web:#password")
    assert password.effective_state.password and password.value is None
    # the compact view keeps the mark (resourceId / automationId), not only the class
    compact = {nd.automation_id for nd in snap.compact.nodes}  # type: ignore[union-attr]
    assert "web:#email" in compact


def test_an_overlay_without_its_webview_changes_nothing() -> None:
    raw = native()
    assert WebOverlay((1, 2, 3, 4), content()).apply(raw) is raw


def test_a_one_field_change_is_a_same_shape_change_of_one_node() -> None:
    raw = native()
    before = WebOverlay(BOX, content()).apply(raw)
    items = list(content().items)
    i = next(k for k, it in enumerate(items) if it.html_id == "email")
    import dataclasses

    items[i] = dataclasses.replace(items[i], value="demo@example.com")
    changed = WebOverlay(BOX, dataclasses.replace(content(), items=tuple(items))).apply(raw)
    assert same_shape_changes(before, changed) == (3 + i,)
    assert same_shape_changes(before, native()) is None


def test_ios_keeps_the_mark_in_the_automation_id() -> None:
    seen = WebOverlay(BOX, content()).apply(native(Platform.IOS))
    snap = normalize(seen, SnapshotContext("d", "s_1", 0))
    ids = {nd.automation_id for nd in snap.full.nodes}  # type: ignore[union-attr]
    assert "web:#signin" in ids


def test_viewport_maths() -> None:
    vp = Viewport((0, 100, 1000, 1100), page_x=0, page_y=50, css_width=400, css_height=400)
    assert vp.to_device(10, 60, 20, 10) == (25, 125, 75, 150)


@requires_shared
def test_a_merged_snapshot_conforms_to_the_reference(shared_dir: Path, tmp_path: Path) -> None:
    seen = WebOverlay(BOX, content("shop-scrolled")).apply(native())
    snap = normalize(seen, SnapshotContext("sim-android", "s_1", 0))
    from bridge.wire.codec import encode

    for view in ("full", "compact"):
        path = tmp_path / f"{view}.json"
        path.write_bytes(encode(getattr(snap, view)))
        check = subprocess.run(
            [sys.executable, str(shared_dir / "tools" / "conform.py"), "snapshot", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        assert check.returncode == 0, check.stdout + check.stderr


def test_two_pages_go_under_their_own_webviews_with_their_own_handles() -> None:
    from bridge.core.web_tree import HANDLE_RANGE, WebOverlays

    lower = (0, 1400, 1080, 2337)
    raw = native()
    two_webviews = msgspec.structs.replace(
        raw,
        nodes=(
            *raw.nodes[:2],
            msgspec.structs.replace(raw.nodes[2], bounds=(0, 283, 1080, 1380)),
            raw.nodes[3],
            RawNode(handle=5, parent=0, class_name="android.webkit.WebView", bounds=lower),
        ),
    )
    upper_box = (0, 283, 1080, 1380)
    overlays = WebOverlays.of([(upper_box, content()), (lower, content())])
    seen = overlays.apply(two_webviews)
    handles = [n.handle for n in seen.nodes if is_web_node(n.automation_id)]
    assert len(handles) == len(set(handles)) == 2 * len(content().items)
    first = {h for h in handles if WEB_HANDLE_BASE - HANDLE_RANGE < h <= WEB_HANDLE_BASE}
    assert len(first) == len(content().items)  # the upper page's range, the lower's below it
    webviews = [i for i, n in enumerate(seen.nodes) if n.class_name == "android.webkit.WebView"]
    assert len(webviews) == 2
    for i, node in enumerate(seen.nodes):
        if not is_web_node(node.automation_id):
            continue
        top = i
        while seen.nodes[top].parent >= 0 and not seen.nodes[top].class_name.endswith("WebView"):  # type: ignore[union-attr]
            top = seen.nodes[top].parent
        assert top in webviews
        owner = upper_box if node.handle in first else lower
        assert seen.nodes[top].bounds == owner

"""Every real dump under ../shared/data/real-dumps imports whole, with the right format.

Node counts are compared with MANIFEST.tsv ``node_count`` exactly, for every format: the
manifest counts UI elements, i.e. uiautomator ``<node>`` elements, Appium/WDA XML elements
other than the ``<hierarchy>`` / ``<AppiumAUT>`` wrapper, and every object of a JSON tree
(Maestro's synthetic bounds-[0,0][0,0] root included) — which is exactly what the importers
turn into raw nodes. No format needs an adjusted count.
"""

from __future__ import annotations

import csv

import pytest

from bridge.core.importers import ImportFailure, detect_format, import_dump
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree
from tests.conftest import SHARED_DIR
from tests.core.importers.structure import assert_well_formed
from tests.skips import SHARED_ABSENT

DUMPS = SHARED_DIR / "data" / "real-dumps"
MANIFEST = DUMPS / "MANIFEST.tsv"

EXPECTED_FORMAT = {
    "android-uiautomator": "android-uiautomator",
    "android-appium-pagesource": "android-appium-pagesource",
    "android-a11ynode": "android-a11ynode",
    "ios-wda-xml": "ios-wda-xml",
    "ios-maestro-json": "ios-maestro-json",
    "ios-wda-json-legacy": "ios-wda-json-legacy",
    "rico-json": "rico-json",
    "rico-json (Enrico)": "rico-json",
}
"""MANIFEST ``platform`` -> detected format (Enrico is the Rico node schema without the
activity envelope, so it is the same format)."""


def _rows() -> list[dict[str, str]]:
    if not MANIFEST.is_file():
        return []
    with MANIFEST.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


ROWS = _rows()
requires_dumps = pytest.mark.skipif(not ROWS, reason=SHARED_ABSENT)


def _load(name: str) -> RawTree:
    tree = import_dump((DUMPS / name).read_bytes(), name)
    assert isinstance(tree, RawTree), tree
    return tree


@requires_dumps
def test_manifest_lists_every_dump_file() -> None:
    on_disk = {str(p.relative_to(DUMPS)) for p in DUMPS.rglob("*") if p.is_file() and p != MANIFEST}
    assert on_disk == {row["local_file"] for row in ROWS}
    assert {p.name for p in DUMPS.iterdir() if p.is_dir()} == {"android", "ios", "rico"}


@requires_dumps
@pytest.mark.parametrize("row", ROWS, ids=[row["local_file"] for row in ROWS])
def test_real_dump_imports_whole(row: dict[str, str]) -> None:
    data = (DUMPS / row["local_file"]).read_bytes()
    expected_format = EXPECTED_FORMAT[row["platform"]]
    assert detect_format(data) == expected_format

    tree = import_dump(data, row["local_file"])
    assert not isinstance(tree, ImportFailure), tree.reason
    assert len(tree.nodes) == int(row["node_count"])
    assert tree.capture == 0
    expected_platform = Platform.IOS if row["platform"].startswith("ios") else Platform.ANDROID
    assert tree.platform == expected_platform
    assert_well_formed(tree)
    # Deterministic: the same bytes give an equal tree.
    assert import_dump(data, row["local_file"]) == tree


def _by_class(tree: RawTree, class_name: str) -> list[RawNode]:
    return [n for n in tree.nodes if n.class_name == class_name]


@requires_dumps
def test_game_surface_has_few_nodes_and_no_semantics() -> None:
    tree = _load("android/ClashBot__hierarchy.xml")
    assert len(tree.nodes) == 4
    assert [n.parent for n in tree.nodes] == [-1, 0, 1, 2]
    stage = tree.nodes[3]
    assert stage.class_name == "android.view.View"
    assert stage.automation_id == "com.supercell.clashofclans:id/stage"
    assert stage.focusable and not stage.clickable and stage.actions == ()
    assert all(n.text is None and n.label is None for n in tree.nodes)
    assert tree.package == "com.supercell.clashofclans"


@requires_dumps
def test_multi_window_home_screen_with_system_bars() -> None:
    tree = _load("android/droidmate__nexus7_2013_home_empty.xml")
    assert [(w.id, w.type, w.layer, w.package) for w in tree.windows] == [
        (0, "system", 2, "com.android.systemui"),
        (1, "system", 1, "com.android.systemui"),
        (2, "application", 0, "com.android.launcher"),
    ]
    assert tree.package == "com.android.launcher"
    assert [n.handle for n in tree.nodes if n.parent == -1] == [0, 8, 29]
    back = next(n for n in tree.nodes if n.automation_id == "com.android.systemui:id/back")
    assert back.window == 0 and back.label == "Back"
    assert back.actions == ("click", "longClick")


@requires_dumps
def test_six_window_dump_with_gesture_windows() -> None:
    tree = _load("android/indriverpy__hierarchy.xml")
    assert [w.type for w in tree.windows] == ["application"] + ["system"] * 5
    assert [w.package for w in tree.windows].count("gesture") == 3
    assert tree.package == "sinet.startup.inDriver"


@requires_dumps
def test_notification_shade_only_system_windows() -> None:
    tree = _load("android/indriverpy__SolicitudDViaje6.xml")
    assert {w.type for w in tree.windows} == {"system"}
    assert tree.package == "com.android.systemui"


@requires_dumps
def test_rotation_is_degrees() -> None:
    assert _load("android/bluestacks_doomscroller__window_dump.xml").rotation == 90
    assert _load("android/droidmate__f_tsa_1button.xml").rotation == 0


@requires_dumps
def test_cjk_rtl_and_special_spaces_are_verbatim() -> None:
    korean = _load("android/test_scripts__page_source.xml")
    assert any(n.text == "Play 스토어" for n in korean.nodes)
    persian = _load("rico/rico-json-processing__3363.json")
    assert any(n.text == "فارسی" for n in persian.nodes)
    chinese = _load("android/keydroidx-launcher__ui_picker.xml")
    assert any(n.text == "飞行模式" for n in chinese.nodes)
    alarm = _load("android/shirates-core__XmlDataAndroid_clock_Alarm.xml")
    assert any(n.text == "8:30\u200aAM" for n in alarm.nodes)  # hair space kept


@requires_dumps
def test_webview_and_react_native_views_are_kept() -> None:
    tree = _load("android/gui-scrapper2__hierarchy.xml")
    assert len(_by_class(tree, "android.webkit.WebView")) == 2
    assert len(tree.windows) == 2 and tree.package == "com.brella"
    safari = _load("ios/web-testing-appium__page_source.xml")
    assert len(_by_class(safari, "XCUIElementTypeWebView")) == 3
    assert len(safari.windows) == 2


@requires_dumps
def test_a11ynode_variant_uses_reported_actions_and_visibility() -> None:
    tree = _load("android/AppCrawler__miniprogram.xml")
    assert tree.package == "com.tencent.mm"
    assert tree.nodes[0].actions == ("select",)
    assert not any("click" in n.actions for n in tree.nodes if not n.clickable)
    editable = [n for n in tree.nodes if n.editable]
    assert len(editable) == 1 and "setText" in editable[0].actions
    zero_width = tree.nodes[20]
    assert zero_width.bounds == (0, 119, 0, 181) and not zero_width.visible
    assert any(n.text == "取消" for n in tree.nodes)


@requires_dumps
def test_degenerate_ios_snapshot_imports() -> None:
    tree = _load("ios/shirates-core__node_for_rootelement_not_found_degenerate.xml")
    assert len(tree.nodes) == 95
    assert {n.class_name for n in tree.nodes} == {"XCUIElementTypeAny"}
    assert {n.bounds for n in tree.nodes} == {(-1, -1, -1, -1)}
    assert not any(n.visible for n in tree.nodes)
    assert tree.platform == Platform.IOS and tree.screen is None


@requires_dumps
def test_wda_xml_application_gives_screen_and_identifiers() -> None:
    tree = _load("ios/alumnium__simple_xcuitest_accessibility_tree.xml")
    assert tree.screen is not None and (tree.screen.width, tree.screen.height) == (393, 852)
    bar = next(n for n in tree.nodes if n.class_name == "XCUIElementTypeNavigationBar")
    assert bar.automation_id == "BLTNBoard.BulletinView" and bar.label is None
    assert any(n.hint == "Type..." for n in tree.nodes)
    cells = _by_class(tree, "XCUIElementTypeCell")
    assert len(cells) == 6 and all(c.actions == ("click",) for c in cells)


@requires_dumps
def test_legacy_wda_json_rounds_fractional_points() -> None:
    tree = _load("ios/idb__tree.json")
    assert tree.package == "com.apple.springboard"
    assert tree.nodes[2].class_name == "UIAImage"
    # {{-35.98201, -64}, {446.96402, 795}}: edges rounded half up one by one.
    assert tree.nodes[2].bounds == (-36, -64, 411, 731)
    assert len(tree.windows) == 5
    calendar = next(n for n in tree.nodes if n.label == "Calendar")
    assert calendar.value == "Tuesday, March 08" and calendar.hint == "Double tap to open"
    assert calendar.automation_id is None  # name == label
    # name "Double tap to open" with no label is a hint fallback, not an identifier
    assert all(n.automation_id != "Double tap to open" for n in tree.nodes)


@requires_dumps
def test_maestro_ios_fields() -> None:
    tree = _load("ios/SolidiMobileApp4-test__run-140208_cmd7_addressbook.json")
    first = next(n for n in tree.nodes if n.automation_id == "input-firstname-manual")
    assert first.hint == "Enter first name"
    root = tree.nodes[0]
    assert root.bounds == (0, 0, 0, 0) and not root.enabled
    wifi = next(n for n in tree.nodes if n.automation_id == "3 of 3 Wi-Fi bars")
    assert wifi.value == "SSID, 3 of 3 Wi-Fi bars" and wifi.text is None


@requires_dumps
def test_rico_visibility_focus_and_package() -> None:
    tree = _load("rico/rico-json-processing__33623.json")
    assert tree.package == "com.android.browser"
    assert tree.focus == 84
    focused = tree.nodes[84]
    assert focused.class_name == "com.android.browser.BrowserWebView"
    assert focused.actions == ("click", "longClick", "scrollForward", "scrollBackward")
    assert any(n.hint == "Search or type URL" for n in tree.nodes)
    assert sum(not n.visible for n in tree.nodes) >= 14  # 14 'gone' nodes at least
    enrico = _load("rico/enrico__10594-hierarchy.json")
    assert enrico.package is None
    button = next(n for n in enrico.nodes if n.text == "Get Started")
    assert button.clickable and button.actions == ("click",)

"""TAB and CANVAS from evidence, on dumps built for these tests (tests/fixtures/semantics).

TAB: tab classes (``ActionBar$Tab``), tab containers (``TabWidget``), the parts of a Material
navigation item (``navigation_bar_item_*``, ``smallLabel``/``largeLabel``), TalkBack's words
("tab 2 of 4", "…, tab", "… tab."), one selected member of a horizontal row (Compose, React
Native). CANVAS: a drawing class, an iOS map or direct-interaction element, or an unnamed
interactive leaf covering half its window and not drawn over; empty backgrounds are UNKNOWN
and leave the compact view (before this rule every empty leaf of 200x200 px was CANVAS).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.core.importers import import_dump
from bridge.core.normalize import Normalized, SnapshotContext, normalize
from bridge.core.roles import RoleContext, infer_role, tab_row
from bridge.wire.enums import Platform, Role
from bridge.wire.node import SemanticNode
from bridge.wire.raw import RawNode, RawTree
from tests.conftest import requires_shared
from tests.core.realdumps import DUMPS, dump_paths

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "semantics"


class Screen:
    """A fixture normalized, with lookups by resource-id suffix and by name."""

    def __init__(self, name: str | bytes) -> None:
        data = name if isinstance(name, bytes) else (FIXTURES / name).read_bytes()
        raw = import_dump(data, "fixture")
        assert isinstance(raw, RawTree), raw
        out = normalize(raw, SnapshotContext("dev", "s_1", 0))
        assert isinstance(out, Normalized), out
        self.raw, self.out = raw, out
        self.compact_ids = {n.node_id for n in out.compact.nodes}

    def by_id(self, suffix: str) -> SemanticNode:
        (node,) = [n for n in self.out.full.nodes if (n.automation_id or "").endswith(suffix)]
        return node

    def by_name(self, name: str) -> SemanticNode:
        (node,) = [n for n in self.out.full.nodes if name in (n.label, n.text)]
        return node

    def roles(self, role: Role) -> list[SemanticNode]:
        return [n for n in self.out.full.nodes if n.role is role]

    def raw_of(self, node: SemanticNode) -> RawNode:
        return self.raw.nodes[self.out.handles[node.node_id]]


# ---- TAB ------------------------------------------------------------------------------------


def test_android_views_tabs_by_class_container_and_navigation_item_parts() -> None:
    s = Screen("tabs.views.xml")
    tabs = s.roles(Role.TAB)
    assert [t.label for t in tabs] == [
        "Chats",  # android.app.ActionBar$Tab (Material TabLayout)
        "Status",
        "Calls",
        "Today",  # children of android.widget.TabWidget
        "Week",
        "Inbox",  # BottomNavigationItemView: smallLabel / largeLabel children
        "Sent",
        "Home",  # NavigationBarItemView: navigation_bar_item_* children
        "Search",
        "Library",
        "Profile",
    ]
    home = s.by_id("/nav_home")
    assert home.effective_state.selected and not home.effective_state.clickable  # still a tab
    assert s.by_id("/nav_search").effective_state.clickable
    # what sits inside a tab is not a second tab; a toolbar's buttons are buttons
    assert s.by_name("CHATS").role is Role.TEXT
    assert s.by_id("id/navigation_bar_item_large_label_view").role is Role.TEXT
    assert {s.by_name(n).role for n in ("Navigate up", "Edit", "Share")} == {Role.BUTTON}
    assert all(t.node_id in s.compact_ids for t in tabs)


def test_compose_and_react_native_tabs_by_selected_row_and_talkback_words() -> None:
    s = Screen("tabs.compose.xml")
    tabs = [t.label for t in s.roles(Role.TAB)]
    assert tabs == [
        "Songs",  # a horizontal row of clickable views, exactly one selected
        "Albums",
        "Artists",
        "Example Domain, tab",  # "…, tab"
        "Home\nTab 1 of 2",  # Flutter: a Button whose text says "Tab 1 of 2"
        "Library tab.",  # "… tab."
        "Feed, tab, 1 of 4, selected",  # React Native: "…, tab, N of M"
        "Discover, tab, 2 of 4",
        "Inbox, tab, 3 of 4",
        "Me, tab, 4 of 4",
    ]
    # a row with nothing selected (chips), a vertical group, a selected list row: not tabs
    assert {n.role for n in s.out.full.nodes if n.label in ("Rock", "Jazz")} == {Role.BUTTON}
    assert {n.role for n in s.out.full.nodes if n.label in ("Small", "Large")} == {Role.BUTTON}
    assert {n.role for n in s.out.full.nodes if n.label in ("Day 1", "Day 2")} == {Role.LIST_ITEM}
    # "New tab" and "Close tab" name actions on tabs; they are not tabs
    assert s.by_name("New tab").role is Role.BUTTON and s.by_name("Close tab").role is Role.BUTTON


@pytest.mark.parametrize(
    ("words", "is_tab"),
    [
        ("Discover, tab 1 of 5, selected", True),
        ("Discover, tab, 1 of 5", True),
        ("Home\nTab 1 of 2", True),
        ("Settings Tab 3 of 3", True),
        ("Page title, tab", True),
        ("Home tab.", True),
        ("New tab", False),
        ("Close tab", False),
        ("Tabs", False),
        ("Open in a new tab to compare", False),
        ("1 of 5", False),
    ],
)
def test_talkback_words_for_a_tab(words: str, is_tab: bool) -> None:
    node = RawNode(handle=1, parent=0, class_name="android.view.View", label=words, clickable=True)
    ctx = RoleContext(parent_role=Role.UNKNOWN)
    assert (infer_role(node, ctx) is Role.TAB) is is_tab
    # the words do not make a tab of a node that is not interactive, nor of one inside a tab
    inert = RawNode(handle=1, parent=0, class_name="android.view.View", label=words)
    assert infer_role(inert, ctx) is not Role.TAB
    assert infer_role(node, RoleContext(parent_role=Role.TAB)) is not Role.TAB


def _cell(x: int, *, selected: bool = False, y: int = 0, **flags: bool) -> RawNode:
    return RawNode(
        handle=x,
        parent=0,
        class_name="android.view.View",
        bounds=(x, y, x + 100, y + 80),
        selected=selected,
        clickable=flags.get("clickable", True),
        focusable=True,
        checkable=flags.get("checkable", False),
    )


def test_tab_row_rules() -> None:
    assert tab_row([_cell(0, selected=True), _cell(100), _cell(200)]) == {0, 1, 2}
    assert tab_row([_cell(0), _cell(100)]) == frozenset()  # nothing selected
    assert tab_row([_cell(0, selected=True), _cell(100, selected=True)]) == frozenset()
    assert tab_row([_cell(0, selected=True)]) == frozenset()  # one is no row
    stacked = [_cell(0, selected=True), _cell(0, y=100)]
    assert tab_row(stacked) == frozenset()  # vertical
    radios = [_cell(0, selected=True, checkable=True), _cell(100, checkable=True)]
    assert tab_row(radios) == frozenset()  # checkable: radio buttons, not tabs
    twice = [_cell(0, selected=True), _cell(0, selected=True), _cell(100)]
    assert tab_row(twice) == {0, 1, 2}  # a tab reported twice is still one slot


IOS_TAB_BAR = b"""<?xml version="1.0" encoding="UTF-8"?>
<AppiumAUT><XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Clock"
 label="Clock" enabled="true" visible="true" x="0" y="0" width="390" height="844">
 <XCUIElementTypeTabBar type="XCUIElementTypeTabBar" name="Tab Bar" enabled="true"
  visible="true" x="0" y="761" width="390" height="83">
  <XCUIElementTypeButton type="XCUIElementTypeButton" name="World Clock" label="World Clock"
   enabled="true" visible="true" x="2" y="762" width="94" height="48"/>
  <XCUIElementTypeButton type="XCUIElementTypeButton" name="Alarms" label="Alarms"
   enabled="true" visible="true" x="100" y="762" width="94" height="48"/>
 </XCUIElementTypeTabBar>
 <XCUIElementTypeButton type="XCUIElementTypeButton" name="Edit" label="Edit"
  enabled="true" visible="true" x="16" y="50" width="40" height="44"/>
</XCUIElementTypeApplication></AppiumAUT>"""


def test_ios_tab_bar_buttons_are_tabs() -> None:
    s = Screen(IOS_TAB_BAR)
    assert [t.label for t in s.roles(Role.TAB)] == ["World Clock", "Alarms"]
    assert s.by_name("Edit").role is Role.BUTTON


# ---- CANVAS -------------------------------------------------------------------------------


def _area(node: RawNode) -> int:
    assert node.bounds is not None
    return (node.bounds[2] - node.bounds[0]) * (node.bounds[3] - node.bounds[1])


def test_a_drawing_class_is_a_canvas() -> None:
    s = Screen("canvas.game.xml")
    assert [n.automation_id for n in s.roles(Role.CANVAS)] == ["org.example.canvas:id/game_surface"]
    assert s.by_name("Pause").role is Role.BUTTON


def test_an_unnamed_interactive_leaf_covering_its_window_is_a_canvas() -> None:
    s = Screen("canvas.drawing.xml")
    drawing = s.by_id("/drawing")
    assert drawing.role is Role.CANVAS and drawing.node_id in s.compact_ids
    assert s.by_name("Undo").role is Role.BUTTON


def test_empty_backgrounds_are_unknown_and_left_out_of_compact() -> None:
    s = Screen("canvas.backgrounds.xml")
    assert s.roles(Role.CANVAS) == []
    empty = [
        n
        for n in s.out.full.nodes
        if n.parent_id is not None
        and not s.raw_of(n).clickable
        and not (n.text or n.label)
        and not any(c.parent_id == n.node_id for c in s.out.full.nodes)
    ]
    # a full-screen backdrop, 60 and 99 px strips, an empty Compose box: every one covers
    # more than 200x200 px (the old rule made each a CANVAS); none is a canvas now, none is in
    # the compact view
    assert len(empty) == 4
    assert sum(1 for n in empty if _area(s.raw_of(n)) >= 200 * 200) == 4
    for node in empty:
        assert node.role is Role.UNKNOWN
        assert node.node_id not in s.compact_ids
    # a clickable scrim over less than half of the window: a BUTTON, not a canvas (the rule
    # for a surface drawn over by a later sibling: test_a_surface_drawn_over_by_...)
    assert s.by_id("/scrim").role is Role.BUTTON
    # a clickable leaf covering a small part of the window is a button
    assert s.by_id("/promo").role is Role.BUTTON


IOS_SURFACES = b"""<?xml version="1.0" encoding="UTF-8"?>
<AppiumAUT><XCUIElementTypeApplication type="XCUIElementTypeApplication" name="Trails"
 label="Trails" enabled="true" visible="true" x="0" y="0" width="390" height="844">
 <XCUIElementTypeMap type="XCUIElementTypeMap" enabled="true" visible="true" x="0" y="0"
  width="390" height="500"/>
 <XCUIElementTypeOther type="XCUIElementTypeOther" name="signature" enabled="true"
  visible="true" accessible="true" traits="AllowsDirectInteraction" x="0" y="500"
  width="390" height="200"/>
 <XCUIElementTypeOther type="XCUIElementTypeOther" enabled="true" visible="true"
  x="0" y="0" width="390" height="844"/>
</XCUIElementTypeApplication></AppiumAUT>"""


def test_ios_maps_and_direct_interaction_are_canvases_empty_others_are_not() -> None:
    s = Screen(IOS_SURFACES)
    canvases = s.roles(Role.CANVAS)
    assert [n.native_type for n in canvases] == ["XCUIElementTypeMap", "XCUIElementTypeOther"]
    assert canvases[1].automation_id == "signature"
    backdrop = s.out.full.nodes[-1]
    assert backdrop.role is Role.UNKNOWN and backdrop.node_id not in s.compact_ids


def test_a_drawing_class_with_children_is_not_a_canvas() -> None:
    tree = RawTree(
        capture=1,
        platform=Platform.ANDROID,
        nodes=(
            RawNode(handle=0, parent=-1, class_name="android.widget.FrameLayout"),
            RawNode(
                handle=1, parent=0, class_name="android.view.TextureView", bounds=(0, 0, 900, 900)
            ),
            RawNode(handle=2, parent=1, class_name="android.widget.TextView", text="Marker"),
        ),
    )
    out = normalize(tree, SnapshotContext("dev", "s_1", 0))
    assert isinstance(out, Normalized)
    assert Role.CANVAS not in {n.role for n in out.full.nodes}


def _surface_role(*siblings: RawNode) -> Role:
    """The role of a focusable, unnamed, full-window leaf (handle 1) with ``siblings`` after
    it (handles 2, 3 …) in a 1000x2000 window."""
    nodes = [
        RawNode(
            handle=0, parent=-1, class_name="android.widget.FrameLayout", bounds=(0, 0, 1000, 2000)
        ),
        RawNode(
            handle=1,
            parent=0,
            class_name="android.view.View",
            focusable=True,
            bounds=(0, 0, 1000, 2000),
        ),
    ]
    nodes += [
        RawNode(
            handle=2 + i,
            parent=0,
            class_name="android.widget.FrameLayout",
            bounds=s.bounds,
            visible=s.visible,
        )
        for i, s in enumerate(siblings)
    ]
    out = normalize(
        RawTree(capture=1, platform=Platform.ANDROID, nodes=tuple(nodes)),
        SnapshotContext("dev", "s_1", 0),
    )
    assert isinstance(out, Normalized), out
    return out.full.nodes[1].role


def _over(bounds: tuple[int, int, int, int], visible: bool = True) -> RawNode:
    return RawNode(handle=9, parent=0, bounds=bounds, visible=visible)


def test_a_surface_drawn_over_by_a_later_sibling_is_not_a_canvas() -> None:
    # alone, it is a drawing surface
    assert _surface_role() is Role.CANVAS
    # a sheet over exactly half of it (the rule is "at least half"): drawn over, no canvas
    # (an unnamed focusable leaf: UNKNOWN)
    assert _surface_role(_over((0, 1000, 1000, 2000))) is Role.UNKNOWN
    # one pixel row less than half: still a canvas
    assert _surface_role(_over((0, 1001, 1000, 2000))) is Role.CANVAS
    # half of it, measured as the overlap: a panel hanging half outside the surface covers
    # only a quarter of it
    assert _surface_role(_over((500, 1000, 1500, 3000))) is Role.CANVAS
    # the overlap is clipped on every side (a sheet larger than the surface covers it all)
    assert _surface_role(_over((-50, -50, 1050, 2050))) is Role.UNKNOWN
    # a panel beside it (touching, no overlap) or above it: no cover
    assert _surface_role(_over((1000, 0, 2000, 2000))) is Role.CANVAS
    assert _surface_role(_over((0, 2000, 1000, 4000))) is Role.CANVAS
    # an invisible sheet or one without bounds draws nothing
    assert _surface_role(_over((0, 0, 1000, 2000), visible=False)) is Role.CANVAS
    assert _surface_role(RawNode(handle=9, parent=0)) is Role.CANVAS
    # any later sibling counts, not only the next one
    assert _surface_role(_over((0, 0, 10, 10)), _over((0, 0, 1000, 1200))) is Role.UNKNOWN


# ---- on the real dumps in ../shared (read there, never copied) --------------------------------


REAL_TABS = {
    # file: labels of the TABs (bottom navigation, TabLayout rows, a browser tab strip)
    "android/shirates-core__XmlDataAndroid_clock_Alarm.xml": [
        "Alarm",
        "Clock",
        "Timer",
        "Stopwatch",
        "Bedtime",
    ],
    "android/indriverpy__hierarchy.xml": ["Solicitudes de viaje", "Desempeño", "Cartera"],
    "android/bluestacks_doomscroller__window_dump.xml": [
        "All Articles",
        "Sections",
        "Search",
        "MyNews",
        "Explore",
        "Contests",
        "Stats",
        "Profile",
    ],
    "android/droidmate__f_chrome_offline_nexus7vert.xml": [
        "http://www.google.com/ is not available, tab"
    ],
    "android/shirates-core__XmlDataAndroid_PlayStoreGamesScreen.xml": [
        "For you",
        "Top charts",
        "New",
        "Events",
        "Games",
        "Apps",
        "Books",
        "Movies & TV",
    ],
}


@requires_shared
@pytest.mark.parametrize("name", sorted(REAL_TABS))
def test_real_dump_tabs(name: str) -> None:
    s = Screen((DUMPS / name).read_bytes())
    assert [t.label for t in s.roles(Role.TAB)] == REAL_TABS[name]


@requires_shared
def test_real_dump_canvases_are_the_game_stage_and_a_drawn_calendar_only() -> None:
    found = []
    for path in dump_paths():
        s = Screen(path.read_bytes())
        found.extend((path.name, n.automation_id) for n in s.roles(Role.CANVAS))
    assert found == [
        ("ClashBot__hierarchy.xml", "com.supercell.clashofclans:id/stage"),
        (
            "droidmate__at.markushi.expensemanager_expense_set_date.xml",
            "at.markushi.expensemanager:id/monthview",
        ),
        (
            "droidmate__at.markushi.expensemanager_expense_set_date.xml",
            "at.markushi.expensemanager:id/monthview",
        ),
    ]

"""Role inference: raw platform classes, traits and flags -> a normalized ``Role``.

Invariants: a raw class name is never returned as a role; the result depends only on the raw
node and the context passed in (``RoleContext``: parent role and class, window type and extent,
children, membership in a tab row), so normalization stays deterministic. Order of rules:
explicit widget classes first, then iOS element types, then tab evidence, then canvas evidence,
then behaviour (editable, checkable, clickable), then content.

TAB needs evidence the platform exposes (docs/design.md, "TAB and CANVAS evidence"): a tab
class (``TabLayout$TabView``, ``ActionBar$Tab``, ``BottomNavigationItemView`` ...), a parent
that only holds tabs (``TabWidget``, ``BottomNavigationMenuView`` ...), the children Material's
navigation items always have (``navigation_bar_item_icon_view`` ...), the words TalkBack reads
for a tab ("tab 2 of 5", "…, tab", "… tab."), or one selected member in a horizontal row of
interactive siblings (``tab_row``: Compose ``Tab``/``NavigationBarItem``, React Native tabs).
CANVAS needs positive evidence too: a drawing class (SurfaceView, GLSurfaceView, TextureView),
an iOS map or an element allowing direct interaction, or an unnamed leaf that is focusable or
clickable and covers at least half of its window. An empty background is UNKNOWN (and so left
out of the compact view).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

from bridge.wire.base import Bounds
from bridge.wire.enums import Role
from bridge.wire.raw import RawNode, RawTree

# Android (and Rico) widget classes by simple name; suffix matching covers AppCompat/Material.
_ANDROID_CLASS_ROLES: tuple[tuple[str, Role], ...] = (
    ("WebView", Role.WEB_VIEW),
    ("EditText", Role.INPUT),
    ("AutoCompleteTextView", Role.INPUT),
    ("SearchAutoComplete", Role.INPUT),
    ("TextInputEditText", Role.INPUT),
    ("CheckBox", Role.CHECKBOX),
    ("CheckedTextView", Role.CHECKBOX),
    ("RadioButton", Role.RADIO),
    ("Switch", Role.SWITCH),
    ("SwitchCompat", Role.SWITCH),
    ("SwitchMaterial", Role.SWITCH),
    ("ToggleButton", Role.SWITCH),
    ("SeekBar", Role.SLIDER),
    ("RatingBar", Role.SLIDER),
    ("Slider", Role.SLIDER),
    ("NumberPicker", Role.SLIDER),
    ("ProgressBar", Role.PROGRESS),
    ("ImageButton", Role.BUTTON),
    ("FloatingActionButton", Role.BUTTON),
    ("Button", Role.BUTTON),
    ("RecyclerView", Role.LIST),
    ("ListView", Role.LIST),
    ("GridView", Role.LIST),
    ("ExpandableListView", Role.LIST),
    ("AbsListView", Role.LIST),
    ("ViewPager", Role.LIST),
    ("ViewPager2", Role.LIST),
    ("Spinner", Role.MENU),
    ("ActionMenuView", Role.MENU),
    ("MenuPopupWindow$MenuDropDownListView", Role.MENU),
    ("TabView", Role.TAB),
    ("TabLayout$TabView", Role.TAB),
    ("ActionBar$Tab", Role.TAB),
    ("BottomNavigationItemView", Role.TAB),
    ("NavigationBarItemView", Role.TAB),
    ("NavigationRailItemView", Role.TAB),
    ("SurfaceView", Role.CANVAS),
    ("GLSurfaceView", Role.CANVAS),
    ("TextureView", Role.CANVAS),
    ("ImageView", Role.IMAGE),
    ("QuickContactBadge", Role.IMAGE),
    ("TextView", Role.TEXT),
)

_IOS_TYPE_ROLES: dict[str, Role] = {
    "Application": Role.SCREEN,
    "Alert": Role.DIALOG,
    "Sheet": Role.DIALOG,
    "Dialog": Role.DIALOG,
    "Popover": Role.DIALOG,
    "Button": Role.BUTTON,
    "Key": Role.BUTTON,
    "Icon": Role.BUTTON,
    "StaticText": Role.TEXT,
    "TextField": Role.INPUT,
    "SecureTextField": Role.INPUT,
    "SearchField": Role.INPUT,
    "TextView": Role.INPUT,
    "Image": Role.IMAGE,
    "Switch": Role.SWITCH,
    "Toggle": Role.SWITCH,
    "CheckBox": Role.CHECKBOX,
    "RadioButton": Role.RADIO,
    "Slider": Role.SLIDER,
    "PickerWheel": Role.SLIDER,
    "Stepper": Role.SLIDER,
    "ProgressIndicator": Role.PROGRESS,
    "ActivityIndicator": Role.PROGRESS,
    "PageIndicator": Role.PROGRESS,
    "Table": Role.LIST,
    "CollectionView": Role.LIST,
    "Cell": Role.LIST_ITEM,
    "Link": Role.LINK,
    "WebView": Role.WEB_VIEW,
    "Menu": Role.MENU,
    "MenuBar": Role.MENU,
    "MenuItem": Role.MENU,
    "Tab": Role.TAB,
    "Map": Role.CANVAS,
}

_WEB_ROLES: dict[str, Role] = {
    "button": Role.BUTTON,
    "link": Role.LINK,
    "textbox": Role.INPUT,
    "searchbox": Role.INPUT,
    "combobox": Role.INPUT,
    "spinbutton": Role.INPUT,
    "checkbox": Role.CHECKBOX,
    "menuitemcheckbox": Role.CHECKBOX,
    "radio": Role.RADIO,
    "menuitemradio": Role.RADIO,
    "switch": Role.SWITCH,
    "slider": Role.SLIDER,
    "progressbar": Role.PROGRESS,
    "meter": Role.PROGRESS,
    "heading": Role.TEXT,
    "StaticText": Role.TEXT,
    "status": Role.TEXT,
    "img": Role.IMAGE,
    "image": Role.IMAGE,
    "list": Role.LIST,
    "listbox": Role.LIST,
    "listitem": Role.LIST_ITEM,
    "option": Role.LIST_ITEM,
    "dialog": Role.DIALOG,
    "alertdialog": Role.DIALOG,
    "menu": Role.MENU,
    "menubar": Role.MENU,
    "menuitem": Role.BUTTON,
    "tab": Role.TAB,
    "tablist": Role.MENU,
}
"""Web nodes (``bridge.core.web_tree``: class ``web:<AX role>``) by their ARIA/AX role."""
WEB_CLASS_PREFIX = "web:"

_TAB_PARENT_CLASSES = (
    "TabWidget",
    "BottomNavigationMenuView",
    "NavigationBarMenuView",
    "NavigationRailMenuView",
    "SlidingTabIndicator",
    "SlidingTabStrip",
    "TabBar",
)
"""Containers whose interactive children are tabs (simple class names, suffix match)."""

_NAV_ITEM_CHILD_IDS = (
    ":id/navigation_bar_item_icon_view",
    ":id/navigation_bar_item_icon_container",
    ":id/navigation_bar_item_labels_group",
    ":id/largeLabel",
    ":id/smallLabel",
)
"""Resource ids of the parts of a Material navigation item (uiautomator reports the item's
class as ``FrameLayout``, so its children's ids are what tells it is a tab)."""

_TALKBACK_TAB = re.compile(
    r"\btab\W{0,3}\d+\s*of\s*\d+\b|(?:,\s*tab|\btab\.)\s*$",
    re.IGNORECASE,
)
"""What TalkBack reads for a tab, as apps write it into their labels: "Discover, tab 1 of 5,
selected", "Home\nTab 1 of 2", "Inbox, tab, 2 of 4", "…, tab", "Home tab." ("New tab" and
"Close tab" are not tabs: the word must be followed by a position or end a sentence)."""

_CANVAS_SHARE = 0.5
"""Share of its window an unnamed interactive leaf must cover to be a canvas."""
_CANVAS_MIN_SIDE = 200
_DIRECT_INTERACTION = frozenset({"allowsdirectinteraction", "allows_direct_interaction"})

_IOS_TRAIT_ROLES: tuple[tuple[str, Role], ...] = (
    ("searchfield", Role.INPUT),
    ("keyboardkey", Role.BUTTON),
    ("button", Role.BUTTON),
    ("link", Role.LINK),
    ("image", Role.IMAGE),
    ("adjustable", Role.SLIDER),
    ("header", Role.TEXT),
    ("statictext", Role.TEXT),
)


def simple_class(class_name: str | None) -> str:
    """``android.widget.Button`` -> ``Button``; ``XCUIElementTypeButton`` -> ``Button``."""
    if not class_name:
        return ""
    name = class_name.rsplit(".", 1)[-1]
    if name.startswith("XCUIElementType"):
        return name[len("XCUIElementType") :]
    if name.startswith("UIA") and len(name) > 3:  # legacy WDA / UIAutomation types
        return name[3:]
    return name


def is_ios_type(class_name: str | None) -> bool:
    return bool(class_name) and (
        class_name.startswith("XCUIElementType") or class_name.startswith("UIA")  # type: ignore[union-attr]
    )


CLASS_CACHE = 4096
"""Distinct class names whose derived facts are cached (the caches are bounded: class names
come from agents and dumps)."""


def class_role(node: RawNode) -> Role | None:
    """The role a known widget class or iOS element type implies, if any."""
    return role_of_class(node.class_name)


@lru_cache(maxsize=CLASS_CACHE)
def role_of_class(class_name: str | None) -> Role | None:
    """``class_role`` by class name alone (cached: it depends on nothing else)."""
    if class_name is not None and class_name.startswith(WEB_CLASS_PREFIX):
        return _WEB_ROLES.get(class_name[len(WEB_CLASS_PREFIX) :])
    name = simple_class(class_name)
    if not name:
        return None
    if is_ios_type(class_name):
        return _IOS_TYPE_ROLES.get(name)
    for suffix, role in _ANDROID_CLASS_ROLES:
        if name == suffix or name.endswith(suffix):
            return role
    return None


@lru_cache(maxsize=CLASS_CACHE)
def is_tab_parent_class(class_name: str | None) -> bool:
    """The class is a container whose interactive children are tabs (``TabWidget`` ...)."""
    parent = simple_class(class_name)
    return bool(parent) and parent.rsplit("$", 1)[-1].endswith(_TAB_PARENT_CLASSES)


def trait_role(node: RawNode) -> Role | None:
    traits = {t.lower() for t in node.traits}
    for trait, role in _IOS_TRAIT_ROLES:
        if trait in traits:
            return role
    return None


def behaviour_role(node: RawNode) -> Role | None:
    """Role from flags alone (Compose, Flutter, React Native: ``android.view.View``)."""
    if node.editable:
        return Role.INPUT
    if node.checkable:
        return Role.CHECKBOX
    if node.scrollable and node.collection_rows is not None:
        return Role.LIST
    if node.range_value is not None:
        return Role.SLIDER
    return None


class RoleContext(NamedTuple):
    """What role inference may look at besides the node itself (all computed by the caller
    from the raw tree, in pre-order, so parents are decided before their children).

    Immutable. A named tuple rather than a frozen dataclass: one is built per node of every
    full pass, and a frozen dataclass's ``__init__`` (one ``object.__setattr__`` a field)
    cost ~2 µs of it (issue 41's profile)."""

    is_root: bool = False
    parent_role: Role | None = None
    parent_class: str | None = None
    window_type: str = "application"
    window_extent: int = 0
    """Area of the largest node of the node's window (its extent), 0 when unknown."""
    children: Sequence[RawNode] = ()
    has_text_descendant: bool = False
    in_tab_row: bool = False
    """The node is a member of a tab row among its siblings (``tab_row``)."""
    siblings: Sequence[RawNode] = ()
    """The parent's children, the node included (empty for a root)."""
    position: int = 0
    """The node's index in ``siblings``."""


def infer_role(node: RawNode, ctx: RoleContext) -> Role:
    """The normalized role of one raw node given its context."""
    explicit = class_role(node)
    if explicit is Role.TEXT and (node.clickable or node.long_clickable):
        explicit = (
            Role.LINK
            if node.text and node.text.startswith(("http://", "https://"))
            else (Role.BUTTON)
        )
    if explicit is Role.IMAGE and node.clickable:
        explicit = Role.BUTTON
    if explicit is Role.CANVAS and ctx.children:
        explicit = None
    if explicit in (None, Role.BUTTON, Role.TEXT, Role.IMAGE) and is_tab(node, ctx):
        return Role.TAB
    if explicit is not None and explicit is not Role.SCREEN:
        return _in_context(explicit, node, ctx.parent_role)
    if ctx.is_root:
        return Role.DIALOG if ctx.window_type == "dialog" else Role.SCREEN
    if not ctx.children and is_canvas_surface(node, ctx):
        return Role.CANVAS
    role = trait_role(node) or behaviour_role(node)
    if role is not None:
        return _in_context(role, node, ctx.parent_role)
    if item_container(ctx.parent_role) and ctx.children:
        return Role.LIST_ITEM
    if node.clickable or node.long_clickable or (node.hittable and "button" in node.traits):
        if ctx.parent_role in (Role.LIST, Role.MENU):
            return Role.LIST_ITEM
        return Role.BUTTON
    if (node.text or node.label) and not ctx.children:
        return Role.TEXT
    return Role.UNKNOWN


def is_tab(node: RawNode, ctx: RoleContext) -> bool:
    """Evidence that ``node`` is a tab (never for a root, inside a tab, or in a list/menu)."""
    if ctx.is_root or ctx.parent_role in (Role.TAB, Role.LIST, Role.MENU):
        return False
    if class_role(node) is Role.TAB:
        return True
    if ctx.children and any(
        (child.automation_id or "").endswith(_NAV_ITEM_CHILD_IDS) for child in ctx.children
    ):
        return True
    interactive = node.clickable or node.focusable or node.long_clickable
    if not interactive:
        return False
    if is_tab_parent_class(ctx.parent_class):
        return True
    if ctx.in_tab_row:
        return True
    return bool(
        (node.label and reads_as_tab(node.label)) or (node.text and reads_as_tab(node.text))
    )


@lru_cache(maxsize=CLASS_CACHE)
def reads_as_tab(text: str) -> bool:
    """``text`` holds what TalkBack reads for a tab (``_TALKBACK_TAB``; cached: buttons
    repeat their texts down a list)."""
    return _TALKBACK_TAB.search(text) is not None


def tab_row(siblings: Sequence[RawNode]) -> frozenset[int]:
    """Positions (in ``siblings``) of the members of a tab row, or an empty set.

    A tab row is at least two interactive siblings (clickable or focusable; not checkable,
    editable or scrollable; a text only when clickable) laid out left to right in one band,
    exactly one of them selected — how Compose ``Tab`` / ``NavigationBarItem`` and React Native
    tab bars look in a dump that carries no role description. Members with identical bounds
    count as one slot (a tab reported twice is still one tab). The caller leaves lists and
    menus out (their selected row is a selection, not a tab)."""
    if not any(s.selected for s in siblings):
        return frozenset()  # what the count of selected slots below decides, found sooner
    members = [i for i, s in enumerate(siblings) if _tab_candidate(s)]
    if len(members) < 2:
        return frozenset()  # what the slots below decide for fewer than two members
    slots: dict[Bounds, bool] = {}
    for i in members:
        box = siblings[i].bounds
        if box is None or box[2] <= box[0] or box[3] <= box[1]:
            return frozenset()
        slots[box] = slots.get(box, False) or siblings[i].selected
    if len(slots) < 2 or sum(slots.values()) != 1:
        return frozenset()
    previous: Bounds | None = None
    for box in slots:
        if previous is not None:
            if box[0] < previous[2] - 2:
                return frozenset()  # not left to right
            band = min(previous[3], box[3]) - max(previous[1], box[1])
            if band < 0.8 * min(previous[3] - previous[1], box[3] - box[1]):
                return frozenset()  # not one band
        previous = box
    return frozenset(members)


def _tab_candidate(node: RawNode) -> bool:
    if not node.visible or node.checkable or node.editable or node.scrollable:
        return False
    explicit = class_role(node)
    if explicit not in (None, Role.BUTTON, Role.TEXT, Role.IMAGE, Role.TAB):
        return False
    if explicit is Role.TEXT and not node.clickable:
        return False  # a marquee text is "selected" without being a tab
    return node.clickable or node.focusable


def is_canvas_surface(node: RawNode, ctx: RoleContext) -> bool:
    """Positive evidence of a drawing surface on a leaf without a drawing class: an iOS
    element allowing direct interaction (a game, a signature pad), or an unnamed leaf that is
    focusable or clickable, covers at least half of its window (and 200x200 px) and is not
    drawn over by a later sibling (a scrim or background under a panel is not a canvas)."""
    if node.text or node.label or node.hint or node.value:
        return False
    if _DIRECT_INTERACTION.intersection(node.traits):
        return True
    bounds = node.bounds
    if not (node.focusable or node.clickable) or bounds is None or ctx.window_extent <= 0:
        return False
    width, height = bounds[2] - bounds[0], bounds[3] - bounds[1]
    if width < _CANVAS_MIN_SIDE or height < _CANVAS_MIN_SIDE:
        return False
    if width * height < _CANVAS_SHARE * ctx.window_extent:
        return False
    return not any(
        _covers_half(later.bounds, bounds)
        for later in ctx.siblings[ctx.position + 1 :]
        if later.visible
    )


def _covers_half(over: Bounds | None, under: Bounds) -> bool:
    if over is None:
        return False
    width = min(over[2], under[2]) - max(over[0], under[0])
    height = min(over[3], under[3]) - max(over[1], under[1])
    if width <= 0 or height <= 0:
        return False
    return 2 * width * height >= (under[2] - under[0]) * (under[3] - under[1])


def item_container(role: Role | None) -> bool:
    return role in (Role.LIST, Role.MENU)


def _in_context(role: Role, node: RawNode, parent_role: Role | None) -> Role:
    if parent_role is Role.LIST and role in (Role.UNKNOWN,):
        return Role.LIST_ITEM
    if parent_role is Role.MENU and role in (Role.BUTTON, Role.TEXT) and node.clickable:
        return Role.MENU
    return role


def window_extents(raw: RawTree) -> dict[int, int]:
    """Per window: the area of its largest node (the window's extent as the dump shows it)."""
    extents: dict[int, int] = {}
    for node in raw.nodes:
        if node.bounds is not None:
            left, top, right, bottom = node.bounds
            area = max(0, right - left) * max(0, bottom - top)
            if area > extents.get(node.window, 0):
                extents[node.window] = area
    return extents

"""Role inference: raw platform classes, traits and flags -> a normalized ``Role``.

Invariants: a raw class name is never returned as a role; the result depends only on the raw
node and the roles of its context (parent role, window type, descendant texts) passed in, so
normalization stays deterministic. Order of rules: explicit widget classes first, then iOS
element types, then behaviour (editable, checkable, clickable), then content.
"""

from __future__ import annotations

from bridge.wire.enums import Role
from bridge.wire.raw import RawNode

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


def class_role(node: RawNode) -> Role | None:
    """The role a known widget class or iOS element type implies, if any."""
    name = simple_class(node.class_name)
    if not name:
        return None
    if is_ios_type(node.class_name):
        return _IOS_TYPE_ROLES.get(name)
    for suffix, role in _ANDROID_CLASS_ROLES:
        if name == suffix or name.endswith(suffix):
            return role
    return None


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


def infer_role(
    node: RawNode,
    *,
    is_root: bool,
    parent_role: Role | None,
    window_type: str,
    has_children: bool,
    has_text_descendant: bool,
) -> Role:
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
    if explicit is Role.CANVAS and has_children:
        explicit = None
    if explicit is not None and explicit is not Role.SCREEN:
        return _in_context(explicit, node, parent_role)
    if is_root:
        return Role.DIALOG if window_type == "dialog" else Role.SCREEN
    role = trait_role(node) or behaviour_role(node)
    if role is not None:
        return _in_context(role, node, parent_role)
    if item_container(parent_role) and has_children:
        return Role.LIST_ITEM
    if node.clickable or node.long_clickable or (node.hittable and "button" in node.traits):
        if parent_role in (Role.LIST, Role.MENU):
            return Role.LIST_ITEM
        return Role.BUTTON
    if (node.text or node.label) and not has_children:
        return Role.TEXT
    if not has_children and not has_text_descendant and _is_surface(node):
        return Role.CANVAS
    return Role.UNKNOWN


def item_container(role: Role | None) -> bool:
    return role in (Role.LIST, Role.MENU)


def _in_context(role: Role, node: RawNode, parent_role: Role | None) -> Role:
    if parent_role is Role.LIST and role in (Role.UNKNOWN,):
        return Role.LIST_ITEM
    if parent_role is Role.MENU and role in (Role.BUTTON, Role.TEXT) and node.clickable:
        return Role.MENU
    return role


def _is_surface(node: RawNode) -> bool:
    """A leaf covering a real area with no semantics at all: a game or map surface."""
    if node.bounds is None:
        return False
    left, top, right, bottom = node.bounds
    return (right - left) * (bottom - top) >= 200 * 200 and not (
        node.text or node.label or node.automation_id
    )

"""Hand-written Android XML samples with exact expected raw trees."""

from __future__ import annotations

from bridge.core.importers import ImportFailure, import_dump
from bridge.wire.enums import Platform
from bridge.wire.raw import RawNode, RawTree, RawWindow, ScreenSize
from tests.core.importers.structure import assert_well_formed

UIAUTOMATOR = """<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy rotation="1">
  <node index="0" text="" resource-id="" class="android.widget.FrameLayout"
        package="com.example.app" content-desc="" checkable="false" checked="false"
        clickable="false" enabled="true" focusable="false" focused="false" scrollable="false"
        long-clickable="false" password="false" selected="false" visible-to-user="true"
        bounds="[0,0][1080,2400]">
    <node index="0" text="مرحبا" resource-id="com.example.app:id/pw"
          class="android.widget.EditText" package="com.example.app" content-desc=""
          checkable="false" checked="false" clickable="true" enabled="true" focusable="true"
          focused="true" scrollable="false" long-clickable="true" password="true"
          selected="false" visible-to-user="true" bounds="[10,20][300,80]" hint="密码" />
    <node index="1" class="androidx.recyclerview.widget.RecyclerView" package="com.example.app"
          scrollable="true" visible-to-user="false" bounds="[0,0][0,0]" />
  </node>
  <node index="0" class="android.widget.FrameLayout"
        package="com.google.android.inputmethod.latin" bounds="[0,1600][1080,2400]" />
  <node index="0" class="android.widget.FrameLayout" package="com.android.systemui"
        bounds="[0,0][1080,60]" />
</hierarchy>
""".encode()


def test_uiautomator_multi_window_sample() -> None:
    tree = import_dump(UIAUTOMATOR, "sample.xml")
    app = "com.example.app"
    ime = "com.google.android.inputmethod.latin"
    ui = "com.android.systemui"
    assert tree == RawTree(
        capture=0,
        platform=Platform.ANDROID,
        nodes=(
            RawNode(
                handle=0,
                parent=-1,
                class_name="android.widget.FrameLayout",
                package=app,
                bounds=(0, 0, 1080, 2400),
            ),
            RawNode(
                handle=1,
                parent=0,
                class_name="android.widget.EditText",
                text="مرحبا",
                hint="密码",
                automation_id="com.example.app:id/pw",
                package=app,
                bounds=(10, 20, 300, 80),
                clickable=True,
                long_clickable=True,
                focusable=True,
                focused=True,
                editable=True,
                password=True,
                actions=("click", "longClick", "setText"),
            ),
            RawNode(
                handle=2,
                parent=0,
                class_name="androidx.recyclerview.widget.RecyclerView",
                package=app,
                bounds=(0, 0, 0, 0),
                scrollable=True,
                visible=False,
                actions=("scrollForward", "scrollBackward"),
            ),
            RawNode(
                handle=3,
                parent=-1,
                window=1,
                class_name="android.widget.FrameLayout",
                package=ime,
                bounds=(0, 1600, 1080, 2400),
            ),
            RawNode(
                handle=4,
                parent=-1,
                window=2,
                class_name="android.widget.FrameLayout",
                package=ui,
                bounds=(0, 0, 1080, 60),
            ),
        ),
        windows=(
            RawWindow(id=0, type="application", layer=2, package=app, bounds=(0, 0, 1080, 2400)),
            RawWindow(
                id=1, type="input_method", layer=1, package=ime, bounds=(0, 1600, 1080, 2400)
            ),
            RawWindow(id=2, type="system", layer=0, package=ui, bounds=(0, 0, 1080, 60)),
        ),
        package=app,
        focus=1,
        rotation=90,
    )
    assert isinstance(tree, RawTree)
    assert_well_formed(tree)


APPIUM = b"""<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>
<hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2340">
  <android.widget.FrameLayout index="0" package="com.example" class="android.widget.FrameLayout"
      text="" checkable="false" checked="false" clickable="false" enabled="true"
      focusable="false" focused="false" long-clickable="false" password="false"
      scrollable="false" selected="false" bounds="[0,0][1080,2340]" displayed="true">
    <android.view.View index="0" package="com.example" class="android.view.View" text=""
        content-desc="Play" clickable="true" enabled="true" bounds="[40,100][200,160]"
        displayed="true" heading="false"/>
    <android.widget.TextView index="1" package="com.example" class="android.widget.TextView"
        text="Settings" heading="true" enabled="false" bounds="[0,200][1080,260]"
        displayed="false"/>
  </android.widget.FrameLayout>
</hierarchy>
"""


def test_appium_page_source_sample_compose_style_labels() -> None:
    tree = import_dump(APPIUM, "appium.xml")
    assert tree == RawTree(
        capture=0,
        platform=Platform.ANDROID,
        nodes=(
            RawNode(
                handle=0,
                parent=-1,
                class_name="android.widget.FrameLayout",
                package="com.example",
                bounds=(0, 0, 1080, 2340),
            ),
            RawNode(
                handle=1,
                parent=0,
                class_name="android.view.View",
                label="Play",
                package="com.example",
                bounds=(40, 100, 200, 160),
                clickable=True,
                actions=("click",),
            ),
            RawNode(
                handle=2,
                parent=0,
                class_name="android.widget.TextView",
                text="Settings",
                package="com.example",
                bounds=(0, 200, 1080, 260),
                enabled=False,
                visible=False,
                heading=True,
            ),
        ),
        windows=(
            RawWindow(id=0, type="application", package="com.example", bounds=(0, 0, 1080, 2340)),
        ),
        package="com.example",
        screen=ScreenSize(width=1080, height=2340),
    )


def test_appium_tag_is_the_class_when_the_attribute_is_missing() -> None:
    data = b'<hierarchy class="hierarchy"><android.widget.Button bounds="[0,0][1,1]"/></hierarchy>'
    tree = import_dump(data, "t.xml")
    assert isinstance(tree, RawTree)
    assert tree.nodes[0].class_name == "android.widget.Button"


# Free text precedes the flags in AccessibilityNodeInfo.toString(): the importer takes the
# last occurrence of a key, so text that imitates a key cannot change the flags.
_RAW_ROOT = (
    "android.view.accessibility.AccessibilityNodeInfo@1; boundsInScreen: Rect(0, 0 - 100, 100);"
    " packageName: com.x.y; className: android.widget.FrameLayout; text: null; focusable: false;"
    " focused: false; clickable: false; enabled: true; password: false; visible: true;"
    " actions: [AccessibilityAction: ACTION_SELECT - null]"
)
_RAW_EDIT = (
    "android.view.accessibility.AccessibilityNodeInfo@2; className: android.widget.EditText;"
    " text: a; focusable: true; enabled: true; x; focusable: false; enabled: false;"
    " actions: [AccessibilityAction: ACTION_FOCUS - null, AccessibilityAction: ACTION_SET_TEXT"
    " - null, AccessibilityAction: ACTION_SCROLL_DOWN - null, AccessibilityAction:"
    " ACTION_ACCESSIBILITY_FOCUS - null]"
)
A11YNODE = f"""<node active="true" bounds="[0,0][100,100]" checkable="false" checked="false"
 child-count="1" class="android.widget.FrameLayout" clickable="false" content-desc=""
 isAccessibilityFocused="false" isFocused="false" long-clickable="false" package="com.x.y"
 password="false" raw="{_RAW_ROOT}" root="true" scrollable="false" selected="false"
 source="false" text="" visible="true"><node active="true" bounds="[0,50][0,90]"
 class="android.widget.EditText" clickable="false" content-desc="" isFocused="true"
 long-clickable="false" package="com.x.y" password="false" raw="{_RAW_EDIT}" text="a"
 visible="false"/></node>""".encode()


def test_a11ynode_sample_reads_raw_flags_and_actions() -> None:
    tree = import_dump(A11YNODE, "a11y.xml")
    assert isinstance(tree, RawTree)
    assert tree.nodes == (
        RawNode(
            handle=0,
            parent=-1,
            class_name="android.widget.FrameLayout",
            package="com.x.y",
            bounds=(0, 0, 100, 100),
            actions=("select",),
        ),
        RawNode(
            handle=1,
            parent=0,
            class_name="android.widget.EditText",
            text="a",
            package="com.x.y",
            bounds=(0, 50, 0, 90),
            enabled=False,
            focusable=False,
            focused=True,
            editable=True,
            visible=False,
            actions=("setText", "scrollForward", "focus"),
        ),
    )
    assert tree.focus == 1
    assert tree.windows == (
        RawWindow(id=0, type="application", package="com.x.y", bounds=(0, 0, 100, 100)),
    )


def test_bare_node_root_without_raw_is_uiautomator() -> None:
    tree = import_dump(b'<node class="a.B" bounds="[1,2][3,4]"/>', "bare.xml")
    assert isinstance(tree, RawTree)
    assert tree.nodes == (RawNode(handle=0, parent=-1, class_name="a.B", bounds=(1, 2, 3, 4)),)


def test_empty_hierarchy_is_an_empty_tree() -> None:
    tree = import_dump(b'<hierarchy rotation="0"/>', "empty.xml")
    assert tree == RawTree(capture=0, platform=Platform.ANDROID, nodes=())


def test_rotation_in_degrees_is_accepted_and_nonsense_refused() -> None:
    tree = import_dump(b'<hierarchy rotation="270"/>', "r.xml")
    assert isinstance(tree, RawTree) and tree.rotation == 270
    failure = import_dump(b'<hierarchy rotation="45"/>', "r.xml")
    assert isinstance(failure, ImportFailure)
    assert "rotation '45'" in failure.reason


def test_a_child_that_is_not_a_node_is_refused() -> None:
    data = b'<hierarchy><node bounds="[0,0][1,1]"><foo/></node></hierarchy>'
    failure = import_dump(data, "x.xml")
    assert isinstance(failure, ImportFailure)
    assert failure.format == "android-uiautomator"
    assert "node 0 (line 1) has a child <foo>" in failure.reason


def test_over_long_text_is_capped_with_an_ellipsis() -> None:
    long_text = "é" * 9000
    data = f'<hierarchy><node text="{long_text}" content-desc="ok"/></hierarchy>'.encode()
    tree = import_dump(data, "long.xml")
    assert isinstance(tree, RawTree)
    text = tree.nodes[0].text
    assert text is not None and len(text) == 8192
    assert text == "é" * 8191 + "\u2026"
    assert tree.nodes[0].label == "ok"

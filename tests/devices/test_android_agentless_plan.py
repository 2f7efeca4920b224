"""Agentless mode, sans I/O, over real ``uiautomator dump`` XML from ../shared: captures,
identity checks, and the exact adb command lines each command becomes."""

from __future__ import annotations

import csv
from pathlib import Path

from bridge.core.importers import import_dump
from bridge.core.normalize import Normalized, SnapshotContext, normalize
from bridge.devices.android.agentless_plan import (
    Captures,
    Plan,
    apps_from,
    plan_command,
    visible_centre,
)
from bridge.devices.android.shell_text import decode_input_text
from bridge.wire.agent_link import (
    AlertCommand,
    AppCommand,
    AppsCommand,
    ClearCommand,
    ClipboardCommand,
    GestureCommand,
    GlobalCommand,
    InstallCommand,
    KeyboardCommand,
    KeyCommand,
    LocationCommand,
    NodeActionCommand,
    NodeIdentity,
    OrientationCommand,
    PermissionCommand,
    Point,
    Reply,
    TerminateCommand,
    TextCommand,
    UninstallCommand,
)
from bridge.wire.enums import ActionMethod, ActionVerb, AppAction, GlobalAction, Orientation
from bridge.wire.raw import RawTree, ScreenSize

DIALOG = "android/droidmate__com.rhmsoft.fm_new_dir_popup.xml"
BUTTONS = "android/droidmate__f_tsa_mainAct_4Jan14.xml"


def load(shared_dir: Path, name: str) -> bytes:
    return (shared_dir / "data" / "real-dumps" / name).read_bytes()


def imported(xml: bytes) -> RawTree:
    tree = import_dump(xml, "test")
    assert isinstance(tree, RawTree), tree
    return tree


def handle_of(tree: RawTree, text: str) -> int:
    (handle,) = [n.handle for n in tree.nodes if n.text == text]
    return handle


def click(
    capture: int,
    handle: int,
    tree: RawTree,
    verb: ActionVerb = ActionVerb.CLICK,
    text: str | None = None,
) -> NodeActionCommand:
    node = tree.nodes[handle]
    return NodeActionCommand(
        id=7,
        capture=capture,
        handle=handle,
        action=verb,
        identity=NodeIdentity(
            class_name=node.class_name, automation_id=node.automation_id, text=node.text
        ),
        text=text,
    )


def argvs(plan: Plan | Reply | None) -> list[tuple[str, ...]]:
    assert isinstance(plan, Plan), plan
    return [step.argv for step in plan.steps]


def test_click_taps_the_centre_of_the_real_node(shared_dir: Path) -> None:
    captures = Captures()
    tree = captures.add(imported(load(shared_dir, DIALOG)))
    ok = handle_of(tree, "OK")
    plan = plan_command(click(tree.capture, ok, tree), captures)
    assert argvs(plan) == [("input", "tap", "236", "484")]  # bounds [74,452][399,516]
    assert isinstance(plan, Plan) and plan.method is ActionMethod.GESTURE_FALLBACK
    long = plan_command(click(tree.capture, ok, tree, ActionVerb.LONG_CLICK), captures)
    assert argvs(long) == [("input", "swipe", "236", "484", "236", "484", "800")]


def test_set_text_taps_clears_and_types_escaped_text(shared_dir: Path) -> None:
    captures = Captures()
    tree = captures.add(imported(load(shared_dir, DIALOG)))
    field = handle_of(tree, "New File Name")
    text = "my dir; rm -rf / 100%sure"
    steps = argvs(
        plan_command(click(tree.capture, field, tree, ActionVerb.SET_TEXT, text), captures)
    )
    assert steps[0] == ("input", "tap", "399", "407")  # bounds [78,381][721,434]
    assert steps[1] == ("input", "keyevent", "KEYCODE_MOVE_END", *["KEYCODE_DEL"] * 13)
    typed = [s[2] for s in steps[2:]]
    assert all(s[:2] == ("input", "text") for s in steps[2:])
    assert "".join(decode_input_text(t) for t in typed) == text
    refused = plan_command(
        click(tree.capture, field, tree, ActionVerb.SET_TEXT, "caf\u00e9"), captures
    )
    assert isinstance(refused, Reply) and refused.code == "UNSUPPORTED"


def test_identity_and_staleness_are_checked_against_the_latest_dump(shared_dir: Path) -> None:
    captures = Captures()
    first = captures.add(imported(load(shared_dir, DIALOG)))
    ok = handle_of(first, "OK")
    wrong = NodeActionCommand(
        id=1,
        capture=first.capture,
        handle=ok,
        action=ActionVerb.CLICK,
        identity=NodeIdentity(
            class_name="android.widget.Button", automation_id="com.rhmsoft.fm:id/button2"
        ),
    )
    mismatch = plan_command(wrong, captures)
    assert isinstance(mismatch, Reply) and mismatch.code == "IDENTITY_MISMATCH"
    unknown = plan_command(click(first.capture + 5, ok, first), captures)
    assert isinstance(unknown, Reply) and unknown.code == "NOT_FOUND"
    # The screen changes: the hub's handle from the first capture now points elsewhere.
    captures.add(imported(load(shared_dir, BUTTONS)))
    stale = plan_command(click(first.capture, ok, first), captures)
    assert isinstance(stale, Reply) and stale.code in ("IDENTITY_MISMATCH", "NOT_FOUND")


def test_password_text_never_stays_in_a_capture() -> None:
    xml = (
        b'<?xml version="1.0" encoding="UTF-8"?><hierarchy rotation="0">'
        b'<node index="0" text="" class="android.widget.FrameLayout" package="p.q" '
        b'bounds="[0,0][1080,2400]"><node index="0" text="hunter2" resource-id="p.q:id/pw" '
        b'class="android.widget.EditText" package="p.q" password="true" clickable="true" '
        b'bounds="[100,200][980,300]"/></node></hierarchy>'
    )
    captures = Captures()
    tree = captures.add(imported(xml))
    secret = tree.nodes[1]
    assert secret.password and secret.text is None and secret.value is None
    assert b"hunter2" not in repr(tree).encode()
    cmd = NodeActionCommand(
        id=3,
        capture=tree.capture,
        handle=1,
        action=ActionVerb.SET_TEXT,
        text="new pw",
        identity=NodeIdentity(class_name="android.widget.EditText", automation_id="p.q:id/pw"),
    )
    steps = argvs(plan_command(cmd, captures))
    assert steps[1].count("KEYCODE_DEL") == len("hunter2")


def test_other_commands(shared_dir: Path) -> None:
    captures = Captures()
    assert argvs(plan_command(GlobalCommand(id=1, action=GlobalAction.BACK), captures)) == [
        ("input", "keyevent", "4")
    ]
    assert argvs(plan_command(GlobalCommand(id=1, action=GlobalAction.HOME), captures)) == [
        ("input", "keyevent", "3")
    ]
    assert argvs(plan_command(KeyCommand(id=1, key="ENTER"), captures)) == [
        ("input", "keyevent", "KEYCODE_ENTER")
    ]
    assert argvs(plan_command(TextCommand(id=1, text="a b"), captures)) == [
        ("input", "text", "a%sb")
    ]
    assert argvs(
        plan_command(
            GestureCommand(
                id=1, kind="swipe", points=(Point(x=1, y=2), Point(x=3, y=4)), duration_ms=250
            ),
            captures,
        )
    ) == [("input", "swipe", "1", "2", "3", "4", "250")]
    opened = plan_command(
        AppCommand(id=1, action=AppAction.APP_OPEN, app_id="com.example.app"), captures
    )
    assert argvs(opened) == [
        ("monkey", "-p", "com.example.app", "-c", "android.intent.category.LAUNCHER", "1")
    ]
    link = plan_command(
        AppCommand(id=1, action=AppAction.APP_DEEP_LINK, uri="myapp://x/1?a=b&c=d"), captures
    )
    assert argvs(link) == [
        ("am", "start", "-W", "-a", "android.intent.action.VIEW", "-d", "myapp://x/1?a=b&c=d")
    ]
    bad = plan_command(AppCommand(id=1, action=AppAction.APP_DEEP_LINK, uri="x y"), captures)
    assert isinstance(bad, Reply) and bad.code == "BAD_COMMAND"
    bad_pkg = plan_command(AppCommand(id=1, action=AppAction.APP_OPEN, app_id="a;b"), captures)
    assert isinstance(bad_pkg, Reply) and bad_pkg.code == "BAD_COMMAND"
    clip = plan_command(ClipboardCommand(id=1), captures)
    assert isinstance(clip, Reply) and clip.code == "UNSUPPORTED"
    tree = captures.add(imported(load(shared_dir, DIALOG)))
    copy = plan_command(click(tree.capture, handle_of(tree, "OK"), tree, ActionVerb.COPY), captures)
    assert isinstance(copy, Reply) and copy.code == "UNSUPPORTED"


def _uiautomator_dumps(shared_dir: Path) -> list[Path]:
    base = shared_dir / "data" / "real-dumps"
    with (base / "MANIFEST.tsv").open() as f:
        rows = list(csv.DictReader(f, delimiter="\t"))
    return [base / r["local_file"] for r in rows if r["platform"] == "android-uiautomator"]


def test_every_real_uiautomator_dump_captures_normalizes_and_taps_inside(shared_dir: Path) -> None:
    dumps = _uiautomator_dumps(shared_dir)
    assert len(dumps) >= 20
    for path in dumps:
        captures = Captures()
        tree = captures.add(imported(path.read_bytes()), ScreenSize(width=1080, height=2400))
        result = normalize(tree, SnapshotContext("emulator-5554", "s_1", 0))
        assert isinstance(result, Normalized), (path.name, result)
        assert all(n.text is None for n in tree.nodes if n.password)
        for node in tree.nodes:
            if not node.clickable or node.bounds is None:
                continue
            plan = plan_command(click(tree.capture, node.handle, tree), captures)
            centre = visible_centre(node.bounds, tree.screen)
            if centre is None:
                assert isinstance(plan, Reply) and plan.code == "FAILED"
                continue
            ((_, _, x, y),) = argvs(plan)
            left, top, right, bottom = node.bounds
            assert left <= int(x) <= right and top <= int(y) <= bottom, (path.name, node)


def test_app_management_orientation_and_double_tap() -> None:
    captures = Captures()
    listing = plan_command(AppsCommand(id=1), captures)
    assert isinstance(listing, Plan) and listing.lists_apps
    assert argvs(listing) == [("pm", "list", "packages", "-3"), ("pm", "list", "packages", "-s")]
    apps = apps_from(
        [
            "package:com.example.shop\npackage:bad name\n",
            "package:com.android.settings\r\npackage:com.example.shop\n",
        ]
    )
    assert [(a.app_id, a.system) for a in apps] == [
        ("com.example.shop", False),
        ("com.android.settings", True),
    ]
    stop = plan_command(TerminateCommand(id=1, app_id="com.example.shop"), captures)
    assert argvs(stop) == [("am", "force-stop", "com.example.shop")]
    wipe = plan_command(ClearCommand(id=1, app_id="com.example.shop"), captures)
    assert argvs(wipe) == [("pm", "clear", "com.example.shop")]
    assert isinstance(wipe, Plan) and wipe.steps[0].failure("Failed")
    assert not wipe.steps[0].failure("Success")
    bad_wipe = plan_command(ClearCommand(id=1, app_id="com.example.shop && reboot"), captures)
    assert isinstance(bad_wipe, Reply) and bad_wipe.code == "BAD_COMMAND"
    gone = plan_command(UninstallCommand(id=1, app_id="com.example.shop"), captures)
    assert argvs(gone) == [("pm", "uninstall", "com.example.shop")]
    assert isinstance(gone, Plan) and gone.steps[0].failure("Failure [DELETE_FAILED]")
    bad = plan_command(TerminateCommand(id=1, app_id="com.example.shop;reboot"), captures)
    assert isinstance(bad, Reply) and bad.code == "BAD_COMMAND"
    staged = "/data/local/tmp/mobridge-1a2b.apk"
    install = plan_command(InstallCommand(id=1, path=staged), captures)
    assert argvs(install) == [("pm", "install", "-r", "-t", staged), ("rm", "-f", staged)]
    for path in ("/sdcard/x.apk", "/data/local/tmp/../x.apk", "/data/local/tmp/a b.apk"):
        refused = plan_command(InstallCommand(id=1, path=path), captures)
        assert isinstance(refused, Reply) and refused.code == "BAD_COMMAND"
    turn = plan_command(OrientationCommand(id=1, orientation=Orientation.LANDSCAPE), captures)
    assert argvs(turn) == [
        ("settings", "put", "system", "accelerometer_rotation", "0"),
        ("settings", "put", "system", "user_rotation", "1"),
    ]
    double = plan_command(
        GestureCommand(id=1, kind="double_tap", points=(Point(x=1, y=2),)), captures
    )
    assert isinstance(double, Reply) and double.code == "UNSUPPORTED"
    volume = plan_command(KeyCommand(id=1, key="VOLUME_UP"), captures)
    assert argvs(volume) == [("input", "keyevent", "KEYCODE_VOLUME_UP")]


def test_permissions_and_location_are_shell_commands_and_the_rest_refused() -> None:
    captures = Captures()
    grant = plan_command(
        PermissionCommand(id=1, action="grant", app_id="com.example.shop", permission="camera"),
        captures,
    )
    assert argvs(grant) == [("pm", "grant", "com.example.shop", "android.permission.CAMERA")]
    assert isinstance(grant, Plan) and grant.steps[0].failure("java.lang.SecurityException: x")
    reset = plan_command(
        PermissionCommand(id=1, action="reset", app_id="com.example.shop", permission="photos"),
        captures,
    )
    assert argvs(reset)[-1] == (
        "pm", "clear-permission-flags", "com.example.shop",
        "android.permission.READ_MEDIA_IMAGES", "user-set", "user-fixed",
    )  # fmt: skip
    for app, perm in (("com.example.shop;reboot", "camera"), ("com.example.shop", "teleport")):
        bad = plan_command(
            PermissionCommand(id=1, action="grant", app_id=app, permission=perm), captures
        )
        assert isinstance(bad, Reply) and bad.code == "BAD_COMMAND"
    where = plan_command(LocationCommand(id=1, latitude=-33.8688, longitude=151.2093), captures)
    assert argvs(where)[-1][-1] == "-33.868800,151.209300"
    off = plan_command(LocationCommand(id=1), captures)
    assert argvs(off) == [("cmd", "location", "providers", "remove-test-provider", "gps")]
    for cmd in (AlertCommand(id=1, action="list"), KeyboardCommand(id=1)):
        refused = plan_command(cmd, captures)
        assert isinstance(refused, Reply) and refused.code == "UNSUPPORTED"
        assert "install the agent" in (refused.message or "")

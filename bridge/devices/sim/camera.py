"""The demo app's ``camera`` screen and the system permission dialog that asks for the camera.

The camera screen (reached by the deep link ``mobridge-demo://camera`` or ``--sim-scene
camera``; not listed in the menu, so the menu's layout stays as it was) shows what the
device capabilities of issue 21 changed: the camera permission (granted, denied, not asked),
the simulated location, the photo's zoom (a pinch on it scales it) and what the last
multi-touch gesture did; it has a caption input (to show and hide the keyboard) and a
``Take photo`` button that asks for the permission when it was not asked yet.

The permission dialog is a system window (package ``PERMISSION_PACKAGE`` on Android,
SpringBoard on iOS) over the screen while the device asks; its buttons answer it.
"""

from __future__ import annotations

from bridge.devices.sim.layout import (
    Column,
    Frame,
    SceneInput,
    ScreenState,
    heading_text,
    text_input,
    view_key,
    window_root,
)
from bridge.devices.sim.views import Kind, View, Window
from bridge.wire.enums import Platform

PERMISSION_PACKAGE = "com.android.permissioncontroller"
SPRINGBOARD = "com.apple.springboard"
PERMISSION_TITLE = "Allow Mobridge Demo to take pictures and record video?"
ALLOW = "Allow"
DENY = "Don't allow"
DIALOG_TITLE = "Discard draft?"
DIALOG_MESSAGE = "Your unsaved changes will be lost."
DIALOG_BUTTONS = ("Cancel", "OK")
PERMISSION_BUTTONS = (DENY, ALLOW)


def location_text(location: tuple[float, float] | None) -> str:
    if location is None:
        return "Location: not set"
    return f"Location: {location[0]:.5f}, {location[1]:.5f}"


def camera_windows(
    state: ScreenState, frame: Frame, inp: SceneInput, marker: View, app: tuple[str, str]
) -> list[Window]:
    """The camera screen's window (``app``: its package and title), plus the permission
    dialog while the device asks."""
    full = (0, 0, frame.width, frame.height)
    root = window_root(inp.platform, view_key(state, "decor"), full, [marker])
    windows = [
        Window(id=1, root=root, bounds=full, package=app[0], title=app[1], active=not inp.asking)
    ]
    if inp.asking:
        windows.append(_permission_dialog(state, frame, inp))
    return windows


def camera_content(state: ScreenState, frame: Frame, inp: SceneInput) -> list[View]:
    col = Column(frame)
    views = [heading_text(state, col, "Camera")]
    for local, text in (
        ("camera_status", f"Camera: {inp.camera}"),
        ("location", location_text(inp.location)),
    ):
        views.append(
            View(key=view_key(state, local), kind=Kind.TEXT, bounds=col.take(80), text=text,
                 ident=local)
        )  # fmt: skip
    views.append(text_input(state, col, "caption", "Caption", password=False))
    views.append(
        View(key=view_key(state, "take"), kind=Kind.BUTTON, bounds=col.take(140),
             text="Take photo", ident="take_photo", on_tap="perm:ask")
    )  # fmt: skip
    if inp.touch:
        views.append(
            View(key=view_key(state, "touch"), kind=Kind.TEXT, bounds=col.take(80),
                 text=inp.touch, ident="touch")
        )  # fmt: skip
    photo = View(
        key=view_key(state, "photo"),
        kind=Kind.TEXT,
        bounds=col.take(600),
        text=f"Photo zoom {inp.zoom:.2f}x",
        ident="photo",
    )
    views.append(photo)
    return views


def _permission_dialog(state: ScreenState, frame: Frame, inp: SceneInput) -> Window:
    m = frame.margin
    top = frame.height // 2 - 300
    box = (m, top, frame.width - m, top + 600)
    title = View(
        key=view_key(state, "perm_title"),
        kind=Kind.TEXT,
        bounds=(m + 64, top + 48, frame.width - m - 64, top + 300),
        text=PERMISSION_TITLE,
        ident="com.android.permissioncontroller:id/permission_message",
        heading=True,
    )
    button_top = top + 420
    mid = frame.width // 2
    deny = View(
        key=view_key(state, "perm_deny"),
        kind=Kind.BUTTON,
        bounds=(m + 64, button_top, mid - 16, button_top + 140),
        text=DENY,
        ident="com.android.permissioncontroller:id/permission_deny_button",
        on_tap="perm:deny",
    )
    allow = View(
        key=view_key(state, "perm_allow"),
        kind=Kind.BUTTON,
        bounds=(mid + 16, button_top, frame.width - m - 64, button_top + 140),
        text=ALLOW,
        ident="com.android.permissioncontroller:id/permission_allow_button",
        on_tap="perm:allow",
    )
    panel = View(
        key=view_key(state, "perm_panel"),
        kind=Kind.ALERT,
        bounds=box,
        text=PERMISSION_TITLE,
        ident="com.android.permissioncontroller:id/grant_dialog",
        children=[title, deny, allow],
    )
    package = PERMISSION_PACKAGE if inp.platform is Platform.ANDROID else SPRINGBOARD
    return Window(
        id=3,
        root=window_root(inp.platform, view_key(state, "perm_decor"), box, [panel]),
        bounds=box,
        package=package,
        layer=2,
        title="Permission",
    )

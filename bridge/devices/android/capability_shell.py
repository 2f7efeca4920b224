"""Shell commands of the device capabilities on Android (agentless mode, run through adb):
``pm grant`` / ``pm revoke`` / ``pm clear-permission-flags`` for permissions, ``cmd location``
(Android 12+) for a simulated location fed by a test provider.

Pure: argv tuples only; the caller checks the package name before (``check_package``). The
Java agent builds the same commands (``DeviceCommands``) and runs them as the shell.
"""

from __future__ import annotations

ANDROID_PERMISSIONS: dict[str, str] = {
    "camera": "android.permission.CAMERA",
    "microphone": "android.permission.RECORD_AUDIO",
    "location": "android.permission.ACCESS_FINE_LOCATION",
    "photos": "android.permission.READ_MEDIA_IMAGES",
    "contacts": "android.permission.READ_CONTACTS",
    "calendar": "android.permission.READ_CALENDAR",
    "notifications": "android.permission.POST_NOTIFICATIONS",
}
"""mobridge permission name -> the Android runtime permission behind it."""
TEST_PROVIDER = "gps"


def permission_argv(action: str, package: str, permission: str) -> list[tuple[str, ...]]:
    """The commands of ``action`` (grant, revoke, reset); KeyError for an unknown name."""
    name = ANDROID_PERMISSIONS[permission]
    if action == "grant":
        return [("pm", "grant", package, name)]
    revoke = ("pm", "revoke", package, name)
    if action == "revoke":
        return [revoke]
    # reset: not granted, and the user's choice forgotten so the app asks again
    return [revoke, ("pm", "clear-permission-flags", package, name, "user-set", "user-fixed")]


def location_argv(latitude: float | None, longitude: float | None) -> list[tuple[str, ...]]:
    """Commands that simulate the location (None, None: stop simulating it)."""
    providers = ("cmd", "location", "providers")
    if latitude is None or longitude is None:
        return [(*providers, "remove-test-provider", TEST_PROVIDER)]
    return [
        ("appops", "set", "com.android.shell", "android:mock_location", "allow"),
        (*providers, "add-test-provider", TEST_PROVIDER),
        (*providers, "set-test-provider-enabled", TEST_PROVIDER, "true"),
        (
            *providers,
            "set-test-provider-location",
            TEST_PROVIDER,
            "--location",
            f"{latitude:.6f},{longitude:.6f}",
        ),
    ]


NETWORK_READ: tuple[tuple[str, ...], ...] = (
    ("settings", "get", "global", "airplane_mode_on"),
    ("settings", "get", "global", "wifi_on"),
    ("settings", "get", "global", "mobile_data"),
)
"""Read airplane mode, Wi-Fi and mobile data (each prints 1 or 0; Wi-Fi 2: on, kept on in
airplane mode)."""


def network_argv(
    airplane: bool | None, wifi: bool | None, data: bool | None
) -> list[tuple[str, ...]]:
    """Commands that switch the radios (issue 35), then read them back: ``cmd connectivity
    airplane-mode`` (Android 11+), ``svc wifi``, ``svc data``."""
    out: list[tuple[str, ...]] = []
    if airplane is not None:
        out.append(("cmd", "connectivity", "airplane-mode", "enable" if airplane else "disable"))
    if wifi is not None:
        out.append(("svc", "wifi", "enable" if wifi else "disable"))
    if data is not None:
        out.append(("svc", "data", "enable" if data else "disable"))
    return out + list(NETWORK_READ)


def network_state(outputs: list[str]) -> tuple[bool | None, bool | None, bool | None]:
    """(airplane, wifi, data) from the outputs of ``NETWORK_READ`` (the last three)."""

    def on(text: str) -> bool | None:
        said = text.strip()
        return None if not said.isdigit() else said != "0"

    tail = ["", "", "", *outputs][-3:]
    airplane, wifi, data = (on(t) for t in tail)
    return airplane, wifi, data

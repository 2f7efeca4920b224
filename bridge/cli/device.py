"""LAYER 4 — the client commands that act on the device itself rather than on an element:
``tap --at X,Y`` (``--double``), ``long-press --at X,Y`` (``--hold-ms``), ``swipe DIRECTION
--at X,Y`` (``--distance``), ``type`` with no target (into the focused input, ``--submit``),
``key``, ``apps``, ``orientation`` (no argument: the screen's size and orientation) and
``app terminate|clear|install|uninstall`` (``install FILE`` streams a local file).
``bridge.cli.client`` parses the arguments and asks ``device_plan`` first; it returns None for a
command that names an element.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from bridge.cli.failures import UsageError
from bridge.cli.render import emit
from bridge.wire.action import ActionResult
from bridge.wire.client_protocol import Confirm
from bridge.wire.enums import GestureKind, KeyName, Orientation

if TYPE_CHECKING:  # a one-shot command never imports the asyncio connection
    from bridge.client import Device, HubConnection

Plan = Callable[["HubConnection"], Awaitable[int]]
POINT = re.compile(r"^\s*(\d{1,5})\s*,\s*(\d{1,5})\s*$")
SWIPE_SHARE = 0.3
APP_MANAGEMENT = ("terminate", "clear", "install", "uninstall")


def point_arg(text: str) -> tuple[int, int]:
    """``X,Y`` in device pixels (argparse ``type``)."""
    found = POINT.match(text)
    if found is None:
        raise argparse.ArgumentTypeError(f"{text!r}: expected X,Y in pixels, like 540,1200")
    return int(found.group(1)), int(found.group(2))


def key_arg(text: str) -> KeyName:
    name = text.strip().upper().removeprefix("KEYCODE_").replace("-", "_")
    try:
        return KeyName(name)
    except ValueError:
        keys = ", ".join(k.value.lower() for k in KeyName)
        raise UsageError(f"key {text}: not a key; keys: {keys}") from None


def approve_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--approve",
        action="store_true",
        help="if the hub asks for the user's confirmation, give it (you are the user)",
    )


def add_device_commands(
    add: Callable[[str, str], argparse.ArgumentParser],
) -> None:
    p = add("key", "press a key: enter, del, tab, volume_up, dpad_down, ... (see --help)")
    p.add_argument("device")
    p.add_argument("key", metavar="KEY", help=", ".join(k.value.lower() for k in KeyName))
    p.add_argument("--confirm", metavar="OBJECTION", help="approve this objection id")
    approve_option(p)
    p = add("apps", "list the apps installed on a device")
    p.add_argument("device")
    p = add("orientation", "show the screen's size and orientation, or turn it")
    p.add_argument("device")
    p.add_argument("orientation", nargs="?", choices=("portrait", "landscape"))


def _human(args: argparse.Namespace) -> bool:
    return sys.stdout.isatty() and not args.json


def _confirm(args: argparse.Namespace) -> Confirm | None:
    objection: str | None = getattr(args, "confirm", None)
    return None if objection is None else Confirm(objection=objection, answer="approve")


def _done(result: ActionResult, args: argparse.Namespace, what: str) -> int:
    if not _human(args):
        emit(result)
        return 0
    obs = result.observation
    changed = "screen changed" if obs.screen_changed else "screen unchanged"
    method = f" via {result.dispatch.method.value}" if result.dispatch.method else ""
    verdict = f", {result.verification.result.value}" if result.verification else ""
    print(f"{what}: {result.dispatch.status.value}{method}, {changed}{verdict}")
    return 0


def device_plan(args: argparse.Namespace, device_id: str) -> Plan | None:
    """The plan of a device-level command, or None when the command names an element."""
    command: str = args.client_command
    at: tuple[int, int] | None = getattr(args, "at", None)
    confirm = _confirm(args)
    if command in ("tap", "long-press") and at is not None:
        if getattr(args, "target", None) is not None or getattr(args, "text", None) is not None:
            raise UsageError("--at X,Y is the target: drop the other target options")
        if getattr(args, "observe", "settle") != "settle":
            raise UsageError(
                "--observe none applies to element targets; a tap --at X,Y is always answered "
                "after the screen settles (drop --observe, or name the element instead)"
            )
        double = bool(getattr(args, "double", False))
        if command == "tap":
            kind = GestureKind.DOUBLE_TAP if double else GestureKind.TAP
            hold = None
        else:
            kind, hold = GestureKind.LONG_PRESS, getattr(args, "hold_ms", None)
        what = f"{kind.value} at {at[0]},{at[1]}"

        async def touch(hub: HubConnection) -> int:
            result = await hub.device(device_id).gesture(
                kind, [at], duration_ms=hold, confirm=confirm
            )
            return _done(result, args, what)

        return touch
    if command == "swipe" and at is not None:
        return _swipe_plan(args, device_id, at, confirm)
    if command == "type" and _no_target(args):
        text: str | None = args.value
        value_ref: str | None = args.value_ref
        if value_ref is not None and not value_ref.startswith("secret://"):
            raise UsageError("--value-ref must be a secret://... reference")
        what = "type into the focused input" + (", then enter" if args.submit else "")

        async def typing(hub: HubConnection) -> int:
            result = await hub.device(device_id).type_focused(
                text, value_ref=value_ref, submit=args.submit, confirm=confirm
            )
            return _done(result, args, what)

        return typing
    if command == "key":
        key = key_arg(args.key)

        async def press(hub: HubConnection) -> int:
            result = await hub.device(device_id).press_key(key, confirm=confirm)
            return _done(result, args, f"key {key.value.lower()}")

        return press
    if command == "apps":
        return lambda hub: _apps(hub.device(device_id), args)
    if command == "orientation":
        wanted: str | None = args.orientation
        return lambda hub: _orientation(hub.device(device_id), wanted, args)
    if command == "app" and args.action in APP_MANAGEMENT:
        return _app_plan(args, device_id, confirm)
    return None


def _no_target(args: argparse.Namespace) -> bool:
    names = ("target", "text", "label", "resource_id", "role", "ref", "within", "nth")
    return all(getattr(args, name, None) is None for name in names)


def _swipe_plan(
    args: argparse.Namespace, device_id: str, at: tuple[int, int], confirm: Confirm | None
) -> Plan:
    if not _no_target(args):
        raise UsageError("--at X,Y starts the swipe: drop the target options")
    distance: int | None = args.distance
    if distance is not None and distance < 1:
        raise UsageError("--distance must be at least 1 pixel")
    direction: str = args.direction

    async def swipe(hub: HubConnection) -> int:
        device = hub.device(device_id)
        shown = await device.display()
        horizontal = direction in ("left", "right")
        span = distance or int((shown.width if horizontal else shown.height) * SWIPE_SHARE)
        dx, dy = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}[direction]
        end = (
            min(max(at[0] + dx * span, 0), max(shown.width - 1, 0)),
            min(max(at[1] + dy * span, 0), max(shown.height - 1, 0)),
        )
        result = await device.swipe_on_screen([at, end], confirm=confirm)
        return _done(result, args, f"swipe {direction} from {at[0]},{at[1]}")

    return swipe


def _app_plan(args: argparse.Namespace, device_id: str, confirm: Confirm | None) -> Plan:
    action: str = args.action
    arg: str | None = args.arg
    if not arg:
        raise UsageError(f"app {action} needs {'PACKAGE' if action == 'install' else 'APP_ID'}")

    if action == "install" and local_file(arg):
        return _stream_install(args, device_id, Path(arg), confirm)

    async def manage(hub: HubConnection) -> int:
        device = hub.device(device_id)
        if action == "terminate":
            result = await device.terminate_app(arg, confirm=confirm)
        elif action == "clear":
            result = await device.clear_app(arg, confirm=confirm)
        elif action == "install":
            result = await device.install_app(arg, confirm=confirm)
        else:
            result = await device.uninstall_app(arg, confirm=confirm)
        return _done(result, args, f"app {action} {arg}")

    return manage


def local_file(arg: str) -> bool:
    """``install``'s argument names a local file (a path, or a name that exists here); a bare
    name that is no local file names a package of the hub's --install-dir."""
    return "/" in arg or os.sep in arg or Path(arg).exists()


def _stream_install(
    args: argparse.Namespace, device_id: str, path: Path, confirm: Confirm | None
) -> Plan:
    """Stream ``path`` to the hub once (its upload survives a confirmation) and install it."""
    from bridge.client.media import file_digest

    try:
        _, digest = file_digest(path)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    wanted: str | None = getattr(args, "sha256", None)
    if wanted is not None and wanted.lower() != digest:
        raise UsageError(f"{path}: its sha256 is {digest}, not the {wanted} given; check the file")

    async def install(hub: HubConnection) -> int:
        device = hub.device(device_id)
        upload: str | None = getattr(args, "upload_id", None)
        if upload is None:
            upload = await device.upload_file(path, sha256=digest)
            args.upload_id = upload
        result = await device.install_upload(upload, confirm=confirm)
        return _done(result, args, f"app install {path.name}")

    return install


async def _apps(device: Device, args: argparse.Namespace) -> int:
    listed = await device.apps()
    if not _human(args):
        emit(listed)
        return 0
    for app in listed.apps:
        marks = [
            m
            for m, on in (("system", app.system), ("in front", app.app_id == listed.foreground))
            if on
        ]
        extra = f"  ({', '.join(marks)})" if marks else ""
        print(f"{app.app_id}  {app.name or ''}{extra}".rstrip())
    return 0


async def _orientation(device: Device, wanted: str | None, args: argparse.Namespace) -> int:
    if wanted is not None:
        await device.set_orientation(Orientation(wanted))
    shown = await device.display()
    if _human(args):
        print(f"{device.id}: {shown.width}x{shown.height} {shown.orientation.value}")
    else:
        emit(msgspec.to_builtins(shown))
    return 0

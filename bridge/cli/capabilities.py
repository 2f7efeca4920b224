"""LAYER 4 — the device capabilities of issue 21 as commands (names fixed so that scripts can
rely on them):

- ``alert DEVICE`` lists the alerts on screen; ``alert DEVICE accept|dismiss`` answers the top
  one; ``alert DEVICE --button TEXT`` presses its button TEXT;
- ``permission DEVICE grant|revoke|reset APP_ID PERMISSION`` (a grant needs ``--approve``);
- ``location DEVICE LAT,LON`` / ``location DEVICE --clear`` (a negative latitude after ``--``:
  ``location DEVICE -- -33.86,151.21``);
- ``pinch DEVICE TARGET --scale S`` (S in 0.1..10: above 1 zooms in), ``two-finger-tap DEVICE
  [TARGET]``; both take ``--at X,Y`` instead of a target;
- ``clipboard DEVICE`` prints the clipboard; ``clipboard DEVICE set TEXT`` sets it (TEXT
  ``secret://NAME``: the hub's secret, never shown);
- ``keyboard DEVICE hide``.

Bad input (a latitude of 200, a scale of 0, an unknown permission) is one line and exit 2,
before anything reaches the hub; a refusal is exit 3 with what to do, like every client
command.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Awaitable, Callable

from bridge.cli.client import _selectors, common_options, query_of, run_on_session
from bridge.cli.device import _confirm, _done, _human, point_arg
from bridge.cli.failures import UsageError
from bridge.cli.render import emit, say
from bridge.client import ConfirmationRequired, Device, HubConnection
from bridge.wire.action import ActionResult
from bridge.wire.request_parts import Confirm

PERMISSIONS = ("camera", "microphone", "location", "photos", "contacts", "calendar",
               "notifications")  # fmt: skip
MIN_SCALE, MAX_SCALE = 0.1, 10.0
APP_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)+$")
_LAT_LON = re.compile(r"^\s*(-?\d+(?:\.\d+)?)\s*,\s*(-?\d+(?:\.\d+)?)\s*$")
Act = Callable[[Device, Confirm | None], Awaitable[ActionResult]]

HELP: dict[str, str] = {
    "alert": "list the alerts on screen, or accept, dismiss or press a button of one",
    "permission": "grant, revoke or reset an app's permission (camera, location, ...)",
    "location": "simulate the device's location (LAT,LON), or --clear it",
    "pinch": "pinch on an element (--scale above 1 zooms in), or --at X,Y",
    "two-finger-tap": "tap an element (or --at X,Y) with two fingers",
    "clipboard": "print the device's clipboard, or set it (set TEXT)",
    "keyboard": "hide the on-screen keyboard (keyboard DEVICE hide)",
}


def lat_lon(text: str) -> tuple[float, float]:
    """``LAT,LON`` in degrees, within [-90, 90] and [-180, 180] (else UsageError)."""
    got = _LAT_LON.match(text)
    if got is None:
        raise UsageError(f"location {text!r}: give LAT,LON in degrees, e.g. 48.8566,2.3522")
    lat, lon = float(got.group(1)), float(got.group(2))
    if not -90 <= lat <= 90:
        raise UsageError(f"latitude {lat:g} is outside -90..90 (give LAT,LON: latitude first)")
    if not -180 <= lon <= 180:
        raise UsageError(f"longitude {lon:g} is outside -180..180")
    return lat, lon


def add_capability_commands(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    common = common_options()

    def add(name: str) -> argparse.ArgumentParser:
        p = subparsers.add_parser(name, parents=[common], help=HELP[name])
        p.set_defaults(client_command=name, handler=run_capability_command)
        p.add_argument("device")
        return p

    p = add("alert")
    p.add_argument("choice", nargs="?", choices=("accept", "dismiss"), metavar="accept|dismiss")
    p.add_argument("--button", metavar="TEXT", help="press the alert's button TEXT")
    p = add("permission")
    p.add_argument("action", choices=("grant", "revoke", "reset"), metavar="grant|revoke|reset")
    p.add_argument("app_id", metavar="APP_ID")
    p.add_argument("permission", choices=PERMISSIONS, metavar="PERMISSION",
                   help=", ".join(PERMISSIONS))  # fmt: skip
    p.add_argument("--approve", action="store_true", help="give your word for a grant")
    p.add_argument("--confirm", metavar="OBJECTION", help="approve this objection id")
    p = add("location")
    p.add_argument("where", nargs="?", metavar="LAT,LON")
    p.add_argument("--clear", action="store_true", help="stop simulating the location")
    for name in ("pinch", "two-finger-tap"):
        p = add(name)
        _selectors(p)
        p.add_argument("--at", type=point_arg, metavar="X,Y", help="a screen point instead")
        if name == "pinch":
            p.add_argument("--scale", type=float, required=True, metavar="S",
                           help=f"{MIN_SCALE:g}..{MAX_SCALE:g}; above 1 zooms in")  # fmt: skip
    p = add("clipboard")
    p.add_argument("set", nargs="?", choices=("set",), metavar="set")
    p.add_argument("text", nargs="?", metavar="TEXT", help="the text, or secret://NAME")
    p = add("keyboard")
    p.add_argument("action", choices=("hide",), metavar="hide")


Run = Callable[[HubConnection], Awaitable[int]]


def _with_approval(args: argparse.Namespace, act: Act, what: str) -> Run:
    """Run ``act``; with ``--approve`` an objection raised by it is approved here and now."""

    async def run(hub: HubConnection) -> int:
        device = hub.device(args.device)
        try:
            result = await act(device, _confirm(args))
        except ConfirmationRequired as exc:
            objection = exc.objection
            if not getattr(args, "approve", False) or objection is None or not objection.answerable:
                raise
            say(f"mobridge: approving objection {objection.id}: {objection.reason}")
            result = await act(device, Confirm(objection=objection.id, answer="approve"))
        return _done(result, args, what)

    return run


def _alerts(args: argparse.Namespace) -> Run:
    async def run(hub: HubConnection) -> int:
        listed = await hub.device(args.device).alerts()
        if not _human(args):
            emit(listed)
            return 0
        if not listed.alerts:
            print(f"{args.device}: no alert on screen")
        for alert in listed.alerts:
            kind = "system alert" if alert.system else "alert"
            print(f"{kind}: {alert.title}")
            if alert.message:
                print(f"  {alert.message}")
            print(f"  buttons: {', '.join(repr(b) for b in alert.buttons)}")
        return 0

    return run


def _clipboard_read(args: argparse.Namespace) -> Run:
    async def run(hub: HubConnection) -> int:
        text = await hub.device(args.device).clipboard()
        if _human(args):
            print(text)
        else:
            emit({"device": args.device, "text": text})
        return 0

    return run


def plan_of(args: argparse.Namespace) -> Run:
    """What the command does, once its arguments are checked (UsageError: bad input)."""
    command: str = args.client_command
    match command:
        case "alert":
            if args.choice is not None and args.button is not None:
                raise UsageError("give accept, dismiss or --button TEXT, not two of them")
            if args.choice is None and args.button is None:
                return _alerts(args)
            choice, button = args.choice, args.button
            said = f"alert {choice}" if choice else f"alert --button {button!r}"
            return _with_approval(
                args, lambda d, c: d.answer_alert(choice, button=button, confirm=c), said
            )
        case "permission":
            if not APP_ID.match(args.app_id) or len(args.app_id) > 255:
                raise UsageError(f"{args.app_id!r} is not an app id (com.example.app)")
            act, app, perm = args.action, args.app_id, args.permission
            return _with_approval(
                args, lambda d, c: d.permission(act, app, perm, confirm=c),
                f"permission {act} {perm} {app}",
            )  # fmt: skip
        case "location":
            if args.clear:
                if args.where is not None:
                    raise UsageError("--clear takes no LAT,LON")
                return _with_approval(args, lambda d, c: d.clear_location(), "location cleared")
            if args.where is None:
                raise UsageError("give LAT,LON (e.g. 48.8566,2.3522) or --clear")
            lat, lon = lat_lon(args.where)
            return _with_approval(
                args, lambda d, c: d.set_location(lat, lon), f"location {lat:g},{lon:g}"
            )
        case "pinch" | "two-finger-tap":
            query = query_of(args, args.target)
            at = args.at
            if query is not None and at is not None:
                raise UsageError("--at X,Y is the target: drop the other target options")
            if command == "two-finger-tap":
                return _with_approval(
                    args, lambda d, c: d.two_finger_tap(query=query, at=at, confirm=c),
                    "two-finger tap",
                )  # fmt: skip
            scale: float = args.scale
            if not MIN_SCALE <= scale <= MAX_SCALE:
                raise UsageError(
                    f"--scale {scale:g} is outside {MIN_SCALE:g}..{MAX_SCALE:g} "
                    "(above 1 zooms in, below 1 zooms out)"
                )
            return _with_approval(
                args, lambda d, c: d.pinch(scale, query=query, at=at, confirm=c),
                f"pinch x{scale:g}",
            )  # fmt: skip
        case "clipboard":
            if args.set is None:
                if args.text is not None:
                    raise UsageError("clipboard DEVICE set TEXT (the word set comes first)")
                return _clipboard_read(args)
            if args.text is None:
                raise UsageError("clipboard DEVICE set TEXT needs the TEXT")
            text: str = args.text
            if text.startswith("secret://"):
                return _with_approval(
                    args, lambda d, c: d.set_clipboard(value_ref=text), "clipboard set (a secret)"
                )
            return _with_approval(
                args, lambda d, c: d.set_clipboard(text), f"clipboard set ({len(text)} characters)"
            )
        case _:  # keyboard hide
            return _with_approval(args, lambda d, c: d.hide_keyboard(), "keyboard hidden")


def run_capability_command(args: argparse.Namespace) -> int:
    return run_on_session(args, args.client_command, lambda: plan_of(args))

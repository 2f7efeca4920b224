"""The device tools: press, app, touch, swipe, type, orientation, display, apps.

Each is one hub request of ``bridge.client`` (``Device`` and its ``DeviceControl``), so the
hub applies its roles, leases, FIFO, policies and verification and shows the call under the
agent's name. Coordinates are device pixels of the screen as captured now (``display``). A
refusal pending the user's word (a force-stop, an install, an uninstall, a tap on something
destructive) goes through ``bridge.mcp.acting.objected``: ``confirm`` repeats the call, or
the user is asked directly where the client supports elicitation.

Invariant: a typed text and a ``valueRef`` never appear in a result or a refusal text.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

from bridge.client import ConfirmationRequired, ProtocolFailure
from bridge.client.device import Device
from bridge.mcp.acting import REPEATABLE, objected, summary, with_effect
from bridge.mcp.device_schemas import (
    AppArgs,
    AppsOutput,
    DeviceOnlyArgs,
    DisplayOutput,
    OrientationArgs,
    PressArgs,
    SwipeArgs,
    TouchArgs,
    TypeArgs,
)
from bridge.mcp.refusals import ToolRefusal
from bridge.mcp.schemas import ActOutput, ConfirmAnswer
from bridge.mcp.targets import condition_of
from bridge.mcp.tools import ToolContext, ToolOutcome, ToolSpec
from bridge.wire.action import ActionResult, Verify
from bridge.wire.client_protocol import Confirm
from bridge.wire.enums import (
    AppAction,
    GestureKind,
    GlobalAction,
    KeyName,
    ProtocolErrorCode,
    VerificationPolicy,
)

SWIPE_SHARE = 0.3
"""A swipe by direction covers this share of the screen when no distance is given."""
_APP_ACTIONS = {
    "open": AppAction.APP_OPEN,
    "close": AppAction.APP_CLOSE_UI,
    "bring_to_front": AppAction.APP_BRING_TO_FRONT,
    "open_url": AppAction.APP_DEEP_LINK,
}


def expectation(expect: dict[str, Any] | None) -> Verify | None:
    """An ``expect`` condition as the hub's explicit-condition verification."""
    if expect is None:
        return None
    return Verify(policy=VerificationPolicy.EXPLICIT_CONDITION, expected=condition_of(expect))


def _confirm(answer: ConfirmAnswer | None) -> Confirm | None:
    return None if answer is None else Confirm(objection=answer.objection, answer=answer.answer)


async def _guarded(
    ctx: ToolContext,
    tool: str,
    args: Any,
    call: Callable[[Device, Confirm | None], Awaitable[ActionResult]],
    what: str,
) -> ToolOutcome:
    """Run one device action; an objection goes through ``objected`` (confirm / elicit). The
    hub's INVALID_PARAMS (a point off the screen, a verify policy that needs a node) is about
    the model's own arguments: it becomes a tool error the model can correct."""
    device = await ctx.device_of(args.device)
    dev = (await ctx.session.hub()).device(device)
    try:
        result = await ctx.timed(call(dev, _confirm(args.confirm)))
    except ConfirmationRequired as exc:
        return await objected(ctx, tool, args, device, exc)
    except ProtocolFailure as exc:
        if exc.code is not ProtocolErrorCode.INVALID_PARAMS:
            raise
        hints = (
            ("call orientation for the screen's size in pixels",)
            if "off the screen" in (exc.message)
            else (f"see {tool}'s inputSchema",)
        )
        raise ToolRefusal("INVALID_ARGUMENTS", exc.message, hints) from exc
    return await with_effect(ctx, device, summary(what, result), result, None)


# ---- touches, swipes, keys, typing -----------------------------------------------------------


async def touch(ctx: ToolContext, args: TouchArgs) -> ToolOutcome:
    if args.duration_ms is not None and args.kind != "long_press":
        raise ToolRefusal("INVALID_ARGUMENTS", "durationMs is for long_press", ("drop it",))
    what = f"{args.kind} at ({args.x}, {args.y})"
    return await _guarded(
        ctx,
        "touch",
        args,
        lambda dev, c: dev.gesture(
            GestureKind(args.kind),
            [(args.x, args.y)],
            duration_ms=args.duration_ms,
            verify=expectation(args.expect),
            confirm=c,
        ),
        what,
    )


async def _swipe_path(ctx: ToolContext, args: SwipeArgs) -> list[tuple[int, int]]:
    if args.points is not None:
        if args.direction is not None or args.x is not None or args.y is not None:
            raise ToolRefusal(
                "INVALID_ARGUMENTS",
                "give points, or direction (with an optional x, y and distance), not both",
                ("pass points: [{x, y}, ...] for a path",),
            )
        return [(p.x, p.y) for p in args.points]
    if args.direction is None:
        raise ToolRefusal(
            "INVALID_ARGUMENTS",
            "a swipe needs a direction or points",
            ("pass direction: up, down, left or right",),
        )
    device = await ctx.device_of(args.device)
    shown = await (await ctx.session.hub()).device(device).display()
    w, h = shown.width, shown.height
    x = args.x if args.x is not None else w // 2
    y = args.y if args.y is not None else h // 2
    horizontal = args.direction in ("left", "right")
    distance = args.distance or int((w if horizontal else h) * SWIPE_SHARE)
    dx, dy = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}[args.direction]
    end_x = min(max(x + dx * distance, 0), max(w - 1, 0))
    end_y = min(max(y + dy * distance, 0), max(h - 1, 0))
    return [(x, y), (end_x, end_y)]


async def swipe(ctx: ToolContext, args: SwipeArgs) -> ToolOutcome:
    path = await _swipe_path(ctx, args)
    what = f"swipe from {path[0]} to {path[-1]}"
    return await _guarded(
        ctx,
        "swipe",
        args,
        lambda dev, c: dev.gesture(
            GestureKind.SWIPE,
            path,
            duration_ms=args.duration_ms,
            verify=expectation(args.expect),
            confirm=c,
        ),
        what,
    )


async def press(ctx: ToolContext, args: PressArgs) -> ToolOutcome:
    name = args.button.value
    if name in GlobalAction.__members__:
        device = await ctx.device_of(args.device)
        dev = (await ctx.session.hub()).device(device)
        result = await ctx.timed(dev.global_action(GlobalAction(name)))
        return await with_effect(ctx, device, summary(name, result), result, None)
    key = KeyName(name)
    return await _guarded(
        ctx, "press", args, lambda dev, c: dev.press_key(key, confirm=c), f"key {name}"
    )


async def type_text(ctx: ToolContext, args: TypeArgs) -> ToolOutcome:
    if (args.text is None) == (args.value_ref is None):
        raise ToolRefusal(
            "INVALID_ARGUMENTS",
            "type needs exactly one of text and valueRef",
            ("for a secret pass valueRef: 'secret://<name>'",),
        )
    what = "typed into the focused input" + (", then ENTER" if args.submit else "")
    return await _guarded(
        ctx,
        "type",
        args,
        lambda dev, c: dev.type_focused(
            args.text, value_ref=args.value_ref, submit=args.submit, confirm=c
        ),
        what,
    )


# ---- the screen and apps -----------------------------------------------------------------


async def orientation(ctx: ToolContext, args: OrientationArgs) -> ToolOutcome:
    """Without ``orientation``: the display (a read, open to observers); with it, a turn."""
    if args.orientation is None:
        return await display(ctx, DeviceOnlyArgs(device=args.device))
    device = await ctx.device_of(args.device)
    dev = (await ctx.session.hub()).device(device)
    result = await dev.set_orientation(args.orientation)
    what = f"orientation {args.orientation.value}"
    return await with_effect(ctx, device, summary(what, result), result, None)


async def display(ctx: ToolContext, args: DeviceOnlyArgs) -> ToolOutcome:
    device = await ctx.device_of(args.device)
    shown = await (await ctx.session.hub()).device(device).display()
    out = DisplayOutput(
        device=device,
        width=shown.width,
        height=shown.height,
        orientation=shown.orientation,
        generation=shown.generation,
    )
    text = f"{device}: {shown.width}x{shown.height} pixels, {shown.orientation.value}"
    return ToolOutcome(text, out)


async def apps(ctx: ToolContext, args: DeviceOnlyArgs) -> ToolOutcome:
    device = await ctx.device_of(args.device)
    listed = await (await ctx.session.hub()).device(device).apps()
    lines = [f"{len(listed.apps)} app(s) on {device}; in front: {listed.foreground or '?'}"]
    lines.extend(
        f"  {a.app_id}" + (f" · {a.name}" if a.name else "") + (" · system" if a.system else "")
        for a in listed.apps
    )
    out = AppsOutput(device=device, apps=listed.apps, foreground=listed.foreground)
    return ToolOutcome("\n".join(lines), out)


async def app(ctx: ToolContext, args: AppArgs) -> ToolOutcome:
    """``action: list`` is the app list (a read, open to observers); the rest act."""
    if args.action == "list":
        return await apps(ctx, DeviceOnlyArgs(device=args.device))
    needs = {
        "open": "app_id",
        "bring_to_front": "app_id",
        "terminate": "app_id",
        "uninstall": "app_id",
        "open_url": "url",
        "install": "path" if args.package is None else "package",
    }.get(args.action)
    if needs is not None and getattr(args, needs) is None:
        camel = {"app_id": "appId"}.get(needs, needs)
        raise ToolRefusal("INVALID_ARGUMENTS", f"{args.action} needs {camel}", (f"pass {camel}",))
    if args.action in _APP_ACTIONS:
        wire = _APP_ACTIONS[args.action]
        what = f"{wire.value} {args.app_id or args.url or ''}".strip()
        return await _guarded(
            ctx, "app", args, lambda dev, _: dev.app(wire, args.app_id, args.url), what
        )
    if args.action == "install" and args.path is not None:
        path = Path(args.path)
        if not await anyio.Path(path).is_file():
            raise ToolRefusal(
                "INVALID_ARGUMENTS", f"no file {path}", ("pass the path of an app package",)
            )
        return await _guarded(
            ctx,
            "app",
            args,
            lambda dev, c: dev.install_file(path, sha256=args.sha256, confirm=c),
            f"APP_INSTALL {path.name}",
        )
    if args.action == "install":
        assert args.package is not None
        package = args.package
        return await _guarded(
            ctx,
            "app",
            args,
            lambda dev, c: dev.install_app(package, sha256=args.sha256, confirm=c),
            f"APP_INSTALL {package}",
        )
    assert args.app_id is not None
    app_id = args.app_id
    if args.action == "terminate":
        return await _guarded(
            ctx,
            "app",
            args,
            lambda dev, c: dev.terminate_app(app_id, confirm=c),
            f"APP_TERMINATE {app_id}",
        )
    return await _guarded(
        ctx,
        "app",
        args,
        lambda dev, c: dev.uninstall_app(app_id, confirm=c),
        f"APP_UNINSTALL {app_id}",
    )


REPEATABLE.update(
    {
        "touch": (TouchArgs, touch),
        "swipe": (SwipeArgs, swipe),
        "press": (PressArgs, press),
        "type": (TypeArgs, type_text),
        "app": (AppArgs, app),
    }
)

DEVICE_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "press",
        "Press a button or key",
        "Press a global button (BACK, HOME, ...) or a key.",
        PressArgs,
        ActOutput,
        press,
        read_only=False,
    ),
    ToolSpec(
        "app",
        "Manage apps",
        "list, open/bring_to_front/terminate/uninstall (appId), close, open_url (url), "
        "install (path or package); terminate, install, uninstall need the user's word.",
        AppArgs,
        ActOutput,
        app,
        read_only=False,
        destructive=True,
        docs={"action": "what to do"},
    ),
    ToolSpec(
        "touch",
        "Tap at coordinates",
        "Tap, double-tap or long-press at device pixels; prefer act.",
        TouchArgs,
        ActOutput,
        touch,
        read_only=False,
        destructive=True,
    ),
    ToolSpec(
        "swipe",
        "Swipe on the screen",
        "Swipe in a direction or along points.",
        SwipeArgs,
        ActOutput,
        swipe,
        read_only=False,
        docs={"x": "start x (default: centre)", "y": "start y"},
    ),
    ToolSpec(
        "type",
        "Type into the focused input",
        "Type into the focused input (a given field: act SET_TEXT).",
        TypeArgs,
        ActOutput,
        type_text,
        read_only=False,
    ),
    ToolSpec(
        "orientation",
        "Set the orientation",
        "The screen's size in pixels and orientation; with orientation, turn it (verified).",
        OrientationArgs,
        ActOutput,
        orientation,
        read_only=False,
    ),
)

"""The device-capability tools of issue 21: ``alert``, ``permission``, ``location``,
``pinch``, ``clipboard`` and ``hide_keyboard``.

Each is one hub request of ``bridge.client`` (``Device`` and its ``DeviceCapabilities``), so
the hub applies its roles, leases, FIFO, policies and verification and shows the call under
the agent's name. A permission grant waits for the user's word like a force-stop
(``confirm``, or elicitation). ``alert`` with ``action: list`` and ``clipboard`` without a
text are reads. ``pinch`` takes the same targets as ``act`` (a handle, text, a query, a
point) plus ``scale``; ``kind: two_finger_tap`` taps with two fingers instead.

Invariant: clipboard text and a ``valueRef`` never appear in a result or a refusal text.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from bridge.client.device import Device
from bridge.mcp.acting import REPEATABLE, _handle_ref
from bridge.mcp.device_schemas import AppIdArg
from bridge.mcp.device_tools import _guarded as guarded
from bridge.mcp.refusals import ToolRefusal
from bridge.mcp.schemas import ActOutput, ConfirmAnswer, DeviceArg, McpStruct, SecretArg, TargetArg
from bridge.mcp.targets import HandleTarget, PointTarget, QueryTarget, target_of
from bridge.mcp.tools import ToolContext, ToolOutcome, ToolSpec
from bridge.wire.action import MAX_TEXT_VALUE, ActionResult
from bridge.wire.client_protocol import Confirm
from bridge.wire.device_capabilities import MAX_SCALE, MIN_SCALE, Permission
from bridge.wire.query import SemanticQuery


class AlertArgs(McpStruct, frozen=True):
    action: Literal["list", "accept", "dismiss", "press"] = "list"
    button: Annotated[str, msgspec.Meta(min_length=1, max_length=128)] | None = None
    device: DeviceArg | None = None
    confirm: ConfirmAnswer | None = None


class PermissionArgs(McpStruct, frozen=True):
    action: Literal["grant", "revoke", "reset"]
    app_id: AppIdArg
    permission: Permission
    device: DeviceArg | None = None
    confirm: ConfirmAnswer | None = None


class LocationArgs(McpStruct, frozen=True):
    latitude: Annotated[float, msgspec.Meta(ge=-90.0, le=90.0)] | None = None
    longitude: Annotated[float, msgspec.Meta(ge=-180.0, le=180.0)] | None = None
    clear: bool = False
    device: DeviceArg | None = None
    confirm: ConfirmAnswer | None = None


class PinchArgs(McpStruct, frozen=True):
    target: TargetArg
    scale: Annotated[float, msgspec.Meta(ge=MIN_SCALE, le=MAX_SCALE)] = 2.0
    kind: Literal["pinch", "two_finger_tap"] = "pinch"
    device: DeviceArg | None = None
    confirm: ConfirmAnswer | None = None


class ClipboardArgs(McpStruct, frozen=True):
    text: Annotated[str, msgspec.Meta(max_length=MAX_TEXT_VALUE)] | None = None
    value_ref: SecretArg | None = None
    device: DeviceArg | None = None
    confirm: ConfirmAnswer | None = None


class KeyboardArgs(McpStruct, frozen=True):
    device: DeviceArg | None = None
    confirm: ConfirmAnswer | None = None


class AlertsOutput(McpStruct, frozen=True):
    device: str
    alerts: list[dict[str, object]]


class ClipboardOutput(McpStruct, frozen=True):
    device: str
    text: str


async def alert(ctx: ToolContext, args: AlertArgs) -> ToolOutcome:
    device = await ctx.device_of(args.device)
    if args.action == "list":
        if args.button is not None:
            raise ToolRefusal("INVALID_ARGUMENTS", "button is for action press", ("drop it",))
        listed = await (await ctx.session.hub()).device(device).alerts()
        lines = [f"{len(listed.alerts)} alert(s) on {device}"]
        for a in listed.alerts:
            kind = "system alert" if a.system else "alert"
            lines.append(f"  {kind}: {a.title!r} · buttons {', '.join(map(repr, a.buttons))}")
        alerts = [msgspec.to_builtins(a) for a in listed.alerts]
        return ToolOutcome("\n".join(lines), AlertsOutput(device=device, alerts=alerts))
    if (args.action == "press") != (args.button is not None):
        raise ToolRefusal(
            "INVALID_ARGUMENTS",
            "press needs button (the button's text); accept and dismiss take none",
            ("call alert with action list to see the buttons",),
        )
    choice = None if args.action == "press" else args.action
    what = f"alert {args.action}" + (f" {args.button!r}" if args.button else "")
    return await guarded(
        ctx,
        "alert",
        args,
        lambda dev, c: dev.answer_alert(choice, button=args.button, confirm=c),
        what,
    )


async def permission(ctx: ToolContext, args: PermissionArgs) -> ToolOutcome:
    what = f"permission {args.action} {args.permission.value} {args.app_id}"
    return await guarded(
        ctx,
        "permission",
        args,
        lambda dev, c: dev.permission(args.action, args.app_id, args.permission, confirm=c),
        what,
    )


async def location(ctx: ToolContext, args: LocationArgs) -> ToolOutcome:
    given = [v is not None for v in (args.latitude, args.longitude)]
    if given not in ([True, True], [False, False]) or args.clear == all(given):
        raise ToolRefusal(
            "INVALID_ARGUMENTS",
            "give latitude and longitude (degrees), or clear: true",
            ("latitude in -90..90, longitude in -180..180",),
        )
    lat, lon = args.latitude, args.longitude

    async def call(dev: Device, _: Confirm | None) -> ActionResult:
        if lat is None or lon is None:
            return await dev.clear_location()
        return await dev.set_location(lat, lon)

    what = "location cleared" if args.clear else f"location {lat},{lon}"
    return await guarded(ctx, "location", args, call, what)


async def pinch(ctx: ToolContext, args: PinchArgs) -> ToolOutcome:
    device = await ctx.device_of(args.device)
    hub = await ctx.session.hub()
    target = target_of(args.target)
    query: SemanticQuery | None = None
    at: tuple[int, int] | None = None
    match target:
        case PointTarget(x=x, y=y):
            at = (x, y)
        case QueryTarget(query=q):
            query = q
        case HandleTarget(handle=handle):
            ref, _ = await _handle_ref(ctx, hub, device, handle)
            node = (await hub.device(device).resolve(ref)).node
            if node.bounds is None:
                raise ToolRefusal("NODE_NOT_FOUND", f"{handle} has no bounds on screen", ())
            left, top, right, bottom = node.bounds
            at = ((left + right) // 2, (top + bottom) // 2)
    if args.kind == "two_finger_tap":
        return await guarded(
            ctx, "pinch", args,
            lambda dev, c: dev.two_finger_tap(query=query, at=at, confirm=c), "two-finger tap",
        )  # fmt: skip
    return await guarded(
        ctx, "pinch", args,
        lambda dev, c: dev.pinch(args.scale, query=query, at=at, confirm=c),
        f"pinch x{args.scale:g}",
    )  # fmt: skip


async def clipboard(ctx: ToolContext, args: ClipboardArgs) -> ToolOutcome:
    device = await ctx.device_of(args.device)
    if args.text is None and args.value_ref is None:
        text = await (await ctx.session.hub()).device(device).clipboard()
        return ToolOutcome(
            f"clipboard of {device}: {text!r}", ClipboardOutput(device=device, text=text)
        )
    if args.text is not None and args.value_ref is not None:
        raise ToolRefusal("INVALID_ARGUMENTS", "give text or valueRef, not both", ())
    said = (
        "clipboard set (a secret)"
        if args.value_ref is not None
        else f"clipboard set ({len(args.text or '')} characters)"
    )

    async def call(dev: Device, _: Confirm | None) -> ActionResult:
        return await dev.set_clipboard(args.text, value_ref=args.value_ref)

    return await guarded(ctx, "clipboard", args, call, said)


async def hide_keyboard(ctx: ToolContext, args: KeyboardArgs) -> ToolOutcome:
    async def call(dev: Device, _: Confirm | None) -> ActionResult:
        return await dev.hide_keyboard()

    return await guarded(ctx, "hide_keyboard", args, call, "keyboard hidden")


REPEATABLE.update(
    {
        "alert": (AlertArgs, alert),
        "permission": (PermissionArgs, permission),
        "pinch": (PinchArgs, pinch),
    }
)

CAPABILITY_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "alert",
        "System alerts",
        "List the alerts on screen, or accept, dismiss or press a button of one.",
        AlertArgs,
        ActOutput,
        alert,
        read_only=False,
        docs={"action": "default list", "button": "press: its text"},
    ),
    ToolSpec(
        "permission",
        "App permissions",
        "Grant (needs the user's word), revoke or reset an app's permission (not iOS).",
        PermissionArgs,
        ActOutput,
        permission,
        read_only=False,
        docs={"action": "what to do", "permission": "which"},
    ),
    ToolSpec(
        "location",
        "Simulate the location",
        "Simulate a location (degrees) or clear it.",
        LocationArgs,
        ActOutput,
        location,
        read_only=False,
        docs={
            "latitude": "-90..90",
            "longitude": "-180..180",
            "clear": "true: stop simulating",
        },
    ),
    ToolSpec(
        "pinch",
        "Pinch or two-finger tap",
        "Pinch a target (scale > 1 zooms in) or two_finger_tap.",
        PinchArgs,
        ActOutput,
        pinch,
        read_only=False,
        docs={"scale": "0.1..10 (default 2)", "kind": "default pinch"},
    ),
    ToolSpec(
        "clipboard",
        "Clipboard",
        "Read the clipboard (no arguments), or set it.",
        ClipboardArgs,
        ClipboardOutput,
        clipboard,
        read_only=False,
        docs={"text": "the new text"},
    ),
    ToolSpec(
        "hide_keyboard",
        "Hide the keyboard",
        "Hide the keyboard (the field keeps its text).",
        KeyboardArgs,
        ActOutput,
        hide_keyboard,
        read_only=False,
    ),
)

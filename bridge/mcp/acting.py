"""The acting tools: act and confirm (the device tools — press, app, touch, swipe, type,
... — are in ``bridge.mcp.device_tools`` and share the objection handling here).

Targets (``act``): exactly one of ``handle`` (from screen/find), ``ref`` (a NodeRef), ``query``
(a SemanticQuery sent as the act's query: the hub resolves it when the action's turn comes —
none is NODE_NOT_FOUND, several are AMBIGUOUS_MATCH, listed here with a handle per candidate)
or ``point`` (the innermost node of a fresh outline whose bounds hold the point). A ref is
re-resolved strictly by the hub on its newest snapshot; a handle is sent with the generation
the agent saw, so a screen that moved on is refused STALE_NODE_REF, never guessed.

Objections: a refusal that carries an answerable objection (USER_CONFIRMATION_REQUIRED) is
remembered by id (bounded) with the tool and arguments that raised it; ``confirm`` repeats
that call with the answer (any tool registered in ``REPEATABLE``). When the MCP client
supports elicitation the user is asked directly (the model's own "approve" is not taken for
the user's word); without it, ``confirm`` passes the model's answer on.

Invariant: a typed text and a ``valueRef`` never appear in a result or a refusal text.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from mcp import types

from bridge.client import ClientError, ConfirmationRequired, HubConnection
from bridge.mcp.refusals import ToolRefusal
from bridge.mcp.schemas import (
    ActArgs,
    ActOutput,
    ActVerb,
    ConfirmArgs,
    decode_args,
    to_structured,
)
from bridge.mcp.session import PendingAct
from bridge.mcp.tools import ToolContext, ToolOutcome, ToolSpec
from bridge.wire.action import ActionRequest, ActionResult
from bridge.wire.client_protocol import Confirm
from bridge.wire.enums import ActionVerb, VerificationResult
from bridge.wire.noderef import NodeRef

_FORWARD = {
    "up": True,
    "left": True,
    "forward": True,
    "down": False,
    "right": False,
    "backward": False,
}
REPEATABLE: dict[str, tuple[type[Any], Callable[[ToolContext, Any], Awaitable[ToolOutcome]]]] = {}
"""Tools whose call ``confirm`` may repeat with an answer: name -> (argument type, runner)."""


def wire_verb(args: ActArgs) -> ActionVerb:
    """SCROLL / SWIPE with a direction become SCROLL_FORWARD / SCROLL_BACKWARD: swiping up
    (or left) moves the content on, like scrolling forward."""
    if args.action in (ActVerb.SCROLL, ActVerb.SWIPE):
        if args.direction is None:
            raise ToolRefusal(
                "INVALID_ARGUMENTS",
                f"{args.action.value} needs a direction",
                ("give direction: up, down, left, right, forward or backward",),
            )
        forward = _FORWARD[args.direction]
        return ActionVerb.SCROLL_FORWARD if forward else ActionVerb.SCROLL_BACKWARD
    return ActionVerb(args.action.value)


async def _target(
    ctx: ToolContext, hub: HubConnection, device: str, args: ActArgs, verb: ActionVerb
) -> tuple[NodeRef | None, int | None, str | None]:
    """The ref to act on (None for a query target), the generation to check it against, and
    its handle."""
    given = [t for t in (args.handle, args.ref, args.query, args.point) if t is not None]
    if len(given) != 1:
        raise ToolRefusal(
            "INVALID_ARGUMENTS",
            f"give exactly one target (handle, ref, query or point), not {len(given)}",
            ("call screen and pass a handle, e.g. handle: 'e3'",),
        )
    handles = ctx.session.handles
    if args.handle is not None:
        entry = handles.lookup(args.handle)
        if entry is None or entry.device != device:
            raise ToolRefusal(
                "UNKNOWN_HANDLE",
                f"{args.handle} is not a handle of {device} in this session",
                ("call screen (or find) again and use a handle it shows",),
            )
        if entry.ref is None:
            raise ToolRefusal(
                "UNKNOWN_HANDLE",
                f"the hub gave no reference for {args.handle} yet",
                ("call screen again: it refreshes every handle",),
            )
        return entry.ref, entry.generation, args.handle
    if args.ref is not None:
        return args.ref, None, handles.known(device, args.ref.node_id)
    if args.query is not None:
        return None, None, None  # sent as the act's query: the hub resolves it in turn
    assert args.point is not None
    return await _at_point(ctx, device, args, verb)


async def _at_point(
    ctx: ToolContext, device: str, args: ActArgs, verb: ActionVerb
) -> tuple[NodeRef, int | None, str | None]:
    assert args.point is not None
    x, y = args.point.x, args.point.y
    view = await ctx.session.screen(device)
    by_id = {n.node_id: n for n in view.snapshot.snapshot.nodes}
    best = None
    for node_id in view.outline.shown:
        node = by_id[node_id]
        if node.bounds is None:
            continue
        left, top, right, bottom = node.bounds
        if left <= x < right and top <= y < bottom and (verb in node.actions or best is None):
            best = node  # later lines are deeper or later siblings: innermost wins
    handle = ctx.session.handles.known(device, best.node_id) if best is not None else None
    entry = ctx.session.handles.lookup(handle) if handle is not None else None
    if entry is None or entry.ref is None:
        raise ToolRefusal(
            "NODE_NOT_FOUND",
            f"no node of the outline covers ({x}, {y})",
            ("call screen and act on a handle", "check the coordinates against its bounds"),
        )
    return entry.ref, view.snapshot.generation, entry.handle


def _describe(result: ActionResult, verb: ActionVerb, handle: str | None) -> str:
    target = ""
    if result.target is not None:
        role = result.target.role.value.lower() if result.target.role else "node"
        target = f' {role} "{result.target.label or ""}"'
    parts = [f"{verb.value}{target}{f' ({handle})' if handle else ''}"]
    method = f" via {result.dispatch.method.value}" if result.dispatch.method else ""
    parts.append(f"{result.dispatch.status.value}{method}")
    obs = result.observation
    parts.append(
        f"screen {'changed' if obs.screen_changed else 'unchanged'} ({obs.stability.value})"
    )
    if result.verification is not None:
        parts.append(f"verification {result.verification.result.value}")
    return " · ".join(parts)


async def act(ctx: ToolContext, args: ActArgs) -> ToolOutcome:
    device = await ctx.device_of(args.device)
    verb = wire_verb(args)
    if verb is ActionVerb.SET_TEXT and (args.text is None) == (args.value_ref is None):
        raise ToolRefusal(
            "INVALID_ARGUMENTS",
            "SET_TEXT needs exactly one of text and valueRef",
            ("for a secret pass valueRef: 'secret://<name>'",),
        )
    hub = await ctx.session.hub()
    ref, generation, handle = await _target(ctx, hub, device, args, verb)
    request = ActionRequest(
        action=verb,
        target=ref,
        value=args.text,
        value_ref=args.value_ref,
        verify=args.verify,
        idempotency_key=args.idempotency_key,
        allow_gesture_fallback=args.allow_gesture_fallback,
        generation=generation,
    )
    confirm = None
    if args.confirm is not None:
        confirm = Confirm(objection=args.confirm.objection, answer=args.confirm.answer)
    try:
        result = await hub.device(device).act(request, confirm, query=args.query)
    except ConfirmationRequired as exc:
        return await objected(ctx, "act", args, device, exc)
    text = _describe(result, verb, handle)
    verification = result.verification
    if verification is not None and verification.result is not VerificationResult.CONDITION_MET:
        text += "\n" + "\n".join(
            f"  {e.what}: observed {e.observed!r}" for e in verification.evidence[:6]
        )
    out = ActOutput(device=device, action=verb.value, result=result, target_handle=handle)
    return ToolOutcome(text, out)


# ---- objections ----------------------------------------------------------------------------


async def objected(
    ctx: ToolContext, tool: str, args: Any, device: str, exc: ConfirmationRequired
) -> ToolOutcome:
    """A tool call refused pending the user's word: remember it under its objection id (so
    ``confirm`` can repeat it), and ask the user at once when the client can elicit; else the
    refusal goes to the model, naming the objection."""
    if exc.objection is None or not exc.objection.answerable:
        raise exc
    arguments = to_structured(msgspec.structs.replace(args, confirm=None, device=device))
    pending = PendingAct(device, arguments, exc.objection.reason, True, tool)
    ctx.session.remember_objection(exc.objection.id, pending)
    if not _can_elicit(ctx):
        raise exc
    return await _ask_user(ctx, exc.objection.id, pending)


def _can_elicit(ctx: ToolContext) -> bool:
    wanted = types.ClientCapabilities(elicitation=types.ElicitationCapability())
    return ctx.mcp.check_client_capability(wanted)


async def _ask_user(ctx: ToolContext, objection: str, pending: PendingAct) -> ToolOutcome:
    action = pending.arguments.get("action", "?")
    message = (
        f"An agent asks to {pending.tool} {action} on {pending.device}. "
        f"The hub objects: {pending.reason}. "
        "Allow this once?"
    )
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {"approve": {"type": "boolean", "title": "Allow this action"}},
        "required": ["approve"],
    }
    answer = await ctx.mcp.elicit_form(message, schema, related_request_id=ctx.request_id)
    approved = answer.action == "accept" and bool((answer.content or {}).get("approve"))
    return await _answer(ctx, objection, pending, "approve" if approved else "reject")


async def _answer(
    ctx: ToolContext, objection: str, pending: PendingAct, answer: str
) -> ToolOutcome:
    ctx.session.objections.pop(objection, None)
    arguments = dict(pending.arguments)
    arguments["confirm"] = {"objection": objection, "answer": answer}
    kind, run = REPEATABLE[pending.tool]
    repeated = decode_args(kind, arguments)
    if answer == "reject":
        try:  # tells the hub (which closes the objection); its refusal is expected
            await run(ctx, repeated)
        except (ToolRefusal, ClientError):
            pass
        raise ToolRefusal(
            "USER_REJECTED",
            f"the user did not allow it (objection {objection} answered 'reject')",
            ("choose a different, non-destructive action",),
        )
    return await run(ctx, repeated)


async def confirm(ctx: ToolContext, args: ConfirmArgs) -> ToolOutcome:
    pending = ctx.session.objections.get(args.objection)
    if pending is None:
        raise ToolRefusal(
            "UNKNOWN_OBJECTION",
            f"no call of this session was refused with objection {args.objection}",
            ("answer only objection ids that act returned to this session",),
        )
    if args.answer == "reject":
        return await _answer(ctx, args.objection, pending, "reject")
    if _can_elicit(ctx):
        return await _ask_user(ctx, args.objection, pending)
    if args.answer is None:
        raise ToolRefusal(
            "ANSWER_NEEDED",
            "this client cannot ask the user directly; ask them yourself",
            ("call confirm again with answer 'approve' or 'reject'",),
        )
    return await _answer(ctx, args.objection, pending, args.answer)


ACTING_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "act",
        "Act on a node",
        "Act on one node: CLICK, LONG_CLICK, SET_TEXT (text, or valueRef 'secret://name' for "
        "secrets), CLEAR_TEXT, FOCUS, SCROLL/SWIPE with direction, SELECT, EXPAND, COLLAPSE, "
        "DISMISS, COPY, PASTE. Target: handle (from screen/find), ref, query (must match "
        "one node) or point {x, y}. Optional verify {policy, expected condition}. Returns "
        "what was dispatched, observed and verified.",
        ActArgs,
        ActOutput,
        act,
        read_only=False,
        destructive=True,
    ),
    ToolSpec(
        "confirm",
        "Answer an objection",
        "Answer an objection a call (act, touch, swipe, press, type, app) was refused with, by "
        "its id: the call is repeated with the answer. Where the client supports it the user "
        "is asked directly.",
        ConfirmArgs,
        ActOutput,
        confirm,
        read_only=False,
        destructive=True,
    ),
)

REPEATABLE["act"] = (ActArgs, act)

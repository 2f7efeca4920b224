"""The acting tools: act and confirm (the device tools — press, app, touch, swipe, type,
... — are in ``bridge.mcp.device_tools`` and share the objection handling here).

Targets (``act``, ``bridge.mcp.targets``): a handle (``e7``: the hub's ref for that node,
found now by one ``find``, sent with the generation the agent saw, so a screen that moved on
is refused STALE_NODE_REF, never guessed), plain text or a query object (sent as the act's
query: the hub resolves it when the action's turn comes — none is NODE_NOT_FOUND, several
are AMBIGUOUS_MATCH, listed here with a handle per candidate), or a point ``{x, y}`` (the
innermost element there).

Every action answers with its effect (``with_effect``): one summary line and the screen
after it, as a view diffed against the last view this session saw (``bridge.mcp.view``).

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
from bridge.mcp.outline import meaningful
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
from bridge.mcp.targets import HandleTarget, PointTarget, QueryTarget, condition_of, target_of
from bridge.mcp.tools import ToolContext, ToolOutcome, ToolSpec
from bridge.wire.action import ActionRequest, ActionResult, Verify
from bridge.wire.client_protocol import Confirm
from bridge.wire.enums import ActionVerb, VerificationPolicy, VerificationResult
from bridge.wire.noderef import NodeRef
from bridge.wire.query import SemanticQuery

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


async def _handle_ref(
    ctx: ToolContext, hub: HubConnection, device: str, handle: str
) -> tuple[NodeRef, int | None]:
    """The hub's ref for a handle's node now (one ``find`` by the node's role) and the
    generation the agent saw it at: the hub refuses STALE_NODE_REF when the screen moved on
    since, and a node that left the screen is refused here, never re-pointed."""
    entry = ctx.session.handles.lookup(handle)
    if entry is None or entry.device != device:
        raise ToolRefusal(
            "UNKNOWN_HANDLE",
            f"{handle} is not a handle of {device} in this session",
            ("call screen and use a handle it shows, or give the element's text",),
        )
    if entry.role is None and entry.ref is not None:
        return entry.ref, entry.generation
    query = SemanticQuery(role=entry.role) if entry.role is not None else None
    if query is not None:
        found = await hub.device(device).find(query)
        for match in found.matches:
            if match.node.node_id == entry.node_id:
                return match.ref, entry.generation
    raise ToolRefusal(
        "STALE_NODE_REF",
        f"{handle} is no longer on the screen",
        ("call screen to see the screen now, or give the element's text",),
    )


async def _at_point(
    ctx: ToolContext, hub: HubConnection, device: str, x: int, y: int, verb: ActionVerb
) -> tuple[NodeRef, int | None, str | None]:
    """The innermost outlined element whose bounds hold the point (prefer one that takes
    the action)."""
    snap = await hub.device(device).snapshot()
    best = None
    for node in snap.snapshot.nodes:
        if node.bounds is None or not meaningful(node):
            continue
        left, top, right, bottom = node.bounds
        if left <= x < right and top <= y < bottom and (verb in node.actions or best is None):
            best = node  # later nodes are deeper or later siblings: innermost wins
    if best is None:
        raise ToolRefusal(
            "NODE_NOT_FOUND",
            f"no element covers ({x}, {y})",
            ("call screen and act on a handle", "use touch to tap at raw coordinates"),
        )
    handle = ctx.session.handles.handle_for(
        device, best.node_id, generation=snap.generation, role=best.role
    )
    ref, generation = await _handle_ref(ctx, hub, device, handle)
    return ref, generation, handle


def _describe(result: ActionResult, verb: ActionVerb, handle: str | None) -> str:
    target = ""
    if result.target is not None:
        role = result.target.role.value.lower() if result.target.role else "node"
        target = f' {role} "{result.target.label or ""}"'
    return summary(f"{verb.value}{target}{f' ({handle})' if handle else ''}", result)


def summary(what: str, result: ActionResult) -> str:
    """One line: what was done, how it went, whether the screen changed, the verdict."""
    status = result.dispatch.status.value
    method = result.dispatch.method
    if status == "DISPATCHED":
        status = "done"
        if method is not None and method.value != "ACCESSIBILITY_ACTION":
            status += f" via {method.value}"
    parts = [what, status]
    obs = result.observation
    parts.append("screen changed" if obs.screen_changed else "screen unchanged")
    if obs.stability.value != "STABLE":
        parts[-1] += f" ({obs.stability.value.lower()})"
    if result.verification is not None:
        parts.append(f"expect {result.verification.result.value}")
        ev = result.verification.evidence
        if ev and result.verification.result is not VerificationResult.CONDITION_MET:
            parts.append(f"{ev[0].what}: observed {ev[0].observed!r}")
    return " · ".join(parts)


async def with_effect(
    ctx: ToolContext, device: str, line: str, result: ActionResult, max_tokens: int | None
) -> ToolOutcome:
    """An action's answer: its one-line summary and the screen after it, as a view diffed
    against the last one this session saw (the whole view when the screen changed)."""
    after = result.observation.after_snapshot_id
    view_id, view, _ = await ctx.session.look(device, max_tokens=max_tokens, diff=True, after=after)
    return ToolOutcome(f"{line}\nview {view_id} · {view.text}")


async def act(ctx: ToolContext, args: ActArgs) -> ToolOutcome:
    device = await ctx.device_of(args.device)
    verb = wire_verb(args)
    if verb is ActionVerb.SET_TEXT and (args.text is None) == (args.value_ref is None):
        raise ToolRefusal(
            "INVALID_ARGUMENTS",
            "SET_TEXT needs exactly one of text and valueRef",
            ("for a secret pass valueRef: 'secret://<name>'",),
        )
    target = target_of(args.target)
    hub = await ctx.session.hub()
    ref: NodeRef | None = None
    generation: int | None = None
    handle: str | None = None
    query: SemanticQuery | None = None
    match target:
        case HandleTarget(handle=handle):
            ref, generation = await _handle_ref(ctx, hub, device, handle)
        case PointTarget(x=x, y=y):
            ref, generation, handle = await _at_point(ctx, hub, device, x, y, verb)
        case QueryTarget(query=query):
            pass  # sent as the act's query: the hub resolves it when the action's turn comes
    verify = None
    if args.expect is not None:
        verify = Verify(
            policy=VerificationPolicy.EXPLICIT_CONDITION, expected=condition_of(args.expect)
        )
    request = ActionRequest(
        action=verb,
        target=ref,
        value=args.text,
        value_ref=args.value_ref,
        verify=verify,
        idempotency_key=args.idempotency_key,
        allow_gesture_fallback=args.allow_gesture_fallback,
        generation=generation,
    )
    confirm = None
    if args.confirm is not None:
        confirm = Confirm(objection=args.confirm.objection, answer=args.confirm.answer)
    try:
        result = await ctx.timed(hub.device(device).act(request, confirm, query=query))
    except ConfirmationRequired as exc:
        return await objected(ctx, "act", args, device, exc)
    return await with_effect(ctx, device, _describe(result, verb, handle), result, args.max_tokens)


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
    action = pending.arguments.get("action", "CLICK" if pending.tool == "act" else "?")
    target = pending.arguments.get("target")
    what = f"{action} {target!r}" if isinstance(target, str) else str(action)
    message = (
        f"An agent asks to {pending.tool} {what} on {pending.device}. "
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
        "Act on an element",
        "Act on one element; answers with the new screen. Several matches are refused "
        "(with handles). SET_TEXT takes text or valueRef, SCROLL/SWIPE direction.",
        ActArgs,
        ActOutput,
        act,
        read_only=False,
        destructive=True,
        docs={"action": "default CLICK", "direction": "the content's way"},
    ),
    ToolSpec(
        "confirm",
        "Answer an objection",
        "Answer a refusal's objection (ask the user first): the call is repeated.",
        ConfirmArgs,
        ActOutput,
        confirm,
        read_only=False,
        destructive=True,
    ),
)

REPEATABLE["act"] = (ActArgs, act)

"""The MCP server (official SDK, low-level ``Server``): tools, resources, subscriptions.

Rules:

- one ``McpSession`` per MCP session, created by the SDK's per-connection lifespan (stdio:
  the one connection; streamable HTTP: each session), holding that agent's own hub session;
- ``tools/call`` decodes the arguments with the tool's Struct (a mismatch is a tool error the
  model can fix), runs the tool, and answers ``structuredContent`` (validated by the SDK's
  client against ``outputSchema``) plus a short text; refusals become ``isError`` results and
  hub protocol errors JSON-RPC errors (``bridge.mcp.refusals``); an unknown tool name is a
  JSON-RPC error;
- resources: ``mobridge://devices/{id}/screen`` (compact snapshot JSON and its outline) with
  subscriptions — ``resources/updated`` follows the hub's delta stream, coalesced
  (``bridge.mcp.session``) — and ``mobridge://captures/{id}`` (PNG) for screenshots.
"""

from __future__ import annotations

import base64
import re
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

import msgspec
from mcp import types
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.lowlevel import NotificationOptions, Server
from mcp.server.models import InitializationOptions
from mcp.shared.context import RequestContext
from mcp.shared.exceptions import McpError
from pydantic import AnyUrl

from bridge import __version__
from bridge.client import ClientError, HubError, ProtocolFailure
from bridge.client.screenshot import fetch_capture
from bridge.mcp.acquire_tool import ACQUIRE_TOOLS
from bridge.mcp.acting import ACTING_TOOLS
from bridge.mcp.capability_tools import CAPABILITY_TOOLS
from bridge.mcp.device_tools import DEVICE_TOOLS
from bridge.mcp.history_tool import HISTORY_TOOLS
from bridge.mcp.lean import lean_schema
from bridge.mcp.media_tools import MEDIA_TOOLS
from bridge.mcp.prompts import PROMPTS, get_prompt
from bridge.mcp.refusals import ToolRefusal, from_client_error, protocol_error
from bridge.mcp.schemas import decode_args, to_structured
from bridge.mcp.session import DeviceChoice, HubTarget, McpSession, UnknownView
from bridge.mcp.tools import CAPTURE_URI, READING_TOOLS, SCREEN_URI, ToolContext, ToolSpec
from bridge.wire.client_protocol import ScreenshotResult

TOOLS: dict[str, ToolSpec] = {
    spec.name: spec
    for spec in (
        *READING_TOOLS,
        *ACTING_TOOLS,
        *DEVICE_TOOLS,
        *MEDIA_TOOLS,
        *CAPABILITY_TOOLS,
        *HISTORY_TOOLS,
        *ACQUIRE_TOOLS,
    )
}
SCREEN_RE = re.compile(r"^mobridge://devices/([^/?#]{1,128})/screen$")
CAPTURE_RE = re.compile(r"^mobridge://captures/([A-Za-z0-9_-]{1,64})$")
INSTRUCTIONS = (
    "Drives phones shared through a mobridge hub, with people and other agents. Look once "
    "with `screen`, then `act` on a handle (e7) or plain text: every action answers with the "
    "new screen (changed lines only when the screen stayed). `wait` for a condition instead "
    "of polling. The hub refuses instead of guessing: follow the `next:` line of an error. "
    "Every tool takes `device` (an id from `devices`); omit it when the hub has one."
)


class HubMcpServer(Server[McpSession, Any]):
    """The SDK server with resource subscriptions announced (the SDK leaves them off)."""

    def get_capabilities(
        self,
        notification_options: NotificationOptions,
        experimental_capabilities: dict[str, dict[str, Any]],
    ) -> types.ServerCapabilities:
        caps = super().get_capabilities(notification_options, experimental_capabilities)
        if caps.resources is not None:
            caps.resources.subscribe = True
        return caps


def _tool(spec: ToolSpec) -> types.Tool:
    """The tool as ``tools/list`` shows it: the lean input schema, no output schema (the
    answer is text for the model; see ``bridge.mcp.lean``), hints only where they differ
    from the defaults a client assumes (a tool that is not read-only is destructive unless
    it says otherwise, so ``spec.destructive`` needs no hint on the wire)."""
    annotations = types.ToolAnnotations(readOnlyHint=True) if spec.read_only else None
    return types.Tool(
        name=spec.name,
        description=spec.description,
        inputSchema=lean_schema(spec.args, spec.docs),
        annotations=annotations,
    )


def build_server(target: HubTarget) -> HubMcpServer:
    """A server whose sessions reach the hub at ``target`` (token: the HTTP caller's bearer
    token when there is one, else ``target.token``)."""

    @asynccontextmanager
    async def lifespan(_: Server[McpSession, Any]) -> AsyncIterator[McpSession]:
        async with McpSession(target).run() as session:
            yield session

    server = HubMcpServer(
        "mobridge", version=__version__, instructions=INSTRUCTIONS, lifespan=lifespan
    )
    tools = [_tool(spec) for spec in TOOLS.values()]

    def context() -> tuple[RequestContext[Any, McpSession, Any], McpSession]:
        ctx = server.request_context
        session = ctx.lifespan_context
        params = ctx.session.client_params
        if params is not None and session.client_name == "mcp-client":
            info = params.clientInfo
            session.client_name = f"{info.name} {info.version}".strip()
        access = get_access_token()
        if access is not None:
            session.token = access.token
        return ctx, session

    async def list_tools(_: types.ListToolsRequest) -> types.ServerResult:
        return types.ServerResult(types.ListToolsResult(tools=tools))

    async def call_tool(req: types.CallToolRequest) -> types.ServerResult:
        spec = TOOLS.get(req.params.name)
        if spec is None:
            raise McpError(
                types.ErrorData(
                    code=types.INVALID_PARAMS, message=f"unknown tool {req.params.name!r}"
                )
            )
        ctx, session = context()
        meta = req.params.meta
        tool_ctx = ToolContext(
            session, ctx.session, ctx.request_id, meta.progressToken if meta else None
        )
        result = await _run_tool(spec, tool_ctx, req.params.arguments)
        if tool_ctx.hub_ms:
            result.meta = {"mobridge/hubMs": round(tool_ctx.hub_ms, 2)}
        notes = session.clear_notes()
        if notes and result.content and isinstance(result.content[0], types.TextContent):
            first = result.content[0]
            first.text = "\n".join((*(f"note: {n}" for n in notes), first.text))
        return types.ServerResult(result)

    async def list_resources(_req: types.ListResourcesRequest) -> types.ServerResult:
        _, session = context()
        try:
            devices = await session.devices()
        except ClientError as exc:
            raise _as_protocol(exc) from exc
        resources = [
            types.Resource(
                uri=AnyUrl(SCREEN_URI.format(device=d.id)),
                name=f"{d.id} screen",
                description=f"the current compact snapshot of {d.id} (subscribe for changes)",
                mimeType="application/json",
            )
            for d in devices
        ]
        resources.extend(
            types.Resource(
                uri=AnyUrl(CAPTURE_URI.format(capture=c)),
                name=f"capture {c}",
                mimeType="image/png",
                size=r.bytes,
            )
            for c, r in session.captures.items()
        )
        return types.ServerResult(types.ListResourcesResult(resources=resources))

    async def list_templates(_: types.ListResourceTemplatesRequest) -> types.ServerResult:
        templates = [
            types.ResourceTemplate(
                uriTemplate="mobridge://devices/{device}/screen",
                name="device screen",
                description="compact snapshot JSON and outline; subscribe to hear of changes",
                mimeType="application/json",
            ),
            types.ResourceTemplate(
                uriTemplate=CAPTURE_URI,
                name="screenshot capture",
                mimeType="image/png",
            ),
        ]
        return types.ServerResult(types.ListResourceTemplatesResult(resourceTemplates=templates))

    async def read_resource(req: types.ReadResourceRequest) -> types.ServerResult:
        _, session = context()
        uri = str(req.params.uri)
        try:
            contents = await _read(session, uri)
        except ClientError as exc:
            raise _as_protocol(exc) from exc
        return types.ServerResult(types.ReadResourceResult(contents=list(contents)))

    async def subscribe(req: types.SubscribeRequest) -> types.ServerResult:
        ctx, session = context()
        uri = str(req.params.uri)
        device = _screen_device(uri)
        mcp_session = ctx.session

        async def notify() -> None:
            await mcp_session.send_resource_updated(AnyUrl(uri))

        try:
            await session.watch(uri, device, notify)
        except DeviceChoice as exc:
            raise McpError(types.ErrorData(code=types.INVALID_PARAMS, message=str(exc))) from exc
        except ClientError as exc:
            raise _as_protocol(exc) from exc
        return types.ServerResult(types.EmptyResult())

    async def unsubscribe(req: types.UnsubscribeRequest) -> types.ServerResult:
        _, session = context()
        session.unwatch(str(req.params.uri))
        return types.ServerResult(types.EmptyResult())

    async def list_prompts(_: types.ListPromptsRequest) -> types.ServerResult:
        return types.ServerResult(types.ListPromptsResult(prompts=list(PROMPTS)))

    async def prompt(req: types.GetPromptRequest) -> types.ServerResult:
        found = get_prompt(req.params.name, req.params.arguments or {})
        if found is None:
            raise McpError(
                types.ErrorData(
                    code=types.INVALID_PARAMS, message=f"unknown prompt {req.params.name!r}"
                )
            )
        return types.ServerResult(found)

    handlers: dict[type[Any], Callable[[Any], Any]] = {
        types.ListPromptsRequest: list_prompts,
        types.GetPromptRequest: prompt,
        types.ListToolsRequest: list_tools,
        types.CallToolRequest: call_tool,
        types.ListResourcesRequest: list_resources,
        types.ListResourceTemplatesRequest: list_templates,
        types.ReadResourceRequest: read_resource,
        types.SubscribeRequest: subscribe,
        types.UnsubscribeRequest: unsubscribe,
    }
    server.request_handlers.update(handlers)
    return server


async def _run_tool(
    spec: ToolSpec, ctx: ToolContext, arguments: dict[str, Any] | None
) -> types.CallToolResult:
    """One tool call: its result, or its refusal as an ``isError`` result (the hub's
    CANCELLED stays a JSON-RPC error)."""
    try:
        args = decode_args(spec.args, arguments)
        outcome = await spec.run(ctx, args)
    except msgspec.ValidationError as exc:
        return _error(
            ToolRefusal("INVALID_ARGUMENTS", str(exc), (f"see {spec.name}'s inputSchema",))
        )
    except ToolRefusal as refusal:
        return _error(refusal)
    except DeviceChoice as exc:
        return _error(ToolRefusal("DEVICE_REQUIRED", str(exc), ("pass device: '<id>'",)))
    except UnknownView as exc:
        return _error(
            ToolRefusal("UNKNOWN_VIEW", f"no view {exc} is kept for this device", ("call screen",))
        )
    except ClientError as exc:
        mapped = from_client_error(exc, ctx.session.handles, ctx.device)
        if isinstance(mapped, McpError):
            raise mapped from exc
        return _error(mapped)
    content: list[types.ContentBlock] = [types.TextContent(type="text", text=outcome.text)]
    content.extend(outcome.extra)
    structured = None if outcome.structured is None else to_structured(outcome.structured)
    return types.CallToolResult(content=content, structuredContent=structured, isError=False)


def initialization_options(server: HubMcpServer) -> InitializationOptions:
    return server.create_initialization_options(NotificationOptions(), {})


def _error(refusal: ToolRefusal) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=refusal.text)], isError=True
    )


def _as_protocol(exc: ClientError) -> McpError:
    """Outside tools there is no tool result to carry a refusal: every failure is an error
    (hub protocol errors keep their mapping; refusals and connection failures say why)."""
    if isinstance(exc, ProtocolFailure):
        return protocol_error(exc)
    code = types.INVALID_PARAMS if isinstance(exc, HubError) else types.INTERNAL_ERROR
    return McpError(types.ErrorData(code=code, message=str(exc)))


def _screen_device(uri: str) -> str:
    found = SCREEN_RE.match(uri)
    if found is None:
        raise McpError(
            types.ErrorData(
                code=types.INVALID_PARAMS,
                message=f"only mobridge://devices/<id>/screen can be subscribed, not {uri!r}",
            )
        )
    return found.group(1)


async def _read(
    session: McpSession, uri: str
) -> Sequence[types.TextResourceContents | types.BlobResourceContents]:
    if (capture := CAPTURE_RE.match(uri)) is not None:
        known = session.captures.get(capture.group(1))
        result = known or ScreenshotResult(
            capture=capture.group(1),
            url=f"/v1/captures/{capture.group(1)}.png",
            width=0,
            height=0,
            bytes=0,
        )
        hub = await session.hub()
        png = await fetch_capture(hub.url, hub.token, result)
        return [
            types.BlobResourceContents(
                uri=AnyUrl(uri), mimeType="image/png", blob=base64.b64encode(png).decode("ascii")
            )
        ]
    device = _screen_device(uri)
    snap = await (await session.hub()).device(device).snapshot()
    _, view, _ = await session.look(device)
    snapshot = msgspec.json.encode(snap.snapshot).decode()
    return [
        types.TextResourceContents(uri=AnyUrl(uri), mimeType="application/json", text=snapshot),
        types.TextResourceContents(uri=AnyUrl(uri), mimeType="text/plain", text=view.text),
    ]

"""The ``acquire`` tool: lease any free device a selector accepts (``devices.acquire``),
waiting in the hub's FIFO queue up to ``timeoutS``. The lease is this MCP session's hub
connection's: ``lease`` with ``release`` ends it, and it ends when the session closes. Later
calls that name no device use the acquired one (it becomes the session's default)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from bridge.mcp.schemas import McpStruct
from bridge.mcp.tools import ToolContext, ToolOutcome, ToolSpec
from bridge.wire.acquire import DeviceSelector
from bridge.wire.enums import Platform

MAX_TIMEOUT_S = 600


class AcquireArgs(McpStruct, frozen=True):
    platform: Literal["android", "ios"] | None = None
    os: Annotated[str, msgspec.Meta(max_length=64, description='">=17", ">=14,<16"')] | None = None
    model: Annotated[str, msgspec.Meta(min_length=1, max_length=128)] | None = None
    tags: Annotated[tuple[str, ...], msgspec.Meta(max_length=16)] = ()
    owner: Annotated[str, msgspec.Meta(min_length=1, max_length=64)] | None = None
    timeout_s: Annotated[float, msgspec.Meta(ge=0, le=MAX_TIMEOUT_S)] = 30.0


class AcquireOutput(McpStruct, frozen=True):
    device: str
    platform: str
    owner: str | None = None
    os_version: str | None = None
    waited_ms: int = 0


async def acquire(ctx: ToolContext, args: AcquireArgs) -> ToolOutcome:
    raw: dict[str, object] = {"tags": list(args.tags)}
    if args.platform is not None:
        raw["platform"] = Platform.IOS.value if args.platform == "ios" else "ANDROID"
    raw.update(
        {k: v for k, v in (("os", args.os), ("model", args.model), ("owner", args.owner)) if v}
    )
    selector = msgspec.convert(raw, DeviceSelector)  # ValidationError -> the server's refusal
    hub = await ctx.session.hub()
    got = await hub.acquire(selector, timeout_s=args.timeout_s)
    ctx.session.acquired = got.device
    ctx.device = got.device
    where = f" on hub {got.owner}" if got.owner else ""
    text = (
        f"leased {got.device}{where} ({got.platform.value.lower()}"
        f"{' ' + got.os_version if got.os_version else ''}) after {got.waited_ms} ms; "
        "it is now the default device; `lease` release ends it"
    )
    return ToolOutcome(
        text,
        AcquireOutput(
            device=got.device,
            platform=got.platform.value,
            owner=got.owner,
            os_version=got.os_version,
            waited_ms=got.waited_ms,
        ),
    )


ACQUIRE_TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        "acquire",
        "Lease any free matching device",
        "Lease any free matching device, waiting up to timeoutS; it becomes the default.",
        AcquireArgs,
        AcquireOutput,
        acquire,
        read_only=False,
        docs={
            "platform": "which",
            "os": "a range: >=17, >=14,<16 or 17",
            "model": "contains this (any case)",
            "tags": "has every one",
            "owner": "the farm hub holding it",
            "timeoutS": "seconds (0: no wait)",
        },
    ),
)

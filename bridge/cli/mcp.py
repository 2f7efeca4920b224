"""LAYER 4 — ``mobridge mcp``: the MCP server for AI agents (argument parsing -> run).

``mobridge mcp`` serves MCP over stdio; ``--http [--port P]`` serves streamable HTTP on
127.0.0.1 (bearer tokens checked by the hub). The hub is named by ``--url`` / ``--token``
(or ``$MOBRIDGE_URL`` / ``$MOBRIDGE_TOKEN``); ``--embedded`` starts a hub in this process
with the simulated device instead, reached through ``bridge.client`` like any other hub
(``bridge.mcp`` never imports the hub: this composition happens here, in the CLI layer).

stdout belongs to the MCP protocol in stdio mode: every log line goes to stderr.
"""

from __future__ import annotations

import argparse
import os
import secrets
import sys
from typing import Any

from bridge.cli.hub_options import add_sim_options

DEFAULT_HTTP_PORT = 8766


def add_mcp_command(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "mcp",
        help="serve the Model Context Protocol for AI agents (stdio, or --http)",
        description="An MCP server that is a client of the hub: every agent is its own hub "
        "session. See docs/mcp.md.",
    )
    p.add_argument("--url", help="hub URL (default: $MOBRIDGE_URL or ws://127.0.0.1:8765/v1)")
    p.add_argument("--token", help="hub bearer token for stdio sessions (default: $MOBRIDGE_TOKEN)")
    p.add_argument(
        "--embedded",
        action="store_true",
        help="start a hub in this process with the simulated device (nothing else needed)",
    )
    add_sim_options(p, scene="menu", embedded=True, agent_token=False)
    p.add_argument("--http", action="store_true", help="streamable HTTP on 127.0.0.1")
    p.add_argument(
        "--port",
        type=int,
        default=DEFAULT_HTTP_PORT,
        help=f"--http port (default {DEFAULT_HTTP_PORT}; 0 = any free port)",
    )
    p.add_argument(
        "--request-timeout", type=float, default=10.0, help="seconds to wait for the hub"
    )
    p.add_argument(
        "--kind",
        default="agent",
        choices=("agent", "script", "person"),
        help="the client kind the sessions declare to the hub (lease priority: a person "
        "outranks a script, a script an agent; default agent)",
    )
    p.set_defaults(handler=run_mcp)


def run_mcp(args: argparse.Namespace) -> int:
    try:
        import mcp  # noqa: F401
    except ImportError:
        print(
            "mobridge: the MCP server needs the mcp extra: pip install -e '.[mcp]'",
            file=sys.stderr,
        )
        return 2
    import anyio

    if args.embedded and args.url:
        print("mobridge: give --url or --embedded, not both", file=sys.stderr)
        return 2
    try:
        anyio.run(_main, args)
    except KeyboardInterrupt:
        return 0
    return 0


async def _main(args: argparse.Namespace) -> None:
    import anyio

    from bridge.client import DEFAULT_URL
    from bridge.hub.logs import configure
    from bridge.mcp.session import HubTarget
    from bridge.mcp.transports import serve_http, serve_stdio

    configure(stream=sys.stderr)
    token = args.token or os.environ.get("MOBRIDGE_TOKEN")
    url = args.url or os.environ.get("MOBRIDGE_URL") or DEFAULT_URL
    async with anyio.create_task_group() as tg:
        if args.embedded:
            token = token or secrets.token_urlsafe(24)
            port = await tg.start(_embedded_hub, args, token)
            url = f"ws://127.0.0.1:{port}/v1"
            _say(f"embedded hub on {url} (simulated device, scene {args.sim_scene})")
            if args.http:
                _say(f"hub token: {token}")
        target = HubTarget(url, token, args.request_timeout, args.kind)
        if args.http:
            bound = await tg.start(serve_http, target, args.port)
            _say(f"mobridge mcp listening on http://127.0.0.1:{bound}/mcp (hub {url})")
            await anyio.sleep_forever()
        else:
            await serve_stdio(target)
        tg.cancel_scope.cancel()


async def _embedded_hub(args: argparse.Namespace, token: str, *, task_status: Any) -> None:
    from bridge.hub.app import Hub, HubConfig
    from bridge.net.auth import Principal
    from bridge.wire.enums import Platform

    config = HubConfig(
        host="127.0.0.1",
        port=0,
        tokens={token: Principal("controller", "mcp-embedded")},
        sim_scene=args.sim_scene,
        sim_platform=Platform.IOS if args.sim_platform == "ios" else Platform.ANDROID,
    )
    await Hub(config).run(task_status=task_status)


def _say(line: str) -> None:
    print(f"mobridge: {line}", file=sys.stderr, flush=True)

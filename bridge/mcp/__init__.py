"""The MCP server: AI agents share a phone through the hub (official ``mcp`` SDK).

Sits above ``bridge.client`` and speaks to the hub only through it (import-linter contract
``mcp``), so it serves any hub, local or remote, and ``mobridge mcp --embedded`` is the CLI
starting a hub in-process and pointing this server at it. Every MCP session is its own hub
session, named after the MCP client.

Modules: ``server`` (the SDK server: tools, resources, subscriptions), ``tools`` and
``acting`` (the tools), ``schemas`` (typed arguments and results, their JSON Schemas),
``outline`` (a screen as a short text, pure), ``handles`` (short per-session node handles),
``session`` (one MCP session's hub connection and tables), ``refusals`` (hub answers as MCP
answers), ``transports`` (stdio and streamable HTTP). See docs/mcp.md.
"""

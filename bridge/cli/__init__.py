"""The ``mobridge`` command line, one module per command group.

``main`` is the entry point (parser and ``serve``); ``client`` holds the commands that talk to a
hub, ``device`` plans the device-level ones, ``offline`` works on dump files, ``flows`` runs and
records flows, ``mcp`` starts the MCP server, ``render`` and ``failures`` format results and
errors. This package imports nothing itself, so ``python -m bridge.cli.X`` costs only what X
needs.
"""

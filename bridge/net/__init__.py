"""LAYER 2 — network I/O: the subscriber server and agent links (websockets + anyio).

Never imports ``bridge.devices`` or ``bridge.hub``; the hub hands in a handler.
"""

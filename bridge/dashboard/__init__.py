"""LAYER 4 — the live dashboard: one static page the hub serves at ``/dashboard``.

The page speaks the public protocol only (websocket ``/v1``, JSON): it authenticates with
``hello.token`` (browsers cannot set an Authorization header on a websocket), subscribes to
every device, rebuilds each screen from deltas, and lists every delta, action (who, what,
target, outcome), lease and device event as it happens. Text from the device is rendered with
``textContent`` only, never as HTML. The token is read from the URL fragment (``#token=``),
which browsers never send to the server.
"""

from __future__ import annotations

from importlib import resources


def page() -> bytes:
    """The dashboard's HTML (with its script and style inline)."""
    return resources.files(__package__).joinpath("static/index.html").read_bytes()

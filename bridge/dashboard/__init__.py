"""LAYER 4 — the dashboard, an inspector: one static page the hub serves at ``/dashboard``.

The page speaks the public protocol only (websocket ``/v1``, JSON): it authenticates with
``hello.token`` (browsers cannot set an Authorization header on a websocket) from the URL
fragment (``#token=``, never sent to the server) or a sign-in form; shows every device
(platform, model, health, lease holder); subscribes to each device's settled stream and shows
the selected one as its latest screenshot (fetched with the bearer token, refreshed when the
screen settles) with element outlines from bounds; picking an element (on the picture or in
the list) shows its facts, a query the hub confirms finds exactly it (``find``), and its ref;
and keeps a filterable timeline of actions (successes and refusals: who, what, target,
latency), leases, health and screen changes, starting with the hub's ``history``. Text from
the device is rendered with ``textContent`` only, never as HTML.
"""

from __future__ import annotations

from importlib import resources


def page() -> bytes:
    """The dashboard's HTML (with its script and style inline)."""
    return resources.files(__package__).joinpath("static/index.html").read_bytes()

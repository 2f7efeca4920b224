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

import re
from importlib import resources

_INLINE = re.compile(rb'<script data-inline="([a-z0-9_-]{1,64}\.js)"></script>')


def page() -> bytes:
    """The dashboard's HTML (with its script and style inline). A hook
    ``<script data-inline="NAME.js"></script>`` in index.html is replaced by that file of
    ``static/`` inline (the page is served alone, as one document)."""
    static = resources.files(__package__).joinpath("static")
    html = static.joinpath("index.html").read_bytes()

    def inline(found: re.Match[bytes]) -> bytes:
        script = static.joinpath(found.group(1).decode()).read_bytes()
        return b"<script>\n" + script + b"</script>"

    return _INLINE.sub(inline, html)

"""LAYER 4 — the dashboard, an inspector: one static page the hub serves at ``/dashboard``.

The page speaks the public protocol only (websocket ``/v1``, JSON): it authenticates with
``hello.token`` (browsers cannot set an Authorization header on a websocket) from the URL
fragment (``#token=``, never sent to the server) or a sign-in form; shows every device
(platform, model, health, lease holder); subscribes to each device's settled stream and shows
the selected one as its latest screenshot (fetched with the bearer token, refreshed when the
screen settles) with element outlines from bounds; picking an element (on the picture or in
the list) shows its facts, a query the hub confirms finds exactly it (``find``), and its ref;
and keeps a filterable timeline of actions (successes and refusals: who, what, target,
latency), leases, health and screen changes, starting with the hub's ``history``. A
controller can act from it (``static/act.js``: tap, long-press, swipe and keys on the picture,
typing into a picked field, the lease), each action a request on the page's own session like
any client's; an observer sees no act controls. Text from the device is rendered with
``textContent`` only, never as HTML.
"""

from __future__ import annotations

import re
from importlib import resources

_SCRIPT_HOOK = re.compile(rb'<script src="(?P<name>[a-z][a-z0-9_-]*\.js)"></script>')


def page() -> bytes:
    """The dashboard's HTML, one self-contained page: each ``<script src="NAME.js"></script>``
    naming a file of ``static/`` is replaced by that file inline (the page's CSP allows inline
    scripts only, and the hub serves this one page). Features live in their own files
    (``act.js``: acting from the inspector) with a one-line hook in index.html."""
    static = resources.files(__package__).joinpath("static")
    html = static.joinpath("index.html").read_bytes()

    def inline(found: re.Match[bytes]) -> bytes:
        name = found.group("name").decode()
        source = static.joinpath(name).read_bytes()
        if b"</script" in source.lower():
            raise ValueError(f"static/{name} contains '</script': it cannot be inlined")
        return b"<script>\n/* " + name.encode() + b" */\n" + source + b"</script>"

    return _SCRIPT_HOOK.sub(inline, html)

"""One script with Maestro's ``http`` allowed, run in a process of its own
(``python -m bridge.flows.maestro.script_worker``): QuickJS cannot call back into Python while
its time limit is set, so the test's host (``ScriptHost`` with ``allow_http``) runs such a
script here, without QuickJS's limit, and kills this process when the script's time is up.

Reads one JSON request on stdin (``code``, ``line_offset``, ``memory_limit``, ``state``: the
host's ``output``, ``copiedText``, ``platform`` and variables), writes one JSON answer on
stdout (``value`` or ``error``, and the new ``output``, ``copiedText`` and ``log``).

``http.get/post/put/delete/request(url, {headers, body, method})`` answer
``{ok, status, body, headers}``. Only loopback URLs are reached (``http://127.x.x.x``,
``localhost``, ``[::1]``; the project sends nothing beyond this machine): any other host is an
error thrown in the script, before anything is sent. Each call waits at most ``HTTP_TIMEOUT_S``
and reads at most ``MAX_BODY`` bytes; redirects are not followed.
"""

from __future__ import annotations

import ipaddress
import json
import sys
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

import quickjs

HTTP_TIMEOUT_S = 5.0
MAX_BODY = 1 << 20
MAX_CALLS = 100


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def loopback(url: str) -> str | None:
    """Why ``url`` may not be reached (None: it is a loopback http(s) URL)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https"):
        return f"only http(s) URLs, not {parts.scheme or 'none'}"
    host = (parts.hostname or "").lower()
    if host == "localhost":
        return None
    try:
        if ipaddress.ip_address(host).is_loopback:
            return None
    except ValueError:
        pass
    return f"only this machine's loopback addresses are reached, not {host or url!r}"


def _request(method: str, url: str, options_json: str, calls: list[int]) -> str:
    calls[0] += 1
    if calls[0] > MAX_CALLS:
        return json.dumps({"error": f"more than {MAX_CALLS} http calls in one script"})
    why = loopback(url)
    if why is not None:
        return json.dumps({"error": f"http {method} {url}: {why}"})
    options = json.loads(options_json or "{}") or {}
    body = options.get("body")
    data = None
    if body is not None:
        data = (body if isinstance(body, str) else json.dumps(body)).encode()
    headers = {str(k): str(v) for k, v in (options.get("headers") or {}).items()}
    request = urllib.request.Request(url, data=data, method=method, headers=headers)
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(request, timeout=HTTP_TIMEOUT_S) as answer:
            raw = answer.read(MAX_BODY + 1)[:MAX_BODY]
            status, got = answer.status, dict(answer.headers)
    except urllib.error.HTTPError as exc:
        raw, status, got = exc.read(MAX_BODY)[:MAX_BODY], exc.code, dict(exc.headers or {})
    except (urllib.error.URLError, OSError, ValueError) as exc:
        return json.dumps({"error": f"http {method} {url}: {exc}"})
    text = raw.decode("utf-8", "replace")
    return json.dumps({"ok": 200 <= status < 300, "status": status, "body": text, "headers": got})


_HTTP = """
var http = (function () {
  function call(method, url, options) {
    var got = JSON.parse(__http(method, String(url), JSON.stringify(options || {})));
    if (got.error) { throw new Error(got.error); }
    return got;
  }
  return {
    get: function (u, o) { return call("GET", u, o); },
    post: function (u, o) { return call("POST", u, o); },
    put: function (u, o) { return call("PUT", u, o); },
    delete: function (u, o) { return call("DELETE", u, o); },
    request: function (u, o) { return call(String((o && o.method) || "GET"), u, o); },
  };
})();
"""


def run(request: dict[str, Any]) -> dict[str, Any]:
    from bridge.flows.maestro.script import PRELUDE

    ctx = quickjs.Context()
    ctx.set_memory_limit(int(request.get("memory_limit", 32 << 20)))
    ctx.set_max_stack_size(1 << 20)
    calls = [0]
    ctx.add_callable("__http", lambda m, u, o: _request(str(m), str(u), str(o), calls))
    ctx.eval(PRELUDE)
    ctx.eval(_HTTP)
    state = request.get("state", {})
    ctx.eval(f"output = {json.dumps(state.get('output', {}))};")
    ctx.eval(f"maestro.copiedText = {json.dumps(state.get('copiedText', ''))};")
    ctx.eval(f"maestro.platform = {json.dumps(state.get('platform', ''))};")
    for name, value in (state.get("variables") or {}).items():
        ctx.eval(f"var {name} = {json.dumps(str(value))};")
    answer: dict[str, Any] = {}
    try:
        value = ctx.eval(request["code"])
        answer["value"] = value.json() if isinstance(value, quickjs.Object) else value
    except quickjs.JSException as exc:
        answer["error"] = str(exc)
    except quickjs.StackOverflow:
        answer["error"] = "InternalError: stack overflow"
    answer["output"] = json.loads(ctx.eval("JSON.stringify(output)"))
    answer["copiedText"] = str(ctx.eval("String(maestro.copiedText)"))
    answer["log"] = json.loads(ctx.eval("JSON.stringify(__log)"))
    return answer


def main() -> int:
    request = json.loads(sys.stdin.read(1 << 20))
    sys.stdout.write(json.dumps(run(request)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

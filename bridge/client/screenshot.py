"""Fetching a capture's PNG over HTTP from the hub that announced it.

Rules: the capture URL is resolved against the hub's own URL (``ws`` -> ``http``, ``wss`` ->
``https``); the bearer token is sent only to that same origin — a capture URL on any other
origin is refused, never fetched with the token; bodies are capped at ``MAX_CAPTURE_BYTES``.
The blocking ``urllib`` request runs in a worker thread (``fetch_capture``) or, for a caller
with no event loop (the one-shot session), in the caller's (``fetch_capture_blocking``).
"""

from __future__ import annotations

from urllib.parse import urljoin, urlsplit

from bridge.client.errors import ClientError, ConnectionFailed, ProtocolFailure
from bridge.wire.client_protocol import ScreenshotResult
from bridge.wire.enums import ProtocolErrorCode

MAX_CAPTURE_BYTES = 64 << 20
_HTTP_SCHEME = {"ws": "http", "wss": "https", "http": "http", "https": "https"}
_DEFAULT_PORT = {"http": 80, "https": 443}


def _origin(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    scheme = _HTTP_SCHEME.get(parts.scheme, parts.scheme)
    port = parts.port or _DEFAULT_PORT.get(scheme, 0)
    return scheme, (parts.hostname or "").lower(), port


def capture_url(hub_url: str, capture: str) -> str:
    """The absolute HTTP URL of ``capture`` (absolute or relative to the hub)."""
    scheme, host, port = _origin(hub_url)
    base = f"{scheme}://{host}:{port}/" if ":" not in host else f"{scheme}://[{host}]:{port}/"
    target = urljoin(base, capture)
    if _origin(target) != (scheme, host, port):
        raise ClientError(f"refusing to send the hub token to {target!r}: not the hub's origin")
    return target


def _get(url: str, token: str | None, timeout: float) -> bytes:
    import urllib.error  # here: urllib.request costs a command that never fetches a capture
    import urllib.request

    request = urllib.request.Request(url, method="GET")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=timeout) as response:
            body: bytes = response.read(MAX_CAPTURE_BYTES + 1)
    except urllib.error.HTTPError as exc:
        exc.close()  # it holds the response open; the hub would wait for the socket
        if exc.code == 401:
            raise ProtocolFailure(ProtocolErrorCode.UNAUTHENTICATED, f"{url}: HTTP 401") from exc
        if exc.code == 403:
            raise ProtocolFailure(ProtocolErrorCode.FORBIDDEN, f"{url}: HTTP 403") from exc
        raise ConnectionFailed(f"{url}: HTTP {exc.code}") from exc
    except (urllib.error.URLError, OSError) as exc:
        raise ConnectionFailed(f"{url}: {exc}") from exc
    if len(body) > MAX_CAPTURE_BYTES:
        raise ProtocolFailure(ProtocolErrorCode.TOO_LARGE, f"{url}: capture over the cap")
    return body


async def fetch_capture(
    hub_url: str, token: str | None, result: ScreenshotResult, http_timeout: float = 30.0
) -> bytes:
    import anyio.to_thread

    url = capture_url(hub_url, result.url)
    return await anyio.to_thread.run_sync(_get, url, token, http_timeout)


def fetch_capture_blocking(
    hub_url: str, token: str | None, result: ScreenshotResult, http_timeout: float = 30.0
) -> bytes:
    """``fetch_capture`` in the calling thread (same checks, same errors)."""
    return _get(capture_url(hub_url, result.url), token, http_timeout)

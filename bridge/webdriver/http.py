"""HTTP/1.1 for the WebDriver endpoint, sans-I/O: bytes in, requests out; responses to bytes.

Rules (hostile input is normal):

- a request head is at most ``MAX_HEAD`` bytes and ``MAX_HEADERS`` lines; a body needs
  ``Content-Length`` (chunked bodies are refused with 411) and is at most ``MAX_BODY``;
- ``RequestParser.feed`` takes whatever the socket gave and returns the requests completed
  by it (several when a client pipelines); a malformed head raises ``HttpError`` carrying the
  status to answer before closing the connection;
- ``keep_alive`` follows HTTP/1.1 (on unless ``Connection: close``; HTTP/1.0 off unless
  ``keep-alive``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from urllib.parse import unquote

MAX_HEAD = 16 * 1024
MAX_HEADERS = 64
MAX_BODY = 4 * 1024 * 1024
REASONS = {
    200: "OK",
    400: "Bad Request",
    404: "Not Found",
    405: "Method Not Allowed",
    411: "Length Required",
    413: "Payload Too Large",
    431: "Request Header Fields Too Large",
    500: "Internal Server Error",
}


class HttpError(Exception):
    """The request cannot be read: answer ``status`` and close the connection."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class HttpRequest:
    method: str
    path: str
    """The path without the query string, percent-decoded per segment by ``segments``."""
    version: str
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""

    @property
    def keep_alive(self) -> bool:
        conn = self.headers.get("connection", "").lower()
        if self.version == "HTTP/1.0":
            return "keep-alive" in conn
        return "close" not in conn

    def segments(self) -> list[str]:
        return [unquote(s) for s in self.path.split("/") if s]


class RequestParser:
    """Feed bytes, get complete requests."""

    def __init__(self) -> None:
        self._buffer = bytearray()
        self._head: HttpRequest | None = None
        self._need = 0

    def feed(self, data: bytes) -> list[HttpRequest]:
        self._buffer += data
        done: list[HttpRequest] = []
        while True:
            if self._head is None:
                end = self._buffer.find(b"\r\n\r\n")
                if end < 0:
                    if len(self._buffer) > MAX_HEAD:
                        raise HttpError(431, "request head too large")
                    return done
                if end > MAX_HEAD:
                    raise HttpError(431, "request head too large")
                head = bytes(self._buffer[:end])
                del self._buffer[: end + 4]
                self._head, self._need = _parse_head(head)
            if len(self._buffer) < self._need:
                return done
            request = self._head
            request.body = bytes(self._buffer[: self._need])
            del self._buffer[: self._need]
            self._head, self._need = None, 0
            done.append(request)


def _parse_head(head: bytes) -> tuple[HttpRequest, int]:
    try:
        text = head.decode("latin-1")
    except UnicodeDecodeError as exc:  # pragma: no cover - latin-1 decodes every byte
        raise HttpError(400, "undecodable head") from exc
    lines = text.split("\r\n")
    if len(lines) > MAX_HEADERS + 1:
        raise HttpError(431, "too many header lines")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise HttpError(400, "malformed request line")
    method, target, version = parts
    if not method.isalpha() or not target.startswith("/"):
        raise HttpError(400, "malformed request line")
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip():
            raise HttpError(400, "malformed header line")
        headers[name.lower()] = value.strip()
    if "chunked" in headers.get("transfer-encoding", "").lower():
        raise HttpError(411, "send the body with Content-Length (chunked is not read)")
    raw_length = headers.get("content-length", "0") or "0"
    if not raw_length.isdigit():
        raise HttpError(400, "bad Content-Length")
    length = int(raw_length)
    if length > MAX_BODY:
        raise HttpError(413, f"body larger than {MAX_BODY} bytes")
    path = target.split("?", 1)[0]
    return HttpRequest(method.upper(), path, version, headers), length


def json_response(status: int, payload: object, *, keep_alive: bool) -> bytes:
    """A complete response with a JSON body (UTF-8, ``Content-Length``)."""
    body = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()
    head = (
        f"HTTP/1.1 {status} {REASONS.get(status, 'Error')}\r\n"
        "Content-Type: application/json; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Cache-Control: no-cache\r\n"
        f"Connection: {'keep-alive' if keep_alive else 'close'}\r\n\r\n"
    )
    return head.encode() + body

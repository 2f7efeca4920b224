"""The WebDriver HTTP server: connections, the session table, dispatch.

Rules:

- binds 127.0.0.1 only (``serve`` refuses another host); at most ``MAX_CONNECTIONS``
  connections, each closed after ``IDLE_S`` without a request; requests are read by
  ``bridge.webdriver.http`` (bounded) and answered in order on each connection;
- ``POST /session`` starts a ``WdSession`` task (hub session + lease) with the token of the
  ``mobridge:token`` capability or the ``Authorization`` header (Bearer, or Basic with the
  token as password); at most ``MAX_SESSIONS`` sessions; the hub checks the token;
- a session id is 128 random bits; a session opened with credentials in the
  ``Authorization`` header answers only requests that carry them again (a client given the
  token in its URL sends them on every request); one opened with the ``mobridge:token``
  capability is driven by whoever knows its id, as with Appium; sessions are never listed;
  commands of a session run one at a time and reset its idle timer;
- a command's failure is a W3C error body; an unexpected exception is logged and answered
  ``unknown error`` without a traceback; one client's fault never reaches another session.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
from anyio.abc import SocketStream, TaskStatus

from bridge import __version__
from bridge.webdriver import commands, element_reads, mobile
from bridge.webdriver.capabilities import parse, token_from_header
from bridge.webdriver.errors import WebDriverError
from bridge.webdriver.http import HttpError, HttpRequest, RequestParser, json_response
from bridge.webdriver.routes import route
from bridge.webdriver.session import WdSession

log = logging.getLogger("mobridge.webdriver")
MAX_CONNECTIONS = 64
MAX_SESSIONS = 32
IDLE_S = 300.0
READ_SIZE = 65536
XPATH_THREADS = 2

Handler = Callable[[WdSession, dict[str, str], Any], Awaitable[Any]]
HANDLERS: dict[str, Handler] = {
    name: getattr(commands, name)
    for name in (
        "get_timeouts", "set_timeouts", "get_session", "find_element", "find_elements",
        "active_element", "element_click", "element_clear", "element_send_keys",
        "screenshot", "page_source", "back", "get_orientation", "set_orientation",
        "window_rect", "window_handle", "window_handles", "contexts", "get_context",
        "set_context", "get_settings", "set_settings", "perform_actions", "release_actions",
    )
}  # fmt: skip
HANDLERS.update(
    (name, getattr(element_reads, name))
    for name in (
        "element_text", "element_attribute", "element_rect", "element_location",
        "element_size", "element_displayed", "element_enabled", "element_selected",
        "element_name", "element_screenshot",
    )
)  # fmt: skip
HANDLERS["execute"] = mobile.execute
HANDLERS["alert_text"] = mobile.alert_text
HANDLERS["open_url"] = mobile.open_url
for _name in mobile.MOBILE:
    HANDLERS[f"mobile:{_name}"] = mobile.legacy(_name)


class WebDriverServer:
    """Serves WebDriver on 127.0.0.1 for the hub at ``hub_url``."""

    def __init__(self, hub_url: str, *, host: str = "127.0.0.1", port: int = 4723) -> None:
        if host not in ("127.0.0.1", "localhost"):
            raise ValueError("the WebDriver endpoint binds 127.0.0.1 only")
        self.hub_url = hub_url
        self.host = "127.0.0.1"
        self.port = port
        self.sessions: dict[str, WdSession] = {}
        self._connections = 0
        self._tg: anyio.abc.TaskGroup | None = None
        self._xpath: anyio.CapacityLimiter | None = None

    async def run(self, *, task_status: TaskStatus[int] = anyio.TASK_STATUS_IGNORED) -> None:
        """Listen; reports the bound port through ``task_status``."""
        listener = await anyio.create_tcp_listener(
            local_host=self.host, local_port=self.port, reuse_port=False
        )
        port = int(listener.extra(anyio.abc.SocketAttribute.local_port))
        self._xpath = anyio.CapacityLimiter(XPATH_THREADS)
        async with listener, anyio.create_task_group() as tg:
            self._tg = tg
            task_status.started(port)
            try:
                await listener.serve(self._connection, task_group=tg)
            finally:
                for session in list(self.sessions.values()):
                    session.close("the WebDriver endpoint stopped")

    # ---- connections ---------------------------------------------------------------------

    async def _connection(self, stream: SocketStream) -> None:
        async with stream:
            if self._connections >= MAX_CONNECTIONS:
                err = WebDriverError("unknown error", "too many connections")
                await stream.send(json_response(500, err.body(), keep_alive=False))
                return
            self._connections += 1
            try:
                await self._serve(stream)
            except (anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                pass
            except Exception:  # one connection's fault never reaches the others or the hub
                log.exception("webdriver connection failed")
            finally:
                self._connections -= 1

    async def _serve(self, stream: SocketStream) -> None:
        parser = RequestParser()
        while True:
            with anyio.move_on_after(IDLE_S):
                data = await stream.receive(READ_SIZE)
            if not data:
                return
            try:
                requests = parser.feed(data)
            except HttpError as exc:
                body = WebDriverError("invalid argument", str(exc)).body()
                await stream.send(json_response(exc.status, body, keep_alive=False))
                return
            for request in requests:
                status, payload = await self.handle(request)
                keep = request.keep_alive
                await stream.send(json_response(status, payload, keep_alive=keep))
                if not keep:
                    return

    # ---- dispatch --------------------------------------------------------------------------

    async def handle(self, request: HttpRequest) -> tuple[int, Any]:
        """The status and JSON body answering ``request``."""
        try:
            name, path = route(request.method, request.segments())
            body = _json(request.body)
            if name == "status":
                return 200, {"value": self.status()}
            if name == "new_session":
                return 200, {"value": await self.new_session(request, body)}
            session = self._session(path["session"], request)
            if name == "delete_session":
                session.close()
                self.sessions.pop(session.id, None)
                return 200, {"value": None}
            async with session.lock:
                session.touch()
                if not session.alive:
                    raise WebDriverError("invalid session id", session.closed_reason or "ended")
                value = await HANDLERS[name](session, path, body)
                session.touch()
            return 200, {"value": value}
        except WebDriverError as exc:
            return exc.status, exc.body()
        except Exception:  # a bug must not take the endpoint down; logged, answered
            log.exception("webdriver command failed")
            err = WebDriverError("unknown error", "the command failed inside mobridge (logged)")
            return err.status, err.body()

    def status(self) -> dict[str, Any]:
        return {
            "ready": len(self.sessions) < MAX_SESSIONS,
            "message": f"mobridge {__version__} WebDriver endpoint for {self.hub_url}",
            "build": {"version": __version__},
        }

    def _session(self, session_id: str, request: HttpRequest) -> WdSession:
        session = self.sessions.get(session_id)
        if session is None:
            raise WebDriverError("invalid session id", f"no session {session_id[:64]!r}")
        if session.header_token is not None and session.header_token != token_from_header(
            request.headers.get("authorization")
        ):  # opened with credentials: only those credentials reach it
            raise WebDriverError("invalid session id", f"no session {session_id[:64]!r}")
        if not session.alive:
            self.sessions.pop(session_id, None)
            raise WebDriverError("invalid session id", session.closed_reason or "the session ended")
        return session

    async def new_session(self, request: HttpRequest, body: Any) -> dict[str, Any]:
        caps = parse(body)
        for stale in [s for s in self.sessions.values() if not s.alive]:
            self.sessions.pop(stale.id, None)
        if len(self.sessions) >= MAX_SESSIONS:
            raise WebDriverError("session not created", f"at most {MAX_SESSIONS} sessions")
        header_token = token_from_header(request.headers.get("authorization"))
        session = WdSession(caps, self.hub_url, caps.token or header_token)
        session.header_token = header_token
        session.xpath_limiter = self._xpath
        assert self._tg is not None
        await self._tg.start(session.run)
        if session.startup_error is not None or not session.alive:
            raise session.startup_error or WebDriverError(
                "session not created", session.closed_reason or "the session ended at once"
            )
        flavour = "UiAutomator2" if session.platform.value == "ANDROID" else "XCUITest"
        session.capabilities = {
            **caps.echo,
            "platformName": "Android" if flavour == "UiAutomator2" else "iOS",
            "appium:automationName": flavour,
            "appium:udid": session.device_id,
            "appium:deviceName": session.device_id,
            "appium:newCommandTimeout": caps.new_command_timeout_s,
            "mobridge:strict": caps.strict,
            "mobridge:firstMatch": caps.first_match,
        }
        self.sessions[session.id] = session
        # only a prefix: a session opened with the token capability is driven by its id alone
        log.info("webdriver session %s… on %s", session.id[:8], session.device_id)
        return {"sessionId": session.id, "capabilities": session.capabilities}


def _json(raw: bytes) -> Any:
    if not raw.strip():
        return None
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        raise WebDriverError("invalid argument", "the body is not JSON") from None

"""A fake of an iPhone's ``webinspectord`` under pymobiledevice3's real ``WebinspectorService``
(no iPhone here): the fake is the device's side of the two lockdown service connections the
service opens (``com.apple.webinspector`` and the notification proxy), so every line of
pymobiledevice3 above the wire — its handshake, its state, its session queues — is the real
one. The pages behind it are pages of Debian's real Chromium: each inspector session carries
WebKit's page messages out through ``ChromiumAsWebKit`` (WebKit protocol -> CDP and back).

Message vocabulary (facts, not code, from public sources):

- the WIR selectors and keys: WebKit ``Source/JavaScriptCore/inspector/remote/
  RemoteInspectorConstants.h`` (``_rpc_reportIdentifier:``, ``_rpc_getConnectedApplications:``,
  ``_rpc_reportConnectedApplicationList:`` with ``WIRApplicationDictionaryKey``,
  ``_rpc_forwardGetListing:`` / ``_rpc_applicationSentListing:`` with ``WIRListingKey``,
  ``_rpc_forwardSocketSetup:``, ``_rpc_forwardSocketData:`` with ``WIRSocketDataKey``,
  ``_rpc_applicationSentData:`` with ``WIRDestinationKey`` and ``WIRMessageDataKey``,
  ``_rpc_forwardDidClose:``, ``WIRHostApplicationIdentifierKey`` for a WebContent process
  proxied for its app); the order of the handshake and the "disabled" notification
  (``com.apple.webinspectord.disabled``) as pymobiledevice3 11.x's
  ``services/webinspector.py`` documents them (GPL-3.0; read, not copied);
- the Target domain (``targetCreated``, ``sendMessageToTarget``, ``dispatchMessageFromTarget``,
  ``didCommitProvisionalTarget``, ``targetDestroyed``): WebKit
  ``Source/JavaScriptCore/inspector/protocol/Target.json``.

``FakeWebinspectord.calls`` records each selector the service sent; ``inner`` each page
message as ``(targetId, method)``; ``swap`` plays a navigation that moves the page to a new
process (a provisional target committed); ``unplug`` drops the connection.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.abc

from bridge.devices.web.cdp import CdpClient
from tests.devices.web_fakes.webkit import ChromiumAsWebKit

DISABLED = "com.apple.webinspectord.disabled"
APP_ID = "PID:4100"
WEBCONTENT_ID = "PID:4242"
SAFARI_ID = "PID:300"
BUNDLE = "com.example.shop"


def app_dict(
    app_id: str, bundle: str, name: str, *, proxy: bool = False, host: str = ""
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "WIRApplicationIdentifierKey": app_id,
        "WIRApplicationBundleIdentifierKey": bundle,
        "WIRApplicationNameKey": name,
        "WIRIsApplicationActiveKey": 1,
        "WIRIsApplicationProxyKey": proxy,
        "WIRIsApplicationReadyKey": True,
    }
    if host:
        out["WIRHostApplicationIdentifierKey"] = host
    return out


def page_dict(page_id: int, title: str, url: str, kind: str = "WIRTypeWebPage") -> dict[str, Any]:
    return {"WIRPageIdentifierKey": page_id, "WIRTypeKey": kind, "WIRTitleKey": title,
            "WIRURLKey": url}  # fmt: skip


class Channel:
    """One service connection as pymobiledevice3 sees it (``ServiceConnection``'s
    ``send_plist`` / ``recv_plist`` / ``close``); the device's side feeds ``recv_plist``."""

    def __init__(self, device: FakeWebinspectord, name: str) -> None:
        self.device = device
        self.name = name
        self.send_side, self.recv_side = anyio.create_memory_object_stream[Any](1024)
        self.closed = False

    async def send_plist(self, message: dict[str, Any]) -> None:
        if self.closed:
            raise ConnectionResetError("the service connection is closed")
        await self.device.handle(self, message)

    async def recv_plist(self) -> dict[str, Any]:
        try:
            got = await self.recv_side.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError) as exc:
            raise ConnectionResetError("the device closed the connection") from exc
        if isinstance(got, BaseException):
            raise got
        assert isinstance(got, dict)
        return got

    def push(self, message: dict[str, Any]) -> None:
        if not self.closed:
            self.send_side.send_nowait(message)

    async def close(self) -> None:
        self.closed = True
        self.send_side.close()


@dataclass
class Session:
    sid: str
    app_id: str
    page_id: int
    target: str
    translator: ChromiumAsWebKit
    client: CdpClient
    scope: anyio.CancelScope = field(default_factory=anyio.CancelScope)


class FakeWebinspectord:
    """The device's web inspector daemon (see the module docstring)."""

    def __init__(self, tg: anyio.abc.TaskGroup, *, enabled: bool = True) -> None:
        self.tg = tg
        self.enabled = enabled
        self.apps: dict[str, dict[str, Any]] = {}
        self.listings: dict[str, dict[str, dict[str, Any]]] = {}
        self.page_urls: dict[tuple[str, int], str | Callable[[], str | None]] = {}
        """(app id, page id) -> the Chromium page's DevTools websocket URL behind it (or what
        says it once the page is up: a page without one is not listed yet)."""
        self.sessions: dict[str, Session] = {}
        self.channels: list[Channel] = []
        self.calls: list[str] = []
        self.inner: list[tuple[str, str]] = []
        self.closed_sessions: list[str] = []
        self._targets = itertools.count(1)

    def add_app(self, app: dict[str, Any], pages: dict[str, dict[str, Any]] | None = None,
                urls: dict[int, str | Callable[[], str | None]] | None = None) -> None:  # fmt: skip
        app_id = app["WIRApplicationIdentifierKey"]
        self.apps[app_id] = app
        self.listings[app_id] = pages or {}
        for page_id, url in (urls or {}).items():
            self.page_urls[(app_id, page_id)] = url

    # ---- the lockdown side -------------------------------------------------------------

    async def start_lockdown_service(self, name: str, include_escrow_bag: bool = False) -> Channel:
        channel = Channel(self, name)
        self.channels.append(channel)
        return channel

    async def get_date(self) -> float:
        return 0.0

    async def close(self) -> None:
        pass

    def unplug(self) -> None:
        for channel in self.channels:
            channel.push(ConnectionResetError("the iPhone was unplugged"))  # type: ignore[arg-type]

    # ---- the daemon ------------------------------------------------------------------

    def _send(self, channel: Channel, selector: str, argument: dict[str, Any]) -> None:
        channel.push({"__selector": selector, "__argument": argument})

    def _web(self) -> Channel | None:
        for channel in reversed(self.channels):
            if "webinspector" in channel.name and not channel.closed:
                return channel
        return None

    async def handle(self, channel: Channel, message: dict[str, Any]) -> None:
        if "notification_proxy" in channel.name:
            if message.get("Command") == "ObserveNotification" and message.get("Name") == DISABLED:
                if not self.enabled:
                    channel.push({"Command": "RelayNotification", "Name": DISABLED})
            return
        selector = message["__selector"]
        arg = message.get("__argument", {})
        self.calls.append(selector)
        if not self.enabled:
            return  # a refused session: never answered (the notification says why)
        if selector == "_rpc_reportIdentifier:":
            state = {"WIRAutomationAvailabilityKey": "WIRAutomationAvailabilityNotAvailable"}
            self._send(channel, "_rpc_reportCurrentState:", state)
            self._report_apps(channel)
        elif selector == "_rpc_getConnectedApplications:":
            self._report_apps(channel)
        elif selector == "_rpc_forwardGetListing:":
            app_id = arg["WIRApplicationIdentifierKey"]
            if app_id in self.apps:
                pages = self.listings.get(app_id, {}).items()
                listing = {
                    key: page
                    for key, page in pages
                    if self._url(app_id, page["WIRPageIdentifierKey"]) is not None
                }
                answer = {"WIRApplicationIdentifierKey": app_id, "WIRListingKey": listing}
                self._send(channel, "_rpc_applicationSentListing:", answer)
        elif selector == "_rpc_forwardSocketSetup:":
            await self._setup(channel, arg)
        elif selector == "_rpc_forwardSocketData:":
            await self._data(channel, arg)
        elif selector == "_rpc_forwardDidClose:":
            session = self.sessions.pop(arg["WIRSenderKey"], None)
            if session is not None:
                self.closed_sessions.append(session.sid)
                session.scope.cancel()
                await session.client.close()

    def _url(self, app_id: str, page_id: int) -> str | None:
        url = self.page_urls.get((app_id, page_id))
        return url() if callable(url) else url

    def _report_apps(self, channel: Channel) -> None:
        self._send(channel, "_rpc_reportConnectedApplicationList:",
                   {"WIRApplicationDictionaryKey": dict(self.apps)})  # fmt: skip

    def _to_session(self, session: Session, message: dict[str, Any]) -> None:
        channel = self._web()
        if channel is None:
            return
        self._send(channel, "_rpc_applicationSentData:", {
            "WIRApplicationIdentifierKey": session.app_id,
            "WIRDestinationKey": session.sid,
            "WIRMessageDataKey": json.dumps(message).encode(),
        })  # fmt: skip

    async def _setup(self, channel: Channel, arg: dict[str, Any]) -> None:
        app_id, page_id, sid = (
            arg["WIRApplicationIdentifierKey"], arg["WIRPageIdentifierKey"], arg["WIRSenderKey"]
        )  # fmt: skip
        url = self._url(app_id, page_id)
        if url is None:
            return  # no such page: nothing is announced
        client = await CdpClient.connect(url)
        session = Session(sid, app_id, page_id, f"page-{next(self._targets)}",
                          ChromiumAsWebKit(client), client)  # fmt: skip
        self.sessions[sid] = session
        self.tg.start_soon(self._pump, session)
        self._to_session(session, {"method": "Target.targetCreated", "params": {
            "targetInfo": {"targetId": session.target, "type": "page"}}})  # fmt: skip

    async def _pump(self, session: Session) -> None:
        with session.scope:
            async with anyio.create_task_group() as tg:
                tg.start_soon(session.client.serve)
                while True:
                    try:
                        out = await session.translator.receive()
                    except Exception:
                        break
                    self._to_session(session, {
                        "method": "Target.dispatchMessageFromTarget",
                        "params": {"targetId": session.target, "message": json.dumps(out)},
                    })  # fmt: skip
                tg.cancel_scope.cancel()

    async def _data(self, channel: Channel, arg: dict[str, Any]) -> None:
        session = self.sessions.get(arg["WIRSenderKey"])
        outer = json.loads(arg["WIRSocketDataKey"])
        if session is None:
            return
        if outer.get("method") != "Target.sendMessageToTarget":
            self._to_session(session, {"id": outer.get("id"), "error": {
                "message": f"'{outer.get('method')}' was not found"}})  # fmt: skip
            return
        self._to_session(session, {"id": outer["id"], "result": {}})
        params = outer["params"]
        inner = json.loads(params["message"])
        self.inner.append((params["targetId"], inner["method"]))
        if params["targetId"] != session.target:
            return  # a message for a target that is gone: WebKit drops it
        await session.translator.send(inner)

    def swap(self, sid: str) -> str:
        """A navigation moves the page to a new process: a provisional target is created,
        committed, and the old one destroyed. Returns the new target id."""
        session = self.sessions[sid]
        old, new = session.target, f"page-{next(self._targets)}"
        self._to_session(session, {"method": "Target.targetCreated", "params": {
            "targetInfo": {"targetId": new, "type": "page", "isProvisional": True}}})  # fmt: skip
        session.target = new
        self._to_session(session, {"method": "Target.didCommitProvisionalTarget",
                                   "params": {"oldTargetId": old, "newTargetId": new}})  # fmt: skip
        self._to_session(session, {"method": "Target.targetDestroyed",
                                   "params": {"targetId": old}})  # fmt: skip
        return new

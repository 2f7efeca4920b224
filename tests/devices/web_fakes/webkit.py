"""A Web Inspector page transport for tests: WebKit Inspector protocol messages in and out,
carried out by Debian's real Chromium (no iPhone here).

Message shapes are WebKit's protocol definitions (WebKit ``Source/JavaScriptCore/inspector/
protocol/Runtime.json``: ``Runtime.evaluate`` -> ``{result: RemoteObject, wasThrown}``;
``Console.json``: ``Console.enable``, event ``Console.messageAdded {message: {source, level,
text}}``; ``Page.json``: ``Page.enable``, event ``Page.loadEventFired``). The transport
translates each to the Chrome DevTools Protocol and back, so the page walker really runs in a
browser engine on the simulated device's web shop."""

from __future__ import annotations

import json
from typing import Any

import anyio
import msgspec

from bridge.devices.web.cdp import CdpClient
from bridge.devices.web.page import PageClosed


class ChromiumAsWebKit:
    def __init__(self, client: CdpClient) -> None:
        self.client = client
        self.sent: list[dict[str, Any]] = []
        self.inbox_send, self.inbox = anyio.create_memory_object_stream[dict[str, Any]](256)
        client.on_event = self._cdp_event

    def _cdp_event(self, method: str, params: msgspec.Raw) -> None:
        body = json.loads(bytes(params)) if params else {}
        if method == "Runtime.consoleAPICalled":
            text = " ".join(str(a.get("value", "")) for a in body.get("args", []))
            message = {"source": "console-api", "level": body.get("type", "log"), "text": text}
            self.inbox_send.send_nowait({"method": "Console.messageAdded",
                                         "params": {"message": message}})  # fmt: skip
        elif method == "Page.loadEventFired":
            loaded = {"timestamp": body.get("timestamp", 0)}
            self.inbox_send.send_nowait({"method": "Page.loadEventFired", "params": loaded})

    async def send(self, message: dict[str, Any]) -> None:
        self.sent.append(message)
        method, params, mid = message["method"], message.get("params", {}), message["id"]
        if method == "Console.enable":
            await self.client.call("Runtime.enable")
            result: dict[str, Any] = {}
        elif method == "Page.enable":
            await self.client.call("Page.enable")
            result = {}
        elif method == "Runtime.evaluate":
            raw = await self.client.call_raw("Runtime.evaluate", params)
            got = json.loads(bytes(raw))
            thrown = "exceptionDetails" in got
            result = {"result": got.get("result", {}), "wasThrown": thrown}
        else:
            self.inbox_send.send_nowait({"id": mid, "error": {"code": -32601,
                                         "message": f"'{method}' was not found"}})  # fmt: skip
            return
        self.inbox_send.send_nowait({"id": mid, "result": result})

    async def receive(self) -> dict[str, Any]:
        try:
            return await self.inbox.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError) as exc:
            raise PageClosed("closed") from exc

    async def close(self) -> None:
        self.inbox_send.close()

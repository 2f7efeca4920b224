"""A fake DevTools endpoint on 127.0.0.1 that answers from CDP messages recorded from Debian's
real Chromium (tests/fixtures/web/*.json): ``GET /json/list`` and a page websocket whose
``Page.getLayoutMetrics``, ``Accessibility.getFullAXTree`` and ``DOMSnapshot.captureSnapshot``
answers are the recorded ones; every other command answers ``{}``. It stands in for what
``adb forward`` reaches on a phone, which no machine here has."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.datastructures import Headers
from websockets.http11 import Request, Response

FIXTURES = Path(__file__).parents[2] / "fixtures" / "web"
ANDROID_DESCRIPTION = {  # the shape a WebView writes (Chromium's devtools_http_handler)
    "attached": True,
    "empty": False,
    "height": 1958,
    "screenX": 0,
    "screenY": 379,
    "visible": True,
    "width": 1080,
}


class FakeDevTools:
    def __init__(self, page: str, description: dict[str, Any] | None = None) -> None:
        data = json.loads((FIXTURES / f"{page}.json").read_text())
        self.answers = {
            "Page.getLayoutMetrics": data["metrics"],
            "Accessibility.getFullAXTree": data["ax"],
            "DOMSnapshot.captureSnapshot": data["snapshot"],
        }
        self.description = description
        self.port = 0
        self.calls: list[str] = []

    def listing(self) -> list[dict[str, Any]]:
        return [
            {
                "id": "PAGE1",
                "type": "page",
                "title": "Web Shop",
                "url": "file:///sim/shop.html",
                "description": json.dumps(self.description) if self.description else "",
                "webSocketDebuggerUrl": f"ws://127.0.0.1:{self.port}/devtools/page/PAGE1",
            }
        ]

    def _http(self, connection: ServerConnection, request: Request) -> Response | None:
        if request.path.startswith("/json"):
            body = json.dumps(self.listing()).encode()
            headers = Headers([("Content-Type", "application/json"),
                               ("Content-Length", str(len(body)))])  # fmt: skip
            return Response(200, "OK", headers, body)
        return None

    async def _ws(self, ws: ServerConnection) -> None:
        async for frame in ws:
            message = json.loads(frame)
            self.calls.append(message["method"])
            result = self.answers.get(message["method"], {})
            await ws.send(json.dumps({"id": message["id"], "result": result}))

    @asynccontextmanager
    async def serving(self) -> AsyncIterator[FakeDevTools]:
        async with serve(self._ws, "127.0.0.1", 0, process_request=self._http) as server:
            self.port = int(server.sockets[0].getsockname()[1])
            yield self

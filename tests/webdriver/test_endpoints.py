"""W3C's alert endpoints and Appium's legacy ``/appium/device/...`` endpoints (what older
clients send instead of ``mobile:`` commands), over HTTP against an in-process hub and
endpoint; and the keyboard check on snapshots that hold one."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from bridge.webdriver.mobile import keyboard_shown
from bridge.webdriver.server import WebDriverServer
from bridge.wire.enums import Role
from bridge.wire.node import SemanticNode
from tests.hub.hubfixture import CONTROLLER, running_hub

pytestmark = pytest.mark.anyio


class Client:
    """A keep-alive HTTP/1.1 client on one connection (the endpoint's JSON in and out)."""

    def __init__(self, stream: Any, sid: str = "") -> None:
        self.stream = stream
        self.sid = sid

    async def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        payload = b"" if body is None else json.dumps(body).encode()
        path = path.replace("{s}", self.sid)
        head = f"{method} {path} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(payload)}\r\n\r\n"
        await self.stream.send(head.encode() + payload)
        data = b""
        while b"\r\n\r\n" not in data:
            data += await self.stream.receive()
        head_bytes, _, rest = data.partition(b"\r\n\r\n")
        length = int(next(
            line.split(b":")[1] for line in head_bytes.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        ))  # fmt: skip
        while len(rest) < length:
            rest += await self.stream.receive()
        return int(head_bytes.split(b" ")[1]), json.loads(rest)["value"]


@asynccontextmanager
async def client(scene: str) -> AsyncIterator[Client]:
    async with running_hub(sim_scene=scene) as hub, anyio.create_task_group() as tg:
        port = await tg.start(WebDriverServer(hub.url, port=0).run)
        async with await anyio.connect_tcp("127.0.0.1", port) as stream:
            http = Client(stream)
            caps = {"capabilities": {"alwaysMatch": {"mobridge:token": CONTROLLER}}}
            status, created = await http.call("POST", "/wd/hub/session", caps)
            assert status == 200, created
            http.sid = created["sessionId"]
            try:
                yield http
            finally:
                await http.call("DELETE", "/session/{s}")
                tg.cancel_scope.cancel()


async def test_w3c_alert_endpoints_read_and_answer_the_alert() -> None:
    with anyio.fail_after(60):
        async with client("dialog") as http:
            status, text = await http.call("GET", "/session/{s}/alert/text")
            assert (status, text) == (200, "Discard draft?\nYour unsaved changes will be lost.")
            assert await http.call("POST", "/session/{s}/alert/accept", {}) == (200, None)
            status, gone = await http.call("GET", "/session/{s}/alert/text")
            assert (status, gone["error"]) == (404, "no such alert")


async def test_legacy_appium_device_endpoints_reach_the_same_commands() -> None:
    with anyio.fail_after(60):
        async with client("menu") as http:
            app = {"appId": "dev.mobridge.demo"}
            assert await http.call("POST", "/session/{s}/appium/device/app_state", app) == (200, 4)
            assert await http.call("GET", "/session/{s}/appium/device/current_package") == (
                200,
                "dev.mobridge.demo",
            )
            done = await http.call("POST", "/session/{s}/appium/device/terminate_app", app)
            assert done == (200, True)
            assert await http.call("POST", "/session/{s}/appium/device/app_state", app) == (200, 1)
            await http.call("POST", "/session/{s}/appium/device/activate_app", app)
            assert await http.call("POST", "/session/{s}/appium/device/app_state", app) == (200, 4)
            shown = await http.call("GET", "/session/{s}/appium/device/is_keyboard_shown")
            assert shown == (200, False)
            status, refused = await http.call(
                "POST", "/session/{s}/appium/device/press_keycode", {"keycode": 9999}
            )
            assert (status, refused["error"]) == (500, "unsupported operation")
            status, wrong = await http.call("PUT", "/session/{s}/appium/device/app_state")
            assert (status, wrong["error"]) == (405, "unknown method")


def test_a_keyboard_in_the_snapshot_is_seen() -> None:
    plain = [SemanticNode(node_id="n1", role=Role.SCREEN)]
    android = [*plain, SemanticNode(node_id="n2", role=Role.UNKNOWN, parent_id="n1",
                                    label="Keyboard", hint="BACK hides the keyboard")]  # fmt: skip
    ios = [*plain, SemanticNode(node_id="n3", role=Role.UNKNOWN, parent_id="n1",
                                native_type="XCUIElementTypeKeyboard")]  # fmt: skip
    assert not keyboard_shown(plain)
    assert keyboard_shown(android) and keyboard_shown(ios)


async def test_a_session_refused_its_named_device_leaves_the_endpoint_serving() -> None:
    with anyio.fail_after(60):
        async with client("menu") as http:  # holds sim-android's lease
            caps = {"capabilities": {"alwaysMatch": {"mobridge:token": CONTROLLER,
                                                     "appium:udid": "sim-android"}}}  # fmt: skip
            status, refused = await http.call("POST", "/session", caps)
            assert (status, refused["error"]) == (500, "session not created")
            assert refused["message"].startswith("POLICY_BLOCKED")
            assert "leaseWait" in refused["message"]
            assert await http.call("GET", "/session/{s}/context") == (200, "NATIVE_APP")


async def test_a_session_opened_with_credentials_answers_only_them() -> None:
    import base64

    basic = "Basic " + base64.b64encode(f"script:{CONTROLLER}".encode()).decode()
    with anyio.fail_after(60):
        async with running_hub(sim_scene="menu") as hub, anyio.create_task_group() as tg:
            port = await tg.start(WebDriverServer(hub.url, port=0).run)

            async def call(method: str, path: str, auth: str | None, body: Any = None) -> Any:
                payload = b"" if body is None else json.dumps(body).encode()
                head = f"{method} {path} HTTP/1.1\r\nContent-Length: {len(payload)}\r\n"
                head += f"Authorization: {auth}\r\n" if auth else ""
                head += "Connection: close\r\n\r\n"
                async with await anyio.connect_tcp("127.0.0.1", port) as stream:
                    await stream.send(head.encode() + payload)
                    data = b""
                    with anyio.move_on_after(10):
                        while True:
                            try:
                                data += await stream.receive()
                            except anyio.EndOfStream:
                                break
                return json.loads(data.partition(b"\r\n\r\n")[2])["value"]

            created = await call("POST", "/session", basic, {"capabilities": {}})
            sid = created["sessionId"]
            assert await call("GET", f"/session/{sid}/context", basic) == "NATIVE_APP"
            stranger = await call("GET", f"/session/{sid}/source", None)
            assert stranger["error"] == "invalid session id"
            unknown = await call("GET", "/sessions", None)
            assert unknown["error"] == "unknown command"  # sessions are never listed
            assert await call("DELETE", f"/session/{sid}", basic) is None
            tg.cancel_scope.cancel()


async def test_an_observer_token_opens_no_session() -> None:
    from tests.hub.hubfixture import OBSERVER

    with anyio.fail_after(60):
        async with running_hub(sim_scene="menu") as hub, anyio.create_task_group() as tg:
            port = await tg.start(WebDriverServer(hub.url, port=0).run)
            async with await anyio.connect_tcp("127.0.0.1", port) as stream:
                http = Client(stream)
                caps = {"capabilities": {"alwaysMatch": {"mobridge:token": OBSERVER}}}
                status, refused = await http.call("POST", "/session", caps)
            assert (status, refused["error"]) == (500, "session not created")
            assert "observer" in refused["message"].lower()
            tg.cancel_scope.cancel()


async def test_the_scripts_actions_are_in_the_devices_journal(tmp_path: Any) -> None:
    from bridge.client import connect
    from tests.hub.hubfixture import OBSERVER

    journal = tmp_path / "journal.sqlite3"
    with anyio.fail_after(60):
        async with (
            running_hub(sim_scene="menu", journal=journal) as hub,
            anyio.create_task_group() as tg,
        ):
            port = await tg.start(WebDriverServer(hub.url, port=0).run)
            async with await anyio.connect_tcp("127.0.0.1", port) as stream:
                http = Client(stream)
                caps = {"capabilities": {"alwaysMatch": {
                    "mobridge:token": CONTROLLER, "mobridge:name": "journaled-suite"}}}  # fmt: skip
                status, created = await http.call("POST", "/session", caps)
                assert status == 200, created
                http.sid = created["sessionId"]
                find = {"using": "accessibility id", "value": "Login"}
                _, element = await http.call("POST", "/session/{s}/element", find)
                (element_id,) = element.values()
                assert await http.call("POST", f"/session/{{s}}/element/{element_id}/click") == (
                    200,
                    None,
                )
                await http.call("DELETE", "/session/{s}")
            async with connect(hub.url, token=OBSERVER, name="auditor") as auditor:
                device = auditor.device(hub.device_id)
                entries: tuple[Any, ...] = ()
                while not any("CLICK" in e.summary for e in entries):
                    await anyio.sleep(0.05)  # the journal writes in batches: read until it has it
                    entries = (await device.timeline(client="journaled-suite")).entries
            kinds = {e.kind for e in entries}
            assert {"action", "lease"} <= {str(getattr(k, "value", k)) for k in kinds}, entries
            tg.cancel_scope.cancel()

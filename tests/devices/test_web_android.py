"""Android's page debugging path against fakes (no phone here): ``/proc/net/unix`` parsing,
the foreground app's socket first, one ``adb forward`` per socket, the WebView's page
description, "debugging is off", and a page read through the forward from CDP answers
recorded from the real Chromium."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from bridge.devices.web.android import (
    DEBUGGING_OFF,
    AndroidWebSource,
    devtools_sockets,
    endpoint_of,
)
from bridge.devices.web.cdp import CdpClient
from bridge.devices.web.page import read_page
from bridge.wire.cdp import TargetInfo
from tests.devices.web_fakes.devtools import ANDROID_DESCRIPTION, FakeDevTools

pytestmark = pytest.mark.anyio

# The layout of /proc/net/unix (Num RefCount Protocol Flags Type St Inode Path); the names
# are the ones WebView and Chrome open.
PROC_NET_UNIX = """\
Num       RefCount Protocol Flags    Type St Inode Path
0000000000000000: 00000002 00000000 00010000 0001 01 23456 @webview_devtools_remote_4242
0000000000000000: 00000002 00000000 00010000 0001 01 23457 @chrome_devtools_remote
0000000000000000: 00000003 00000000 00000000 0001 03 23458 @jdwp-control
0000000000000000: 00000002 00000000 00010000 0001 01 23459 @webview_devtools_remote_777
0000000000000000: 00000002 00000000 00010000 0001 01 23460 /dev/socket/logdw
"""


class FakeAdb:
    def __init__(self, unix: str, pids: dict[str, str], devtools_port: int = 0) -> None:
        self.unix = unix
        self.pids = pids
        self.devtools_port = devtools_port
        self.forwards: list[tuple[str, str]] = []
        self.shells: list[str] = []

    def shell(
        self,
        cmdargs: str,
        stream: bool = False,
        timeout: float | None = None,
        encoding: str | None = "utf-8",
    ) -> Any:
        self.shells.append(cmdargs)
        if cmdargs == "cat /proc/net/unix":
            return self.unix
        if cmdargs.startswith("pidof "):
            return self.pids.get(cmdargs.split()[1], "")
        raise AssertionError(cmdargs)

    def forward(self, local: str, remote: str, norebind: bool = False) -> None:
        self.forwards.append((local, remote))


def test_devtools_sockets_are_found_in_proc_net_unix() -> None:
    assert devtools_sockets(PROC_NET_UNIX) == [
        "webview_devtools_remote_4242",
        "chrome_devtools_remote",
        "webview_devtools_remote_777",
    ]
    assert devtools_sockets("Num RefCount\n") == []


def test_a_webview_describes_where_its_page_is() -> None:
    target = TargetInfo(id="P", type="page", description=str(ANDROID_DESCRIPTION).replace(
        "'", '"').replace("True", "true").replace("False", "false"))  # fmt: skip
    page = endpoint_of(target, 5555)
    assert page is not None and page.ws_url == "ws://127.0.0.1:5555/devtools/page/P"
    assert page.screen == (0, 379, 1080, 379 + 1958) and page.visible
    assert endpoint_of(TargetInfo(id="S", type="service_worker"), 5555) is None


async def test_no_socket_means_debugging_is_off() -> None:
    source = AndroidWebSource(FakeAdb("Num RefCount\n", {}))  # type: ignore[arg-type]
    assert await source.pages() == []
    assert source.problem == DEBUGGING_OFF
    assert "setWebContentsDebuggingEnabled" in DEBUGGING_OFF


async def test_the_front_apps_socket_is_forwarded_once_and_read() -> None:
    async with FakeDevTools("shop-login", ANDROID_DESCRIPTION).serving() as fake:
        listed: list[str] = []

        def listing(http: str) -> list[TargetInfo]:
            from bridge.devices.web.chromium import devtools_list

            listed.append(http)
            # every forward reaches the fake endpoint (adb would reach the phone's socket)
            return devtools_list(f"http://127.0.0.1:{fake.port}")

        adb = FakeAdb(PROC_NET_UNIX, {"com.example.shop": "777"})
        source = AndroidWebSource(
            adb,  # type: ignore[arg-type]
            lambda: "com.example.shop",
            listing=lambda http: listing(http),
        )
        pages = await source.pages()
        assert len(pages) == 3 and source.problem is None
        assert adb.forwards[0][1] == "localabstract:webview_devtools_remote_777"
        assert all(local.startswith("tcp:") for local, _ in adb.forwards)
        assert pages[0].screen == (0, 379, 1080, 2337)
        again = await source.pages()
        assert len(adb.forwards) == 3 and len(again) == 3  # kept while the sockets live
        # a page read through the endpoint: the recorded answers become the form
        url = f"ws://127.0.0.1:{fake.port}/devtools/page/PAGE1"
        client = await CdpClient.connect(url)
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.serve)
            content = await read_page(client, (0, 379, 1080, 2337))
            tg.cancel_scope.cancel()
        ids = {it.automation_id for it in content.items}
        assert {"web:#email", "web:#password", "web:#signin"} <= ids
        assert fake.calls[:3] == [
            "Page.getLayoutMetrics",
            "Accessibility.getFullAXTree",
            "DOMSnapshot.captureSnapshot",
        ]


async def test_a_socket_that_went_away_forgets_its_forward() -> None:
    adb = FakeAdb(PROC_NET_UNIX, {})
    source = AndroidWebSource(adb, listing=lambda http: [])  # type: ignore[arg-type]
    assert await source.pages() == []
    assert source.problem == "the debugging socket lists no page"
    adb.unix = "Num RefCount\n"
    await source.pages()
    assert source.forwards == {} and source.problem == DEBUGGING_OFF


def test_the_doctor_says_when_debugging_is_off() -> None:
    from bridge.doctor.rules import health_checks

    checks = health_checks({"web": {"attached": False, "nodes": 0, "problem": DEBUGGING_OFF}},
                           None, None)  # fmt: skip
    web = next(c for c in checks if c.name == "web")
    assert web.verdict == "warn" and "setWebContentsDebuggingEnabled" in web.value
    merged = health_checks({"web": {"attached": True, "nodes": 14, "problem": None}}, None, None)
    assert next(c for c in merged if c.name == "web").verdict == "ok"

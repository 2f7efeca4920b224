"""The iPhone's Web Inspector bound to pymobiledevice3 (``bridge.devices.ios.web_wir``),
without an iPhone: pymobiledevice3's real ``WebinspectorService`` runs over a fake
webinspectord (``tests/devices/ios_fakes/fake_webinspectord.py``) whose pages are pages of
Debian's real Chromium. What is checked: the calls exist in the installed release with these
signatures; the app under test's pages (its WebContent process's, not Safari's) are listed,
opened through the Target domain, read with the page walker, typed into and tapped; a process
swap keeps the session; the Web Inspector switched off is said; a lost connection ends the
page and the next listing connects again."""

from __future__ import annotations

import importlib.util
import inspect
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import pytest

from bridge.devices.ios.web_inspector import (
    WEB_INSPECTOR_OFF,
    IosWebSource,
    WebKitPage,
    WirPage,
)
from bridge.devices.ios.web_wir import SWAPPED, WirInspector, WirTransport
from bridge.devices.sim.webview import PAGE
from bridge.devices.web.cdp import CdpClient
from bridge.devices.web.chromium import Chromium
from bridge.devices.web.page import PageClosed, PageError
from tests.devices.ios_fakes.fake_webinspectord import (
    APP_ID,
    BUNDLE,
    SAFARI_ID,
    WEBCONTENT_ID,
    FakeWebinspectord,
    app_dict,
    page_dict,
)
from tests.skips import need_web_chromium, reason

pytestmark = [
    pytest.mark.anyio,
    pytest.mark.skipif(
        importlib.util.find_spec("pymobiledevice3") is None,
        reason=reason(
            "pymobiledevice3 (the ios extra) is not installed", "MOBRIDGE_EXTRAS=ios scripts/test"
        ),
    ),
]
BOX = (0, 379, 1080, 2337)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # pymobiledevice3 is asyncio only


def _service_class() -> Any:
    from bridge.devices.ios.pmd3 import load_pmd3

    return load_pmd3().webinspector_service


def test_the_calls_exist_in_the_installed_pymobiledevice3() -> None:
    from bridge.devices.ios.pmd3 import load_pmd3

    real = load_pmd3()
    cls: Any = real.webinspector_service
    assert cls is not None and real.webinspector_off

    def params(fn: Any) -> list[str]:
        return list(inspect.signature(fn).parameters)

    assert params(cls)[:1] == ["lockdown"]
    for name in ("connect", "close", "get_open_pages", "setup_inspector_socket",
                 "send_socket_data", "teardown_inspector_socket"):  # fmt: skip
        assert inspect.iscoroutinefunction(getattr(cls, name)), name
    assert params(cls.setup_inspector_socket)[1:4] == ["session_id", "app_id", "page_id"]
    assert params(cls.send_socket_data)[1:5] == ["session_id", "app_id", "page_id", "data"]
    assert params(cls.teardown_inspector_socket)[1:4] == ["session_id", "app_id", "page_id"]
    assert params(cls.session_events)[1:2] == ["session_id"]
    for name in ("subscribe_listings", "unsubscribe_listings", "session_events"):
        assert callable(getattr(cls, name)) and not inspect.iscoroutinefunction(getattr(cls, name))
    assert isinstance(cls.is_connected, property)
    webinspector = importlib.import_module("pymobiledevice3.services.webinspector")
    fields = {f for f in webinspector.Application.__dataclass_fields__}
    assert {"id_", "bundle", "host", "proxy"} <= fields
    assert {"id_", "type_", "web_title", "web_url", "web_connection_id"} <= set(
        webinspector.Page.__dataclass_fields__
    )
    # the service's trace hook is called for every page message (our wake-up)
    source = inspect.getsource(cls._handle_application_sent_data)
    assert "trace" in source and "session_events" in source


@asynccontextmanager
async def shop() -> AsyncIterator[str]:
    """The simulated device's web shop in real Chromium, sized like a phone's WebView."""
    browser = Chromium.available()
    assert not isinstance(browser, str)
    browser.width, browser.height = 432, 783
    await browser.start()
    try:
        target = await browser.new_page(PAGE.as_uri())
        client = await CdpClient.connect(target.webSocketDebuggerUrl)
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.serve)
            await client.call(
                "Emulation.setDeviceMetricsOverride",
                {"width": 432, "height": 783, "deviceScaleFactor": 2.5, "mobile": True},
            )
            yield target.webSocketDebuggerUrl
            await client.close()
            tg.cancel_scope.cancel()
    finally:
        browser.stop()


def daemon_with_shop(tg: anyio.abc.TaskGroup, url: str, **kw: Any) -> FakeWebinspectord:
    daemon = FakeWebinspectord(tg, **kw)
    daemon.add_app(app_dict(APP_ID, BUNDLE, "Shop"))
    daemon.add_app(
        app_dict(WEBCONTENT_ID, "com.apple.WebKit.WebContent", "Shop", proxy=True, host=APP_ID),
        {"1": page_dict(1, "Web Shop", "file:///shop.html")},
        {1: url},
    )
    daemon.add_app(
        app_dict(SAFARI_ID, "com.apple.mobilesafari", "Safari"),
        {"7": page_dict(7, "Elsewhere", "https://example.org/")},
        {7: url},
    )
    return daemon


def opener(daemon: FakeWebinspectord, opened: list[Any]) -> Any:
    cls = _service_class()

    async def open_service() -> tuple[Any, Any]:
        service = cls(daemon)
        await service.connect()
        opened.append(service)
        return service, None

    return open_service


@need_web_chromium
async def test_the_apps_page_is_listed_read_typed_into_tapped_and_survives_a_process_swap() -> None:
    async with shop() as url, anyio.create_task_group() as tg:
        daemon = daemon_with_shop(tg, url)
        opened: list[Any] = []
        inspector = WirInspector(opener(daemon, opened), BUNDLE, listing_wait_s=2)
        source = IosWebSource(inspector)
        endpoints = await source.pages()
        assert source.problem is None
        # the app's WebContent page only (not Safari's)
        assert [(e.title, e.ws_url) for e in endpoints] == [
            ("Web Shop", f"webinspector://{WEBCONTENT_ID}/1")
        ]
        assert endpoints[0].open is not None
        page = await endpoints[0].open()
        assert isinstance(page, WebKitPage)
        tg.start_soon(page.serve)
        await page.prepare()
        content = await page.read(BOX)
        by_id = {it.automation_id: it for it in content.items}
        assert by_id["web:#email"].role == "textbox" and by_id["web:#email"].name == "Email"
        assert by_id["web:#signin"].name == "Sign in"
        signin = by_id["web:#signin"]
        assert signin.bounds is not None and signin.bounds[0] == round(16 * 2.5)
        # every page message went inside Target.sendMessageToTarget to the announced target
        assert {t for t, _ in daemon.inner} == {"page-1"}
        assert {"Console.enable", "Page.enable", "Runtime.evaluate"} <= {m for _, m in daemon.inner}
        assert {"_rpc_forwardSocketSetup:", "_rpc_forwardSocketData:"} <= set(daemon.calls)

        # the help frame's document is walked under its Iframe node, where the frame is
        frame = next(it for it in content.items if it.role == "Iframe")
        contact = next(it for it in content.items if it.name == "Contact us")
        assert frame.name == "Help" and frame.bounds is not None and contact.bounds is not None
        assert content.items[contact.parent] is frame or contact.parent > content.items.index(frame)
        assert frame.bounds[1] < contact.bounds[1] and contact.bounds[3] <= frame.bounds[3]
        faq = by_id["web:#faq"]
        assert faq.scrollable and faq.backend_id is not None
        page.changed = anyio.Event()
        assert await page.scroll(faq.backend_id, True)  # the questions' box moves...
        with anyio.fail_after(30):  # ...and the frame's scroll event says so
            await page.changed.wait()
        assert await page.scroll(faq.backend_id, False)
        root = content.items[0]
        assert root.role == "RootWebArea" and not root.scrollable  # the sign-in page fits
        assert not await page.scroll(0, True), "the page has nowhere to go"

        page.changed = anyio.Event()
        email = by_id["web:#email"].backend_id
        assert email is not None
        assert await page.set_text(email, "demo@example.com") == "demo@example.com"
        with anyio.fail_after(30):  # the change comes back as a console marker: no polling
            await page.changed.wait()

        # a navigation that swaps the page's process: the session follows the new target
        session_id = next(iter(daemon.sessions))
        page.changed = anyio.Event()
        new = daemon.swap(session_id)
        transport = page.transport
        assert isinstance(transport, WirTransport)
        with anyio.fail_after(30):  # until the commit reached the transport: a late marker of
            while transport.target_id != new:  # the typing may wake the page first, and a
                page.changed = anyio.Event()  # command sent before the commit goes to the
                await page.changed.wait()  # old target, which drops it
        again = {it.automation_id: it for it in (await page.read(BOX)).items}
        assert again["web:#email"].value == "demo@example.com"
        after = daemon.inner[daemon.inner.index((new, "Console.enable")) :]
        assert ("page-1", "Runtime.evaluate") not in after, "nothing goes to the old target"
        assert (new, "Page.enable") in after, "the enable commands were sent again"
        password = again["web:#password"].backend_id
        assert password is not None and await page.set_text(password, "pw") == "pw"
        await page.click(again["web:#signin"].backend_id or 0)
        with anyio.fail_after(30):
            while "Welcome, demo@example.com" not in {
                it.name for it in (await page.read(BOX)).items
            }:
                page.changed = anyio.Event()
                await page.changed.wait()
        # pymobiledevice3's shared answer table is not left growing
        assert not any(k >= 0x60000000 for k in opened[0].wir_message_results)

        await page.close()
        assert daemon.closed_sessions == [session_id], "the socket was torn down"
        await inspector.aclose()
        tg.cancel_scope.cancel()


@need_web_chromium
async def test_a_command_sent_to_the_old_target_at_a_swap_fails_at_once_and_is_not_sent_again() -> (
    None
):
    async with shop() as url, anyio.create_task_group() as tg:
        daemon = daemon_with_shop(tg, url)
        inspector = WirInspector(opener(daemon, []), BUNDLE, listing_wait_s=2)
        endpoints = await IosWebSource(inspector).pages()
        assert endpoints[0].open is not None
        page = await endpoints[0].open()
        assert isinstance(page, WebKitPage)
        tg.start_soon(page.serve)
        await page.prepare()
        old = page.transport.target_id if isinstance(page.transport, WirTransport) else None
        # the page moves to a new process; the page has not heard of it when it sends its
        # next command, which goes to the old target (WebKit drops it there)
        new = daemon.swap(next(iter(daemon.sessions)))
        started = anyio.current_time()
        with anyio.fail_after(20), pytest.raises(PageError) as raised:
            await page.evaluate("document.title")
        assert "moved to a new process" in str(raised.value)
        assert "not sent again" in str(raised.value)
        assert anyio.current_time() - started < 20  # not the 30 s of a command never answered
        sent = [(t, m) for t, m in daemon.inner if m == "Runtime.evaluate"]
        assert sent[-1][0] == old, "the command went to the old target"
        assert sum(1 for t, _ in sent if t == new) == 0, "and was not sent again to the new"
        # the next command goes to the new target and is answered
        with anyio.fail_after(30):
            assert bytes(await page.evaluate("1 + 1")) == b"2"
        assert daemon.inner[-1] == (new, "Runtime.evaluate")
        await page.close()
        await inspector.aclose()
        tg.cancel_scope.cancel()


async def test_the_old_targets_late_answer_is_taken_and_a_destroyed_targets_commands_fail() -> None:
    sent: list[dict[str, Any]] = []

    class Service:  # only what a transport's send and unwrap touch
        is_connected = True

        async def send_socket_data(self, *args: Any) -> None:
            sent.append(args[-1])

    async def not_opened() -> tuple[Any, Any]:
        raise AssertionError("the service is given")

    service = Service()
    inspector = WirInspector(not_opened, BUNDLE)
    inspector.service = service
    page = WirPage(app_id=WEBCONTENT_ID, page_id=1, title="", url="", type="WIRTypeWeb")
    transport = WirTransport(inspector, service, page)
    transport.target_id = "page-1"

    def dispatch(target: str, inner: dict[str, Any]) -> dict[str, Any]:
        params = {"targetId": target, "message": json.dumps(inner)}
        return {"method": "Target.dispatchMessageFromTarget", "params": params}

    await transport.send({"id": 5, "method": "Runtime.evaluate", "params": {}})
    commit = {"oldTargetId": "page-1", "newTargetId": "page-2"}
    got = await transport._unwrap({"method": "Target.didCommitProvisionalTarget", "params": commit})
    assert got == {"method": "Page.frameNavigated", "params": {}}
    # the old target answers the command it was sent before the commit: the page gets it
    assert await transport._unwrap(dispatch("page-1", {"id": 5, "result": {}})) == {
        "id": 5,
        "result": {},
    }
    assert await transport._unwrap(dispatch("page-1", {"method": "Page.loadEventFired"})) is None
    await transport.send({"id": 6, "method": "Runtime.evaluate", "params": {}})
    await transport.send({"id": 7, "method": "Runtime.evaluate", "params": {}})
    assert [json.loads(m["params"]["message"])["id"] for m in sent] == [5, 6, 7]
    assert [m["params"]["targetId"] for m in sent] == ["page-1", "page-2", "page-2"]
    # an answer the old target cannot have been asked for is not the page's
    assert await transport._unwrap(dispatch("page-1", {"id": 6, "result": {}})) is None
    # the next swap: page-2's two commands are answered at once with the reason, in order
    commit = {"oldTargetId": "page-2", "newTargetId": "page-3"}
    await transport._unwrap({"method": "Target.didCommitProvisionalTarget", "params": commit})
    destroyed = {"method": "Target.targetDestroyed", "params": {"targetId": "page-2"}}
    first = await transport._unwrap(destroyed)
    assert first == {"id": 6, "error": {"message": SWAPPED}}
    with anyio.fail_after(5):
        assert await transport.receive() == {"id": 7, "error": {"message": SWAPPED}}
    # a late answer of a command already failed is dropped, not delivered twice
    assert await transport._unwrap(dispatch("page-2", {"id": 6, "result": {}})) is None


async def test_the_web_inspector_switched_off_is_said() -> None:
    async with anyio.create_task_group() as tg:
        daemon = FakeWebinspectord(tg, enabled=False)
        source = IosWebSource(WirInspector(opener(daemon, []), BUNDLE, off_errors=_off_errors()))
        with anyio.fail_after(30):
            assert await source.pages() == []
        assert source.problem == WEB_INSPECTOR_OFF
        assert "Web Inspector" in WEB_INSPECTOR_OFF and "isInspectable" in WEB_INSPECTOR_OFF
        tg.cancel_scope.cancel()


def _off_errors() -> tuple[type[BaseException], ...]:
    from bridge.devices.ios.pmd3 import load_pmd3

    return load_pmd3().webinspector_off


async def test_an_app_with_no_inspectable_page_says_what_to_turn_on() -> None:
    async with anyio.create_task_group() as tg:
        daemon = FakeWebinspectord(tg)
        daemon.add_app(app_dict(APP_ID, BUNDLE, "Shop"))  # isInspectable not set: no listing
        source = IosWebSource(WirInspector(opener(daemon, []), BUNDLE, listing_wait_s=0.5))
        assert await source.pages() == []
        assert source.problem == WEB_INSPECTOR_OFF
        tg.cancel_scope.cancel()


@need_web_chromium
async def test_a_lost_connection_ends_the_page_and_the_next_listing_connects_again() -> None:
    async with shop() as url, anyio.create_task_group() as tg:
        daemon = daemon_with_shop(tg, url)
        opened: list[Any] = []
        inspector = WirInspector(opener(daemon, opened), BUNDLE, listing_wait_s=2)
        source = IosWebSource(inspector)
        endpoints = await source.pages()
        assert endpoints and endpoints[0].open is not None
        page = await endpoints[0].open()
        ended = anyio.Event()

        async def serve() -> None:
            await page.serve()
            ended.set()

        tg.start_soon(serve)
        await page.prepare()
        daemon.unplug()
        with anyio.fail_after(30):
            await ended.wait()
        assert page.closed
        with pytest.raises(PageClosed):
            await page.read(BOX)
        assert len(await source.pages()) == 1 and len(opened) == 2, "connected again"
        await inspector.aclose()
        tg.cancel_scope.cancel()


LISTENER = (
    "import socket\n"
    "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()\n"
    "print('READY 127.0.0.1:%d' % s.getsockname()[1], flush=True)\n"
    "kept = []\n"
    "while True:\n"
    "    kept.append(s.accept()[0])\n"
)


async def test_the_iphone_driver_hands_the_apps_pages_to_the_hub() -> None:
    """``IphoneRunner``: once the runner listens, ``attach`` gets an ``IosWebSource`` whose
    Web Inspector runs on a provider of its own; it is closed when the session ends."""
    import dataclasses
    import sys

    from bridge.devices.ios import IosConfig
    from bridge.devices.ios.iphone import IphoneRunner
    from tests.devices.ios_fakes.fake_pmd3 import FakeIphone, FakeUsbmux

    cls = _service_class()
    udid = "00008120-00AA"
    phone = FakeIphone(udid, runner_argv=lambda env: [sys.executable, "-c", LISTENER])
    phone.installed.add(BUNDLE)
    mux = FakeUsbmux(phone)
    async with anyio.create_task_group() as tg:
        daemon = FakeWebinspectord(tg)
        daemon.add_app(app_dict(APP_ID, BUNDLE, "Shop"))
        daemon.add_app(
            app_dict(WEBCONTENT_ID, "com.apple.WebKit.WebContent", "Shop", proxy=True, host=APP_ID),
            {"1": page_dict(1, "Web Shop", "file:///shop.html")},
            {1: "ws://127.0.0.1:9/unused"},
        )
        providers: list[Any] = []

        def service_on(provider: Any) -> Any:
            providers.append(provider)
            return cls(daemon)  # the fake daemon stands in for the provider's lockdown

        pmd3 = dataclasses.replace(
            mux.pmd3(), webinspector_service=service_on, webinspector_off=_off_errors()
        )
        attached: list[tuple[str, Any]] = []
        ready = anyio.Event()

        def attach(
            url: str, token: str | None, opener: object, media: object = None, web: object = None
        ) -> anyio.Event:
            attached.append((url, web))
            ready.set()
            return anyio.Event()

        cfg = IosConfig(target_bundle_id=BUNDLE, ready_timeout_s=30)
        runner = IphoneRunner(pmd3, udid, cfg, attach, lambda url: None)
        try:
            async with anyio.create_task_group() as session:
                session.start_soon(runner.run)
                with anyio.fail_after(30):
                    await ready.wait()
                url, web = attached[0]
                assert url.endswith(udid) and isinstance(web, IosWebSource)
                pages = await web.pages()
                assert [(p.title, p.ws_url) for p in pages] == [
                    ("Web Shop", f"webinspector://{WEBCONTENT_ID}/1")
                ]
                assert len(providers) == 1, "the inspector has a provider of its own"
                session.cancel_scope.cancel()
        finally:
            phone.shutdown()
        assert isinstance(web.inspector, WirInspector) and web.inspector.service is None, (
            "the session's end closed the inspector"
        )
        tg.cancel_scope.cancel()


def test_the_doctor_says_what_the_iphone_needs() -> None:
    from bridge.doctor.rules import health_checks

    checks = health_checks({"web": {"attached": False, "nodes": 0, "problem": WEB_INSPECTOR_OFF}},
                           None, None)  # fmt: skip
    web = next(c for c in checks if c.name == "web")
    assert web.verdict == "warn" and "Settings > Safari > Advanced > Web Inspector" in web.value
    assert web.fix is not None and "isInspectable" in web.fix and "Web Inspector" in web.fix

"""An iPhone's web content merged by the hub, end to end without an iPhone: a real hub links a
simulated iOS device whose ``web`` screen shows a WebView, and the device's web source is the
iPhone driver's (``IosWebSource`` over ``WirInspector``): pymobiledevice3's real
``WebinspectorService`` talking to a fake webinspectord whose page is the simulated WebView's
own page in real Chromium. The page's form joins the screen under the WebView, is typed into
over the Web Inspector and tapped through the native layer, verified like native nodes."""

from __future__ import annotations

import importlib.util
from typing import Any

import anyio
import pytest

from bridge.client import build_query, connect
from bridge.core.web_tree import is_web_node
from bridge.devices.ios.web_inspector import IosWebSource
from bridge.devices.ios.web_wir import WirInspector
from bridge.devices.sim import SimConfig
from bridge.hub.app import AgentTarget
from bridge.wire.action import Verify
from bridge.wire.conditions import Present
from bridge.wire.enums import (
    ActionMethod,
    DispatchStatus,
    Platform,
    Role,
    VerificationPolicy,
    VerificationResult,
)
from tests.devices.ios_fakes.fake_webinspectord import (
    APP_ID,
    BUNDLE,
    WEBCONTENT_ID,
    FakeWebinspectord,
    app_dict,
    page_dict,
)
from tests.devices.simlink import TOKEN, running
from tests.hub.hubfixture import CONTROLLER, running_hub
from tests.skips import need_web_chromium, reason

pytestmark = [
    pytest.mark.anyio,
    need_web_chromium,
    pytest.mark.skipif(
        importlib.util.find_spec("pymobiledevice3") is None,
        reason=reason(
            "pymobiledevice3 (the ios extra) is not installed", "MOBRIDGE_EXTRAS=ios scripts/test"
        ),
    ),
]


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # pymobiledevice3 is asyncio only


async def test_an_iphones_web_page_is_merged_typed_into_and_tapped() -> None:
    from bridge.devices.ios.pmd3 import load_pmd3

    service_class: Any = load_pmd3().webinspector_service
    async with (
        running(SimConfig(token=TOKEN, scene="web", platform=Platform.IOS)) as sim,
        anyio.create_task_group() as tg,
    ):
        daemon = FakeWebinspectord(tg)
        daemon.add_app(app_dict(APP_ID, BUNDLE, "Shop"))
        target = lambda: sim.webview.target.ws_url if sim.webview.target else None  # noqa: E731
        daemon.add_app(
            app_dict(WEBCONTENT_ID, "com.apple.WebKit.WebContent", "Shop", proxy=True, host=APP_ID),
            {"1": page_dict(1, "Web Shop", "file:///shop.html")},
            {1: target},
        )

        async def open_service() -> tuple[Any, Any]:
            service = service_class(daemon)
            await service.connect()
            return service, None

        inspector = WirInspector(open_service, BUNDLE)
        web = IosWebSource(inspector)
        agent = AgentTarget(sim.url, TOKEN, web=web)
        async with (
            running_hub(sim=False, agents=[agent]) as rh,
            connect(rh.url, token=CONTROLLER) as c,
        ):
            dev = c.device(rh.device_id)
            got = await dev.wait(Present(query=build_query(resource_id="web:#email")), 60_000)
            assert got.result is VerificationResult.CONDITION_MET, (got, web.problem)
            snap = (await dev.snapshot()).snapshot
            webview = next(n for n in snap.nodes if n.role is Role.WEB_VIEW)
            by_id = {n.automation_id: n for n in snap.nodes if is_web_node(n.automation_id)}
            assert by_id["web:#email"].role is Role.INPUT
            assert by_id["web:#signin"].role is Role.BUTTON
            assert webview.bounds is not None
            for node in by_id.values():  # under the WebView, in device pixels
                assert node.bounds is None or (
                    webview.bounds[0] <= node.bounds[0] and node.bounds[2] <= webview.bounds[2]
                )
            typed = await dev.type_text(
                build_query(label="Email", role="INPUT"), "demo@example.com"
            )
            assert typed.dispatch.status is DispatchStatus.DISPATCHED
            after = {n.automation_id: n for n in (await dev.snapshot()).snapshot.nodes}
            assert after["web:#email"].value == "demo@example.com"
            await dev.type_text(build_query(label="Password", role="INPUT"), "pw")
            welcome = Present(query=build_query(text="Welcome, demo@example.com"))
            result = await dev.tap(
                build_query(text="Sign in"),
                verify=Verify(policy=VerificationPolicy.EXPLICIT_CONDITION, expected=welcome),
            )
            assert result.dispatch.method is ActionMethod.GESTURE_FALLBACK
            assert result.verification is not None
            assert result.verification.result is VerificationResult.CONDITION_MET
            # everything went over the Web Inspector: socket setup, Target-wrapped messages
            assert "_rpc_forwardSocketSetup:" in daemon.calls
            assert {m for _, m in daemon.inner} >= {"Console.enable", "Runtime.evaluate"}
        await inspector.aclose()
        tg.cancel_scope.cancel()

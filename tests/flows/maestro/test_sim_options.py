"""Options Maestro flows give that change what happens on the simulated device: launchApp's
``permissions`` (set before the app opens) and ``arguments`` (the app opens with them),
takeScreenshot's ``cropOn`` (the picture cut to the element), scrollUntilVisible's
``direction``, ``timeout``, ``speed``, ``visibilityPercentage`` and ``centerElement``, the
``traits`` selector, a point inside an element, and a selector that names no element
(refused at its step). Each test fails when the option is loaded but not applied."""

from __future__ import annotations

from pathlib import Path

import pytest

from bridge.flows.compile import load_suite
from bridge.flows.maestro import actions as a
from bridge.flows.maestro.run import _has_trait, _near_centre, _visible_share
from bridge.wire.enums import Platform
from tests.flows.maestro.test_sim_flows import HEADER, run_flows

pytestmark = pytest.mark.anyio
APP = "appId: dev.mobridge.demo\n---\n"


@pytest.mark.parametrize("platform", [Platform.ANDROID, Platform.IOS])
async def test_launch_app_sets_its_permissions_first(tmp_path: Path, platform: Platform) -> None:
    camera = "- openLink: mobridge-demo://camera\n"
    report = await run_flows(
        tmp_path,
        platform,
        a_deny=APP
        + "- launchApp: {permissions: {camera: deny}}\n"
        + camera
        + '- assertVisible: "Camera: denied"\n',
        b_all=APP
        + "- launchApp: {permissions: {all: allow}, arguments: {seed: 1, mode: e2e}}\n"
        + "- assertVisible: 'Launched with mode=e2e, seed=1'\n"
        + camera
        + '- assertVisible: "Camera: granted"\n',
        c_unset=APP + "- launchApp: {permissions: {all: allow}}\n"
        "- launchApp: {permissions: {camera: unset, bluetooth: allow}}\n"
        + camera
        + "- assertVisible: {text: 'Camera: (denied|granted)'}\n",
    )
    deny, allow, unset = report.tests
    assert deny.status == "passed", deny.failure
    assert allow.status == "passed", allow.failure
    notes = allow.steps[0].notes
    assert any("permissions set before launch" in n and "camera grant" in n for n in notes)
    assert unset.status == "failed"  # reset: not asked again, so neither denied nor granted
    assert any("'bluetooth' is not one mobridge sets" in n for n in unset.steps[1].notes)


async def test_take_screenshot_crops_on_an_element(tmp_path: Path) -> None:
    report = await run_flows(
        tmp_path,
        a_crop=HEADER + "- takeScreenshot: {path: whole}\n"
        "- takeScreenshot: {path: login, cropOn: {id: open_login}}\n",
    )
    test = report.tests[0]
    assert test.status == "passed", test.failure
    whole, cut = test.steps[1].screenshot, test.steps[2].screenshot
    assert whole is not None and cut is not None
    assert cut.width < whole.width and cut.height < whole.height
    # the Login button is 952 x 140 points on a 1080 x 2400 screen: the same shape
    assert abs(cut.width / cut.height - 952 / 140) < 0.2
    assert abs(cut.width / whole.width - 952 / 1080) < 0.02


async def test_traits_filter_the_elements(tmp_path: Path) -> None:
    report = await run_flows(
        tmp_path,
        a_traits=HEADER + "- assertVisible: {traits: text, text: Login}\n"
        "- assertVisible: {traits: text, index: 8}\n"  # the title and the 8 buttons
        "- assertNotVisible: {traits: text, index: 9}\n"
        "- assertNotVisible: {id: open_login, traits: square}\n"
        "- assertNotVisible: {traits: long-text}\n",
        b_css=HEADER + "- tapOn: {css: '#login'}\n",
    )
    traits, css = report.tests
    assert traits.status == "passed", traits.failure
    step = css.steps[1]
    assert step.refusal is not None and step.refusal.code == "ACTION_UNSUPPORTED"
    assert "css selects a web page's elements" in (step.message or "")


def test_traits_and_visibility_as_maestro_measures_them() -> None:
    class Node:
        def __init__(self, text: str | None, bounds: tuple[int, int, int, int]) -> None:
            self.text, self.bounds = text, bounds

    assert _has_trait(Node(None, (0, 0, 100, 101)), "square")
    assert not _has_trait(Node(None, (0, 0, 100, 120)), "square")
    assert _has_trait(Node("x" * 201, (0, 0, 1, 1)), "long-text")
    assert not _has_trait(Node("x" * 200, (0, 0, 1, 1)), "long-text")
    assert not _has_trait(Node("", (0, 0, 1, 1)), "text")
    assert _visible_share((0, 2300, 100, 2500), 1080, 2400) == 0.5
    assert _visible_share((-10, -10, 2000, 3000), 1080, 2400) == 1.0
    assert _near_centre((0, 1500, 100, 1600), "UP", 1080, 2400)  # below the middle, < h/5
    assert not _near_centre((0, 1800, 100, 1900), "UP", 1080, 2400)


def test_scroll_options_load_as_maestro_reads_them(tmp_path: Path) -> None:
    (tmp_path / "s.yaml").write_text(
        HEADER + "- scrollUntilVisible: {element: X, speed: 90, visibilityPercentage: 150,"
        " centerElement: true, timeout: -5, direction: UP}\n"
    )
    flow = load_suite([str(tmp_path)], {}, {})[0]
    scroll = flow.steps[1].action
    assert isinstance(scroll, a.ScrollTo)
    assert scroll.swipe_ms == 101  # 1000 * (100 - 90) / 100 + 1
    assert scroll.visibility == 100 and scroll.center and scroll.direction == "UP"
    assert scroll.timeout_ms == 20_000  # a negative timeout is Maestro's default


async def test_scroll_until_visible_applies_its_options(tmp_path: Path) -> None:
    """The simulated list moves a page per swipe: ``centerElement`` tries to centre the
    item, sees it overshoot, swipes back and says so; ``speed`` sets each swipe's length in
    time; ``direction: UP`` scrolls back; ``timeout`` bounds the search."""
    report = await run_flows(
        tmp_path,
        a_center=HEADER + "- tapOn: List\n"
        "- scrollUntilVisible: {element: Item 10, centerElement: true}\n",
        b_speed=HEADER + "- tapOn: List\n- scrollUntilVisible: {element: Item 30, speed: 90}\n",
        c_back_up=HEADER + "- tapOn: List\n- scrollUntilVisible: {element: Item 40}\n"
        "- scrollUntilVisible: {element: Item 1, direction: UP, timeout: 30000}\n"
        "- assertVisible: Item 1\n",
        d_timeout=HEADER
        + "- tapOn: List\n- scrollUntilVisible: {element: Nowhere, timeout: 500}\n",
    )
    center, speed, back_up, timed_out = report.tests
    assert center.status == "passed", center.failure
    assert any("centerElement: centring moved" in n for n in center.steps[2].notes)
    assert speed.status == "passed", speed.failure
    assert "swipes of 101 ms" in (speed.steps[2].message or "")
    assert back_up.status == "passed", back_up.failure
    assert timed_out.status == "failed" and timed_out.failure is not None
    assert "(500 ms)" in timed_out.failure.message


async def test_a_point_inside_an_element_and_a_selector_naming_none(tmp_path: Path) -> None:
    report = await run_flows(
        tmp_path,
        a_inside=HEADER + "- tapOn: {id: open_list, point: '10%,50%'}\n- assertVisible: Item 1\n",
        b_nothing=HEADER
        + "- waitForAnimationToEnd\n- assertVisible: {label: This room is read only}\n",
        c_typed=HEADER + "- tapOn: Login\n- tapOn: {id: username}\n"
        "- inputText: {id: username, text: ada}\n- assertVisible: {id: username, text: ada}\n",
    )
    inside, nothing, typed = report.tests
    assert inside.status == "passed", inside.failure
    step = nothing.steps[2]
    assert step.label == "This room is read only"
    assert step.refusal is not None and step.refusal.code == "ACTION_UNSUPPORTED"
    assert "names no element" in (step.message or "")
    assert typed.status == "passed", typed.failure
    assert typed.steps[3].notes == ["inputText: 'id' ignored, as Maestro ignores it"]


async def test_launch_arguments_reach_the_app_or_are_refused(tmp_path: Path) -> None:
    """The hub's ``app`` request carries APP_OPEN's arguments to an agent that announces
    ``launch_arguments``; another device refuses them, in one line."""
    from bridge.client import ActionUnsupported, connect
    from bridge.wire.enums import AppAction
    from tests.hub.hubfixture import CONTROLLER, running_hub

    async with (
        running_hub(sim_options={"without": ("launch_arguments",)}) as rh,
        connect(rh.url, token=CONTROLLER, name="args") as hub,
    ):
        dev = hub.device(rh.device_id)
        async with dev.lease():
            with pytest.raises(ActionUnsupported) as refused:
                await dev.app(AppAction.APP_OPEN, "dev.mobridge.demo", arguments={"seed": "1"})
            assert "takes no launch arguments" in str(refused.value)
            await dev.app(AppAction.APP_OPEN, "dev.mobridge.demo")  # without: as before
    report = await run_flows(
        tmp_path, a_plain=APP + "- launchApp\n- assertNotVisible: {id: launch_arguments}\n"
    )
    assert report.tests[0].status == "passed", report.tests[0].failure

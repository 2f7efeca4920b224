"""Issue 39, done-when: in a real browser (Debian's Chromium driven by Playwright) against a
real hub with the simulated device, a person signs in on the demo app using only the page in
at most 6 user actions (Act mode's taps are taps on the element under the pointer; its type box
takes the focus and types into the focused field, Tab: next field, Enter: submit), the page
records it, exports it, and the exported mobridge YAML passes ``mobridge test`` (a real
subprocess with its embedded hub); the Maestro export says the same steps in Maestro's syntax
(not run here: this branch's ``mobridge test`` reads mobridge flows only); the Python export,
run as a script against a fresh hub, signs in too.

Screenshots go to ``$MOBRIDGE_TEST_OUTPUT/dashboard/``: record-signed-in.png (the recording
and its export after signing in).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest

from bridge.client import connect
from bridge.dashboard import page
from bridge.wire.snapshot import ScreenSnapshot
from tests.cli.hubproc import ROOT, clean_env, mobridge_command
from tests.dashboard.test_dashboard_browser import (
    browser_tab,
    shot_path,
    until,
)
from tests.hub.hubfixture import CONTROLLER, OBSERVER, RunningHub, running_hub
from tests.skips import need_chromium

pytestmark = [pytest.mark.anyio, need_chromium]


async def _snapshot(rh: RunningHub) -> ScreenSnapshot:
    async with connect(rh.url, token=OBSERVER, name="check") as hub:
        return (await hub.device(rh.device_id).snapshot(compact=False)).snapshot


async def _point(tab: Any, rh: RunningHub, **fields: str) -> tuple[float, float]:
    snap = await _snapshot(rh)
    node = next(n for n in snap.nodes if all(getattr(n, k) == v for k, v in fields.items()))
    box = await tab.get_by_test_id("shot").bounding_box()
    assert box is not None
    root = snap.nodes[0].bounds
    b = node.bounds
    return (
        box["x"] + ((b[0] + b[2]) / 2 - root[0]) / (root[2] - root[0]) * box["width"],
        box["y"] + ((b[1] + b[3]) / 2 - root[1]) / (root[3] - root[1]) * box["height"],
    )


async def _until_snapshot(rh: RunningHub, check: Any) -> None:
    with anyio.fail_after(5):
        while not check(await _snapshot(rh)):
            await anyio.sleep(0.05)


async def test_sign_in_with_the_page_alone_record_export_and_replay(tmp_path: Path) -> None:
    with anyio.fail_after(240):
        async with (
            running_hub(sim_scene="menu", dashboard=page()) as rh,
            browser_tab(rh, f"#token={CONTROLLER}") as (tab, expect),
        ):
            await until(tab, "() => document.getElementById('shot').naturalWidth > 0")
            await expect(tab.get_by_test_id("screen-meta")).to_contain_text("menu")
            actions = 0
            # 1: start recording (key r); 2: Act mode (key a)
            await tab.keyboard.press("r")
            actions += 1
            await expect(tab.get_by_test_id("rec-toggle")).to_have_text("■ Stop")
            await tab.keyboard.press("a")
            actions += 1
            # 3: tap Login on the picture
            x, y = await _point(tab, rh, text="Login")
            await tab.mouse.click(x, y)
            actions += 1
            await expect(tab.get_by_test_id("screen-meta")).to_contain_text("login", timeout=5000)
            await until(tab, "() => document.getElementById('shot').dataset.capture !== undefined")
            # 4: tap the Username field: the type box takes the focus
            x, y = await _point(tab, rh, hint="Username")
            await tab.mouse.click(x, y)
            actions += 1
            await expect(tab.get_by_test_id("act-type-box")).to_be_focused()
            # 5: type the user name and Tab to the next field (one typing action: a word and
            # the key that ends it)
            await tab.keyboard.type("demo")
            await tab.keyboard.press("Tab")
            actions += 1
            await _until_snapshot(
                rh,
                lambda s: (
                    any(n.value == "demo" or n.text == "demo" for n in s.nodes)
                    and any(n.hint == "Password" and n.state.focused for n in s.nodes)
                ),
            )
            # 6: type the password, Enter submits
            await tab.keyboard.type("hunter2")
            await tab.keyboard.press("Enter")
            actions += 1
            await expect(tab.get_by_test_id("screen-meta")).to_contain_text("home", timeout=5000)
            assert actions <= 6
            steps = tab.get_by_test_id("rec-steps").locator("li")
            await expect(steps).to_have_count(6)
            await expect(steps.nth(0)).to_contain_text('tap BUTTON "Login"')
            await expect(steps.nth(2)).to_contain_text('type "demo" into #username')
            await expect(steps.nth(4)).to_contain_text("type secret://password into #password")
            await tab.keyboard.press("Escape")  # out of the type box: keys are shortcuts again
            await tab.keyboard.press("r")  # stop
            await expect(tab.get_by_test_id("rec-toggle")).to_have_text("● Record")
            flow = await tab.get_by_test_id("rec-export").text_content()
            await tab.screenshot(path=shot_path("record-signed-in.png"))
            assert flow is not None
            assert "hunter2" not in flow  # a password is never in the recording
            assert "- tap: {text: Login, role: BUTTON}" in flow
            assert "- tap: {id: username}" in flow
            assert '- inputText: {into: {id: username}, text: "demo"}' in flow
            assert "- pressKey: tab" in flow
            assert "- inputText: {into: {id: password}, secret: secret://password}" in flow
            assert "- pressKey: enter" in flow
            # the Export button downloads the same text
            async with tab.expect_download() as got:
                await tab.get_by_test_id("rec-export-button").click()
            download = await got.value
            saved = tmp_path / "recorded.yaml"
            await download.save_as(saved)
            assert saved.read_text() == flow
            await tab.get_by_test_id("rec-format").select_option("maestro")
            maestro = await tab.get_by_test_id("rec-export").text_content()
            assert maestro is not None and "hunter2" not in maestro
            header = maestro.split("\n---\n")[0].splitlines()
            assert [line for line in header if not line.startswith("#")] == [
                "appId: dev.mobridge.demo"
            ]
            assert '- tapOn: {id: "username"}' in maestro
            assert '- inputText: "demo"' in maestro
            assert "- inputText: ${PASSWORD}" in maestro
            assert "- pressKey: Enter" in maestro
            await tab.get_by_test_id("rec-format").select_option("python")
            python = await tab.get_by_test_id("rec-export").text_content()
            assert python is not None and "hunter2" not in python
            assert 'await dev.tap(build_query(resource_id="username"))' in python
            assert 'value_ref="secret://password"' in python
            compile(python, "recorded.py", "exec")
    # the exported Python, run as a script against a fresh hub, signs in too
    script = tmp_path / "recorded.py"
    script.write_text(python)
    secrets = tmp_path / "secrets.json"
    secrets.write_text('{"password": "any-password"}')
    async with running_hub(sim_scene="menu", secrets_file=secrets) as fresh:
        assert fresh.device_id == "sim-android"
        with anyio.fail_after(120):
            ran = await anyio.run_process(
                [sys.executable, str(script)],
                cwd=ROOT,
                env={
                    **os.environ,
                    "PYTHONPATH": str(ROOT),
                    "MOBRIDGE_URL": fresh.url,
                    "MOBRIDGE_TOKEN": CONTROLLER,
                },
                check=False,
            )
        assert ran.returncode == 0, ran.stdout.decode() + ran.stderr.decode()
        async with connect(fresh.url, token=OBSERVER, name="check") as hub:
            await hub.device(fresh.device_id).wait_for_screen("home", timeout_ms=5000)
    # the exported flow, told to check it ends signed in, passes `mobridge test`
    saved.write_text(flow + "- assertScreen: home\n")
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    with anyio.fail_after(180):
        result = await anyio.run_process(
            mobridge_command("test", str(saved), "--report", str(tmp_path / "report")),
            cwd=ROOT,
            env=clean_env(runtime, MOBRIDGE_SECRET_PASSWORD="any-password"),
            check=False,
        )
    said = result.stdout.decode() + result.stderr.decode()
    assert result.returncode == 0, said
    assert "PASS" in said
    # the Maestro export, told to check it ends signed in, passes `mobridge test` too
    maestro_file = tmp_path / "recorded-maestro.yaml"
    maestro_file.write_text(maestro.rstrip("\n") + '\n- assertVisible: {id: ".*__screen_home"}\n')
    with anyio.fail_after(180):
        result = await anyio.run_process(
            mobridge_command(
                "test", str(maestro_file), "--env", "PASSWORD=any-password",
                "--report", str(tmp_path / "report-maestro"),
            ),
            cwd=ROOT,
            env=clean_env(runtime),
            check=False,
        )  # fmt: skip
    said = result.stdout.decode() + result.stderr.decode()
    assert result.returncode == 0, said
    assert "PASS" in said

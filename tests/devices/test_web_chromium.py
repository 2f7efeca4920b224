"""Debian's headless Chromium as the simulated device's web engine (``bridge.devices.web.
chromium``): every page it opens is visible, so the page runs its rendering steps (scroll
events, animation frames) whichever page was opened last or whether the start-up tab came late.
A hidden page dispatches no scroll events; a CI run lost one that way."""

from __future__ import annotations

import sys
from pathlib import Path

import anyio
import msgspec
import pytest

from bridge.devices.web.cdp import CdpClient
from bridge.devices.web.chromium import Chromium
from tests.skips import need_web_chromium

pytestmark = pytest.mark.anyio


async def _visibility(url: str) -> str:
    client = await CdpClient.connect(url)
    async with anyio.create_task_group() as tg:
        tg.start_soon(client.serve)
        raw = await client.call_raw(
            "Runtime.evaluate", {"expression": "document.visibilityState", "returnByValue": True}
        )
        await client.close()
        tg.cancel_scope.cancel()
    return str(msgspec.json.decode(raw)["result"]["value"])


@need_web_chromium
async def test_every_page_opened_is_visible_not_only_the_last() -> None:
    browser = Chromium.available()
    assert not isinstance(browser, str)
    await browser.start()
    try:
        first = await browser.new_page("about:blank")
        second = await browser.new_page("about:blank")
        assert first.id != second.id
        listed = {t.id for t in await browser.targets()}
        assert {first.id, second.id} <= listed
        assert await _visibility(first.webSocketDebuggerUrl) == "visible"
        assert await _visibility(second.webSocketDebuggerUrl) == "visible"
    finally:
        browser.stop()


@need_web_chromium
async def test_a_page_is_loaded_when_it_is_handed_over(tmp_path: Path) -> None:
    """``Target.createTarget`` answers while the page still shows its first ``about:blank``;
    a caller reading it then read that (a CI run read no ``#email``), or had its script's
    context destroyed by the navigation."""
    page_file = tmp_path / "p.html"
    page_file.write_text("<!doctype html><title>Here</title><input id=email>")
    browser = Chromium.available()
    assert not isinstance(browser, str)
    await browser.start()
    try:
        target = await browser.new_page(page_file.as_uri())
        client = await CdpClient.connect(target.webSocketDebuggerUrl)
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.serve)
            raw = await client.call_raw(
                "Runtime.evaluate",
                {
                    "expression": "document.readyState + ' ' + location.href + ' ' "
                    "+ !!document.getElementById('email')",
                    "returnByValue": True,
                },
            )
            await client.close()
            tg.cancel_scope.cancel()
        state = msgspec.json.decode(raw)["result"]["value"]
        assert state == f"complete {page_file.as_uri()} true"
    finally:
        browser.stop()


def _gone(pid: int) -> bool:
    """Whether ``pid`` has ended (gone, or a zombie no one has reaped yet)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_browser_dies_with_a_hub_killed_hard_and_no_python_runs_in_its_fork() -> None:
    """The browser is started the way ``Chromium.start`` starts it (here a stand-in that
    sleeps): ``setpriv --pdeathsig`` sets the parent-death signal and execs it, so nothing of
    Python runs between fork and exec (a ``preexec_fn`` there can wait forever on a lock
    another thread held at the fork); when its parent is killed with SIGKILL, it ends too."""
    import os
    import signal
    import subprocess
    import time

    from bridge.devices.web.chromium import _with_parent

    words = _with_parent()
    assert words and words[0].endswith("setpriv") and words[1:] == ["--pdeathsig", "TERM", "--"]
    parent = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import subprocess, sys, time\n"
            "from bridge.devices.web.chromium import _with_parent\n"
            "child = subprocess.Popen([*_with_parent(), 'sleep', '600'], start_new_session=True)\n"
            "print(child.pid, flush=True)\n"
            "time.sleep(600)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert parent.stdout is not None
    child = int(parent.stdout.readline())
    try:
        assert not _gone(child)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 60
        while not _gone(child) and time.monotonic() < deadline:
            time.sleep(0.05)  # polled: the end of a process has no event to wait on here
        assert _gone(child), "the stand-in browser outlived its parent"
    finally:
        if not _gone(child):
            os.kill(child, signal.SIGKILL)

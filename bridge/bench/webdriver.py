"""WebDriver benchmark: what a command costs through ``serve --webdriver`` with Appium's
Python client, beside the same hub request made with mobridge's own Python client.

A ``mobridge serve --webdriver`` subprocess (simulated Android device, ``action_ms`` as
configured, the login screen); the Appium client (Selenium's HTTP stack) and mobridge's
blocking client run in this process, one after the other, against the same hub. Per command:
median wall time both ways and the difference, which is the WebDriver endpoint's overhead
(HTTP, JSON, the command mapping). The issue's goal: at most 2 ms per command.
"""

from __future__ import annotations

import os
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

TOKEN = "bench-webdriver-token"


def _sample(fn: Callable[[], Any], runs: int, into: list[float]) -> None:
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        into.append((time.perf_counter() - started) * 1000)


PASSWORD = "//android.widget.EditText[@password='true']"


def _webdriver_block(
    driver: Any, by: Any, per: int, typed: int, into: dict[str, list[float]]
) -> None:
    """One block of samples through Appium's client (the session holds the lease)."""
    field = driver.find_element(by.ID, "username")
    field.text  # noqa: B018 - warm-up
    steps: list[tuple[str, Callable[[], Any], int]] = [
        ("find element (id)", lambda: driver.find_element(by.ID, "username"), per),
        ("window rect (once per orientation) / display", driver.get_window_size, per),
        ("send keys / SET_TEXT (settled)", lambda: field.send_keys("demo"), typed),
        (
            "find element (xpath, worker thread)",
            lambda: driver.find_element(by.XPATH, PASSWORD),
            per,
        ),
        ("element text (no hub call)", lambda: field.text, per),
        ("page source (XML)", lambda: driver.page_source, per),
    ]
    for name, fn, n in steps:
        _sample(fn, n, into.setdefault(name, []))


def _client_block(
    device: Any, query: Any, per: int, typed: int, into: dict[str, list[float]]
) -> None:
    """The same hub requests through mobridge's blocking client."""
    ref = device.find(query).matches[0].ref
    device.display()  # warm-up
    steps: list[tuple[str, Callable[[], Any], int]] = [
        ("find element (id)", lambda: device.find(query), per),
        ("window rect (once per orientation) / display", device.display, per),
        ("send keys / SET_TEXT (settled)", lambda: device.type_text(ref, "demo"), typed),
    ]
    for name, fn, n in steps:
        _sample(fn, n, into.setdefault(name, []))


def run(quick: bool) -> list[str]:
    try:
        import lxml.etree  # noqa: F401  (serve --webdriver needs it)
        from appium import webdriver
        from appium.options.common import AppiumOptions
        from appium.webdriver.common.appiumby import AppiumBy
    except ImportError:
        return [
            "webdriver: skipped (needs Appium's Python client and lxml: "
            "MOBRIDGE_EXTRAS=dev scripts/bench --only webdriver)"
        ]
    from bridge.client import build_query
    from bridge.client.sync import connect_sync

    runs = 30 if quick else 200
    proc = subprocess.Popen(
        [sys.executable, "-m", "bridge.cli", "serve", "--port", "0", "--token", TOKEN,
         "--no-journal", "--webdriver", "0", "--sim-scene", "login"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    hub_url = wd_url = None
    assert proc.stdout is not None
    try:
        for line in proc.stdout:
            if m := re.match(r"mobridge hub listening on (ws://\S+)", line):
                hub_url = m.group(1)
            if m := re.match(r"webdriver: (http://\S+)", line):
                wd_url = m.group(1)
            if line.startswith("devices:"):
                break
        assert hub_url and wd_url, "the hub did not start"
        options = AppiumOptions()
        options.set_capability("platformName", "Android")
        options.set_capability("mobridge:token", TOKEN)
        wd: dict[str, list[float]] = {}
        direct: dict[str, list[float]] = {}
        blocks = 3 if quick else 10
        per, typed = max(1, runs // blocks), max(2, runs // blocks // 5)
        query = build_query(resource_id="dev.mobridge.demo:id/username")
        for _ in range(blocks):  # alternate blocks: both ways see the same machine load
            driver = webdriver.Remote(wd_url, options=options)
            try:
                _webdriver_block(driver, AppiumBy, per, typed, wd)
            finally:
                driver.quit()  # the session's lease ends: the direct client may act
            with connect_sync(hub_url, token=TOKEN, name="bench-client") as hub:
                _client_block(hub.device("sim-android"), query, per, typed, direct)
        rows = [
            (
                name,
                statistics.median(ms),
                statistics.median(direct[name]) if name in direct else 0.0,
            )
            for name, ms in wd.items()
        ]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    load = os.getloadavg()
    lines = [
        f"webdriver command overhead (median ms of {runs} runs in {blocks} alternating blocks; "
        f"load {load[0]:.1f} {load[1]:.1f})",
        f"{'command':<46} {'Appium client':>13} {'mobridge client':>15} {'overhead':>9}",
    ]
    for name, through_wd, plain in rows:
        other = f"{plain:>15.2f}" if plain else f"{'-':>15}"
        overhead = f"{through_wd - plain:>9.2f}" if plain else f"{'-':>9}"
        lines.append(f"{name:<46} {through_wd:>13.2f} {other} {overhead}")
    lines.append("goal: overhead <= 2 ms per command (issue 36)")
    return lines

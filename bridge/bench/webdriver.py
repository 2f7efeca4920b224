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


def _median_ms(fn: Callable[[], Any], runs: int) -> float:
    fn()
    samples = []
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


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
        driver = webdriver.Remote(wd_url, options=options)
        typed = max(10, runs // 5)
        try:
            field = driver.find_element(AppiumBy.ID, "username")
            wd = {
                "find element (id)": _median_ms(
                    lambda: driver.find_element(AppiumBy.ID, "username"), runs
                ),
                "window rect / display": _median_ms(driver.get_window_size, runs),
                "send keys / SET_TEXT (settled)": _median_ms(
                    lambda: field.send_keys("demo"), typed
                ),
                "element text (no hub call)": _median_ms(lambda: field.text, runs),
                "page source (XML)": _median_ms(lambda: driver.page_source, runs),
            }
        finally:
            driver.quit()  # the session's lease ends: the direct client may act
        with connect_sync(hub_url, token=TOKEN, name="bench-client") as hub:
            device = hub.device("sim-android")
            query = build_query(resource_id="dev.mobridge.demo:id/username")
            ref = device.find(query).matches[0].ref
            direct = {
                "find element (id)": _median_ms(lambda: device.find(query), runs),
                "window rect / display": _median_ms(device.display, runs),
                "send keys / SET_TEXT (settled)": _median_ms(
                    lambda: device.type_text(ref, "demo"), typed
                ),
            }
        rows = [(name, ms, direct.get(name, 0.0)) for name, ms in wd.items()]
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    load = os.getloadavg()
    lines = [
        f"webdriver command overhead (median ms of {runs} runs; load {load[0]:.1f} {load[1]:.1f})",
        f"{'command':<32} {'Appium client':>13} {'mobridge client':>15} {'overhead':>9}",
    ]
    for name, through_wd, plain in rows:
        other = f"{plain:>15.2f}" if plain else f"{'-':>15}"
        overhead = f"{through_wd - plain:>9.2f}" if plain else f"{'-':>9}"
        lines.append(f"{name:<32} {through_wd:>13.2f} {other} {overhead}")
    lines.append("goal: overhead <= 2 ms per command (issue 36)")
    return lines

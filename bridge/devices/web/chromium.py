"""Debian's headless ``chromium``, started for one hub: a private profile, no network.

``Chromium.start()`` runs the browser with a fresh profile directory (removed by ``stop``),
remote debugging bound to 127.0.0.1 on a port the browser picks (read back from the profile's
``DevToolsActivePort``), every proxy and name lookup pointed nowhere (only loopback and
``file:`` load), no first-run, sync, component updates or background networking.
``new_page(url)`` opens a window and returns its target (``TargetInfo``); ``stop`` ends the
process group and removes the profile.

Invariants: the browser only ever listens on 127.0.0.1; ``stop`` is idempotent and always
reaps the process; ``find_chromium`` says how to install it when it is missing (the caller
shows that sentence, never a stack).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import msgspec

from bridge.devices.web.cdp import CdpClient, CdpError
from bridge.wire.cdp import TargetInfo

INSTALL_HINT = (
    "the web scene needs Debian's headless Chromium: `sudo apt-get install chromium` "
    "(or `scripts/system-packages --install`)"
)
CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "chrome")
START_TIMEOUT_S = 20.0
_NO_NETWORK = (
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1",
)


def find_chromium() -> str | None:
    """The browser executable (``MOBRIDGE_CHROMIUM`` first), or None."""
    given = os.environ.get("MOBRIDGE_CHROMIUM")
    if given:
        return given if shutil.which(given) else None
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


@dataclass
class Chromium:
    """One headless browser process (see the module docstring)."""

    executable: str
    width: int = 412
    height: int = 800
    profile: Path | None = None
    port: int | None = None
    process: subprocess.Popen[bytes] | None = None
    pages: list[TargetInfo] = field(default_factory=list)

    @classmethod
    def available(cls) -> Chromium | str:
        """A browser to start, or the sentence saying how to install one."""
        exe = find_chromium()
        return cls(exe) if exe else INSTALL_HINT

    def argv(self, profile: Path) -> list[str]:
        argv = [
            self.executable,
            "--headless=new",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            f"--user-data-dir={profile}",
            f"--window-size={self.width},{self.height}",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--disable-extensions",
            "--disable-gpu",
            "--mute-audio",
            "--hide-scrollbars",
            # A page in a window that is not the active one keeps its full priority, timers
            # and rendering (a lowered renderer on a loaded machine sent a frame's scroll
            # event more than 10 s late, or not at all).
            "--disable-renderer-backgrounding",
            "--disable-background-timer-throttling",
            "--disable-backgrounding-occluded-windows",
            "--metrics-recording-only",
            *_NO_NETWORK,
            "about:blank",
        ]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            argv.insert(1, "--no-sandbox")  # the sandbox refuses to run as root (CI)
        return argv

    async def start(self) -> None:
        """Start the browser and wait for its debugging port (raises ``RuntimeError``)."""
        profile = Path(tempfile.mkdtemp(prefix="mobridge-chromium-"))
        self.profile = profile
        self.process = subprocess.Popen(  # noqa: ASYNC220 (returns at once; nothing waits)
            [*_with_parent(), *self.argv(profile)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        active = profile / "DevToolsActivePort"
        try:
            with anyio.fail_after(START_TIMEOUT_S):
                while True:
                    if self.process.poll() is not None:
                        raise RuntimeError(
                            f"chromium exited at start (status {self.process.returncode})"
                        )
                    if active.exists():
                        lines = active.read_text().split()
                        if lines and lines[0].isdigit():
                            self.port = int(lines[0])
                            return
                    await anyio.sleep(0.05)
        except TimeoutError:
            self.stop()
            raise RuntimeError(
                f"chromium did not open its debugging port in {START_TIMEOUT_S} s"
            ) from None
        except BaseException:
            self.stop()
            raise

    @property
    def http(self) -> str:
        if self.port is None:
            raise RuntimeError("chromium is not running")
        return f"http://127.0.0.1:{self.port}"

    async def new_page(self, url: str) -> TargetInfo:
        """Open ``url`` (``file:`` or loopback) in a window of its own and return its target.

        A window each, not a tab each: only a window's front tab is visible, and a hidden
        page runs no rendering steps (no scroll events, no animation frames). Under load the
        start-up tab could come to the front after a page opened as a tab."""
        raw = await anyio.to_thread.run_sync(_http, f"{self.http}/json/version", "GET")
        browser_url = msgspec.json.decode(raw, type=_Version).webSocketDebuggerUrl
        client = await CdpClient.connect(browser_url)
        async with anyio.create_task_group() as tg:
            tg.start_soon(client.serve)
            try:
                created = await client.query(
                    "Target.createTarget",
                    {"url": url, "newWindow": True, "width": self.width, "height": self.height},
                    _Created,
                )
            finally:
                await client.close()
                tg.cancel_scope.cancel()
        for page in await self.targets():
            if page.id == created.targetId:
                self.pages.append(page)
                if url != "about:blank":
                    await _loaded(page.webSocketDebuggerUrl)
                return page
        raise RuntimeError(f"chromium did not list the page it opened ({created.targetId[:64]})")

    async def targets(self) -> list[TargetInfo]:
        raw = await anyio.to_thread.run_sync(_http, f"{self.http}/json/list", "GET")
        return list(msgspec.json.decode(raw, type=list[TargetInfo]))

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None and process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=5)
        elif process is not None:
            process.wait()
        if self.profile is not None:
            shutil.rmtree(self.profile, ignore_errors=True)
            self.profile = None


LOAD_TIMEOUT_S = 20.0


async def _loaded(ws_url: str) -> None:
    """Return once the page's document is ``url``'s, loaded (``Target.createTarget`` answers
    while the new page still shows its first ``about:blank``; a caller reading it then reads
    that, or has its context destroyed by the navigation). Polled: the load may already be
    over when this starts, so there is no one event to wait for. Raises ``RuntimeError``."""
    client = await CdpClient.connect(ws_url)
    check = {"expression": "document.readyState + ' ' + location.href", "returnByValue": True}
    try:
        with anyio.fail_after(LOAD_TIMEOUT_S):
            async with anyio.create_task_group() as tg:
                tg.start_soon(client.serve)
                try:
                    while True:
                        try:
                            raw = await client.call_raw("Runtime.evaluate", check)
                            state = msgspec.json.decode(raw, type=_Evaluated).result.value
                        except (CdpError, msgspec.DecodeError):
                            state = ""  # the context went with the navigation: ask again
                        if state.startswith("complete ") and state != "complete about:blank":
                            return
                        await anyio.sleep(0.05)
                finally:
                    await client.close()
                    tg.cancel_scope.cancel()
    except TimeoutError:
        raise RuntimeError(f"the page did not load within {LOAD_TIMEOUT_S:g} s") from None


class _Value(msgspec.Struct, frozen=True):
    value: str = ""


class _Evaluated(msgspec.Struct, frozen=True):
    result: _Value


class _Version(msgspec.Struct, frozen=True):
    webSocketDebuggerUrl: str


class _Created(msgspec.Struct, frozen=True):
    targetId: str


def _with_parent() -> list[str]:
    """The words that start the browser so that the kernel sends it SIGTERM when the hub's
    process dies (a hub killed hard leaves no browser behind): util-linux's ``setpriv
    --pdeathsig`` (Linux; it sets PR_SET_PDEATHSIG and execs the browser, whose pid it
    keeps), or nothing where there is none. Not a ``preexec_fn``: Python code run between
    fork and exec in a process with threads can wait forever on a lock another thread held
    at the fork (the import lock, the dynamic loader's), and a hub starting a browser while
    a worker thread loaded a module hung there for 120 s."""
    setpriv = shutil.which("setpriv") if sys.platform.startswith("linux") else None
    return [setpriv, "--pdeathsig", "TERM", "--"] if setpriv else []


def _http(url: str, method: str) -> bytes:
    """One request to the browser's loopback DevTools HTTP endpoint (capped at 4 MiB)."""
    if not url.startswith("http://127.0.0.1:"):
        raise ValueError("DevTools HTTP is loopback only")
    request = urllib.request.Request(url, method=method)
    with urllib.request.urlopen(request, timeout=10) as response:  # loopback only (checked above)
        data: bytes = response.read(4 << 20)
    return data


def devtools_list(http: str) -> list[TargetInfo]:
    """``GET <http>/json/list`` decoded (blocking; run it in a worker thread)."""
    return list(msgspec.json.decode(_http(f"{http}/json/list", "GET"), type=list[TargetInfo]))


__all__ = ["INSTALL_HINT", "Chromium", "devtools_list", "find_chromium"]

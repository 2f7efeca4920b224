"""The hub's Android driver: real phones over adb (adbutils), in two modes.

- **agent mode** (default): installs the instrumentation agent APK
  (``agents/android``; package ``dev.mobridge.agent.android``) when missing or different,
  starts it with ``am instrument``, waits for its readiness status, forwards a loopback TCP
  port to its abstract unix socket and hands ``ws://127.0.0.1:PORT`` + the session's token to
  the hub (``attach``); restarts it with back-off when it dies.
- **agentless mode** (``--android-agentless``): nothing installed; the hub serves the agent
  link itself over ``uiautomator dump`` and ``adb shell input`` — slow, and says so.

Modules (pure first): ``backoff``, ``instrument`` (status lines), ``shell_text`` (quoting,
``input text`` escaping, validation), ``apk`` (APK manifest, sha256), ``agentless_plan``
(commands -> adb command lines); I/O: ``adb`` (the adbutils surface, threads), ``install``,
``agent_mode``, ``agentless`` (the websocket server), ``driver`` (device tracking,
``run_android``), ``config``.

Devices never import ``bridge.hub`` or ``bridge.net``: the hub passes ``attach``/``detach``.
"""

from bridge.devices.android.config import AndroidConfig, Attach, Detach
from bridge.devices.android.driver import AndroidSetupError, preflight, run_android

__all__ = ["AndroidConfig", "AndroidSetupError", "Attach", "Detach", "preflight", "run_android"]

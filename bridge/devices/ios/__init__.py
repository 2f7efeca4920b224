"""The hub's iOS driver: real iPhones over usbmux (pymobiledevice3, the ``ios`` extra), and a
Simulator's runner on loopback.

- **iPhones** (``mobridge serve --ios [UDID]``): usbmux lists the devices; for each, the
  XCUITest runner (``agents/ios``, built by scripts/build-ios-agent and installed on the phone)
  is launched through pymobiledevice3's XCUITest service with its port and a random token in its
  environment (iOS 17 and later: through the RSD tunnel of a running ``tunneld``, for launching
  only); the hub links it over a socket to the runner's port opened by usbmux (no local port
  forwarder, nothing listening on this machine); restarts with back-off.
- **Simulator** (``--ios-simulator UDID``): attaches to the runner on 127.0.0.1, and starts it
  with ``xcrun xcodebuild test-without-building`` when given an ``.xctestrun``.

Modules (pure first): ``plan`` (delays, environment, readiness line, remedies), ``pmd3`` (the
pymobiledevice3 calls, loaded lazily), ``config``; I/O: ``iphone`` (one device), ``simulator``,
``driver`` (``run_ios``). Devices never import ``bridge.hub`` or ``bridge.net``: the hub passes
``attach``/``detach``.
"""

from bridge.devices.ios.config import Attach, Detach, IosConfig, SocketOpener
from bridge.devices.ios.driver import preflight, run_ios
from bridge.devices.ios.pmd3 import IosSetupError

__all__ = [
    "Attach",
    "Detach",
    "IosConfig",
    "IosSetupError",
    "SocketOpener",
    "preflight",
    "run_ios",
]

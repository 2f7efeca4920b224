"""The pymobiledevice3 surface the iOS driver uses, gathered in one record (the ``ios`` extra).

Exactly these calls (pymobiledevice3 >= 8: all async):

- ``usbmux.list_devices()`` -> ``MuxDevice`` (``serial``, ``connection_type``) list;
- ``usbmux.select_device(udid)`` -> ``MuxDevice | None``, then ``MuxDevice.connect(port)`` ->
  a connected ``socket.socket`` to the device's TCP port (the hub's link to the runner: no
  local port forwarder);
- ``lockdown.create_using_usbmux(serial=udid)`` -> lockdown client (``product_version``,
  ``close()``): launches the runner below iOS 17;
- ``tunneld.api.get_tunneld_device_by_udid(udid)`` -> RSD provider or None (iOS 17 and later
  launch through an RSD tunnel; ``TunneldConnectionError`` when no tunneld runs);
- ``TestConfig.create_for(provider, runner_bundle_id, target_bundle_id)`` and
  ``XCUITestService(provider).run(cfg)`` (runs until the runner's test ends: never, for ours);
- ``services.webinspector.WebinspectorService(provider)`` for the app's web pages (the calls
  it makes on it: ``bridge.devices.ios.web_wir``); ``WebInspectorNotEnabledError`` when the
  phone's Web Inspector is off.

Nothing outside ``bridge.devices.ios`` imports pymobiledevice3 (an import-linter contract).
"""

from __future__ import annotations

import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any


class IosSetupError(Exception):
    """``--ios`` cannot run: the extra is missing, or the device cannot launch the runner."""


@dataclass(frozen=True)
class Pmd3:
    list_devices: Callable[[], Awaitable[list[Any]]]
    select_device: Callable[[str], Awaitable[Any | None]]
    create_using_usbmux: Callable[..., Awaitable[Any]]
    get_tunneld_device_by_udid: Callable[[str], Awaitable[Any | None]]
    test_config: Any
    """The ``TestConfig`` class (``create_for``)."""
    xcuitest_service: Callable[[Any], Any]
    """The ``XCUITestService`` class."""
    errors: tuple[type[BaseException], ...]
    """What a device that went away or refused raises (pymobiledevice3's base, OSError)."""
    tunneld_error: type[BaseException]
    hint_errors: tuple[tuple[str, type[BaseException]], ...]
    """Errors that have a known remedy, most specific first, by the remedy's key
    (``plan.REMEDIES``)."""
    webinspector_service: Callable[[Any], Any] | None = None
    """The ``WebinspectorService`` class (None: the device's web pages are not read)."""
    webinspector_off: tuple[type[BaseException], ...] = ()
    """What connecting raises when the phone's Web Inspector is switched off."""


def load_pmd3() -> Pmd3:
    """The real calls; IosSetupError naming the extra when pymobiledevice3 is not installed."""
    try:
        usbmux = importlib.import_module("pymobiledevice3.usbmux")
        lockdown = importlib.import_module("pymobiledevice3.lockdown")
        tunneld = importlib.import_module("pymobiledevice3.tunneld.api")
        xcuitest = importlib.import_module("pymobiledevice3.services.dvt.testmanaged.xcuitest")
        webinspector = importlib.import_module("pymobiledevice3.services.webinspector")
        exc = importlib.import_module("pymobiledevice3.exceptions")
    except ImportError as error:
        raise IosSetupError(
            f"pymobiledevice3 is not installed ({error}): pip install 'mobridge[ios]'"
        ) from error
    return Pmd3(
        list_devices=usbmux.list_devices,
        select_device=usbmux.select_device,
        create_using_usbmux=lockdown.create_using_usbmux,
        get_tunneld_device_by_udid=tunneld.get_tunneld_device_by_udid,
        test_config=xcuitest.TestConfig,
        xcuitest_service=xcuitest.XCUITestService,
        errors=(exc.PyMobileDevice3Exception, OSError, TimeoutError),
        tunneld_error=exc.TunneldConnectionError,
        hint_errors=(
            ("ddi", exc.InvalidServiceError),
            ("developer_mode", exc.DeveloperModeIsNotEnabledError),
            ("not_installed", exc.AppNotInstalledError),
            ("locked", exc.PasswordRequiredError),
            ("trust", exc.PairingError),
        ),
        webinspector_service=webinspector.WebinspectorService,
        webinspector_off=(exc.WebInspectorNotEnabledError,),
    )

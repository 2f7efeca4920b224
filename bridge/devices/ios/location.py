"""Simulating an iPhone's location with pymobiledevice3 (the ``ios`` extra), for the hub's
``location.set`` on an iPhone (the agent cannot: XCUITest has no location API).

Exactly these calls (pymobiledevice3 >= 8: all async):

- below iOS 17: ``DtSimulateLocation(lockdown)`` (``services.simulate_location``) as an async
  context manager, then ``set(latitude, longitude)`` or ``clear()``;
- iOS 17 and later (through the RSD tunnel tunneld holds): ``DvtProvider(rsd)``
  (``services.dvt.instruments.dvt_provider``) as an async context manager, then
  ``LocationSimulation(dvt)`` (``services.dvt.instruments.location_simulation``) likewise, then
  ``set`` / ``clear``.

The caller passes the provider it launched the runner with (``IphoneRunner`` chooses lockdown or
RSD by the iOS version) and its major version; a pymobiledevice3 error propagates to the caller.
Nothing outside ``bridge.devices.ios`` imports pymobiledevice3.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from bridge.devices.ios.plan import TUNNEL_FROM
from bridge.devices.ios.pmd3 import IosSetupError


@dataclass(frozen=True)
class LocationCalls:
    dt_simulate_location: Any
    """``DtSimulateLocation`` (below iOS 17)."""
    dvt_provider: Any
    """``DvtProvider`` (iOS 17 and later)."""
    location_simulation: Any
    """``LocationSimulation`` (iOS 17 and later, over a ``DvtProvider``)."""


def load_location_calls() -> LocationCalls:
    try:
        simulate = importlib.import_module("pymobiledevice3.services.simulate_location")
        dvt = importlib.import_module("pymobiledevice3.services.dvt.instruments.dvt_provider")
        sim = importlib.import_module(
            "pymobiledevice3.services.dvt.instruments.location_simulation"
        )
    except ImportError as error:
        raise IosSetupError(
            f"pymobiledevice3 is not installed ({error}): pip install 'mobridge[ios]'"
        ) from error
    return LocationCalls(simulate.DtSimulateLocation, dvt.DvtProvider, sim.LocationSimulation)


async def simulate_location(
    calls: LocationCalls,
    provider: Any,
    major: int,
    latitude: float | None,
    longitude: float | None,
) -> None:
    """Set (or, with None, clear) the simulated location of the device ``provider`` reaches."""
    if major < TUNNEL_FROM:
        async with calls.dt_simulate_location(provider) as service:
            await _apply(service, latitude, longitude)
        return
    async with calls.dvt_provider(provider) as dvt, calls.location_simulation(dvt) as service:
        await _apply(service, latitude, longitude)


async def _apply(service: Any, latitude: float | None, longitude: float | None) -> None:
    if latitude is None or longitude is None:
        await service.clear()
    else:
        await service.set(latitude, longitude)

"""The simulated device: a Python stand-in for the on-device agent, serving the agent link
over a real loopback websocket so the hub cannot tell it from a phone.

Layout (pure modules first; only ``server`` does I/O):

- ``views``    — the screen as plain data (views in windows), hit testing;
- ``layout``   — geometry, per-screen state and view keys shared by the screens;
- ``scenes``   — the demo app's screens and the launcher: state -> views;
- ``lists``    — the recycling list screens (``list``, ``search``);
- ``device``   — ``DemoDevice``, the state machine (back stack, inputs, lists, time);
- ``capture``  — views -> Android or iOS flavoured ``RawTree``, stable handles;
- ``session``  — one link's captures and command handling (identity checks);
- ``debounce`` — when a changed screen is pushed, and whether it is stable;
- ``png``      — a tiny PNG encoder and box renderer for screenshots;
- ``server``   — ``SimDevice``: the websocket server, ``SimConfig``.
"""

from bridge.devices.sim.device import DemoDevice
from bridge.devices.sim.scenes import DEMO_PACKAGE, LAUNCHER_PACKAGE, SCREENS
from bridge.devices.sim.server import SimConfig, SimDevice, SimStatistics

__all__ = [
    "DEMO_PACKAGE",
    "LAUNCHER_PACKAGE",
    "SCREENS",
    "DemoDevice",
    "SimConfig",
    "SimDevice",
    "SimStatistics",
]

"""LAYER 2 — device I/O.

Drivers that reach a device (Android through adb, iOS through pymobiledevice3) and the
built-in simulated device (``bridge.devices.sim``). Modules here may import ``bridge.core``
and ``bridge.wire`` only; ``bridge.net`` and ``bridge.hub`` are out of bounds (import-linter
enforces it), so a device never knows who consumes it.
"""

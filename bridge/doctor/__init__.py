"""``mobridge doctor``: check the whole chain to one device and measure it, in one report.

Modules: ``report`` (the report model, its JSON and its table; sans-I/O), ``rules`` (the
verdict of each check from measured values; sans-I/O, unit-tested), ``environment`` (adb and
usbmux probes for real phones), ``runner`` (the measurements, as a client of a running hub
through ``bridge.client``). The CLI glue, including the embedded hub, is ``bridge.cli.doctor``.
"""

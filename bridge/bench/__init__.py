"""Benchmarks, run as ``python -m bridge.bench [--only wire,core,hub] [--quick]``.

Each section is a module of this package exposing ``run(quick: bool) -> list[str]``: it measures,
then returns the lines to print (medians and ratios, never pass/fail). Sections are independent
and import only what they measure. ``--quick`` keeps every section to a few seconds.
"""

from __future__ import annotations

SECTIONS: tuple[str, ...] = (
    "wire",
    "core",
    "hub",
    "agents",
    "mcp",
    "farm",
    "farm_heartbeat",
    "device",
    "device_budget",
    "journal",
    "cli",
    "media",
    "vision",
    "vision_blank",
    "pictures",
    "web",
    "webdriver",
    "flows_js",
    "idle",
)
"""Run order when ``--only`` is not given."""

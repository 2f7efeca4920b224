"""Smoke test of the per-action device budget bench (issue 34): one round on the Swift host's
login scene through a real hub prints numbers, and the modelled fixed sleep (the iOS layer
before the issue) really pays the whole 1 s idle bound per tap where XCTest's own wait does
not (a lower bound, never a timing target)."""

from __future__ import annotations

import anyio

from bridge.bench import device_budget


async def _one_round(*extra: str) -> dict[str, list[float]]:
    async with device_budget._agent("run-ios-agent-host", *extra) as (url, token):
        return await device_budget._measure(url, token, 1)


def test_one_round_on_the_swift_host_and_the_fixed_sleep_pays_its_bound() -> None:
    waited = anyio.run(_one_round, "--idle-after-ms", "40")
    assert len(waited["tap"]) == 2 and len(waited["set_text"]) == 1
    assert all(v > 0 for v in waited["tap"] + waited["set_text"])
    slept = anyio.run(_one_round, "--idle-after-ms", "40", "--fixed-idle-sleep")
    assert min(slept["tap"]) >= 1000, slept
    assert min(slept["set_text"]) >= 1000, slept

"""A suite holds each device's exclusive lease for the duration of a test: nobody else acts
in between, a runner waits for a device someone else leases, and a lease that never frees
makes that test an ``error`` without stopping the suite."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from bridge.client import PolicyBlockedError, build_query, connect
from bridge.flows.compile import load_suite
from bridge.flows.suite import SuiteOptions, run_suite
from bridge.wire.client_protocol import ActionEvent, LeaseEvent
from tests.hub.hubfixture import CONTROLLER, CONTROLLER_2, running_hub

pytestmark = pytest.mark.anyio
HEADER = "appId: dev.mobridge.demo\n---\n"


def flows_in(tmp: Path, **files: str) -> list[Path]:
    paths = []
    for name, steps in files.items():
        path = tmp / f"{name}.yaml"
        path.write_text(HEADER + steps)
        paths.append(path)
    return paths


async def test_nobody_else_acts_during_a_test_and_the_lease_is_released(tmp_path: Path) -> None:
    flows_in(
        tmp_path,
        a_slow="- tap: Dialog\n- assertVisible: {text: Never there, timeoutMs: 1500}\n",
    )
    flows = load_suite([str(tmp_path)], {}, {})
    async with (
        running_hub() as rh,
        connect(rh.url, token=CONTROLLER, name="runner") as runner,
        connect(rh.url, token=CONTROLLER_2, name="person") as person,
    ):
        device = person.device(rh.device_id)
        refused: list[str] = []

        async def meddle() -> None:
            while not refused:
                await anyio.sleep(0.2)
                try:
                    await device.tap(build_query(text="Cancel"))
                except PolicyBlockedError as exc:
                    refused.append(str(exc))

        async with anyio.create_task_group() as tg:
            tg.start_soon(meddle)
            report = await run_suite(runner, flows, [rh.device_id], SuiteOptions())
            tg.cancel_scope.cancel()
        assert refused and "leased by runner" in refused[0]
        (test,) = report.tests
        assert test.status == "failed" and test.failure is not None
        assert "Never there" in test.failure.message
        summary = next(d for d in await person.devices() if d.id == rh.device_id)
        assert summary.lease is None  # released after the test, failed or not


async def test_a_runner_waits_for_a_device_someone_else_leases(tmp_path: Path) -> None:
    flows = load_suite([str(p) for p in flows_in(tmp_path, t="- tap: Dialog\n")], {}, {})
    async with (
        running_hub() as rh,
        connect(rh.url, token=CONTROLLER, name="runner") as runner,
        connect(rh.url, token=CONTROLLER_2, name="person") as person,
    ):
        device = person.device(rh.device_id)
        await device.acquire_lease()

        async def release_later() -> None:
            await anyio.sleep(1.0)
            await device.release_lease()

        async with anyio.create_task_group() as tg:
            tg.start_soon(release_later)
            report = await run_suite(runner, flows, [rh.device_id], SuiteOptions(lease_wait_s=20))
        assert report.tests[0].status == "passed"
        history = [e.event for e in (await device.history(limit=50)).entries]
        released = next(
            i
            for i, e in enumerate(history)
            if isinstance(e, LeaseEvent) and e.client == "person" and e.change == "released"
        )
        acquired = next(
            i
            for i, e in enumerate(history)
            if isinstance(e, LeaseEvent) and e.client == "runner" and e.change == "acquired"
        )
        first_act = next(
            i for i, e in enumerate(history) if isinstance(e, ActionEvent) and e.client == "runner"
        )
        assert released < acquired < first_act


async def test_a_lease_that_never_frees_is_an_error_not_the_end_of_the_suite(
    tmp_path: Path,
) -> None:
    paths = flows_in(tmp_path, a="- tap: Dialog\n", b="- tap: List\n")
    flows = load_suite([str(p) for p in paths], {}, {})
    async with (
        running_hub() as rh,
        connect(rh.url, token=CONTROLLER, name="runner") as runner,
        connect(rh.url, token=CONTROLLER_2, name="person") as person,
    ):
        await person.device(rh.device_id).acquire_lease()
        report = await run_suite(runner, flows, [rh.device_id], SuiteOptions(lease_wait_s=0))
    assert [t.status for t in report.tests] == ["error", "error"]
    assert report.summary.errors == 2
    failure = report.tests[0].failure
    assert failure is not None and failure.kind == "lease"
    assert "leased by person" in failure.message

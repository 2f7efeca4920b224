"""An action found by a query whose element went away before it was acted on
(``STALE_NODE_REF``: a page reloaded, a list rebound) is sent again once the screen has
settled, a bounded number of times; an action given a ref is never sent again. The hub and
the simulated device are real; the refusal is injected in front of the real device."""

from __future__ import annotations

from typing import Any

import pytest

from bridge.client import Device, HubError, build_query, connect
from bridge.flows.runner import STALE_RETRIES, FlowRunner, StepFailed
from bridge.wire.action import ActionRequest
from bridge.wire.enums import ActionVerb, DispatchStatus, ErrorCode
from bridge.wire.errors import ErrorEnvelope
from tests.hub.hubfixture import CONTROLLER, running_hub

pytestmark = pytest.mark.anyio

STALE = ErrorEnvelope(
    error=ErrorCode.STALE_NODE_REF,
    message="the device no longer shows that element (NOT_FOUND)",
    recovery=("find the element again on the current screen",),
)


class StaleFirst:
    """The real device, except that its first ``stale`` actions are refused STALE."""

    def __init__(self, inner: Device, stale: int) -> None:
        self.inner = inner
        self.stale = stale
        self.acts = 0
        self.waits = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def act(self, request: ActionRequest, query: Any = None) -> Any:
        self.acts += 1
        if self.stale:
            self.stale -= 1
            raise HubError(STALE)
        return await self.inner.act(request, query=query)

    async def wait(self, condition: Any, timeout_ms: int | None = None) -> Any:
        self.waits += 1
        return await self.inner.wait(condition, timeout_ms)


async def test_a_query_is_sent_again_after_stale_and_a_ref_is_not() -> None:
    async with running_hub() as rh, connect(rh.url, token=CONTROLLER, name="stale") as hub:
        real = hub.device(rh.device_id)
        tap = ActionRequest(action=ActionVerb.CLICK)

        once = StaleFirst(real, 1)
        runner = FlowRunner(device=once, report_dir=None, slug="stale")  # type: ignore[arg-type]
        result = await runner._act(tap, build_query(text="Settings"))
        assert result.dispatch.status is DispatchStatus.DISPATCHED
        assert (once.acts, once.waits) == (2, 1)  # found again once the screen settled
        await real.back()

        always = StaleFirst(real, STALE_RETRIES + 1)
        runner = FlowRunner(device=always, report_dir=None, slug="stale")  # type: ignore[arg-type]
        with pytest.raises(StepFailed) as failed:
            await runner._act(tap, build_query(text="Settings"))
        assert failed.value.refusal is not None
        assert failed.value.refusal.code == "STALE_NODE_REF"
        assert always.acts == STALE_RETRIES + 1  # bounded

        match, _ = await real.find_one(build_query(text="Settings"))
        by_ref = StaleFirst(real, 1)
        runner = FlowRunner(device=by_ref, report_dir=None, slug="stale")  # type: ignore[arg-type]
        with pytest.raises(StepFailed):
            await runner._act(tap, None, match.ref)
        assert (by_ref.acts, by_ref.waits) == (1, 0)  # the ref is the intent: never re-found

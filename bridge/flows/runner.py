"""Running one checked flow (a test) on one device, step by step, into a ``TestReport``.

Rules:
- a test starts with its reset (``relaunch`` by default: the app opened afresh; ``clearState``:
  closed, then opened; ``none``), then the header's ``setup`` steps, then its steps;
- a step that fails stops the test (later steps are reported ``skipped``), never the suite;
- a step fails when the hub refuses it (NOT_FOUND, AMBIGUOUS_MATCH with candidates, STALE,
  POLICY_BLOCKED, ...), when its action was not dispatched, when a ``verify`` it carried was
  not met, or when the condition it asserts or waits for was not met in time;
- at the first failure the runner takes a screenshot (kept when there is a report directory);
- every step keeps its elapsed time and what the hub answered (ActionResult or WaitResult);
- the caller holds the device's lease for the whole test (``bridge.flows.suite``).
"""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import msgspec

from bridge.client import (
    ClientError,
    ConnectionLost,
    Device,
    HubError,
    ProtocolFailure,
    RequestTimeout,
)
from bridge.flows.compile import (
    Flow,
    Launch,
    NodeAction,
    OpenLink,
    Press,
    RunFlow,
    Scroll,
    ScrollUntil,
    Step,
    StopApp,
    TakeScreenshot,
    WaitUntil,
    describe,
)
from bridge.flows.errors import Place
from bridge.flows.report import (
    Candidate,
    EndScreen,
    Failure,
    Refusal,
    Shot,
    StepReport,
    TestReport,
)
from bridge.wire.action import ActionRequest, ActionResult, Verify
from bridge.wire.client_protocol import FindMatch
from bridge.wire.enums import (
    ActionVerb,
    AppAction,
    DispatchStatus,
    VerificationPolicy,
    VerificationResult,
)
from bridge.wire.noderef import (
    NodeRef,
    ResourceIdLocator,
    ResourceIdScopedLocator,
    RoleLabelAncestorLocator,
)
from bridge.wire.query import SemanticQuery

T = TypeVar("T")
SCROLL_VERIFY = Verify(policy=VerificationPolicy.COLLECTION_POSITION_CHANGED, timeout_ms=3000)
MARKER = re.compile(r"(?:^|[:/])__screen_(?P<name>.+)$")


class StepFailed(Exception):
    """A step's failure, with what the report shows about it."""

    def __init__(
        self,
        message: str,
        *,
        refusal: Refusal | None = None,
        result: ActionResult | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.refusal = refusal
        self.result = result


class TestAborted(Exception):
    """The device or the hub went away: the test cannot go on (status ``error``)."""


@dataclass
class FlowRunner:
    """Runs tests on ``device``; screenshots go under ``shots_dir`` (None: not kept)."""

    device: Device
    report_dir: Path | None
    slug: str
    suite_start: float = field(default_factory=time.monotonic)
    shots: list[Shot] = field(default_factory=list)
    failure: Failure | None = None

    async def run_test(self, flow: Flow) -> TestReport:
        started = time.monotonic()
        report = TestReport(
            name=flow.name,
            file=flow.file,
            device=self.device.id,
            status="passed",
            started_ms=_ms(started - self.suite_start),
        )
        try:
            ok = await self._reset(flow, report.setup)
            ok = ok and await self._run_steps(flow.setup, report.setup, ok)
            await self._run_steps(flow.steps, report.steps, ok)
            report.end_screen = await self._end_screen()
        except TestAborted as exc:
            report.status = "error"
            self.failure = self.failure or Failure(message=str(exc), at=flow.file, kind="device")
        if self.failure is not None and report.status == "passed":
            report.status = "failed"
        report.failure = self.failure
        report.screenshots = list(self.shots)
        report.duration_ms = _ms(time.monotonic() - started)
        return report

    # ---- steps -------------------------------------------------------------------------------

    async def _reset(self, flow: Flow, out: list[StepReport]) -> bool:
        reset = flow.header.reset
        if reset == "none":
            return True
        step = Step(
            kind="reset",
            place=Place(flow.file, 1),
            source=f"reset: {reset} {flow.app_id}",
            action=Launch(flow.app_id, clear_state=reset == "clearState"),
        )
        report = await self._run_step(step, 1)
        out.append(report)
        return report.status == "passed"

    async def _run_steps(self, steps: list[Step], out: list[StepReport], go: bool) -> bool:
        for index, step in enumerate(steps, 1):
            if not go:
                out.append(_skipped(step, index))
                continue
            report = await self._run_step(step, index)
            out.append(report)
            go = report.status == "passed"
        return go

    async def _run_step(self, step: Step, index: int) -> StepReport:
        report = StepReport(
            index=index,
            kind=step.kind,
            file=step.place.file,
            line=step.place.line,
            source=step.source,
            status="passed",
        )
        started = time.monotonic()
        try:
            await self._execute(step, report)
        except StepFailed as failed:
            report.status = "failed"
            report.message = failed.message
            report.refusal = failed.refusal
            report.action_result = failed.result or report.action_result
        except (ConnectionLost, RequestTimeout) as exc:
            report.status = "failed"
            report.message = f"{type(exc).__name__}: {exc}"
            report.elapsed_ms = _ms(time.monotonic() - started)
            self._fail(step, report, None)
            raise TestAborted(f"step {step.kind} at {step.place}: {report.message}") from exc
        report.elapsed_ms = _ms(time.monotonic() - started)
        if report.status == "failed" and step.kind != "runFlow":
            report.screenshot = await self._screenshot("failure", quiet=True)
            self._fail(step, report, report.screenshot)
        return report

    def _fail(self, step: Step, report: StepReport, shot: Shot | None) -> None:
        if self.failure is None:
            self.failure = Failure(
                message=f"{step.kind}: {report.message}",
                at=f"{step.place.file}:{step.place.line}",
                kind=step.kind,
                screenshot=shot,
            )

    async def _execute(self, step: Step, report: StepReport) -> None:
        action = step.action
        match action:
            case NodeAction():
                report.expected = f"{action.verb.value} on {describe(action.query)}"
                request = ActionRequest(
                    action=action.verb,
                    value=action.value,
                    value_ref=action.value_ref,
                    verify=action.verify,
                    allow_gesture_fallback=action.gesture_fallback,
                )
                report.action_result = await self._act(request, action.query)
            case Launch(app_id=app_id, clear_state=clear):
                if clear:
                    report.action_result = await self._app(AppAction.APP_CLOSE_UI, app_id)
                report.action_result = await self._app(AppAction.APP_OPEN, app_id)
            case StopApp(app_id=app_id):
                report.action_result = await self._app(AppAction.APP_CLOSE_UI, app_id)
            case OpenLink(uri=uri):
                report.action_result = await self._app(AppAction.APP_DEEP_LINK, None, uri)
            case Press(action=key):
                report.action_result = _checked(await self._call(self.device.global_action(key)))
            case Scroll(container=container, forward=forward):
                report.action_result = await self._scroll(container, forward, verify=None)
            case ScrollUntil():
                report.message = await self._scroll_until(action, report)
            case WaitUntil(condition=condition, timeout_ms=timeout, expect=expect):
                report.expected = expect
                waited = await self._call(self.device.wait(condition, timeout))
                report.wait_result = waited
                if waited.result is not VerificationResult.CONDITION_MET:
                    seen = "; ".join(_evidence(e) for e in waited.evidence[:4])
                    raise StepFailed(
                        f"expected {expect}: {waited.result.value} after {waited.elapsed_ms} ms"
                        + (f" ({seen})" if seen else "")
                    )
            case TakeScreenshot(name=name):
                shot = await self._screenshot(name, quiet=False)
                report.screenshot = shot
            case RunFlow(flow=flow):
                ok = await self._run_steps(flow.setup + flow.steps, report.steps, True)
                if not ok:
                    bad = next(s for s in report.steps if s.status == "failed")
                    raise StepFailed(f"{flow.file} failed at line {bad.line} ({bad.kind})")

    async def _call(self, awaitable: Awaitable[T]) -> T:
        """Await a client call; refusals and protocol failures become StepFailed."""
        try:
            return await awaitable
        except HubError as exc:
            raise StepFailed(
                f"{exc.code.value}: {exc.envelope.message}", refusal=_refusal(exc)
            ) from None
        except ProtocolFailure as exc:
            raise StepFailed(f"{exc.code.value}: {exc.message}") from None

    async def _act(
        self, request: ActionRequest, query: SemanticQuery | None, ref: NodeRef | None = None
    ) -> ActionResult:
        if ref is not None:
            request = msgspec.structs.replace(request, target=ref)
            query = None
        result: ActionResult = await self._call(self.device.act(request, query=query))
        return _checked(result)

    async def _app(
        self, action: AppAction, app_id: str | None, uri: str | None = None
    ) -> ActionResult:
        result: ActionResult = await self._call(self.device.app(action, app_id, uri))
        return _checked(result)

    async def _scroll(
        self, container: SemanticQuery | None, forward: bool, verify: Verify | None
    ) -> ActionResult:
        verb = ActionVerb.SCROLL_FORWARD if forward else ActionVerb.SCROLL_BACKWARD
        request = ActionRequest(action=verb, verify=verify)
        if container is not None:
            return await self._act(request, container)
        match = await self._only_scrollable()
        return await self._act(request, None, match.ref)

    async def _only_scrollable(self) -> FindMatch:
        """The screen's only scrollable container (a step that names none needs exactly one)."""
        snapshot = (await self._call(self.device.snapshot(compact=False))).snapshot
        found = [
            n
            for n in snapshot.nodes
            if ActionVerb.SCROLL_FORWARD in n.actions or ActionVerb.SCROLL_BACKWARD in n.actions
        ]
        if len(found) != 1:
            listed = ", ".join(f"{n.role.value} {n.resource_id or n.node_id}" for n in found[:6])
            what = f"{len(found)} scrollable containers ({listed})" if found else "nothing"
            raise StepFailed(f"the screen has {what} to scroll; name the container with 'in:'")
        node = found[0]
        matches = await self._call(self.device.find(SemanticQuery(role=node.role)))
        for match in matches.matches:
            if match.node.node_id == node.node_id:
                return match
        raise StepFailed("the scrollable container changed while looking for it")

    async def _scroll_until(self, action: ScrollUntil, report: StepReport) -> str:
        report.expected = f"{describe(action.element)} present"
        element = action.element
        if element.first_visible is None:  # on screen, not merely in the tree
            element = msgspec.structs.replace(element, first_visible=True)
        for scrolls in range(action.max_scrolls + 1):
            found = await self._call(self.device.find(element))
            if found.matches:
                return f"found after {scrolls} scroll{'s' if scrolls != 1 else ''}"
            if scrolls == action.max_scrolls:
                break
            try:
                report.action_result = await self._scroll(
                    action.container, action.forward, SCROLL_VERIFY
                )
            except StepFailed as exc:
                raise StepFailed(
                    f"{describe(action.element)} not found after {scrolls} scrolls; "
                    f"the next scroll failed: {exc.message}",
                    refusal=exc.refusal,
                    result=exc.result,
                ) from None
        raise StepFailed(
            f"{describe(action.element)} not found after {action.max_scrolls} scrolls (maxScrolls)"
        )

    # ---- captures ----------------------------------------------------------------------------

    async def _screenshot(self, name: str, *, quiet: bool) -> Shot | None:
        """Capture the screen; kept under the report directory when there is one. ``quiet``:
        a failure to capture (the device is gone) gives None instead of failing the step."""
        try:
            result = await self.device.screenshot()
            png = await self.device.fetch_screenshot(result)
        except ClientError as exc:
            if quiet:
                return None
            raise StepFailed(f"screenshot failed: {exc}") from None
        file = ""
        if self.report_dir is not None:
            rel = Path("screenshots") / self.slug / f"{name}.png"
            target = self.report_dir / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(png)
            file = rel.as_posix()
        shot = Shot(name=name, file=file, width=result.width, height=result.height, bytes=len(png))
        self.shots.append(shot)
        return shot

    async def _end_screen(self) -> EndScreen | None:
        try:
            got = await self.device.snapshot(compact=False)
        except ClientError:
            return None
        snap = got.snapshot
        markers: list[str] = []
        for node in snap.nodes:
            for ident in (node.resource_id, node.automation_id):
                found = MARKER.search(ident or "")
                if found and found.group("name") not in markers:
                    markers.append(found.group("name"))
        return EndScreen(
            app_id=snap.app_id,
            screen_state_id=snap.screen_state_id,
            snapshot_id=snap.snapshot_id,
            markers=markers,
        )


def _checked(result: ActionResult) -> ActionResult:
    """``result``, or StepFailed when it was not dispatched or its verification not met."""
    if result.dispatch.status is not DispatchStatus.DISPATCHED:
        raise StepFailed(f"the action was {result.dispatch.status.value}", result=result)
    verification = result.verification
    if verification is not None and verification.result is not VerificationResult.CONDITION_MET:
        seen = "; ".join(_evidence(e) for e in verification.evidence[:4])
        policy = verification.predicate.policy
        raise StepFailed(
            f"verification {policy.value if policy else ''} {verification.result.value}".replace(
                "  ", " "
            )
            + (f" ({seen})" if seen else ""),
            result=result,
        )
    return result


def _evidence(e: object) -> str:
    what = getattr(e, "what", "")
    observed = getattr(e, "observed", None)
    expected = getattr(e, "expected", None)
    parts = [str(what)]
    if observed is not None:
        parts.append(f"saw {observed!r}")
    if expected is not None:
        parts.append(f"wanted {expected!r}")
    return " ".join(parts)


def _refusal(exc: HubError) -> Refusal:
    return Refusal(
        code=exc.code.value,
        message=exc.envelope.message,
        recovery=list(exc.envelope.recovery),
        candidates=[_candidate(ref) for ref in exc.envelope.candidates],
    )


def _candidate(ref: NodeRef) -> Candidate:
    candidate = Candidate(node_id=ref.node_id)
    for locator in ref.locators:
        if isinstance(locator, RoleLabelAncestorLocator) and candidate.role is None:
            candidate.role = locator.role.value
            candidate.label = locator.label
            candidate.where = locator.ancestor
        elif isinstance(locator, ResourceIdLocator | ResourceIdScopedLocator):
            candidate.resource_id = candidate.resource_id or locator.value
    return candidate


def _skipped(step: Step, index: int) -> StepReport:
    return StepReport(
        index=index,
        kind=step.kind,
        file=step.place.file,
        line=step.place.line,
        source=step.source,
        status="skipped",
    )


def _ms(seconds: float) -> int:
    return max(0, round(seconds * 1000))

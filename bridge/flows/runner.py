"""Running one checked flow (a test) on one device, step by step, into a ``TestReport``.

Rules:
- a test starts with its reset (``relaunch`` by default: the app opened afresh; ``clearState``:
  its data cleared with ``app.clear``, then opened — a device that cannot clear fails the test
  with the hub's reason; ``none``), then the header's ``setup`` steps, then its steps;
- a test runs its reset, ``onFlowStart``, ``setup``, its steps, then ``onFlowComplete`` (always:
  after a failure and after the header's ``timeout`` too);
- a step that fails stops the test (later steps are reported ``skipped``), never the suite,
  unless it is ``optional`` (reported ``tolerated``); a step whose ``when`` does not hold is
  ``skipped`` and the test goes on;
- blocks: ``repeat`` (times / while, at most ``MAX_TIMES``), ``retry`` (the block again from its
  first step), ``expectRefusal`` (passes only when the hub refuses one of its steps with the
  code), ``runFlow`` with ``commands``;
- a step fails when the hub refuses it (NOT_FOUND, AMBIGUOUS_MATCH with candidates, STALE,
  POLICY_BLOCKED, ...), when its action was not dispatched, when a ``verify`` it carried was
  not met, or when the condition it asserts or waits for was not met in time;
- at the first failure the runner takes a screenshot (kept when there is a report directory);
- every step keeps its elapsed time and what the hub answered (ActionResult or WaitResult);
- the caller holds the device's lease for the whole test (``bridge.flows.suite``).
"""

from __future__ import annotations

import math
import re
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

import anyio
import msgspec
import re2

from bridge.client import (
    ClientError,
    ConfirmationRequired,
    ConnectionLost,
    Device,
    HubError,
    ProtocolFailure,
    RequestTimeout,
)
from bridge.flows import formats
from bridge.flows.compile import (
    AppManage,
    AssertLog,
    Block,
    Capability,
    Flow,
    KeyPressed,
    Launch,
    NodeAction,
    OpenLink,
    PointGesture,
    Press,
    Recording,
    RunFlow,
    Scroll,
    ScrollUntil,
    SetOrientation,
    Step,
    StopApp,
    SwipeAt,
    TakeScreenshot,
    TypeFocused,
    WaitUntil,
    When,
    describe,
)
from bridge.flows.crop import crop_png
from bridge.flows.errors import Place
from bridge.flows.maestro.actions import MaestroAction
from bridge.flows.maestro.script import ScriptError, ScriptHost
from bridge.flows.model import MAX_TIMES
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
from bridge.wire.client_protocol import Confirm, FindMatch
from bridge.wire.conditions import Stable
from bridge.wire.device_media import LOG_LEVELS, LogLine
from bridge.wire.enums import (
    ActionVerb,
    AppAction,
    DispatchStatus,
    ErrorCode,
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
TEARDOWN_CAP_S = 120.0
MAX_LOG_LINES = 5000
"""Log lines an assertLog may look back on (the newest)."""
"""How long ``onFlowComplete`` may take (it runs shielded, even when the test timed out)."""
SWIPE_SHARE = 0.3


STALE_RETRIES = 3
"""How many times an action found by a query is sent again after ``STALE_NODE_REF``."""
STALE_SETTLE_MS = 3_000
"""How long to wait for the screen to settle before each of those attempts."""


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
    platform: str | None = None
    """The device's platform in lower case (``android``, ``ios``), for ``when: {platform}``."""
    current: Step | None = None
    """The top-level step running now (a timeout names it)."""
    log_lines: deque[LogLine] = field(default_factory=lambda: deque(maxlen=MAX_LOG_LINES))
    """The device's log since the test began (kept only for a flow with ``assertLog``)."""
    log_grew: anyio.Event | None = None
    recording: tuple[str, str] | None = None
    """(name, hub recording id) of the running ``startRecording``."""
    first_match: bool = False
    """``--first-match``: a Maestro selector that matches several elements acts on the first
    (document order) instead of being refused; each such choice is noted on its step."""
    js: ScriptHost | None = None
    """The test's JavaScript host (Maestro flows; made when the test starts)."""
    variables: dict[str, str] = field(default_factory=dict)
    """``--env`` values (a Maestro flow's JavaScript sees them as globals)."""
    allow_http: bool = False
    """Maestro scripts may call ``http`` (loopback only; ``--allow-http``)."""

    async def _collect_logs(self, task_status: anyio.abc.TaskStatus[None]) -> None:
        async with self.device.logs() as events:
            task_status.started()
            async for event in events:
                self.log_lines.extend(event.lines)
                if self.log_grew is not None:
                    self.log_grew.set()

    async def run_test(self, flow: Flow) -> TestReport:
        started = time.monotonic()
        report = TestReport(
            name=flow.name,
            file=flow.file,
            device=self.device.id,
            status="passed",
            started_ms=_ms(started - self.suite_start),
            tags=list(flow.header.tags),
        )
        limit = flow.timeout_s
        self.log_lines.clear()
        self.js = None
        foreign = formats.named("maestro") if flow.maestro else None
        if foreign is not None:
            self.js = foreign.start(self, flow)
            if flow.header.name and "${" in flow.header.name:  # Maestro: JavaScript there too
                try:
                    report.name = self.js.interpolate(flow.header.name, flow.file, 1) or flow.name
                except ScriptError:
                    pass
        async with anyio.create_task_group() as logs:
            if _uses_logs([*flow.on_start, *flow.setup, *flow.steps]):
                try:
                    await logs.start(self._collect_logs)
                except ClientError as exc:
                    self.failure = Failure(
                        message=f"assertLog needs the device log: {exc}",
                        at=flow.file,
                        kind="device",
                    )
            report = await self._run_test(flow, report, limit, started)
            logs.cancel_scope.cancel()
        return report

    async def _run_test(
        self, flow: Flow, report: TestReport, limit: float | None, started: float
    ) -> TestReport:
        try:
            with anyio.move_on_after(math.inf if limit is None else limit) as timer:
                ok = await self._reset(flow, report.setup)
                ok = await self.run_steps(
                    flow.on_start, report.setup, ok, top=True, first=len(report.setup) + 1
                )
                ok = await self.run_steps(
                    flow.setup, report.setup, ok, top=True, first=len(report.setup) + 1
                )
                await self.run_steps(flow.steps, report.steps, ok, top=True)
            if timer.cancelled_caught:
                now = self.current
                where = f"{now.place.file}:{now.place.line}" if now is not None else flow.file
                self.failure = self.failure or Failure(
                    message=f"the test timed out after {limit:g} s (timeout)",
                    at=where,
                    kind="timeout",
                )
            report.end_screen = await self.end_screen()
        except TestAborted as exc:
            report.status = "error"
            self.failure = self.failure or Failure(message=str(exc), at=flow.file, kind="device")
        if flow.on_complete and report.status != "error":
            with anyio.CancelScope(shield=True), anyio.move_on_after(TEARDOWN_CAP_S):
                try:
                    await self.run_steps(flow.on_complete, report.teardown, True, top=True)
                except TestAborted as exc:
                    report.status = "error"
                    self.failure = self.failure or Failure(
                        message=str(exc), at=flow.file, kind="device"
                    )
        if self.recording is not None:
            with anyio.CancelScope(shield=True), anyio.move_on_after(TEARDOWN_CAP_S):
                try:
                    await self._stop_recording()
                except StepFailed:
                    pass
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
        if report.status == "failed":
            await self.record_failure(report)
        return report.status == "passed"

    async def run_steps(
        self,
        steps: list[Step],
        out: list[StepReport],
        go: bool,
        *,
        top: bool = False,
        first: int = 1,
    ) -> bool:
        """Run ``steps`` into ``out`` (numbered from ``first``); False once one failed (the
        rest are ``skipped``). ``top``: steps of the test itself, whose first failure is the
        test's failure."""
        for index, step in enumerate(steps, first):
            if not go:
                out.append(_skipped(step, index))
                continue
            if top:
                self.current = step
            report = await self.run_step(step, index)
            out.append(report)
            if report.status == "failed":
                go = False
                if top:
                    await self.record_failure(report)
        return go

    async def run_step(self, step: Step, index: int) -> StepReport:
        """One step, its ``when`` and ``optional`` included (a failure is not yet the test's:
        the caller decides, see ``record_failure``)."""
        if step.when is not None:
            try:
                holds = await self._holds(step.when)
            except StepFailed as failed:
                report = _skipped(step, index)
                report.status = "failed"
                report.message = f"when ({step.when.said}): {failed.message}"
                report.refusal = failed.refusal
                return report
            if not holds:
                report = _skipped(step, index)
                report.message = f"when ({step.when.said}) does not hold"
                return report
        report = await self._run_step(step, index)
        if step.optional:
            report.optional = True
            if report.status == "failed":
                report.status = "tolerated"
        return report

    async def record_failure(self, report: StepReport) -> None:
        """The test's failure: the innermost failed step of ``report``, with a screenshot."""
        if self.failure is not None:
            return
        inner = _innermost(report)
        shot = await self._screenshot("failure", quiet=True)
        report.screenshot = report.screenshot or shot
        self.failure = Failure(
            message=f"{inner.kind}: {inner.message}",
            at=f"{inner.file}:{inner.line}",
            kind=inner.kind,
            screenshot=shot,
        )

    async def _holds(self, when: When) -> bool:
        if when.truth is not None and not when.truth:
            return False
        if when.script is not None:
            host = self.script_host()
            try:
                if not host.truth(host.interpolate(when.script, "when", 1)):
                    return False
            except ScriptError as exc:
                raise StepFailed(f"when: {exc.message}") from None
        if when.platform is not None and when.platform != self.platform:
            return False
        if when.visible is not None:
            found = await self._call(self.device.find(when.visible))
            if not found.matches:
                return False
        if when.not_visible is not None:
            found = await self._call(self.device.find(when.not_visible))
            if found.matches:
                return False
        return True

    def script_host(self) -> ScriptHost:
        """The test's JavaScript host (made on first use for a mobridge flow that runs a
        Maestro one)."""
        if self.js is None:
            self.js = ScriptHost(
                platform=self.platform or "", variables=self.variables, allow_http=self.allow_http
            )
        return self.js

    async def _run_step(self, step: Step, index: int) -> StepReport:
        report = StepReport(
            index=index,
            kind=step.kind,
            file=step.place.file,
            line=step.place.line,
            source=step.source,
            status="passed",
            label=step.label,
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
            if self.failure is None:
                self.failure = Failure(
                    message=f"{step.kind}: {report.message}",
                    at=f"{step.place.file}:{step.place.line}",
                    kind=step.kind,
                )
            raise TestAborted(f"step {step.kind} at {step.place}: {report.message}") from exc
        report.elapsed_ms = _ms(time.monotonic() - started)
        return report

    async def _block(self, block: Block, report: StepReport) -> None:
        if block.refusal is not None:
            await self._expect_refusal(block.refusal, block.steps, report)
            return
        if block.max_retries:
            failures: list[str] = []
            for attempt in range(1, block.max_retries + 2):
                report.steps = []
                if await self.run_steps(block.steps, report.steps, True):
                    report.message = f"passed on attempt {attempt} of {block.max_retries + 1}"
                    if failures:
                        report.message += f" (before: {'; '.join(failures)[:400]})"
                    return
                bad = _innermost_of(report.steps)
                failures.append(f"#{attempt} line {bad.line}: {bad.message}")
            raise StepFailed(
                f"failed {block.max_retries + 1} attempts (maxRetries {block.max_retries}); "
                f"last: {failures[-1]}",
                refusal=_innermost_of(report.steps).refusal,
            )
        if block.times is None and block.while_ is None:  # runFlow with commands
            if not await self.run_steps(block.steps, report.steps, True):
                bad = _innermost_of(report.steps)
                raise StepFailed(
                    f"commands failed at line {bad.line} ({bad.kind})", refusal=bad.refusal
                )
            return
        cap = block.times or MAX_TIMES
        if block.times_script is not None:
            host = self.script_host()
            try:
                said = host.interpolate(block.times_script, "repeat", 1)
                cap = min(max(int(float(said)), 0), MAX_TIMES)
            except (ScriptError, ValueError) as exc:
                raise StepFailed(f"repeat times {block.times_script!r}: {exc}") from None
        done = 0
        while done < cap:
            if block.while_ is not None and not await self._holds(block.while_):
                break
            report.steps = []
            if not await self.run_steps(block.steps, report.steps, True):
                bad = _innermost_of(report.steps)
                raise StepFailed(
                    f"iteration {done + 1} failed at line {bad.line} ({bad.kind})",
                    refusal=bad.refusal,
                )
            done += 1
        else:
            if block.times is None:
                raise StepFailed(
                    f"while ({block.while_.said if block.while_ else ''}) still held after "
                    f"{MAX_TIMES} iterations"
                )
        report.message = f"ran {done} time{'s' if done != 1 else ''}"

    async def _expect_refusal(self, code: ErrorCode, steps: list[Step], report: StepReport) -> None:
        for index, step in enumerate(steps, 1):
            got = await self.run_step(step, index)
            report.steps.append(got)
            if got.status != "failed":
                continue
            inner = _innermost(got)
            for rest, later in enumerate(steps[index:], index + 1):
                report.steps.append(_skipped(later, rest))
            if inner.refusal is not None and inner.refusal.code == code.value:
                inner.status = "refused"
                if got is not inner:
                    got.status = "refused"
                report.message = f"refused as expected: {code.value}: {inner.refusal.message}"
                report.refusal = inner.refusal
                return
            seen = inner.refusal.code if inner.refusal is not None else "no refusal"
            raise StepFailed(
                f"expected the hub to refuse with {code.value}; line {inner.line} failed "
                f"otherwise ({seen}): {inner.message}",
                refusal=inner.refusal,
            )
        raise StepFailed(f"expected the hub to refuse with {code.value}; every step passed")

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
                if clear:  # the app's data goes (app.clear), never a terminate in its place
                    try:
                        report.action_result = await self._manage(
                            AppManage("clear", app_id, approve=True)
                        )
                    except StepFailed as failed:
                        raise StepFailed(
                            f"clearState needs the hub to clear {app_id}'s data (app.clear): "
                            f"{failed.message}",
                            refusal=failed.refusal,
                            result=failed.result,
                        ) from None
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
                ok = await self.run_steps(flow.setup + flow.steps, report.steps, True)
                if not ok:
                    bad = _innermost_of(report.steps)
                    raise StepFailed(
                        f"{flow.file} failed at line {bad.line} ({bad.kind})", refusal=bad.refusal
                    )
            case Block():
                await self._block(action, report)
            case PointGesture(kind=kind, x=x, y=y, hold_ms=hold):
                report.expected = f"{kind.value} at {x},{y}"
                report.action_result = _checked(
                    await self._call(self.device.gesture(kind, [(x, y)], duration_ms=hold))
                )
            case SwipeAt():
                report.action_result = await self._swipe_at(action)
            case TypeFocused(text=text, value_ref=ref, submit=submit):
                report.expected = "typed into the focused input"
                report.action_result = _checked(
                    await self._call(self.device.type_focused(text, value_ref=ref, submit=submit))
                )
            case KeyPressed(key=key):
                report.action_result = _checked(await self._call(self.device.press_key(key)))
            case SetOrientation(orientation=orientation):
                report.action_result = _checked(
                    await self._call(self.device.set_orientation(orientation))
                )
            case AppManage():
                report.action_result = await self._manage(action)
            case Capability():
                report.action_result = await self._capability(action)
            case AssertLog():
                report.expected = f"a log line matching {action.grep!r}"
                report.message = await self._assert_log(action)
            case Recording(name=name) if name is not None:
                if self.recording is not None:
                    raise StepFailed(f"recording {self.recording[0]!r} runs: stopRecording first")
                started = await self._call(self.device.start_recording())
                self.recording = (name, started.recording)
                report.message = f"recording {name} ({started.source})"
            case Recording():
                report.message = await self._stop_recording()
            case MaestroAction():
                fmt = formats.executing(action)
                if fmt is None:
                    raise StepFailed(
                        f"{step.kind}: no runner for Maestro commands is installed in this "
                        "process (bridge.flows.maestro.format.install)"
                    )
                await fmt.execute(self, step, action, report)

    async def _assert_log(self, action: AssertLog) -> str:
        try:
            pattern = re2.compile(action.grep)
        except re2.error as exc:
            raise StepFailed(
                f"assertLog grep {action.grep!r}: not a valid RE2 pattern ({exc})"
            ) from None
        least = LOG_LEVELS.index(action.level) if action.level else 0

        def found() -> LogLine | None:
            for line in reversed(self.log_lines):
                if action.app is not None and line.app != action.app:
                    continue
                if LOG_LEVELS.index(line.level) < least:
                    continue
                if pattern.search(line.text) is not None:
                    return line
            return None

        wait_s = (action.timeout_ms if action.timeout_ms is not None else 5000) / 1000
        with anyio.move_on_after(wait_s):
            while (line := found()) is None:
                self.log_grew = anyio.Event()
                await self.log_grew.wait()
            return f"log: {line.text}"
        raise StepFailed(
            f"no log line matched {action.grep!r} within {wait_s:g} s "
            f"({len(self.log_lines)} lines seen since the test began)"
        )

    async def _stop_recording(self) -> str:
        if self.recording is None:
            raise StepFailed("stopRecording without a startRecording")
        name, recording = self.recording
        self.recording = None
        stopped = await self._call(self.device.stop_recording(recording))
        data = await self._call(self.device.read_recording(recording))
        where = ""
        if self.report_dir is not None:
            target = self.report_dir / "recordings" / self.slug / f"{name}.mp4"
            await anyio.Path(target.parent).mkdir(parents=True, exist_ok=True)
            await anyio.Path(target).write_bytes(data)
            where = f" -> {target.relative_to(self.report_dir).as_posix()}"
        return (
            f"recording {name}: {stopped.frames} frames, {stopped.duration_ms} ms, "
            f"{len(data)} bytes{where}"
        )

    async def _swipe_at(self, action: SwipeAt) -> ActionResult:
        shown = await self._call(self.device.display())
        horizontal = action.direction in ("left", "right")
        span = action.distance or int((shown.width if horizontal else shown.height) * SWIPE_SHARE)
        dx, dy = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}[action.direction]
        end = (
            min(max(action.x + dx * span, 0), max(shown.width - 1, 0)),
            min(max(action.y + dy * span, 0), max(shown.height - 1, 0)),
        )
        return _checked(await self._call(self.device.swipe_on_screen([(action.x, action.y), end])))

    async def _manage(self, action: AppManage) -> ActionResult:
        """terminate / clear / install / uninstall; with ``approve``, a confirmation the hub
        asks for is answered (the flow's author said yes when writing ``approve: true``)."""

        uploaded: str | None = None

        async def once(confirm: Confirm | None) -> ActionResult:
            nonlocal uploaded
            match action.what:
                case "terminate":
                    return await self.device.terminate_app(action.subject, confirm=confirm)
                case "clear":
                    return await self.device.clear_app(action.subject, confirm=confirm)
                case "install":
                    return await self.device.install_app(
                        action.subject, sha256=action.sha256, confirm=confirm
                    )
                case "install-file":
                    if uploaded is None:
                        uploaded = await self._upload(action)
                    return await self.device.install_upload(uploaded, confirm=confirm)
            return await self.device.uninstall_app(action.subject, confirm=confirm)

        try:
            return _checked(await once(None))
        except ConfirmationRequired as exc:
            objection = exc.objection
            if not action.approve or objection is None or not objection.answerable:
                raise StepFailed(
                    f"{exc.code.value}: {exc.envelope.message} (write approve: true to answer it)",
                    refusal=_refusal(exc),
                ) from None
            confirm = Confirm(objection=objection.id, answer="approve")
            return _checked(await self._call(once(confirm)))
        except HubError as exc:
            raise StepFailed(
                f"{exc.code.value}: {exc.envelope.message}", refusal=_refusal(exc)
            ) from None

    async def _upload(self, action: AppManage) -> str:
        try:
            return await self.device.upload_file(action.subject, sha256=action.sha256)
        except ValueError as exc:
            raise StepFailed(f"installApp: {exc}") from None

    async def _capability(self, action: Capability) -> ActionResult | None:
        """A device-capability step (``Capability``); a permission grant's confirmation is
        answered only with ``approve: true``; the two asserts poll the hub's reads."""
        dev = self.device
        match action.what:
            case "assertAlert" | "assertClipboard":
                await self._read_until(action)
                return None
            case "setPermission":
                act, perm = action.text or "grant", action.permission or ""
                app = action.subject or ""

                async def ask(confirm: Confirm | None) -> ActionResult:
                    return await dev.permission(act, app, perm, confirm=confirm)

                return await self._approved(ask, action.approve)
            case "alert":
                call = dev.answer_alert(action.text, button=action.button)
            case "setLocation":
                assert action.latitude is not None and action.longitude is not None
                call = dev.set_location(action.latitude, action.longitude)
            case "clearLocation":
                call = dev.clear_location()
            case "pinch":
                call = dev.pinch(action.scale, query=action.query, at=action.point)
            case "twoFingerTap":
                call = dev.two_finger_tap(query=action.query, at=action.point)
            case "setClipboard":
                call = dev.set_clipboard(action.text, value_ref=action.secret)
            case _:
                call = dev.hide_keyboard()
        return _checked(await self._call(call))

    async def _read_until(self, action: Capability) -> None:
        """``assertAlert`` / ``assertClipboard``: read until it holds or the time is up."""
        budget = (action.timeout_ms if action.timeout_ms is not None else 5000) / 1000
        deadline = time.monotonic() + budget
        wanted = action.text
        while True:
            if action.what == "assertAlert":
                shown = (await self._call(self.device.alerts())).alerts
                titles = [a.title for a in shown]
                if shown and (wanted is None or any(wanted in t for t in titles)):
                    return
                seen = f"alerts on screen: {titles}" if titles else "no alert on screen"
            else:
                text = await self._call(self.device.clipboard())
                if text == wanted:
                    return
                seen = f"the clipboard holds {len(text)} character(s), not the expected text"
            if time.monotonic() >= deadline:
                expect = f"an alert {wanted!r}" if action.what == "assertAlert" else "the text"
                raise StepFailed(f"expected {expect} within {budget:g} s; {seen}")
            await anyio.sleep(0.2)

    async def _approved(
        self, once: Callable[[Confirm | None], Awaitable[ActionResult]], approve: bool
    ) -> ActionResult:
        """``once(None)``; a confirmation the hub asks for is answered when ``approve``."""
        try:
            return _checked(await once(None))
        except ConfirmationRequired as exc:
            objection = exc.objection
            if not approve or objection is None or not objection.answerable:
                raise StepFailed(
                    f"{exc.code.value}: {exc.envelope.message} (write approve: true to answer it)",
                    refusal=_refusal(exc),
                ) from None
            confirm = Confirm(objection=objection.id, answer="approve")
            return _checked(await self._call(once(confirm)))
        except HubError as exc:
            raise StepFailed(
                f"{exc.code.value}: {exc.envelope.message}", refusal=_refusal(exc)
            ) from None

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
        """Acts on what ``query`` finds (or on ``ref``). When the element the hub found went
        away before it was acted on (``STALE_NODE_REF``: a page reloaded, a list rebound), the
        query is sent again once the screen has settled, up to ``STALE_RETRIES`` times — the
        query is the step's intent, so finding it again on the new screen is not a guess. A
        step given a ref is never retried (the ref is the intent)."""
        if ref is not None:
            request = msgspec.structs.replace(request, target=ref)
            query = None
        for attempt in range(STALE_RETRIES + 1):
            try:
                result: ActionResult = await self._call(self.device.act(request, query=query))
            except StepFailed as exc:
                stale = exc.refusal is not None and exc.refusal.code == "STALE_NODE_REF"
                if query is None or not stale or attempt == STALE_RETRIES:
                    raise
                await self._settled(STALE_SETTLE_MS)
                continue
            return _checked(result)
        raise AssertionError("unreachable")  # the loop returns or raises

    async def _settled(self, timeout_ms: int) -> None:
        """Wait (bounded) until the screen has not changed for a moment; a wait that ends
        unmet is not a failure (the next attempt says what is wrong)."""
        try:
            await self.device.wait(Stable(for_ms=300), timeout_ms=timeout_ms)
        except (HubError, ProtocolFailure):
            pass

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

    async def _screenshot(
        self,
        name: str,
        *,
        quiet: bool,
        crop: tuple[tuple[int, int, int, int], int, int] | None = None,
    ) -> Shot | None:
        """Capture the screen; kept under the report directory when there is one. ``quiet``:
        a failure to capture (the device is gone) gives None instead of failing the step.
        ``crop``: bounds on a screen of the given width and height; the picture is cut to
        them (scaled to the picture's size)."""
        try:
            result = await self.device.screenshot()
            png = await self.device.fetch_screenshot(result)
        except ClientError as exc:
            if quiet:
                return None
            raise StepFailed(f"screenshot failed: {exc}") from None
        if crop is not None:
            try:
                png, size = crop_png(png, *crop)
            except ValueError as exc:
                raise StepFailed(f"cropOn: {exc}") from None
            result = msgspec.structs.replace(result, width=size[0], height=size[1])
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

    async def end_screen(self) -> EndScreen | None:
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


def _innermost(report: StepReport) -> StepReport:
    """The deepest failed step under ``report`` (itself when none of its steps failed)."""
    for inner in report.steps:
        if inner.status == "failed":
            return _innermost(inner)
    return report


def _innermost_of(reports: list[StepReport]) -> StepReport:
    bad = next((r for r in reports if r.status == "failed"), reports[-1])
    return _innermost(bad)


def _skipped(step: Step, index: int) -> StepReport:
    return StepReport(
        index=index,
        kind=step.kind,
        file=step.place.file,
        line=step.place.line,
        source=step.source,
        status="skipped",
        label=step.label,
    )


def _ms(seconds: float) -> int:
    return max(0, round(seconds * 1000))


def _uses_logs(steps: list[Step]) -> bool:
    """Whether any step (nested flows and blocks included) is an ``assertLog``."""
    for step in steps:
        match step.action:
            case AssertLog():
                return True
            case RunFlow(flow=flow):
                if _uses_logs([*flow.setup, *flow.steps]):
                    return True
            case Block(steps=inner):
                if _uses_logs(inner):
                    return True
    return False

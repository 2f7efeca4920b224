"""The suite report: typed (``SuiteReport``, written as ``index.json``; its JSON Schema is
generated into ``protocol/flows/report.schema.json``) and the files beside it.

A report directory holds ``index.json``, ``index.html`` (one self-contained page: styles and
screenshots inline, nothing fetched) and ``screenshots/<test>/<name>.png``. Paths inside the
report are relative to the directory, so it can be moved or archived as a whole.

Invariants: tests appear in suite order (lexical by file), whichever device ran them;
``summary`` counts agree with ``tests``; a failed test names its failing step and, when the
device could still be reached, a screenshot taken at the failure. Typed values and secrets
never appear: steps are quoted as written (``${VAR}`` unexpanded), and ActionResults come from
the hub, which never echoes a typed value.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import msgspec

from bridge.wire.action import ActionResult
from bridge.wire.client_protocol import WaitResult

REPORT_SCHEMA_VERSION: Literal[1] = 1
StepStatus = Literal["passed", "failed", "skipped", "tolerated", "refused"]
"""``tolerated``: an ``optional`` step that failed (the test went on); ``refused``: a step the
hub refused the way its ``expectRefusal`` block expected; ``skipped``: not run (after a
failure, or its ``when`` did not hold: ``message`` says which)."""
TestStatus = Literal["passed", "failed", "error"]


class ReportStruct(msgspec.Struct, rename="camel", forbid_unknown_fields=True):
    pass


class Candidate(ReportStruct):
    """One of several nodes an AMBIGUOUS_MATCH refusal named (from its NodeRef)."""

    node_id: str
    role: str | None = None
    label: str | None = None
    where: str | None = None
    """What tells it apart (the ref's ancestor scope: ``id:...|text:Basic plan|nth:1/2``)."""
    resource_id: str | None = None


class Refusal(ReportStruct):
    """The hub's refusal of a step (the reference error envelope, summarized)."""

    code: str
    message: str
    recovery: list[str] = msgspec.field(default_factory=list)
    candidates: list[Candidate] = msgspec.field(default_factory=list)


class Shot(ReportStruct):
    name: str
    file: str
    """Relative to the report directory (``screenshots/<test>/<name>.png``); empty when the
    run wrote no report directory."""
    width: int
    height: int
    bytes: int


class StepReport(ReportStruct):
    index: int
    """1-based position in its list (setup, steps, or a runFlow's steps)."""
    kind: str
    file: str
    line: int
    source: str
    """The step as written (variables not expanded)."""
    status: StepStatus
    elapsed_ms: int = 0
    message: str | None = None
    """What happened, in words (always set for a failure)."""
    expected: str | None = None
    action_result: ActionResult | None = None
    wait_result: WaitResult | None = None
    refusal: Refusal | None = None
    screenshot: Shot | None = None
    steps: list[StepReport] = msgspec.field(default_factory=list)
    """The steps of the flow a runFlow step ran, or of a block (repeat, retry: the last
    iteration or attempt)."""
    optional: bool = False
    label: str | None = None
    """The step's name (Maestro's ``label``), shown instead of its source."""
    notes: list[str] = msgspec.field(default_factory=list)
    """Choices the runner made for the step (``--first-match``: which of several matches)."""


class Failure(ReportStruct):
    message: str
    at: str
    """``file:line`` of the step that failed (the innermost, for a runFlow)."""
    kind: str
    screenshot: Shot | None = None


class EndScreen(ReportStruct):
    """The screen when the test ended."""

    screen_state_id: str
    snapshot_id: str
    app_id: str | None = None
    markers: list[str] = msgspec.field(default_factory=list)
    """Screen markers displayed (``__screen_<name>`` ids): the screen's names."""


class TestReport(ReportStruct):
    name: str
    file: str
    device: str | None
    status: TestStatus
    started_ms: int = 0
    """When it started, counted from the suite's start."""
    duration_ms: int = 0
    setup: list[StepReport] = msgspec.field(default_factory=list)
    """The reset (relaunch or clearState), the onFlowStart hook and the header's setup."""
    steps: list[StepReport] = msgspec.field(default_factory=list)
    teardown: list[StepReport] = msgspec.field(default_factory=list)
    """The onFlowComplete hook (run even after a failure or a timeout)."""
    tags: list[str] = msgspec.field(default_factory=list)
    failure: Failure | None = None
    screenshots: list[Shot] = msgspec.field(default_factory=list)
    end_screen: EndScreen | None = None


class DeviceReport(ReportStruct):
    id: str
    tests: int = 0
    busy_ms: int = 0


class Summary(ReportStruct):
    tests: int
    passed: int
    failed: int
    errors: int
    devices: int
    duration_ms: int


class SuiteReport(ReportStruct):
    schema_version: Literal[1]
    tool: str
    hub: str
    started_at: str
    """UTC, ISO 8601."""
    summary: Summary
    devices: list[DeviceReport]
    tests: list[TestReport]


def summarize(tests: list[TestReport], devices: int, duration_ms: int) -> Summary:
    return Summary(
        tests=len(tests),
        passed=sum(t.status == "passed" for t in tests),
        failed=sum(t.status == "failed" for t in tests),
        errors=sum(t.status == "error" for t in tests),
        devices=devices,
        duration_ms=duration_ms,
    )


def encode_report(report: SuiteReport) -> bytes:
    return msgspec.json.format(msgspec.json.encode(report), indent=2) + b"\n"


def decode_report(data: bytes) -> SuiteReport:
    return msgspec.json.decode(data, type=SuiteReport, strict=True)


def write_index(report: SuiteReport, directory: Path) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "index.json"
    path.write_bytes(encode_report(report))
    return path


# ---- lockstep (one flow on several devices, step by step) ------------------------------------

LOCKSTEP_SCHEMA_VERSION: Literal[1] = 1


class DeviceOutcome(ReportStruct):
    """What one device did at one lockstep step, and the screen it showed afterwards."""

    device: str
    status: StepStatus
    elapsed_ms: int = 0
    message: str | None = None
    refusal: str | None = None
    """The hub's refusal code, when it refused the step."""
    markers: list[str] = msgspec.field(default_factory=list)
    """The screen names (``__screen_<name>`` markers) shown after the step."""
    elements: int = 0
    """How many elements with a text or label the screen showed after the step."""


class LockstepStep(ReportStruct):
    """One step, started on every device together (a barrier), and how the devices differ."""

    index: int
    """1-based, over the reset, onFlowStart, setup and the steps."""
    kind: str
    file: str
    line: int
    source: str
    outcomes: list[DeviceOutcome]
    differences: list[str] = msgspec.field(default_factory=list)
    """The semantic difference of the screens after the step that the previous step did not
    already show, one line each (``BUTTON 'Continue' missing on sim-ios``; ``id clock:
    '10:01' on sim-android, '10:02' on sim-ios``); outcomes that differ come first
    (``outcomes: passed on sim-android; failed on sim-ios (NODE_NOT_FOUND)``)."""
    persisting: int = 0
    """Differences still there from the previous step (not repeated in ``differences``)."""


class LockstepFlow(ReportStruct):
    name: str
    file: str
    devices: list[str]
    steps: list[LockstepStep]
    divergent_steps: int
    """Steps after which the devices' outcomes or screens differ in a way the step before
    did not show (a step with ``differences``)."""


class LockstepReport(ReportStruct):
    schema_version: Literal[1]
    tool: str
    hub: str
    started_at: str
    devices: list[str]
    flows: list[LockstepFlow]


def encode_lockstep(report: LockstepReport) -> bytes:
    return msgspec.json.format(msgspec.json.encode(report), indent=2) + b"\n"


def decode_lockstep(data: bytes) -> LockstepReport:
    return msgspec.json.decode(data, type=LockstepReport, strict=True)

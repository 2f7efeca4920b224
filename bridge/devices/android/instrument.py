"""What ``am instrument -w -r`` prints, parsed line by line (sans I/O).

Raw mode (``-r``) prints each status bundle as ``INSTRUMENTATION_STATUS: key=value`` lines
closed by ``INSTRUMENTATION_STATUS_CODE: n``, and the end as ``INSTRUMENTATION_RESULT:
key=value`` lines closed by ``INSTRUMENTATION_CODE: n``. ``INSTRUMENTATION_FAILED:`` (the
component does not exist) and ``INSTRUMENTATION_ABORTED:`` (the system gave up on it) end the
run too. A line without a known prefix continues the previous value (stack traces span lines)
or, before any key, is kept as a note (``Error: Unable to find instrumentation ...``).

The agent (``agents/android``, ``BridgeInstrumentation``) reports readiness as one status with
``mobridge.state=ready``, ``mobridge.socket``, ``mobridge.protocol`` and ``mobridge.version``,
code 1; a fatal error as ``mobridge.state=failed`` with ``mobridge.error``, code -1.

Invariants: at most ``MAX_VALUE`` characters per value and ``MAX_NOTES`` notes are kept (a
chatty process cannot grow memory); a line is never both a status and an end.
"""

from __future__ import annotations

from dataclasses import dataclass, field

MAX_VALUE = 4096
MAX_NOTES = 20

_STATUS = "INSTRUMENTATION_STATUS: "
_STATUS_CODE = "INSTRUMENTATION_STATUS_CODE: "
_RESULT = "INSTRUMENTATION_RESULT: "
_CODE = "INSTRUMENTATION_CODE: "
_FAILED = "INSTRUMENTATION_FAILED: "
_ABORTED = "INSTRUMENTATION_ABORTED: "


@dataclass(frozen=True)
class StatusReport:
    """One status bundle the instrumentation sent (``sendStatus``)."""

    code: int
    values: dict[str, str]


@dataclass(frozen=True)
class Ended:
    """The instrumentation finished, crashed or never started."""

    code: int | None
    values: dict[str, str]
    failure: str | None = None
    notes: tuple[str, ...] = ()

    def describe(self) -> str:
        if self.failure is not None:
            return self.failure
        for key in ("mobridge.error", "shortMsg", "Error", "longMsg"):
            if key in self.values:
                return f"{key}: {self.values[key]}"
        if self.notes:
            return self.notes[-1]
        return f"instrumentation finished with code {self.code}"


@dataclass(frozen=True)
class Ready:
    socket: str
    protocol: int
    version: str | None


@dataclass(frozen=True)
class StartFailed:
    reason: str


Event = StatusReport | Ended


def _int(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
        return None


@dataclass
class StatusLineParser:
    _status: dict[str, str] = field(default_factory=dict)
    _result: dict[str, str] = field(default_factory=dict)
    _target: dict[str, str] | None = None
    _key: str | None = None
    notes: list[str] = field(default_factory=list)

    def feed(self, line: str) -> list[Event]:
        line = line.rstrip("\r\n")
        if line.startswith(_STATUS_CODE):
            report = StatusReport(_int(line[len(_STATUS_CODE) :]) or 0, self._status)
            self._status, self._target, self._key = {}, None, None
            return [report]
        if line.startswith(_CODE):
            return [self._end(_int(line[len(_CODE) :]), None)]
        if line.startswith(_STATUS):
            self._put(self._status, line[len(_STATUS) :])
        elif line.startswith(_RESULT):
            self._put(self._result, line[len(_RESULT) :])
        elif line.startswith(_FAILED):
            return [self._end(None, "instrumentation failed: " + line[len(_FAILED) :])]
        elif line.startswith(_ABORTED):
            return [self._end(None, "instrumentation aborted: " + line[len(_ABORTED) :])]
        elif self._target is not None and self._key is not None:
            value = self._target[self._key] + "\n" + line
            self._target[self._key] = value[:MAX_VALUE]
        elif line.strip() and len(self.notes) < MAX_NOTES:
            self.notes.append(line.strip()[:MAX_VALUE])
        return []

    def eof(self) -> Ended:
        """The stream closed: whatever was said so far is the end."""
        return self._end(None, None)

    def _put(self, target: dict[str, str], body: str) -> None:
        key, sep, value = body.partition("=")
        if not sep:
            return
        target[key] = value[:MAX_VALUE]
        self._target, self._key = target, key

    def _end(self, code: int | None, failure: str | None) -> Ended:
        ended = Ended(code, dict(self._result), failure, tuple(self.notes))
        self._result, self._target, self._key = {}, None, None
        return ended


def readiness(report: StatusReport, socket_name: str, protocol: int) -> Ready | StartFailed | None:
    """Ready when the report says so for our socket and protocol; StartFailed when the agent
    reports a fatal error or speaks another protocol; None for any other status."""
    state = report.values.get("mobridge.state")
    if state is None and "Error" in report.values:
        return StartFailed("am instrument: " + report.values["Error"])
    if state == "failed":
        return StartFailed("agent failed: " + report.values.get("mobridge.error", "no reason"))
    if state != "ready":
        return None
    if report.values.get("mobridge.socket") != socket_name:
        return StartFailed(
            f"agent is ready on socket {report.values.get('mobridge.socket')!r}, "
            f"expected {socket_name!r}"
        )
    spoken = _int(report.values.get("mobridge.protocol", ""))
    if spoken != protocol:
        return StartFailed(f"agent speaks agent-link protocol {spoken}, the hub {protocol}")
    return Ready(socket_name, protocol, report.values.get("mobridge.version"))

"""``am instrument -w -r`` output: readiness, failures, crashes, noise; and the back-off."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bridge.devices.android.backoff import Backoff
from bridge.devices.android.instrument import (
    MAX_NOTES,
    Ended,
    Ready,
    StartFailed,
    StatusLineParser,
    StatusReport,
    readiness,
)


def _feed(lines: list[str]) -> tuple[list[StatusReport | Ended], StatusLineParser]:
    parser = StatusLineParser()
    events: list[StatusReport | Ended] = []
    for line in lines:
        events += parser.feed(line)
    return events, parser


READY = [
    "INSTRUMENTATION_STATUS: mobridge.state=ready\r",
    "INSTRUMENTATION_STATUS: mobridge.socket=mobridge-0a1b\r",
    "INSTRUMENTATION_STATUS: mobridge.protocol=1\r",
    "INSTRUMENTATION_STATUS: mobridge.version=0.1.0\r",
    "INSTRUMENTATION_STATUS_CODE: 1\r",
]


def test_readiness_status_is_parsed() -> None:
    events, _ = _feed(READY)
    assert len(events) == 1
    report = events[0]
    assert isinstance(report, StatusReport) and report.code == 1
    assert readiness(report, "mobridge-0a1b", 1) == Ready("mobridge-0a1b", 1, "0.1.0")


def test_readiness_for_another_socket_or_protocol_fails() -> None:
    (report,) = _feed(READY)[0]
    assert isinstance(report, StatusReport)
    wrong_socket = readiness(report, "mobridge-other", 1)
    assert isinstance(wrong_socket, StartFailed) and "mobridge-0a1b" in wrong_socket.reason
    wrong_protocol = readiness(report, "mobridge-0a1b", 2)
    assert isinstance(wrong_protocol, StartFailed) and "protocol 1" in wrong_protocol.reason
    other = StatusReport(0, {"current": "1"})
    assert readiness(other, "mobridge-0a1b", 1) is None


def test_agent_failure_status_and_result() -> None:
    events, _ = _feed(
        [
            "INSTRUMENTATION_STATUS: mobridge.state=failed",
            "INSTRUMENTATION_STATUS: mobridge.error=UiAutomation unavailable: IllegalState",
            "INSTRUMENTATION_STATUS_CODE: -1",
            "INSTRUMENTATION_RESULT: mobridge.state=failed",
            "INSTRUMENTATION_RESULT: mobridge.error=UiAutomation unavailable",
            "INSTRUMENTATION_CODE: -1",
        ]
    )
    report, ended = events
    assert isinstance(report, StatusReport)
    verdict = readiness(report, "x", 1)
    assert isinstance(verdict, StartFailed) and "UiAutomation unavailable" in verdict.reason
    assert isinstance(ended, Ended) and ended.code == -1
    assert ended.describe() == "mobridge.error: UiAutomation unavailable"


def test_crash_with_multiline_stack_and_missing_instrumentation() -> None:
    events, _ = _feed(
        [
            *READY,
            "INSTRUMENTATION_RESULT: shortMsg=Process crashed.",
            "INSTRUMENTATION_RESULT: longMsg=java.lang.NullPointerException: boom",
            "\tat dev.mobridge.agent.core.AgentServer.serve(AgentServer.java:88)",
            "INSTRUMENTATION_CODE: 0",
        ]
    )
    ended = events[-1]
    assert isinstance(ended, Ended) and ended.code == 0
    assert ended.describe() == "shortMsg: Process crashed."
    assert ended.values["longMsg"].endswith("(AgentServer.java:88)")
    missing, parser = _feed(
        [
            "INSTRUMENTATION_STATUS: Error=Unable to find instrumentation info for: X",
            "INSTRUMENTATION_STATUS_CODE: -1",
            "android.util.AndroidException: INSTRUMENTATION_FAILED: x/.Y",
        ]
    )
    assert isinstance(missing[0], StatusReport)
    verdict = readiness(missing[0], "s", 1)
    assert isinstance(verdict, StartFailed) and "Unable to find instrumentation" in verdict.reason
    assert "INSTRUMENTATION_FAILED" in parser.eof().describe()


def test_failed_and_aborted_lines_end_the_run() -> None:
    (failed,), _ = _feed(["INSTRUMENTATION_FAILED: dev.x/.Y"])
    assert isinstance(failed, Ended) and "dev.x/.Y" in failed.describe()
    (aborted,), _ = _feed(["INSTRUMENTATION_ABORTED: System has crashed."])
    assert isinstance(aborted, Ended) and "System has crashed" in aborted.describe()


@given(st.lists(st.text(max_size=200), max_size=100))
def test_noise_never_fakes_readiness_and_stays_bounded(lines: list[str]) -> None:
    events, parser = _feed(lines)
    for event in events:
        if isinstance(event, StatusReport):
            verdict = readiness(event, "mobridge-secret-name", 1)
            assert not isinstance(verdict, Ready) or any("mobridge-secret-name" in x for x in lines)
    assert len(parser.notes) <= MAX_NOTES


def test_backoff_doubles_caps_and_resets() -> None:
    b = Backoff(0.5, 4.0)
    assert [b.next_delay() for _ in range(6)] == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0]
    b.reset()
    assert b.next_delay() == 0.5
    with pytest.raises(ValueError):
        Backoff(0, 1)

"""Issue 42.1, one test per log source: a secret the hub typed reaches no log reader in any
decodable form, whichever source read the line (Android logcat, the iPhone's syslog, a
Simulator's ``log stream``, the simulated device, crash reports) and whatever filter the
reader set.

Each source's own parser turns device text into ``LogLine``s, which go through the hub's
``LogSubscription.offer`` (the one path every reader's lines take), so the test covers what a
subscriber is sent. The simulated device is covered end to end by ``mobridge logs`` as an
observer in tests/cli/test_cli_log_secrets.py.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any, cast
from urllib.parse import quote

import pytest

from bridge.core.log_lines import LogBacklog, make_filter
from bridge.core.secret_mask import MASK, SecretMasker
from bridge.devices.android.media import parse_crashes, parse_logcat
from bridge.devices.ios.iphone_media import syslog_line
from bridge.devices.ios.sim_media import parse_ndjson
from bridge.hub.log_stream import LogSubscription
from bridge.net.client_server import Session
from bridge.wire.device_media import LogLine

SECRET = "Pa\\ss'w0rd\"X"
FORMS = (
    SECRET,
    repr(SECRET)[1:-1],
    json.dumps(SECRET)[1:-1],
    quote(SECRET, safe=""),
    base64.b64encode(SECRET.encode()).decode().rstrip("="),
    SECRET.encode().hex(),
)


def _subscription(grep: str | None = None) -> LogSubscription:
    made = make_filter(None, None, grep)
    assert not isinstance(made, str)
    return LogSubscription(
        id="d:logs:1",
        session=cast(Session, None),  # offer() never touches the session
        device="d",
        filter=made,
        backlog=LogBacklog(100, 1 << 20),
    )


def _sent(lines: Sequence[LogLine], grep: str | None = None) -> str:
    masker = SecretMasker()
    masker.typed(SECRET)
    sub = _subscription(grep)
    sub.offer(lines, masker)
    return "\n".join(line.text for line in sub.backlog.lines)


def _assert_clean(text: str) -> None:
    for form in FORMS:
        assert form not in text, (form, text)


def test_android_logcat_lines_in_every_encoding() -> None:
    logcat = "\n".join(
        f"1764672000.{i:03d}  4242  4250 D OkHttp  : body {form}" for i, form in enumerate(FORMS)
    )
    lines = parse_logcat(logcat, {4242: "com.example.shop"}, 1)
    assert len(lines) == len(FORMS)
    text = _sent(lines)
    _assert_clean(text)
    assert text.count(MASK) == len(FORMS)


def test_a_logcat_line_cut_in_the_middle_of_the_secret() -> None:
    at = 5
    logcat = (
        f"1764672000.100  4242  4250 D Auth    : password={SECRET[:at]}\n"
        f"1764672000.101  4242  4250 D Auth    : {SECRET[at:]} (cont.)"
    )
    lines = parse_logcat(logcat, {}, 1)
    text = _sent(lines)
    _assert_clean(text.replace("\n", ""))
    assert SECRET[at:] not in text and SECRET[:at] not in text


def test_iphone_syslog_entries() -> None:
    class Entry:
        def __init__(self, message: str) -> None:
            self.pid = 77
            self.level = type("Level", (), {"name": "NOTICE"})()
            self.filename = "/var/App/Shop.app/Shop"
            self.message = message
            self.label = None

    lines = [syslog_line(cast(Any, Entry(f"login {form}")), n) for n, form in enumerate(FORMS)]
    _assert_clean(_sent(lines))


def test_simulator_log_stream_ndjson() -> None:
    lines = []
    for n, form in enumerate(FORMS):
        event = {"eventMessage": f"typed {form}", "messageType": "Default", "processID": 7}
        line = parse_ndjson(json.dumps(event), n)
        assert line is not None
        lines.append(line)
    _assert_clean(_sent(lines))


@pytest.mark.parametrize("guess", [r"Pa\\\\ss", "w0rd", r"Pa\\\\ss'w0", "UGFcc3M"])
def test_a_grep_cannot_probe_the_secret(guess: str) -> None:
    """The filter runs on the masked line: a guess of the secret matches nothing, so a reader
    cannot learn it one pattern at a time."""
    lines = parse_logcat(f"1764672000.100  1  1 D Auth    : pw {SECRET!r}", {}, 1)
    assert _sent(lines, grep=guess) == ""
    assert _sent(lines, grep="pw") != ""


def test_crash_reports_are_masked_by_the_hub() -> None:
    text = (
        "--------- beginning of crash\n"
        "1764672000.500  4242  4242 E AndroidRuntime: FATAL EXCEPTION: main\n"
        "1764672000.500  4242  4242 E AndroidRuntime: Process: com.example.shop, PID: 4242\n"
        "1764672000.500  4242  4242 E AndroidRuntime: "
        f"java.lang.IllegalStateException: {SECRET!r}\n"
    )
    reports = parse_crashes(text, None)
    masker = SecretMasker()
    masker.typed(SECRET)
    summary = masker.mask_text(reports[0].summary)
    _assert_clean(summary)
    assert "IllegalStateException" in summary

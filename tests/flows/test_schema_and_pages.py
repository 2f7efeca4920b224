"""The generated schemas are current and say what the loader says (the examples pass, a
flow with an unknown key fails); reports escape whatever a flow or the hub put in them."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import jsonschema
import yaml

from bridge.flows.html import render_html
from bridge.flows.junit import junit_xml
from bridge.flows.report import (
    REPORT_SCHEMA_VERSION,
    Failure,
    Refusal,
    StepReport,
    SuiteReport,
    decode_report,
    encode_report,
    summarize,
)
from bridge.flows.report import (
    TestReport as FlowTest,
)
from bridge.flows.schema import generate, main

ROOT = Path(__file__).resolve().parents[2]
FLOW_SCHEMA = ROOT / "protocol" / "flows" / "flow.schema.json"


def test_the_checked_in_schemas_match_the_types() -> None:
    assert main(["--check"]) == 0
    for name, text in generate().items():
        assert (ROOT / "protocol" / "flows" / name).read_text() == text


def test_editors_get_the_same_answer_as_the_loader() -> None:
    validator = jsonschema.Draft202012Validator(json.loads(FLOW_SCHEMA.read_text()))
    files = sorted((ROOT / "examples" / "flows").rglob("*.yaml"))
    assert len(files) == 8
    for path in files:
        # JSON keys are strings: ``true:`` (a when test) is the key "true", as editors read it
        header, steps = (_string_keys(d) for d in yaml.safe_load_all(path.read_text()))
        assert not list(validator.iter_errors(header)), path
        assert not list(validator.iter_errors(steps)), path
    assert list(validator.iter_errors([{"tap": {"txt": "Login"}}]))
    assert list(validator.iter_errors([{"tap": "Login", "nth": 1}]))
    assert list(validator.iter_errors([{"tapp": "Login"}]))
    assert list(validator.iter_errors({"appId": "x", "retries": 3}))
    assert not list(validator.iter_errors(["launchApp", {"swipe": "up"}]))
    assert not list(validator.iter_errors([{"tap": "OK", "optional": True, "when": {"true": "x"}}]))
    assert list(validator.iter_errors([{"tap": "OK", "optinal": True}]))
    assert list(validator.iter_errors([{"repeat": {"times": 1001, "commands": []}}]))
    assert list(validator.iter_errors([{"retry": {"commands": [{"tapp": "x"}]}}]))
    assert not list(
        validator.iter_errors([{"expectRefusal": {"code": "AMBIGUOUS_MATCH", "commands": []}}])
    )
    assert list(validator.iter_errors({"appId": "x", "onFlowStart": [{"tapp": "x"}]}))


def _string_keys(data: object) -> object:
    if isinstance(data, dict):
        return {
            (str(k).lower() if isinstance(k, bool) else k): _string_keys(v) for k, v in data.items()
        }
    if isinstance(data, list):
        return [_string_keys(v) for v in data]
    return data


def hostile_report() -> SuiteReport:
    evil = '<script>alert("x")</script> & "quotes"'
    step = StepReport(
        index=1,
        kind="tap",
        file="evil.yaml",
        line=3,
        source=f"tap: {evil}",
        status="failed",
        message=evil,
        refusal=Refusal(code="NODE_NOT_FOUND", message=evil, recovery=[evil]),
    )
    test = FlowTest(
        name=evil,
        file="evil.yaml",
        device="sim-android",
        status="failed",
        duration_ms=5,
        steps=[step],
        failure=Failure(message=evil, at="evil.yaml:3", kind="tap"),
    )
    return SuiteReport(
        schema_version=REPORT_SCHEMA_VERSION,
        tool="mobridge test",
        hub="ws://127.0.0.1:1/v1",
        started_at="2026-01-01T00:00:00.000Z",
        summary=summarize([test], 1, 5),
        devices=[],
        tests=[test],
    )


def test_reports_escape_text_from_flows_and_the_hub(tmp_path: Path) -> None:
    report = hostile_report()
    page = render_html(report, tmp_path)
    assert "<script>" not in page and "&lt;script&gt;" in page
    root = ET.fromstring(junit_xml(report))
    case = root.find("./testsuite/testcase")
    assert case is not None and case.get("name") == report.tests[0].name
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "NODE_NOT_FOUND"
    assert decode_report(encode_report(report)) == report

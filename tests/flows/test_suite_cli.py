"""``mobridge test`` as a person or CI runs it (a real subprocess with its embedded hub): the
example suite on one and on two simulated devices at once, its three reports (index.json
validated against protocol/flows/report.schema.json, JUnit XML parsed, index.html opened in
Chromium showing the failure screenshot), and the exit statuses 0 / 1 / 2.

Report pages are saved to ``$MOBRIDGE_TEST_OUTPUT/flows/`` (default ``test-output/flows/``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import pytest

from bridge.flows.report import StepReport, SuiteReport, decode_lockstep, decode_report
from bridge.flows.report import TestReport as FlowReport
from tests.cli.hubproc import ROOT, clean_env, mobridge_command
from tests.docs.docblocks import blocks_of, doc_files
from tests.skips import CHROMIUM, need_chromium

EXAMPLES = ROOT / "examples" / "flows"
OUTPUT = Path(os.environ.get("MOBRIDGE_TEST_OUTPUT", ROOT / "test-output")) / "flows"
SUMMARY = re.compile(r"^7 tests on (\d) devices? in ([0-9.]+) s: 6 passed, 1 failed, 0 errors$")


@dataclass
class SuiteRun:
    result: subprocess.CompletedProcess[str]
    report_dir: Path
    junit: Path

    @property
    def report(self) -> SuiteReport:
        return decode_report((self.report_dir / "index.json").read_bytes())


def run_test_command(
    tmp: Path, *args: str, timeout: float = 180
) -> subprocess.CompletedProcess[str]:
    env = clean_env(tmp / "runtime", MOBRIDGE_SECRET_DEMO_PASSWORD="s3cret-value")
    (tmp / "runtime").mkdir(mode=0o700, exist_ok=True)
    return subprocess.run(
        mobridge_command("test", *args),
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=timeout,
        check=False,
    )


DOCUMENTED = "run as written by tests/flows/test_suite_cli.py"
"""The docs mark the example-suite runs they show as run here (``<!-- docs: not run: ... -->``):
this module runs each such line as written, checks the exit status its comment names, and then
checks the reports it wrote in depth (the docs test would only have run them a second time)."""
PASSWORD = "any-password"  # the documented runs' MOBRIDGE_SECRET_DEMO_PASSWORD


def documented_run(tmp: Path, *needles: str) -> SuiteRun:
    """Run the one documented ``mobridge test`` line that holds every needle (the same line
    wherever several docs show it), as a reader would: ``sh -c`` in a scratch checkout with
    ``mobridge`` on PATH. Its reports land in ``report/`` there (the docs say so)."""
    found = {
        (command.partition("#")[0].strip(), expected)  # the same line, whatever its comment
        for path in doc_files()
        for block in blocks_of(path)
        if block.not_run is not None and DOCUMENTED in block.not_run
        for command, expected in block.commands()
        if all(n in command for n in needles)
    }
    assert len(found) == 1, (needles, found)
    ((command, expected),) = found
    assert f"MOBRIDGE_SECRET_DEMO_PASSWORD={PASSWORD} mobridge test examples/flows" in command
    work = tmp / "work"
    work.mkdir()
    (work / "examples").symlink_to(ROOT / "examples")
    (tmp / "runtime").mkdir(mode=0o700, exist_ok=True)
    env = clean_env(tmp / "runtime")
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    result = subprocess.run(
        ["sh", "-c", command],
        capture_output=True,
        text=True,
        cwd=work,
        env=env,
        timeout=300,
        check=False,
    )
    assert result.returncode == expected, (command, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr, result.stderr
    return SuiteRun(result, work / "report", work / "report" / "junit.xml")


RUNS = {
    "one device": ("examples/flows --report",),
    "two devices": ("--sims 2 --report",),
    "lockstep": ("--lockstep --sims 2 --sim-platform android,ios",),
}
"""The needles that pick each documented run (the fixtures and the lockstep test below)."""


def test_every_documented_run_is_one_of_the_runs_checked_here() -> None:
    marked = {
        command.partition("#")[0].strip()
        for path in doc_files()
        for block in blocks_of(path)
        if block.not_run is not None and DOCUMENTED in block.not_run
        for command, _ in block.commands()
    }
    picked = {
        command
        for needles in RUNS.values()
        for command in marked
        if all(n in command for n in needles)
    }
    assert len(marked) == len(RUNS) and picked == marked, marked


@pytest.fixture(scope="module")
def one_device(tmp_path_factory: pytest.TempPathFactory) -> SuiteRun:
    return documented_run(tmp_path_factory.mktemp("one"), *RUNS["one device"])


@pytest.fixture(scope="module")
def two_devices(tmp_path_factory: pytest.TempPathFactory) -> SuiteRun:
    return documented_run(tmp_path_factory.mktemp("two"), *RUNS["two devices"])


def outline(test: FlowReport) -> list[str]:
    """A test's report in the form of ``examples/flows/expected/*.txt``."""

    def lines(part: str, steps: list[StepReport], depth: int) -> list[str]:
        out: list[str] = []
        for s in steps:
            line = f"{part} {'  ' * depth}{s.index} {s.kind} {s.status}"
            if s.refusal is not None:
                line += f" ({s.refusal.code})"
            if s.message and (s.status == "skipped" or s.kind in ("repeat", "retry")):
                line += f" - {s.message}"
            out.append(line)
            out.extend(lines(part, s.steps, depth + 1))
        return out

    return [
        f"status {test.status}",
        *lines("setup", test.setup, 0),
        *lines("steps", test.steps, 0),
        *lines("teardown", test.teardown, 0),
    ]


def expected_outline(name: str) -> list[str]:
    text = (EXAMPLES / "expected" / f"{name}.txt").read_text()
    return [line for line in text.splitlines() if line and not line.startswith("#")]


def check_run(run: SuiteRun, devices: int) -> SuiteReport:
    out = run.result.stdout
    assert run.result.returncode == 1, (out, run.result.stderr)  # 03 must fail
    summary = out.strip().splitlines()[-3]
    found = SUMMARY.match(summary)
    assert found is not None and int(found.group(1)) == devices, out
    report = run.report
    assert report.summary.tests == 7 and report.summary.devices == devices
    assert [t.status for t in report.tests] == [
        "passed",
        "passed",
        "failed",
        "passed",
        "passed",
        "passed",
        "passed",
    ]
    control = report.tests[6]
    assert control.file.endswith("07_control_flow.yaml") and control.tags == [
        "smoke",
        "control-flow",
    ]
    assert outline(control) == expected_outline("07_control_flow")
    assert PASSWORD not in (run.report_dir / "index.json").read_text()
    assert PASSWORD not in (run.report_dir / "index.html").read_text()
    return report


def test_the_example_suite_on_one_simulated_device(one_device: SuiteRun) -> None:
    report = check_run(one_device, 1)
    assert {t.device for t in report.tests} == {"sim-android"}
    assert report.devices[0].tests == 7
    print(f"one device: {report.summary.duration_ms} ms for {report.summary.tests} tests")


def test_the_example_suite_on_two_simulated_devices_at_once(two_devices: SuiteRun) -> None:
    report = check_run(two_devices, 2)
    by_device = {d.id: d.tests for d in report.devices}
    assert set(by_device) == {"sim-android", "sim-android-2"}
    assert all(n >= 1 for n in by_device.values()) and sum(by_device.values()) == 7
    # the devices worked at the same time: some tests on different devices overlap
    spans = [(t.device, t.started_ms, t.started_ms + t.duration_ms) for t in report.tests]
    overlap = any(
        a[0] != b[0] and a[1] < b[2] and b[1] < a[2] for a in spans for b in spans if a is not b
    )
    assert overlap, spans
    print(f"two devices: {report.summary.duration_ms} ms for {report.summary.tests} tests")


def test_the_json_report_validates_against_its_schema(two_devices: SuiteRun) -> None:
    schema = json.loads((ROOT / "protocol/flows/report.schema.json").read_text())
    document = json.loads((two_devices.report_dir / "index.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(document)
    ambiguous = next(t for t in document["tests"] if t["file"].endswith("03_ambiguous_tap.yaml"))
    failed = next(s for s in ambiguous["steps"] if s["status"] == "failed")
    assert failed["line"] == 10 and failed["source"] == "tap: Continue"
    refusal = failed["refusal"]
    assert refusal["code"] == "AMBIGUOUS_MATCH" and refusal["recovery"]
    labels = [(c["role"], c["label"]) for c in refusal["candidates"]]
    assert labels == [("BUTTON", "Continue"), ("BUTTON", "Continue")]
    assert {"text:Basic plan" in c["where"] for c in refusal["candidates"]} == {True, False}
    assert [s["status"] for s in ambiguous["steps"]] == ["passed", "passed", "failed", "skipped"]
    shot = ambiguous["failure"]["screenshot"]
    png = (two_devices.report_dir / shot["file"]).read_bytes()
    assert png.startswith(b"\x89PNG") and len(png) == shot["bytes"]
    login = document["tests"][0]
    assert login["endScreen"]["markers"] == ["home"]
    assert all(s["elapsedMs"] >= 0 for s in login["steps"])
    assert login["steps"][4]["actionResult"]["dispatch"]["status"] == "DISPATCHED"
    called = document["tests"][5]["steps"][0]
    assert called["kind"] == "runFlow" and [s["kind"] for s in called["steps"]] == [
        "tap",
        "inputText",
        "inputText",
        "tap",
        "assertScreen",
    ]


def test_the_junit_xml_parses_with_one_failure(two_devices: SuiteRun) -> None:
    root = ET.parse(two_devices.junit).getroot()
    assert root.tag == "testsuites" and root.get("tests") == "7" and root.get("failures") == "1"
    cases = root.findall("./testsuite/testcase")
    assert len(cases) == 7
    failures = [c for c in cases if c.find("failure") is not None]
    assert [c.get("file") for c in failures] == ["examples/flows/03_ambiguous_tap.yaml"]
    failure = failures[0].find("failure")
    assert failure is not None and failure.get("type") == "AMBIGUOUS_MATCH"
    assert "03_ambiguous_tap.yaml:10" in (failure.get("message") or "")
    devices = {p.get("value") for p in root.iter("property") if p.get("name") == "device"}
    assert devices == {"sim-android", "sim-android-2"}
    assert all(float(c.get("time") or "0") > 0 for c in cases)
    dialog = next(c for c in cases if c.get("file") == "examples/flows/05_dialog.yaml")
    out = dialog.find("system-out")
    assert out is not None and out.text is not None
    # a multi-line step is shown as its YAML, indented under its outcome line
    assert "    tap:\n      text: OK\n      within: {role: DIALOG}\n      verify:" in out.text


@need_chromium
@pytest.mark.anyio
async def test_the_html_report_shows_the_failure_screenshot_in_chromium(
    two_devices: SuiteRun,
) -> None:
    from playwright import async_api

    page_file = two_devices.report_dir / "index.html"
    html = page_file.read_text()
    assert "<script" not in html and 'src="http' not in html  # self-contained
    OUTPUT.mkdir(parents=True, exist_ok=True)
    async with async_api.async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--no-first-run"]
        )
        try:
            tab = await browser.new_page(viewport={"width": 1366, "height": 900})
            requests: list[str] = []
            tab.on("request", lambda r: requests.append(r.url))
            await tab.goto(page_file.as_uri())
            expect = async_api.expect
            await expect(tab.get_by_test_id("summary")).to_have_text(
                "7 tests: 6 passed, 1 failed, 0 errors"
            )
            failed = tab.locator('[data-testid="test"][data-status="failed"]')
            await expect(failed).to_have_count(1)
            await expect(failed).to_contain_text("03_ambiguous_tap.yaml")
            box = failed.get_by_test_id("failure")
            await expect(box.get_by_test_id("candidates").locator("tr")).to_have_count(3)
            await expect(box.get_by_test_id("candidates")).to_contain_text("text:Basic plan")
            await expect(box.get_by_test_id("recovery")).to_be_visible()
            image = failed.get_by_test_id("failure-screenshot").locator("img")
            await expect(image).to_be_visible()
            width = await image.evaluate("img => img.complete ? img.naturalWidth : 0")
            assert width == 1080
            await failed.scroll_into_view_if_needed()
            await tab.screenshot(path=str(OUTPUT / "report-failure.png"), full_page=False)
            await expect(tab.locator('[data-testid="test"][data-status="passed"]')).to_have_count(6)
            assert all(u.startswith(("file:", "data:")) for u in requests), requests
        finally:
            await browser.close()


def test_bad_input_exits_2_naming_file_and_line_and_runs_nothing(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("appId: dev.mobridge.demo\n---\n- tap: Login\n- tapp: Sign in\n")
    result = run_test_command(tmp_path, str(bad), "--report", str(tmp_path / "r"))
    assert result.returncode == 2
    assert f"{bad}:4:3: unknown step 'tapp'; did you mean 'tap'?" in result.stderr
    assert "1 mistake; nothing ran" in result.stderr
    assert not (tmp_path / "r").exists() and result.stdout == ""
    missing = run_test_command(tmp_path, str(tmp_path / "nope"))
    assert missing.returncode == 2 and "nope: no such file or directory" in missing.stderr


def test_a_passing_suite_exits_0_and_device_choice_is_checked(tmp_path: Path) -> None:
    ok = run_test_command(
        tmp_path, "examples/flows/04_ambiguous_within.yaml", "examples/flows/05_dialog.yaml"
    )
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert ok.stdout.strip().splitlines()[-1].startswith("2 tests on 1 device in ")
    unknown = run_test_command(tmp_path, "examples/flows/05_dialog.yaml", "--device", "phone-9")
    assert unknown.returncode == 2
    assert "--device phone-9: not an online device; devices: sim-android (online)" in (
        unknown.stderr
    )


def test_lockstep_on_an_android_and_an_ios_device_names_their_differences(
    tmp_path: Path,
) -> None:
    run = documented_run(tmp_path, *RUNS["lockstep"])
    result, report_dir, junit = run.result, run.report_dir, run.junit
    out = result.stdout
    assert result.returncode == 1, (out, result.stderr)  # 03 fails on both, on purpose
    assert "14 tests on 2 devices" in out and "12 passed, 2 failed" in out, out
    assert "LOCKSTEP examples/flows/07_control_flow.yaml on sim-android, sim-ios" in out
    divergence = decode_lockstep((report_dir / "lockstep.json").read_bytes())
    schema = json.loads((ROOT / "protocol/flows/lockstep.schema.json").read_text())
    jsonschema.Draft202012Validator(schema).validate(
        json.loads((report_dir / "lockstep.json").read_text())
    )
    assert divergence.devices == ["sim-android", "sim-ios"]
    control = next(f for f in divergence.flows if f.file.endswith("07_control_flow.yaml"))
    settings = next(s for s in control.steps if s.source == "tap: Settings")
    # the Android flavour draws each switch as a checkbox beside a text, iOS as a labelled switch
    assert "SWITCH 'Wi-Fi' missing on sim-android" in settings.differences
    assert "CHECKBOX 'Wi-Fi' missing on sim-ios" in settings.differences
    assert [o.status for o in settings.outcomes] == ["passed", "passed"]
    dialog = next(s for s in control.steps if s.source.startswith("tap: Dialog"))
    assert [(o.device, o.status) for o in dialog.outcomes] == [
        ("sim-android", "skipped"),
        ("sim-ios", "passed"),
    ]
    assert dialog.differences[0].startswith("outcomes: skipped on sim-android")
    assert control.divergent_steps >= 2
    ambiguous = next(f for f in divergence.flows if f.file.endswith("03_ambiguous_tap.yaml"))
    refused = next(s for s in ambiguous.steps if s.source == "tap: Continue")
    assert {o.refusal for o in refused.outcomes} == {"AMBIGUOUS_MATCH"}
    page = (report_dir / "lockstep.html").read_text()
    assert "SWITCH &#x27;Wi-Fi&#x27; missing on sim-android" in page and "<script" not in page
    cases = ET.parse(junit).getroot().findall("./testsuite/testcase")
    assert len(cases) == 14  # one per device per flow
    devices = [
        p.get("value") for c in cases for p in c.iter("property") if p.get("name") == "device"
    ]
    assert devices.count("sim-android") == 7 and devices.count("sim-ios") == 7


def test_tags_select_the_tests(tmp_path: Path) -> None:
    result = run_test_command(
        tmp_path, "examples/flows", "--include-tags", "smoke", "--exclude-tags", "login"
    )
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert "1 test on 1 device" in result.stdout and "07_control_flow.yaml" in result.stdout
    none = run_test_command(tmp_path, "examples/flows", "--include-tags", "nothing-has-this")
    assert none.returncode == 2 and "no test left to run after --include-tags" in none.stderr

"""JUnit XML for CI systems: one ``<testsuite>``, one ``<testcase>`` per flow.

A failed test has a ``<failure>`` (message: the failing step; type: the refusal code or the
step kind; text: the step lines), a test that could not run an ``<error>``. The device that
ran a test is a ``<property name="device">``; every step is a line of ``<system-out>``.
Built with ElementTree, so any text is escaped.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from bridge.flows.report import StepReport, SuiteReport, TestReport


def _seconds(ms: int) -> str:
    return f"{ms / 1000:.3f}"


def _step_lines(steps: list[StepReport], depth: int = 0) -> list[str]:
    """One line per step (status, place, elapsed, message), then the step as written in the
    file: a multi-line step is shown as its YAML, indented under its line."""
    lines: list[str] = []
    for step in steps:
        pad = "  " * depth
        source = step.source.splitlines() if step.source else [step.kind]
        note = f" - {step.message}" if step.message else ""
        if step.label:
            note = f" [{step.label}]{note}"
        note += "".join(f" ({n})" for n in step.notes)
        lines.append(
            f"{pad}{step.status.upper():9} {step.file}:{step.line} ({step.elapsed_ms} ms){note}"
        )
        lines.extend(f"{pad}    {line}" for line in source)
        lines.extend(_step_lines(step.steps, depth + 1))
    return lines


def _classname(test: TestReport) -> str:
    path = Path(test.file)
    return ".".join([*path.parent.parts, path.stem]) or path.stem


def junit_xml(report: SuiteReport) -> bytes:
    s = report.summary
    root = ET.Element(
        "testsuites",
        name="mobridge",
        tests=str(s.tests),
        failures=str(s.failed),
        errors=str(s.errors),
        time=_seconds(s.duration_ms),
    )
    suite = ET.SubElement(
        root,
        "testsuite",
        name="mobridge flows",
        tests=str(s.tests),
        failures=str(s.failed),
        errors=str(s.errors),
        skipped="0",
        time=_seconds(s.duration_ms),
        timestamp=report.started_at.removesuffix("Z"),
    )
    for test in report.tests:
        case = ET.SubElement(
            suite,
            "testcase",
            name=test.name,
            classname=_classname(test),
            file=test.file,
            time=_seconds(test.duration_ms),
        )
        props = ET.SubElement(case, "properties")
        ET.SubElement(props, "property", name="device", value=test.device or "")
        lines = _step_lines(test.setup + test.steps + test.teardown)
        if test.failure is not None:
            tag = "error" if test.status == "error" else "failure"
            code = _refusal_code(test.setup + test.steps + test.teardown)
            element = ET.SubElement(
                case,
                tag,
                message=f"{test.failure.at}: {test.failure.message}",
                type=code or test.failure.kind,
            )
            element.text = "\n".join(lines)
        out = ET.SubElement(case, "system-out")
        out.text = "\n".join(lines)
    ET.indent(root)
    text: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return text + b"\n"


def _refusal_code(steps: list[StepReport]) -> str | None:
    for step in steps:
        if step.refusal is not None and step.status == "failed":
            return step.refusal.code
        inner = _refusal_code(step.steps)
        if inner is not None:
            return inner
    return None


def write_junit(report: SuiteReport, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(junit_xml(report))
    return path
